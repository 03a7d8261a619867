"""The command intake's own broker connection: a lean MQTT reader on an asyncio transport.

Why not paho: its Python path costs ~145 µs a message (packet objects, locks, callbacks), so the
daemon read ~2,700 messages a second and a flood of 10,000 bad commands a second overran the
broker's queue for the table (Mosquitto: "Outgoing messages are being dropped"). This reader
takes the socket's bytes in chunks of up to 256 KiB, cuts each PUBLISH into slices of one
``bytes`` (topic, payload, raw v5 properties) and hands them to one synchronous callback (the
command gate, daemon/command_gate.py), which refuses most of a flood in a few microseconds; the
PUBACKs of a chunk go out in one write. docs/performance.md "Commands under a flood" has the
figures.

Bounded: a packet longer than :data:`BUFFER_LIMIT` is never held whole: its first
:data:`HEAD_BYTES` give the topic and properties, the rest is skipped as it arrives. The reader
never publishes: replies go out on the table's main connection (daemon/mqtt.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import socket
import time
from collections.abc import Callable
from typing import Any, Final

from daemon import mqtt_wire as wire
from daemon.errors import BrokerError
from daemon.mqtt_paho import Connect

log = logging.getLogger("jantaku.mqtt")

#: a packet longer than this is not buffered whole (a command is at most 64 KiB)
BUFFER_LIMIT: Final = 128 * 1024
#: of a longer packet, this much is read for its topic and properties, the rest skipped
HEAD_BYTES: Final = 96 * 1024

#: the callback: ``(topic, payload, retain, raw v5 properties or None, payload length)``;
#: ``payload`` is ``b""`` and the length the real one for a packet too long to buffer
OnPublish = Callable[[bytes, bytes, bool, "bytes | None", int], None]


class _Reader(asyncio.Protocol):
    """Cuts the byte stream into packets; PUBLISHes go to the session's callback."""

    def __init__(self, session: LeanSession) -> None:
        self.s = session
        self.transport: asyncio.Transport | None = None
        self._rest = b""
        self._skip = 0  # bytes of a packet too long to buffer still to be discarded

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def connection_lost(self, exc: Exception | None) -> None:
        self.s._lost(exc)

    def data_received(self, data: bytes) -> None:
        self.s.last_read = time.monotonic()
        self.s.bytes_read += len(data)
        if self._skip:
            if len(data) <= self._skip:
                self._skip -= len(data)
                return
            data, self._skip = data[self._skip:], 0
        if self._rest:
            data, self._rest = self._rest + data, b""
        try:
            self._cut(data)
        except (wire.ProtocolError, IndexError) as exc:
            self.s._fail(wire.ProtocolError(f"not MQTT from the broker: {exc}"))

    def _cut(self, data: bytes) -> None:
        n, at = len(data), 0
        acks: list[bytes] = []
        v5, deliver = self.s.v5, self.s.on_publish
        while n - at >= 2:
            first = data[at]
            if data[at + 1] < 0x80:
                length, body = data[at + 1], at + 2
            else:
                got = wire.read_varint(data, at + 1)
                if got is None:
                    break
                length, body = got
            end = body + length
            if length > BUFFER_LIMIT:
                if n - body < HEAD_BYTES:
                    break  # wait for the head
                self._too_long(first, data[body:body + HEAD_BYTES], length, acks)
                if end > n:
                    self._skip, at = end - n, n
                    break
                at = end
                continue
            if end > n:
                break
            if first & 0xF0 == wire.PUBLISH:
                j = body + 2 + ((data[body] << 8) | data[body + 1])
                topic = data[body + 2:j]
                qos = (first >> 1) & 3
                if qos:
                    if qos == 2:
                        raise wire.ProtocolError("a QoS 2 PUBLISH on a QoS 1 subscription")
                    acks.append(b"\x40\x02" + data[j:j + 2])
                    j += 2
                props = None
                if v5:
                    plen = data[j]
                    if plen < 0x80:
                        j += 1
                    else:
                        got = wire.read_varint(data, j)
                        if got is None:
                            raise wire.ProtocolError("a PUBLISH cut inside its properties")
                        plen, j = got
                    if plen:
                        props, j = data[j:j + plen], j + plen
                if j > end:
                    raise wire.ProtocolError("a PUBLISH longer than its remaining length")
                deliver(topic, data[j:end], bool(first & 1), props, end - j)
            else:
                self.s._control(first, data[body:end])
            at = end
        if at < n:
            self._rest = data[at:]
        if acks and self.transport is not None:
            self.transport.write(b"".join(acks))

    def _too_long(self, first: int, head: bytes, length: int, acks: list[bytes]) -> None:
        """A packet longer than :data:`BUFFER_LIMIT`: its topic and properties from its head
        where they fit in it, the payload's length, and no payload."""
        if first & 0xF0 != wire.PUBLISH:
            raise wire.ProtocolError(f"a {length}-byte packet of type {first >> 4}")
        j = 2 + ((head[0] << 8) | head[1])
        topic = head[2:j]
        if (first >> 1) & 3:
            acks.append(b"\x40\x02" + head[j:j + 2])
            j += 2
        props = None
        if self.s.v5 and j < len(head):
            got = wire.read_varint(head, j)
            if got is not None and got[1] + got[0] <= len(head):
                props, j = head[got[1]:got[1] + got[0]] or None, got[1] + got[0]
        if j > len(head):  # the topic alone is longer than the head: not a command topic
            topic, j = b"", len(head)
        self.s.on_publish(topic, b"", bool(first & 1), props, length - j)


