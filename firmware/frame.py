"""Frames on the wire and the incremental decoder (docs/protocol/table-link.md §2-§4).

A body is ``version flags seq type length(u16 LE) payload crc32c(u32 LE)`` and travels as
``00 || COBS(body) || 00``. :class:`Decoder` is fed chunks of any size and reports one frame or
one damaged span per chunk between delimiters, with the same reasons, offsets and lengths as the
host's ``drivers.link.frame.Decoder``; it never raises on input and buffers at most
``MAX_ENCODED`` bytes.

The Pico's path allocates nothing for a frame without payload (an ack, a heartbeat):
:func:`encode_into` writes into the caller's buffers and :meth:`Decoder.feed_into` hands each
frame to a sink's ``rx_frame``/``rx_garbled`` from preallocated buffers (docs/firmware.md
"Memory and timing"). :func:`encode_frame` and :meth:`Decoder.feed` are the same code returning
new objects (the shared vectors, the host's emulator).
"""

import struct

from firmware import crc
from firmware.cobs import cobs_decode_into, cobs_encode_into, encoded_size
from firmware.errors import FrameError
from firmware.messages import KNOWN_TYPES, payload_error

try:
    from typing import TYPE_CHECKING
except ImportError:  # MicroPython has no typing module
    TYPE_CHECKING = False  # type: ignore[misc,unused-ignore]
if TYPE_CHECKING:
    from array import array
    from typing import Protocol

    class Sink(Protocol):
        """Where :meth:`Decoder.feed_into` reports (``seq``/``kind`` -1: not known)."""

        def rx_frame(self, kind: int, payload: bytes, seq: int, retransmit: bool, offset: int,
                     length: int) -> None: ...

        def rx_garbled(self, reason: str, offset: int, length: int, seq: int,
                       kind: int) -> None: ...

FRAME_VERSION = 1
FLAG_RETRANSMIT = 0x01
HEADER_SIZE = 6
CRC_SIZE = 4
MAX_PAYLOAD = 1024
MAX_BODY = HEADER_SIZE + MAX_PAYLOAD + CRC_SIZE
MAX_ENCODED = MAX_BODY + MAX_BODY // 254 + 1

# the reasons of §4, spelt as the host spells them
OVERSIZE = "oversize"
COBS = "cobs"
SHORT = "short"
CRC = "crc"
VERSION = "version"
LENGTH = "length"
UNKNOWN_TYPE = "unknown_type"
PAYLOAD = "payload"
TRUNCATED = "truncated"

#: reasons whose frame passed its CRC: it really was sent, its seq can be answered
INTACT = (UNKNOWN_TYPE, PAYLOAD)


def wire_size(payload_size: int) -> int:
    """The most bytes a frame with ``payload_size`` bytes of payload takes on the wire."""
    return encoded_size(HEADER_SIZE + payload_size + CRC_SIZE) + 2


def encode_into(out: bytearray, at: int, kind: int, payload: "bytes | bytearray", seq: int,
                retransmit: bool, body: bytearray, halves: "array[int] | None" = None) -> int:
    """The frame written at ``out[at:]`` (``body``: scratch of at least 10 + payload bytes);
    returns where it ends. The caller checks ``seq`` and the room (:func:`wire_size`)."""
    size = len(payload)
    end = HEADER_SIZE + size
    struct.pack_into("<BBBBH", body, 0, FRAME_VERSION, FLAG_RETRANSMIT if retransmit else 0,
                     seq, kind, size)
    i = 0
    while i < size:
        body[HEADER_SIZE + i] = payload[i]
        i += 1
    crc.put(body, end, body, end, halves)
    out[at] = 0
    at = cobs_encode_into(body, 0, end + CRC_SIZE, out, at + 1)
    out[at] = 0
    return at + 1


def encode_frame(kind: int, payload: bytes, seq: int = 0, retransmit: bool = False) -> bytes:
    if len(payload) > MAX_PAYLOAD or not 0 <= seq <= 255:
        raise FrameError("payload over 1024 bytes or seq outside 0..255")
    out = bytearray(wire_size(len(payload)))
    n = encode_into(out, 0, kind, payload, seq, retransmit,
                    bytearray(HEADER_SIZE + len(payload) + CRC_SIZE))
    return bytes(memoryview(out)[:n])


class Frame:
    """A frame read intact: ``kind`` (its type code), ``payload``, ``seq``; ``offset``/``length``
    locate it in the stream (COBS bytes + closing delimiter)."""

    def __init__(self, kind: int, payload: bytes, seq: int, retransmit: bool, offset: int,
                 length: int) -> None:
        self.kind = kind
        self.payload = payload
        self.seq = seq
        self.retransmit = retransmit
        self.offset = offset
        self.length = length


