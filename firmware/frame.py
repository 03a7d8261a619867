"""Frames on the wire and the incremental decoder (docs/protocol/table-link.md §2-§4).

A body is ``version flags seq type length(u16 LE) payload crc32c(u32 LE)`` and travels as
``00 || COBS(body) || 00``. :class:`Decoder` is fed chunks of any size and returns one
:class:`Frame` or :class:`Garbled` per chunk between delimiters, with the same reasons, offsets
and lengths as the host's ``drivers.link.frame.Decoder``; it never raises on input and buffers at
most ``MAX_ENCODED`` bytes.
"""

import struct

from firmware import crc
from firmware.cobs import cobs_decode, cobs_encode
from firmware.messages import KNOWN_TYPES, payload_error

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


def encode_frame(kind: int, payload: bytes, seq: int = 0, retransmit: bool = False) -> bytes:
    if len(payload) > MAX_PAYLOAD or not 0 <= seq <= 255:
        raise ValueError("payload over 1024 bytes or seq outside 0..255")
    end = HEADER_SIZE + len(payload)
    body = bytearray(end + CRC_SIZE)
    struct.pack_into("<BBBBH", body, 0, FRAME_VERSION, FLAG_RETRANSMIT if retransmit else 0, seq,
                     kind, len(payload))
    body[HEADER_SIZE:end] = payload
    crc.put(body, end, body, end)
    return b"\x00" + cobs_encode(body) + b"\x00"


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


def parse_body(body: bytes) -> "Frame | str":
    """The frame of an unstuffed body (offset and length 0), or the reason it is none."""
    if len(body) < HEADER_SIZE + CRC_SIZE:
        return SHORT
    end = len(body) - CRC_SIZE
    if not crc.check(body, end):
        return CRC
    version, flags, seq, kind, size = struct.unpack("<BBBBH", body[:HEADER_SIZE])
    if version != FRAME_VERSION:
        return VERSION
    if size != end - HEADER_SIZE:
        return LENGTH
    if kind not in KNOWN_TYPES:
        return UNKNOWN_TYPE
    payload = body[HEADER_SIZE:end]
    if payload_error(kind, payload) is not None:
        return PAYLOAD
    return Frame(kind, payload, seq, bool(flags & FLAG_RETRANSMIT), 0, 0)


class Decoder:
    def __init__(self) -> None:
        self._buf = bytearray()
        self._start = 0  # stream offset of the current chunk's first byte
        self._fed = 0
        self._discarding = False  # the chunk outgrew MAX_ENCODED: skip to the next 0x00

    @property
    def offset(self) -> int:
        return self._fed

    def feed(self, data: bytes | bytearray) -> "list[Frame | Garbled]":
        out: list[Frame | Garbled] = []
        base = self._fed
        self._fed += len(data)
        pos = 0
        while True:
            end = data.find(b"\x00", pos)
            if end == -1:
                self._extend(data[pos:])
                return out
            if self._discarding:
                out.append(Garbled(OVERSIZE, self._start, base + end + 1 - self._start))
                self._discarding = False
            else:
                if self._buf:
                    self._buf += data[pos:end]
                    chunk = bytes(self._buf)
                    self._buf = bytearray()
                else:
                    chunk = bytes(data[pos:end])
                if chunk:
                    out.append(_decode_chunk(chunk, self._start))
            pos = end + 1
            self._start = base + pos

    def flush(self) -> "list[Frame | Garbled]":
        """End of stream: an unfinished chunk is one ``truncated`` span."""
        out: list[Frame | Garbled] = []
        if self._discarding or self._buf:
            out.append(Garbled(TRUNCATED, self._start, self._fed - self._start))
        self._buf = bytearray()
        self._discarding = False
        self._start = self._fed
        return out

    def _extend(self, tail: bytes | bytearray) -> None:
        if self._discarding or not tail:
            return
        self._buf += tail
        if len(self._buf) > MAX_ENCODED:
            self._discarding = True
            self._buf = bytearray()


def _decode_chunk(chunk: bytes, offset: int) -> "Frame | Garbled":
    length = len(chunk) + 1
    if len(chunk) > MAX_ENCODED:
        return Garbled(OVERSIZE, offset, length)
    body = cobs_decode(chunk)
    if body is None:
        return Garbled(COBS, offset, length)
    parsed = parse_body(body)
    if isinstance(parsed, Frame):
        parsed.offset = offset
        parsed.length = length
        return parsed
    if parsed in INTACT:
        return Garbled(parsed, offset, length, body[2], body[3])
    return Garbled(parsed, offset, length)
