"""The lean MQTT reader: the byte stream of a broker connection (daemon/mqtt_session.py) cut
into packets on an asyncio transport.

Why not paho: its Python path costs ~145 µs a message (packet objects, locks, callbacks), so the
daemon read ~2,700 messages a second and a flood of 10,000 bad commands a second overran the
broker's queue for the table (Mosquitto: "Outgoing messages are being dropped"). This reader
takes the socket's bytes in chunks of up to 64 KiB, read into a buffer of its own, cuts each
PUBLISH into slices of one ``bytes`` (topic, payload, raw v5 properties) and hands them to one
synchronous callback (the command gate, daemon/command_gate.py, or the table connection's
router, daemon/mqtt.py), which refuses most of a flood in a few microseconds; the PUBACKs of a
chunk go out in one write. docs/performance.md "Commands under a flood" has the figures. A PUBACK
goes to the session's :meth:`Owner.on_puback` as its packet id and reason code (two of them a
table frame: no slice, no parse elsewhere); every other packet (CONNACK, SUBACK, ...) to its
:meth:`Owner.on_control`.

Bounded: a packet longer than :data:`BUFFER_LIMIT` is never held whole: its first
:data:`HEAD_BYTES` give the topic and properties, the rest is skipped as it arrives; any other
packet that long ends the connection (:class:`daemon.mqtt_wire.ProtocolError`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Final, Protocol, cast

from daemon import mqtt_wire as wire

#: a packet longer than this is not buffered whole (a command is at most 64 KiB)
BUFFER_LIMIT: Final = 128 * 1024
#: of a longer packet, this much is read for its topic and properties, the rest skipped
HEAD_BYTES: Final = 96 * 1024
#: the read buffer, and the most one read takes (grown for an unfinished packet that fills it);
#: under glibc's 128 KiB mmap threshold, so that the ``bytes`` copied out of it come from the heap
CHUNK: Final = 64 * 1024
#: a packet's fixed header at most: its first byte and a four-byte remaining length
HEADER_MAX: Final = 5

#: the callback: ``(topic, payload, retain, raw v5 properties or None, payload length)``;
#: ``payload`` is ``b""`` and the length the real one for a packet too long to buffer
OnPublish = Callable[[bytes, bytes, bool, "bytes | None", int], None]


class Owner(Protocol):
    """The session a :class:`PacketReader` reads for."""

    v5: bool
    on_publish: OnPublish
    #: monotonic time of the last bytes read (the keepalive's watch)
    last_read: float
    bytes_read: int

    def on_control(self, first: int, body: bytes) -> None:
        """A packet other than a PUBLISH or a PUBACK (its first byte and its body)."""

    def on_puback(self, pid: int, code: int) -> None:
        """A PUBACK: its packet id and reason code (3.1.1 and a v5 success omit it: 0)."""

    def on_lost(self, exc: Exception | None) -> None:
        """The transport closed."""

    def on_broken(self, exc: wire.ProtocolError) -> None:
        """The broker sent what is not MQTT: the connection is to be dropped."""


class PacketReader(asyncio.BufferedProtocol):
    """Cuts the byte stream into packets; PUBLISHes go to the session's callback.

    A buffered protocol: the transport reads into a buffer of ours (``recv_into``), not into a
    fresh 256 KiB ``bytes`` per read, which glibc serves by ``mmap``, shrinks by ``mremap`` and
    frees by ``munmap``: three system calls and a page fault per read, two reads (PUBACKs) per
    input (13.7 against 1.7 µs of system time a read, measured; docs/performance.md "The
    publish path"). The bytes read are copied out once per read into one ``bytes`` (the
    callback's slices are ``bytes``), and an unfinished packet's bytes are moved to the buffer's
    start for the next read.
    """

    def __init__(self, session: Owner) -> None:
        self.s = session
        self.transport: asyncio.Transport | None = None
        self._buf = bytearray(CHUNK)
        self._view = memoryview(self._buf)
        self._have = 0  # bytes of an unfinished packet at the buffer's start
        self._skip = 0  # bytes of a packet too long to buffer still to be discarded

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # a stream transport (asyncio's, or uvloop's: not a subclass, the same API)
        self.transport = cast(asyncio.Transport, transport)

    def connection_lost(self, exc: Exception | None) -> None:
        self.s.on_lost(exc)

    def get_buffer(self, sizehint: int) -> memoryview:
        have = self._have
        if not have:
            return self._view
        if have == len(self._buf):  # an unfinished packet fills the buffer: it needs more
            self._grow()
        return self._view[have:]

    def _grow(self) -> None:
        """The buffer made large enough for any unfinished packet :meth:`_cut` keeps (one of at
        most :data:`BUFFER_LIMIT` bytes and its header, or the head of a longer one)."""
        assert len(self._buf) < BUFFER_LIMIT + HEADER_MAX, "_cut kept a longer packet"
        bigger = bytearray(BUFFER_LIMIT + HEADER_MAX)
        bigger[:self._have] = self._view[:self._have]
        self._buf, self._view = bigger, memoryview(bigger)

    def buffer_updated(self, nbytes: int) -> None:
        s = self.s
        s.last_read = time.monotonic()
        s.bytes_read += nbytes
        start, end = 0, self._have + nbytes
        if self._skip:  # nothing unfinished is kept while a long packet is skipped
            if nbytes <= self._skip:
                self._skip -= nbytes
                return
            start, self._skip = self._skip, 0
        data = self._view[start:end].tobytes()
        self._have = 0
        try:
            self._cut(data)
        except (wire.ProtocolError, IndexError) as exc:
            self.s.on_broken(wire.ProtocolError(f"not MQTT from the broker: {exc}"))

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
                    acks.append(wire.puback(data[j:j + 2]))
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
            elif first & 0xF0 == wire.PUBACK and length >= 2:  # (shorter: on_control refuses it)
                self.s.on_puback(*wire.puback_of(data[body:end]))
            else:
                self.s.on_control(first, data[body:end])
            at = end
        if at < n:  # an unfinished packet: its bytes first in the buffer for the next read
            self._have = n - at
            self._view[:self._have] = data[at:]
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
            acks.append(wire.puback(head[j:j + 2]))
            j += 2
        props = None
        if self.s.v5 and j < len(head):
            got = wire.read_varint(head, j)
            if got is not None and got[1] + got[0] <= len(head):
                props, j = head[got[1]:got[1] + got[0]] or None, got[1] + got[0]
        if j > len(head):  # the topic alone is longer than the head: not a command topic
            topic, j = b"", len(head)
        self.s.on_publish(topic, b"", bool(first & 1), props, length - j)
