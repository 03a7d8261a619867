"""The daemon's MQTT client: one broker connection on an asyncio transport, ours end to end.

Used for the table's connection (daemon/mqtt.py: publishes, their PUBACKs, the retained state read
back, commands and backfill requests on a shared connection) and for the command intake's own
(daemon/command_intake.py: subscribe and read). Packets are bytes (daemon/mqtt_wire.py), cut from
the socket's chunks by the lean reader (daemon/mqtt_lean.py); nothing is built per message but
the packet itself:

* a window of publishes (:meth:`MqttSession.publish_now`) is encoded, written to the transport in
  one call in the step that publishes it (before the table link's ACK, which the loop runs next),
  and settled by one future: the PUBACKs fill a list of reason codes through a dict of packet ids
  (an MQTT v5 broker may refuse a publish in its PUBACK: code >= 0x80; daemon/mqtt.py keeps the
  event then);
* at most :attr:`Connect.max_inflight` QoS 1 publishes are unacknowledged on the wire (lowered to
  an MQTT 5 broker's Receive Maximum); the rest wait, encoded, for PUBACKs;
* our TCP ACK of a PUBACK is owed while more are due (a broker without TCP_NODELAY holds them
  until it comes): the next write carries it, or it is sent alone after :data:`ACK_OWED_S`, or
  at once when the caller waits for PUBACKs with nothing to write (:meth:`MqttSession.ack_now`);
* every wait has a deadline, and every failure is a :class:`daemon.errors.BrokerError`: a
  connection refused or closed before its CONNACK, a refused subscription, a broker silent past
  its keepalive, bytes that are not MQTT, a packet longer than the reader's bound; pending
  acknowledgements fail with the connection (:meth:`MqttSession.fail_all`).

Why not paho: a py-spy profile of the daemon under bench/daemon_latency.py put 17-20 % of its
GIL time in paho (a ReasonCode and a Properties object per PUBACK, topic checks and message
objects per publish); docs/performance.md "Issue 30 item 8: our own broker session".
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any, Final

from daemon import mqtt_wire as wire
from daemon.errors import BrokerError
from daemon.mqtt_lean import OnPublish, PacketReader

#: topics whose encoded names are kept (the table publishes to a dozen; replies add a few)
TOPIC_CACHE: Final = 256
#: seconds a clean close waits for the broker to take the DISCONNECT
CLOSE_WAIT_S: Final = 1.0
#: how often the keepalive looks at the clock (a PINGREQ due, the broker's silence)
TICK_S: Final = 1.0
#: Linux's TCP_QUICKACK (None elsewhere)
QUICKACK: Final[int | None] = getattr(socket, "TCP_QUICKACK", None)
#: seconds our TCP ACK of a PUBACK may stay owed while more PUBACKs are due: a write to the
#: broker within them carries it (:meth:`MqttSession.on_puback` says why); then it is sent alone
ACK_OWED_S: Final = 0.002


#: what :meth:`MqttSession.publish_now` calls once a window's future is done
Settled = Callable[[], None]


class _Window:
    """The PUBACK reason codes of one window of publishes, settled by one future (and its
    ``settled`` callback, called at once)."""

    __slots__ = ("codes", "future", "left", "settled")

    def __init__(self, n: int, future: asyncio.Future[list[int]],
                 settled: Settled | None) -> None:
        self.codes = [0] * n
        self.left = n
        self.future = future
        self.settled = settled


#: what a packet id waits for: a single publish's future, or a place in a window
_Slot = asyncio.Future[int] | tuple[_Window, int]


def _ignore_publish(topic: bytes, payload: bytes, retain: bool, props: bytes | None,
                    size: int) -> None:
    """Messages on a connection that subscribes to nothing."""


class MqttSession:
    """One connection (``async with``): connected on enter, disconnected on exit; every PUBLISH
    received goes to ``on_publish`` on the loop's thread, in order."""

    def __init__(self, spec: wire.Connect, on_publish: OnPublish = _ignore_publish) -> None:
        self.spec = spec
        self.v5 = spec.v5
        self.on_publish = on_publish
        self._loop = asyncio.get_running_loop()
        self._transport: asyncio.Transport | None = None
        self._connack: asyncio.Future[wire.Connack] = self._loop.create_future()
        self._closed: asyncio.Future[None] = self._loop.create_future()
        self._subacks: dict[int, asyncio.Future[list[int]]] = {}
        self._pending: dict[int, _Slot] = {}
        self._waiting: deque[bytes] = deque()  # QoS 1 publishes beyond the in-flight limit
        self._inflight = 0
        self._limit = max(1, spec.max_inflight)
        self._next_id = 0
        self._topics: dict[str, bytes] = {}
        self._props_none = b"\x00" if spec.v5 else b""
        self._pinger: asyncio.Task[None] | None = None
        #: a socket object of our own on the connection's descriptor, where TCP_QUICKACK exists
        #: (detached, never closed: the transport owns the descriptor)
        self._quickack: socket.socket | None = None
        #: our TCP ACK of the last PUBACK read is owed (not carried by a write since), since
        #: :attr:`_owed_at` (monotonic), while more PUBACKs are due
        self._owed = False
        self._owed_at = 0.0
        self._ack_timer: asyncio.TimerHandle | None = None
        #: until our next write, no ACK is owed: each is sent at once (:meth:`ack_now`)
        self._eager = False
        #: :attr:`last_read` of the read our last ACK sent alone covered (once a read is enough)
        self._acked_read = 0.0
        self.last_read = time.monotonic()
        self.bytes_read = 0

    # ------------------------------------------------------------------ connection
    async def __aenter__(self) -> MqttSession:
        s = self.spec
        try:
            async with asyncio.timeout(s.timeout):
                transport, _ = await self._loop.create_connection(
                    lambda: PacketReader(self), s.host, s.port, ssl=s.tls,
                    server_hostname=s.host if s.tls is not None else None)
                self._transport = transport
                self._tune(transport)
                self._write(wire.connect(s))
                ack: wire.Connack = await self._until(self._connack)
        except BrokerError:
            self._abort()
            raise
        except TimeoutError:
            self._abort()
            raise BrokerError(f"no CONNACK from {s.host}:{s.port} within {s.timeout} s") from None
        except OSError as exc:  # ssl.SSLError included
            self._abort()
            raise BrokerError(f"cannot connect to {s.host}:{s.port}: {exc}") from None
        if ack.code != 0:
            self._abort()
            raise BrokerError(f"the broker refused the connection: code {ack.code:#x}")
        if ack.receive_maximum:
            self._limit = min(self._limit, ack.receive_maximum)
        keepalive = s.keepalive if ack.server_keepalive is None else ack.server_keepalive
        if keepalive > 0:
            self._pinger = self._loop.create_task(self._keepalive(keepalive),
                                                  name="mqtt-keepalive")
        return self

    async def __aexit__(self, *exc: object) -> None:
        """A DISCONNECT (the broker keeps the will unpublished), the transport closed once its
        buffer is written, and everything still waiting failed."""
        transport = self._transport
        try:
            if transport is not None and not transport.is_closing():
                transport.write(wire.disconnect())
                transport.close()  # after the buffered bytes
                with contextlib.suppress(TimeoutError, BrokerError):
                    async with asyncio.timeout(CLOSE_WAIT_S):
                        await asyncio.shield(self._closed)
        finally:
            self._abort()

    def _tune(self, transport: asyncio.Transport) -> None:
        # asyncio's own TCP_NODELAY comes first; these are the spec's, on the socket asyncio
        # wraps (a TransportSocket: setsockopt and getsockopt, no I/O)
        sock = transport.get_extra_info("socket")
        if sock is not None:
            for option in self.spec.socket_options:
                with contextlib.suppress(OSError):
                    sock.setsockopt(*option)
            if QUICKACK is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
                # made once: uvloop's transport socket (a PseudoSocket) makes a socket object
                # per setsockopt, and CPython's checks its descriptor with a getsockname
                self._quickack = socket.socket(sock.family, sock.type, sock.proto,
                                               fileno=sock.fileno())

    @property
    def closed(self) -> bool:
        return self._closed.done()

    def _socket(self) -> Any:
        return None if self._transport is None else self._transport.get_extra_info("socket")

    def nodelay(self) -> bool | None:
        """TCP_NODELAY on the socket (None: not a TCP socket)."""
        sock = self._socket()
        if sock is None or sock.family not in (socket.AF_INET, socket.AF_INET6):
            return None
        return bool(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))

    def fileno(self) -> int:
        """The socket's descriptor (-1: not connected)."""
        sock = self._socket()
        return -1 if sock is None else int(sock.fileno())

    def _write(self, data: bytes) -> None:
        transport = self._transport
        if transport is None or transport.is_closing():
            raise BrokerError("the broker connection is closed")
        transport.write(data)
        if not transport.get_write_buffer_size():
            self._owed = self._eager = False  # sent: the segment carried our ACK

    async def _until(self, fut: asyncio.Future[Any]) -> Any:
        """``fut``'s result, or the connection's end (raised), whichever comes first."""
        done, _ = await asyncio.wait((fut, self._closed), return_when=asyncio.FIRST_COMPLETED)
        if fut in done:
            return fut.result()
        fut.cancel()
        self._closed.result()  # raises: why the connection ended
        raise BrokerError("the broker connection closed")

    async def _acknowledged(self, fut: asyncio.Future[list[int]], what: str) -> list[int]:
        try:
            async with asyncio.timeout(self.spec.timeout):
                codes: list[int] = await self._until(fut)
        except TimeoutError:
            raise BrokerError(f"no answer to {what} within {self.spec.timeout} s") from None
        return codes

    async def _keepalive(self, every_s: int) -> None:
        """A PINGREQ every ``every_s`` seconds whatever else is sent or read (a connection that
        only reads QoS 0 deliveries sends nothing else, and the broker drops a client silent for
        1.5 keepalives); a broker silent for two of them (a PINGRESP missed) is gone, seen within
        a second (:data:`TICK_S`)."""
        every = max(1.0, float(every_s))
        limit = 2 * every
        pinged = time.monotonic()
        while not self._closed.done():
            await asyncio.sleep(TICK_S)
            now = time.monotonic()
            if now - self.last_read > limit:
                self._fail(BrokerError(f"nothing from the broker for {limit:.0f} s"))
                return
            if now - pinged >= every:
                pinged = now
                with contextlib.suppress(BrokerError):
                    self._write(wire.PINGREQ_PACKET)

    async def wait_closed(self) -> None:
        """Until the connection ends; raises :class:`BrokerError` saying why."""
        await asyncio.shield(self._closed)

    # ------------------------------------------------------------------ publishing
    def _packet_id(self) -> int:
        n = self._next_id
        while True:
            n = n % 0xFFFF + 1
            if n not in self._pending and n not in self._subacks:
                self._next_id = n
                return n

    def _topic(self, topic: str) -> bytes:
        raw = self._topics.get(topic)
        if raw is None:
            raw = wire.topic_name(topic)
            if len(self._topics) >= TOPIC_CACHE:
                self._topics.clear()
            self._topics[topic] = raw
        return raw

    def _send_qos1(self, packet: bytes, out: list[bytes]) -> None:
        if self._inflight < self._limit:
            self._inflight += 1
            out.append(packet)
        else:
            self._waiting.append(packet)

    def publish(self, topic: str, payload: bytes, *, qos: int = 1, retain: bool = False,
                properties: wire.PublishProperties | None = None) -> asyncio.Future[int]:
        """A publish; its future gets the PUBACK's reason code (QoS 0: 0 at once). Raises
        :class:`daemon.mqtt_wire.TopicError` for a topic that cannot be published to."""
        if self._closed.done():
            raise BrokerError(f"could not publish to {topic}: the connection is closed")
        props = wire.properties(properties) if self.v5 else b""
        fut: asyncio.Future[int] = self._loop.create_future()
        if qos == 0:
            self._write(wire.publish(self._topic(topic), payload, qos=0, retain=retain,
                                     packet_id=0, props=props))
            fut.set_result(0)
            return fut
        pid = self._packet_id()
        packet = wire.publish(self._topic(topic), payload, qos=1, retain=retain, packet_id=pid,
                              props=props)
        self._pending[pid] = fut
        out: list[bytes] = []
        self._send_qos1(packet, out)
        if out:
            self._write(out[0])
        return fut

    def publish_now(self, messages: Sequence[tuple[str, bytes]],
                    settled: Settled | None = None) -> asyncio.Future[list[int]]:
        """QoS 1 publishes (not retained, no properties) written to the transport in this step of
        the loop, before anything the loop runs next (the table link's ACK); the future gets
        their PUBACKs' reason codes, in order. ``settled`` is called as soon as the future is
        done (its result or the connection's failure), from the reader: not a step of the loop
        later, as a done callback would be."""
        if self._closed.done():
            raise BrokerError("could not publish: the connection is closed")
        fut: asyncio.Future[list[int]] = self._loop.create_future()
        if not messages:
            fut.set_result([])
            return fut
        window = _Window(len(messages), fut, settled)
        out: list[bytes] = []
        pending, topics, props = self._pending, self._topics, self._props_none
        for i, (topic, payload) in enumerate(messages):
            pid = self._packet_id()
            name = topics.get(topic)
            if name is None:
                name = self._topic(topic)
            # wire.publish at QoS 1, not retained, inline: an input publishes two of these
            length = len(name) + 2 + len(props) + len(payload)
            head = bytes((0x32, length)) if length < 0x80 else b"\x32" + wire.varint(length)
            packet = b"".join((head, name, pid.to_bytes(2, "big"), props, payload))
            pending[pid] = (window, i)
            if self._inflight < self._limit:
                self._inflight += 1
                out.append(packet)
            else:
                self._waiting.append(packet)
        if out:
            self._write(b"".join(out))
        return fut

    def on_puback(self, pid: int, code: int) -> None:
        """A PUBACK (its packet id and reason code), from the reader.

        A broker without TCP_NODELAY (Mosquitto without ``set_tcp_nodelay``) holds the next
        PUBACK of a window behind Nagle until our TCP ACK of this one, which the kernel delays up
        to 40 ms when we send nothing. So while PUBACKs are still due our ACK is *owed*: the next
        write to the broker carries it (:meth:`_write`: the next input's publishes, usually well
        within :data:`ACK_OWED_S`), and if none comes within :data:`ACK_OWED_S` it is sent alone
        (Linux: setting TCP_QUICKACK sends it; :meth:`_ack_due`). One timer per
        :data:`ACK_OWED_S` while inputs keep coming, none while the connection is quiet, and no
        system call per input: the quick ACK sent after every such read cost a setsockopt (and
        the pure ACK's trip through the loopback) a table frame, and under uvloop a getsockname
        and a socket object too (4-5 % of the daemon's CPU; docs/performance.md "The quick
        ACK")."""
        pending = self._pending
        slot = pending.pop(pid, None)
        if slot is None:
            return  # a PUBACK for nothing we sent: ignored, as paho did
        self._inflight -= 1
        if not pending:
            self._owed = False  # nothing more due: nothing is held for us
        elif not self._owed and self.last_read != self._acked_read:
            self._owed = True
            self._owed_at = self.last_read
            if self._eager:
                self.ack_now()
            elif self._ack_timer is None and self._quickack is not None:
                self._ack_timer = self._loop.call_later(ACK_OWED_S, self._ack_due)
        if isinstance(slot, tuple):
            window, i = slot
            window.codes[i] = code
            window.left -= 1
            if not window.left and not window.future.done():
                window.future.set_result(window.codes)
                if window.settled is not None:
                    window.settled()
        elif not slot.done():
            slot.set_result(code)
        if self._waiting:
            out: list[bytes] = []
            while self._waiting and self._inflight < self._limit:
                self._send_qos1(self._waiting.popleft(), out)
            self._write(b"".join(out))

    def _ack_due(self) -> None:
        """The timer: an ACK owed for :data:`ACK_OWED_S` is sent alone; one owed for less (a
        write carried the one the timer was set for) gets the rest of its time."""
        self._ack_timer = None
        if not self._owed:
            return
        left = self._owed_at + ACK_OWED_S - time.monotonic()
        if left > 0.001:  # uvloop's timers count whole milliseconds
            self._ack_timer = self._loop.call_later(left, self._ack_due)
            return
        self.ack_now()

    def ack_now(self) -> None:
        """The owed ACK sent now, and any owed until our next write: the caller waits for
        PUBACKs with nothing to write (the outbox with all its windows in flight), so no write
        will carry it."""
        if not self._owed:
            self._eager = True
            return
        self._owed = False
        self._acked_read = self.last_read
        if self._quickack is not None and QUICKACK is not None:
            with contextlib.suppress(OSError):
                self._quickack.setsockopt(socket.IPPROTO_TCP, QUICKACK, 1)

    # ------------------------------------------------------------------ subscriptions
    async def subscribe(self, filters: list[tuple[str, int]]) -> list[int]:
        """Subscribe (``(filter, options)``: QoS in bits 0-1, v5 retain as published in bit 3)
        and wait for the SUBACK: the granted QoS of each (a refusal, code >= 0x80, raises)."""
        pid = self._packet_id()
        fut: asyncio.Future[list[int]] = self._loop.create_future()
        self._subacks[pid] = fut
        self._write(wire.subscribe(pid, filters, v5=self.v5))
        codes = await self._acknowledged(fut, f"the subscription to {filters[0][0]}")
        refused = [f for (f, _), c in zip(filters, codes) if c >= 0x80]
        if refused or len(codes) != len(filters):
            raise BrokerError(f"subscription refused: {refused or codes}")
        return codes

    async def unsubscribe(self, filters: list[str]) -> None:
        """Unsubscribe, and wait for the UNSUBACK: what the broker sent before it is in."""
        pid = self._packet_id()
        fut: asyncio.Future[list[int]] = self._loop.create_future()
        self._subacks[pid] = fut
        self._write(wire.unsubscribe(pid, filters, v5=self.v5))
        await self._acknowledged(fut, f"the unsubscription from {filters[0]}")

    # ------------------------------------------------------------------ from the reader
    def on_control(self, first: int, body: bytes) -> None:
        kind = first & 0xF0
        if kind == wire.PUBACK:  # the reader hands the others to on_puback: a short one
            self.on_puback(*wire.puback_of(body))
        elif kind == wire.SUBACK or kind == wire.UNSUBACK:
            pid, codes = wire.suback(body, v5=self.v5)
            fut = self._subacks.pop(pid, None)
            if fut is not None and not fut.done():
                fut.set_result(codes)
        elif kind == wire.CONNACK:
            if not self._connack.done():
                self._connack.set_result(wire.connack(body, v5=self.v5))
        elif kind == wire.DISCONNECT:
            code = body[0] if body else 0
            self._fail(BrokerError(f"the broker disconnected {self.spec.client_id}: "
                                   f"code {code:#x}"))
        elif kind != wire.PINGRESP:
            raise wire.ProtocolError(f"an unexpected packet of type {first >> 4}")

    def on_lost(self, exc: Exception | None) -> None:
        why = f": {exc}" if exc is not None else ""
        if not self._connack.done():
            self._fail(BrokerError(f"the connection closed before the CONNACK{why}"))
        self._fail(BrokerError(f"the broker connection closed{why}"))

    def on_broken(self, exc: wire.ProtocolError) -> None:
        self._fail(exc)

    def _fail(self, exc: BrokerError) -> None:
        if not self._closed.done():
            self._closed.set_exception(exc)
            self._closed.exception()  # retrieved: nobody may be waiting
        self._owed = self._eager = False
        if self._ack_timer is not None:
            self._ack_timer.cancel()
            self._ack_timer = None
        if self._quickack is not None:  # the descriptor is the transport's to close
            self._quickack.detach()
            self._quickack = None
        if self._transport is not None:
            self._transport.abort()
        self.fail_all(exc)

    def _abort(self) -> None:
        """Everything this session registered on the loop removed; pending futures failed."""
        if self._pinger is not None:
            self._pinger.cancel()
            self._pinger = None
        self._fail(BrokerError("connection closed"))
        if not self._connack.done():
            self._connack.cancel()

    def fail_all(self, exc: BaseException) -> None:
        """Every publish and subscription still waiting failed with ``exc``."""
        pending, self._pending = self._pending, {}
        subs, self._subacks = self._subacks, {}
        self._waiting.clear()
        self._inflight = 0
        futures: list[asyncio.Future[Any]] = [
            slot[0].future if isinstance(slot, tuple) else slot for slot in pending.values()]
        for fut in futures + list(subs.values()):
            if not fut.done():
                fut.set_exception(exc)
                fut.exception()  # retrieved: a waiter cancelled with its task never asks
        windows = {id(s[0]): s[0] for s in pending.values() if isinstance(s, tuple)}
        for window in windows.values():
            if window.settled is not None:
                window.settled()