class Garbled:
    """A span that is no usable frame. ``seq``/``kind`` are known for intact reasons only."""

    def __init__(self, reason: str, offset: int, length: int, seq: int | None = None,
                 kind: int | None = None) -> None:
        self.reason = reason
        self.offset = offset
        self.length = length
        self.seq = seq
        self.kind = kind


class _Collect:
    """The sink :meth:`Decoder.feed` uses: one :class:`Frame` or :class:`Garbled` per chunk."""

    def __init__(self) -> None:
        self.items: list[Frame | Garbled] = []

    def rx_frame(self, kind: int, payload: bytes, seq: int, retransmit: bool, offset: int,
                 length: int) -> None:
        self.items.append(Frame(kind, bytes(payload), seq, retransmit, offset, length))

    def rx_garbled(self, reason: str, offset: int, length: int, seq: int, kind: int) -> None:
        self.items.append(Garbled(reason, offset, length, None if seq < 0 else seq,
                                  None if kind < 0 else kind))


class Decoder:
    def __init__(self) -> None:
        self._buf = bytearray(MAX_ENCODED)  # the chunk being gathered
        self._n = 0
        self._body = bytearray(MAX_ENCODED)  # its body, unstuffed
        self._halves = crc.new_halves()
        self._start = 0  # stream offset of the current chunk's first byte
        self._fed = 0
        self._discarding = False  # the chunk outgrew MAX_ENCODED: skip to the next 0x00

    @property
    def offset(self) -> int:
        return self._fed

    def feed(self, data: "bytes | bytearray") -> "list[Frame | Garbled]":
        sink = _Collect()
        self.feed_into(data, len(data), sink)
        return sink.items

    def feed_into(self, data: "bytes | bytearray", size: int, sink: "Sink") -> None:
        """Take ``data[:size]``; report each chunk it completes to ``sink``."""
        base = self._fed
        self._fed += size
        pos = 0
        while pos < size:
            end = data.find(b"\x00", pos, size)
            if end == -1:
                self._extend(data, pos, size)
                return
            if self._discarding:
                sink.rx_garbled(OVERSIZE, self._start, base + end + 1 - self._start, -1, -1)
                self._discarding = False
            else:
                total = self._n + end - pos
                if total > MAX_ENCODED:
                    sink.rx_garbled(OVERSIZE, self._start, total + 1, -1, -1)
                elif total:
                    self._copy(data, pos, end)
                    self._chunk(total, sink)
                self._n = 0
            pos = end + 1
            self._start = base + pos

    def flush(self) -> "list[Frame | Garbled]":
        """End of stream: an unfinished chunk is one ``truncated`` span."""
        out: list[Frame | Garbled] = []
        if self._discarding or self._n:
            out.append(Garbled(TRUNCATED, self._start, self._fed - self._start))
        self._n = 0
        self._discarding = False
        self._start = self._fed
        return out

    def _copy(self, data: "bytes | bytearray", start: int, end: int) -> None:
        buf = self._buf
        n = self._n
        while start < end:
            buf[n] = data[start]
            n += 1
            start += 1
        self._n = n

    def _extend(self, data: "bytes | bytearray", start: int, end: int) -> None:
        if self._discarding or start == end:
            return
        if self._n + end - start > MAX_ENCODED:
            self._discarding = True
            self._n = 0
            return
        self._copy(data, start, end)

    def _chunk(self, length: int, sink: "Sink") -> None:
        offset = self._start
        span = length + 1
        body = self._body
        n = cobs_decode_into(self._buf, 0, length, body)
        if n < 0:
            sink.rx_garbled(COBS, offset, span, -1, -1)
            return
        if n < HEADER_SIZE + CRC_SIZE:
            sink.rx_garbled(SHORT, offset, span, -1, -1)
            return
        end = n - CRC_SIZE
        if not crc.check(body, end, self._halves):
            sink.rx_garbled(CRC, offset, span, -1, -1)
            return
        if body[0] != FRAME_VERSION:
            sink.rx_garbled(VERSION, offset, span, -1, -1)
            return
        if body[4] | (body[5] << 8) != end - HEADER_SIZE:
            sink.rx_garbled(LENGTH, offset, span, -1, -1)
            return
        seq = body[2]
        kind = body[3]
        if kind not in KNOWN_TYPES:
            sink.rx_garbled(UNKNOWN_TYPE, offset, span, seq, kind)
            return
        # an empty payload is the one constant: acks and heartbeats allocate nothing
        payload = b"" if end == HEADER_SIZE else bytes(body[HEADER_SIZE:end])
        if payload_error(kind, payload) is not None:
            sink.rx_garbled(PAYLOAD, offset, span, seq, kind)
            return
        sink.rx_frame(kind, payload, seq, bool(body[1] & FLAG_RETRANSMIT), offset, span)
