"""Frames on the wire and the incremental decoder (docs/protocol/table-link.md §2-§4).

Pure: no I/O, no clock. A frame body is::

    offset 0  u8   frame format version (1)
    offset 1  u8   flags (bit 0: retransmission)
    offset 2  u8   sequence number
    offset 3  u8   message type
    offset 4  u16  payload length N (little-endian)
    offset 6  N    payload
    offset 6+N u32 CRC-32C of bytes 0..5+N (little-endian)

and goes on the wire as ``00 || COBS(body) || 00``. The decoder never raises on input: each chunk
between two 0x00 is either one :class:`Frame` or one :class:`ErrorSpan`, so damage never reaches
past the next delimiter and every frame that damage did not touch is recovered.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from enum import StrEnum

from drivers.link.cobs import cobs_decode, cobs_encode
from drivers.link.crc import RESIDUE, crc32c_of
from drivers.link.errors import MalformedMessageError
from drivers.link.messages import MESSAGE_CLASSES, Message

FRAME_VERSION = 1
FLAG_RETRANSMIT = 0x01
HEADER = struct.Struct("<BBBBH")
HEADER_SIZE = HEADER.size  # 6
CRC_SIZE = 4
MAX_PAYLOAD = 1024
MAX_BODY = HEADER_SIZE + MAX_PAYLOAD + CRC_SIZE
#: longest COBS chunk a valid frame can produce; longer runs without 0x00 are discarded
MAX_ENCODED = MAX_BODY + MAX_BODY // 254 + 1
DELIMITER = b"\x00"
#: the message class of each known type byte, keyed by the plain int a header unpacks to (no
#: ``MessageType(kind)`` enum lookup per frame)
_CLASS_OF: dict[int, type[Message]] = {int(kind): cls for kind, cls in MESSAGE_CLASSES.items()}


class ErrorReason(StrEnum):
    """Why a span of the byte stream was not a usable frame."""

    OVERSIZE = "oversize"  # more than MAX_ENCODED bytes without a delimiter
    COBS = "cobs"  # not valid COBS
    SHORT = "short"  # decodes to fewer bytes than a header and a CRC
    CRC = "crc"  # CRC-32C mismatch: damaged, truncated, spliced or garbage
    VERSION = "version"  # intact, but a frame format this decoder does not know
    LENGTH = "length"  # intact, but the length field disagrees with the body
    UNKNOWN_TYPE = "unknown_type"  # intact, but a message type this decoder does not know
    PAYLOAD = "payload"  # intact, but the payload is not valid for its type
    TRUNCATED = "truncated"  # the stream ended inside a chunk

    @property
    def intact(self) -> bool:
        """The frame passed its CRC: the sender really sent it, its seq is trustworthy."""
        return self in (ErrorReason.UNKNOWN_TYPE, ErrorReason.PAYLOAD)


@dataclass(frozen=True, slots=True)
class Frame:
    """A decoded frame; ``offset``/``length`` locate it in the stream (COBS bytes + delimiter)."""

    message: Message
    seq: int
    retransmit: bool = False
    offset: int = 0
    length: int = 0


@dataclass(frozen=True, slots=True)
class ErrorSpan:
    """``length`` bytes from ``offset`` (counting the closing delimiter, when there was one) that
    are no frame. ``seq`` and ``message_type`` are known only for intact frames
    (:attr:`ErrorReason.intact`)."""

    reason: ErrorReason
    offset: int
    length: int
    seq: int | None = None
    message_type: int | None = None


Decoded = Frame | ErrorSpan


def frame_body(message: Message, seq: int = 0, *, retransmit: bool = False) -> bytes:
    """The unstuffed frame body (header, payload, CRC)."""
    payload = message.payload()
    if not 0 <= seq <= 255:
        raise MalformedMessageError(f"seq must be 0..255, got {seq!r}")
    head = HEADER.pack(FRAME_VERSION, FLAG_RETRANSMIT if retransmit else 0, seq,
                       message.TYPE, len(payload))
    body = head + payload
    return body + crc32c_of(body).to_bytes(4, "little")


def encode_frame(message: Message, seq: int = 0, *, retransmit: bool = False) -> bytes:
    """The bytes that carry ``message`` on the wire, delimiters included.

    >>> from drivers.link.messages import Dice
    >>> encode_frame(Dice((3, 4)), seq=7).hex(" ")
    '00 02 01 04 07 12 02 07 03 04 8c 91 47 f0 00'
    """
    return DELIMITER + cobs_encode(frame_body(message, seq, retransmit=retransmit)) + DELIMITER


def encode(message: Message) -> bytes:
    """``encode_frame`` with seq 0: the frame of one message."""
    return encode_frame(message)


def _parse(body: bytes) -> tuple[Message, int, int] | ErrorReason:
    """An unstuffed frame body's (message, seq, flags), or why it is no frame."""
    size = len(body)
    if size < HEADER_SIZE + CRC_SIZE:
        return ErrorReason.SHORT
    # over the body and its CRC at once: the residue, exactly when the CRC matches (crc.py)
    if crc32c_of(body) != RESIDUE:
        return ErrorReason.CRC
    version, flags, seq, kind, payload_size = HEADER.unpack_from(body)
    if version != FRAME_VERSION:
        return ErrorReason.VERSION
    if payload_size != size - HEADER_SIZE - CRC_SIZE:
        return ErrorReason.LENGTH
    cls = _CLASS_OF.get(kind)
    if cls is None:
        return ErrorReason.UNKNOWN_TYPE
    try:
        message = cls.from_payload(body[HEADER_SIZE:-CRC_SIZE])
    except MalformedMessageError:
        return ErrorReason.PAYLOAD
    return message, seq, flags


