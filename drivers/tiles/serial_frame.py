"""The serial RFID frame (pure): ``STX, UID as ASCII hex, checksum as 2 ASCII hex, ETX``.

This is the frame of the common 125 kHz EM4100 serial modules (RDM6300 and its clones:
``0x02`` + 10 hex digits of the 5-byte tag + 2 hex digits of the XOR of those 5 bytes + ``0x03``),
generalised to the UID lengths of 13.56 MHz tags: the UID may be 2..16 bytes (4..32 hex digits,
an even count). Upper- or lower-case hex is accepted. CR, LF and NUL bytes between frames are
line noise some modules add and are ignored; any other byte outside a frame is garbage.

``checksum = uid[0] ^ uid[1] ^ ... ^ uid[n-1]`` over the UID *bytes*.

The decoder resynchronises on every STX, so one damaged frame never costs the next one: a frame
cut off by a new STX, by a byte that cannot be in a frame, or by silence (:meth:`flush`) is reported
as truncated; a frame whose checksum does not match as bad-checksum; nothing is ever repaired.
"""

from __future__ import annotations

from functools import reduce
from typing import Final

from drivers.tiles.errors import SensorConfigError
from drivers.tiles.events import FaultKind, ReaderEvent, ReaderFault, TagSeen

STX: Final = 0x02
ETX: Final = 0x03
MIN_UID_BYTES: Final = 2
MAX_UID_BYTES: Final = 16
_BODY_MAX: Final = 2 * MAX_UID_BYTES + 2  # hex digits between STX and ETX
_HEX: Final = frozenset(b"0123456789ABCDEFabcdef")
_LINE_NOISE: Final = frozenset(b"\r\n\x00")
DEFAULT_GAP_NS: Final = 100_000_000  # a frame arrives in ~2 ms at 9600 baud


def checksum(uid: bytes) -> int:
    return reduce(lambda a, b: a ^ b, uid, 0)


def encode_frame(tag: str) -> bytes:
    """The frame for a tag id given as hex digits (the emulator and the docs use this)."""
    uid = bytes.fromhex(tag)
    if not MIN_UID_BYTES <= len(uid) <= MAX_UID_BYTES:
        raise SensorConfigError(
            f"tag {tag!r} has {len(uid)} bytes, expected {MIN_UID_BYTES}..{MAX_UID_BYTES}"
        )
    body = uid.hex().upper() + f"{checksum(uid):02X}"
    return bytes([STX]) + body.encode("ascii") + bytes([ETX])


class FrameDecoder:
    """Bytes of one serial reader in, :class:`TagSeen` / :class:`ReaderFault` out."""

    __slots__ = ("_body", "_gap_ns", "_garbage", "_in_frame", "_last_ns", "_name")

    def __init__(self, name: str, gap_ns: int = DEFAULT_GAP_NS) -> None:
        self._name = name
        self._gap_ns = gap_ns
        self._in_frame = False
        self._body = bytearray()
        self._garbage = bytearray()
        self._last_ns = 0

    @property
    def in_progress(self) -> bool:
        return self._in_frame or bool(self._garbage)

    def _fault(self, kind: FaultKind, detail: str, t_ns: int) -> ReaderFault:
        return ReaderFault(self._name, kind, detail, t_ns)

    def _flush_garbage(self, t_ns: int) -> list[ReaderEvent]:
        if not self._garbage:
            return []
        shown = bytes(self._garbage[:32]).hex(" ")
        more = f" (+{len(self._garbage) - 32} more)" if len(self._garbage) > 32 else ""
        out: list[ReaderEvent] = [
            self._fault(FaultKind.GARBAGE, f"{len(self._garbage)} bytes: {shown}{more}", t_ns)
        ]
        self._garbage.clear()
        return out

    def flush(self, now_ns: int, *, force: bool = False) -> list[ReaderEvent]:
        """After silence of the gap (or at once with ``force``: unplug), report what is pending."""
        if not force and now_ns - self._last_ns < self._gap_ns:
            return []
        out = self._flush_garbage(self._last_ns)
        if self._in_frame:
            out.append(self._truncated("silence", self._last_ns))
        return out

    def _truncated(self, why: str, t_ns: int) -> ReaderFault:
        body = bytes(self._body).decode("ascii", "replace")
        self._in_frame = False
        self._body.clear()
        return self._fault(FaultKind.TRUNCATED, f"frame {body!r} cut off by {why}", t_ns)

    def feed(self, data: bytes, t_ns: int) -> list[ReaderEvent]:
        out: list[ReaderEvent] = []
        if self.in_progress and t_ns - self._last_ns >= self._gap_ns:
            out += self.flush(t_ns, force=True)
        self._last_ns = t_ns
        for b in data:
            if b == STX:
                out += self._flush_garbage(t_ns)
                if self._in_frame:
                    out.append(self._truncated("a new STX", t_ns))
                self._in_frame = True
                continue
            if not self._in_frame:
                if b not in _LINE_NOISE:
                    self._garbage.append(b)
                continue
            if b == ETX:
                out.append(self._finish(t_ns))
                continue
            if b not in _HEX:
                out.append(self._truncated(f"byte 0x{b:02x}", t_ns))
                self._garbage.append(b)
                continue
            self._body.append(b)
            if len(self._body) > _BODY_MAX:
                self._in_frame = False
                self._body.clear()
                out.append(self._fault(FaultKind.TOO_LONG, f"over {_BODY_MAX} hex digits", t_ns))
        return out

    def _finish(self, t_ns: int) -> ReaderEvent:
        body = bytes(self._body).decode("ascii").upper()
        self._in_frame = False
        self._body.clear()
        n = len(body)
        if n % 2 or not 2 * MIN_UID_BYTES + 2 <= n <= _BODY_MAX:
            return self._fault(
                FaultKind.TRUNCATED,
                f"frame {body!r} has {n} hex digits, expected an even count "
                f"{2 * MIN_UID_BYTES + 2}..{_BODY_MAX}",
                t_ns,
            )
        uid, check = bytes.fromhex(body[:-2]), int(body[-2:], 16)
        if checksum(uid) != check:
            return self._fault(
                FaultKind.BAD_CHECKSUM,
                f"frame {body!r}: checksum {check:02X}, computed {checksum(uid):02X}",
                t_ns,
            )
        return TagSeen(self._name, uid.hex().upper(), t_ns)