class LeanSession:
    """One connection (``async with``): connected on enter, disconnected on exit; every PUBLISH
    received goes to ``on_publish`` on the loop's thread, in order."""

    def __init__(self, spec: Connect, on_publish: OnPublish) -> None:
        if spec.transport != "tcp":
            raise BrokerError("the command intake connects over TCP (or TLS) only")
        self.spec = spec
        self.v5 = spec.v5
        self.on_publish = on_publish
        self._loop = asyncio.get_running_loop()
        self._reader: _Reader | None = None
        self._connack: asyncio.Future[int] = self._loop.create_future()
        self._subacks: dict[int, asyncio.Future[list[int]]] = {}
        self._closed: asyncio.Future[None] = self._loop.create_future()
        self._ids = itertools.count(1)
        self._pinger: asyncio.Task[None] | None = None
        self.last_read = time.monotonic()
        self.bytes_read = 0

    async def __aenter__(self) -> LeanSession:
        s = self.spec
        try:
            async with asyncio.timeout(s.timeout):
                _, reader = await self._loop.create_connection(
                    lambda: _Reader(self), s.host, s.port, ssl=s.tls,
                    server_hostname=s.host if s.tls is not None else None)
                self._reader = reader
                self._tune()
                self._write(wire.connect(s.client_id, v5=s.v5, keepalive=s.keepalive,
                                         username=s.username, password=s.password))
                code = await self._until(self._connack)
        except BrokerError:
            self._abort()
            raise
        except TimeoutError:
            self._abort()
            raise BrokerError(f"no CONNACK from {s.host}:{s.port} within {s.timeout} s") from None
        except OSError as exc:
            self._abort()
            raise BrokerError(f"cannot connect to {s.host}:{s.port}: {exc}") from None
        if code != 0:
            self._abort()
            raise BrokerError(f"the broker refused the connection: code {code:#x}")
        self._pinger = self._loop.create_task(self._keepalive(), name="mqtt-intake-ping")
        return self

    async def __aexit__(self, *exc: object) -> None:
        with contextlib.suppress(BrokerError, OSError):
            self._write(wire.disconnect())
        self._abort()

    def _tune(self) -> None:
        transport = self._transport()
        sock = transport.get_extra_info("socket")
        if isinstance(sock, socket.socket):
            for option in self.spec.socket_options:
                with contextlib.suppress(OSError):
                    sock.setsockopt(*option)

    def _transport(self) -> asyncio.Transport:
        if self._reader is None or self._reader.transport is None:
            raise BrokerError("the command intake is not connected")
        return self._reader.transport

    def _write(self, data: bytes) -> None:
        transport = self._transport()
        if transport.is_closing():
            raise BrokerError("the command intake's connection is closing")
        transport.write(data)

    async def subscribe(self, filters: list[tuple[str, int]]) -> list[int]:
        """Subscribe (``(filter, options)``) and wait for the SUBACK: the granted QoS of each
        (a refusal, code >= 0x80, raises)."""
        pid = next(self._ids) % 65535 + 1
        fut: asyncio.Future[list[int]] = self._loop.create_future()
        self._subacks[pid] = fut
        self._write(wire.subscribe(pid, filters, v5=self.v5))
        codes: list[int] = await self._until(fut)
        refused = [f for (f, _), c in zip(filters, codes) if c >= 0x80]
        if refused or len(codes) != len(filters):
            raise BrokerError(f"subscription refused: {refused or codes}")
        return codes

    async def wait_closed(self) -> None:
        """Until the connection ends; raises :class:`BrokerError` saying why."""
        await asyncio.shield(self._closed)

    async def _until(self, fut: asyncio.Future[Any]) -> Any:
        done, _ = await asyncio.wait((fut, self._closed), return_when=asyncio.FIRST_COMPLETED)
        if fut in done:
            return fut.result()
        fut.cancel()
        self._closed.result()  # raises: why the connection ended
        raise BrokerError("the connection closed")

    async def _keepalive(self) -> None:
        """A PINGREQ every ``keepalive`` seconds; a broker silent for two of them is gone."""
        every = max(1.0, float(self.spec.keepalive))
        while not self._closed.done():
            await asyncio.sleep(every)
            if time.monotonic() - self.last_read > 2 * every + 1:
                self._fail(BrokerError(f"nothing from the broker for {2 * every + 1:.0f} s"))
                return
            with contextlib.suppress(BrokerError):
                self._write(wire.PINGREQ_PACKET)

    # ------------------------------------------------------------------ from the reader
    def _control(self, first: int, body: bytes) -> None:
        kind = first & 0xF0
        if kind == wire.CONNACK:
            if not self._connack.done():
                self._connack.set_result(wire.connack(body, v5=self.v5))
        elif kind == wire.SUBACK:
            pid, codes = wire.suback(body, v5=self.v5)
            fut = self._subacks.pop(pid, None)
            if fut is not None and not fut.done():
                fut.set_result(codes)
        elif kind == wire.DISCONNECT:
            code = body[0] if body else 0
            self._fail(BrokerError(f"the broker disconnected the command intake: code {code:#x}"))
        elif kind != wire.PINGRESP:
            raise wire.ProtocolError(f"an unexpected packet of type {first >> 4}")

    def _fail(self, exc: BrokerError) -> None:
        if not self._closed.done():
            self._closed.set_exception(exc)
            self._closed.exception()  # retrieved: nobody may be waiting
        if self._reader is not None and self._reader.transport is not None:
            self._reader.transport.abort()

    def _lost(self, exc: Exception | None) -> None:
        why = f": {exc}" if exc is not None else ""
        self._fail(BrokerError(f"the command intake's connection closed{why}"))

    def _abort(self) -> None:
        if self._pinger is not None:
            self._pinger.cancel()
            self._pinger = None
        self._fail(BrokerError("connection closed"))
        for fut in self._subacks.values():
            fut.cancel()
        self._subacks.clear()