#: a frame as :meth:`Decoder.messages` hands it out: (message, seq, flags, stream offset, length)
#: -- a :class:`Frame`'s fields in a plain tuple, ~20 times cheaper to build than the frozen
#: dataclass (~8,000 instructions), for the link's own endpoint, which reads two of them
RawFrame = tuple[Message, int, int, int, int]


class Decoder:
    """Incremental decoder: :meth:`feed` it byte chunks of any size, in order; it returns what
    each chunk completed. :meth:`flush` at the end of a stream reports an unfinished tail."""

    def __init__(self) -> None:
        self._buf = bytearray()
        self._start = 0  # stream offset of the first byte of the current chunk
        self._fed = 0  # bytes fed so far
        self._discarding = False  # current chunk exceeded MAX_ENCODED: skip to the next 0x00

    @property
    def offset(self) -> int:
        """How many bytes have been fed."""
        return self._fed

    def feed(self, data: bytes | bytearray | memoryview) -> list[Decoded]:
        return [item if isinstance(item, ErrorSpan) else
                Frame(item[0], item[1], bool(item[2] & FLAG_RETRANSMIT), item[3], item[4])
                for item in self.messages(data)]

    def messages(self, data: bytes | bytearray | memoryview) -> list[RawFrame | ErrorSpan]:
        """:meth:`feed`, each frame a :data:`RawFrame` tuple instead of a :class:`Frame`."""
        if type(data) is not bytes:
            data = bytes(data)
        out: list[RawFrame | ErrorSpan] = []
        base = self._fed
        size = len(data)
        self._fed = base + size
        pos = 0
        find = data.find
        while True:
            end = find(0, pos)
            if end == -1:
                if pos < size:
                    self._extend(data[pos:])
                return out
            if self._discarding:
                out.append(ErrorSpan(ErrorReason.OVERSIZE, self._start,
                                     base + end + 1 - self._start))
                self._discarding = False
            elif self._buf:
                self._buf += data[pos:end]
                chunk = bytes(self._buf)
                self._buf.clear()
                out.append(_decode_chunk(chunk, self._start))
            elif end > pos:
                out.append(_decode_chunk(data[pos:end], self._start))
            pos = end + 1
            self._start = base + pos

    def flush(self) -> list[Decoded]:
        """End of stream: the unfinished chunk, if any, is a ``truncated`` span."""
        out: list[Decoded] = []
        if self._discarding or self._buf:
            out.append(ErrorSpan(ErrorReason.TRUNCATED, self._start, self._fed - self._start))
        self._buf.clear()
        self._discarding = False
        self._start = self._fed
        return out

    def _extend(self, tail: bytes) -> None:
        if self._discarding:
            return
        self._buf += tail
        if len(self._buf) > MAX_ENCODED:
            self._discarding = True
            self._buf.clear()


def _decode_chunk(chunk: bytes, offset: int) -> RawFrame | ErrorSpan:
    """One chunk between two delimiters, found at ``offset`` in the stream."""
    length = len(chunk) + 1
    if length > MAX_ENCODED + 1:
        return ErrorSpan(ErrorReason.OVERSIZE, offset, length)
    body = cobs_decode(chunk)
    if body is None:
        return ErrorSpan(ErrorReason.COBS, offset, length)
    parsed = _parse(body)
    if type(parsed) is tuple:
        message, seq, flags = parsed
        return message, seq, flags, offset, length
    assert isinstance(parsed, ErrorReason)
    if parsed.intact:
        return ErrorSpan(parsed, offset, length, body[2], body[3])
    return ErrorSpan(parsed, offset, length)


def decode_all(data: bytes) -> list[Decoded]:
    """Every frame and error span of a complete stream."""
    decoder = Decoder()
    return decoder.feed(data) + decoder.flush()
