"""Linux ``struct input_event`` as read from an evdev device file (pure).

``struct input_event { struct timeval time; __u16 type; __u16 code; __s32 value; }``
(linux/input.h). The timeval is two C ``long``s (``__kernel_ulong_t`` on 32-bit userspace with a
64-bit ``time_t``, which is the same width), so an event is 24 bytes on a 64-bit Pi OS and 16 bytes
on a 32-bit one. Reads from a real device always return whole events; through a pipe or a pty
(the emulator) they may be split anywhere, so the decoder buffers partial events.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Final

from drivers.tiles.errors import SensorConfigError

EV_SYN: Final = 0x00
EV_KEY: Final = 0x01
EV_MSC: Final = 0x04
SYN_REPORT: Final = 0
SYN_DROPPED: Final = 3
MSC_SCAN: Final = 4

NATIVE_WORD: Final = struct.calcsize("@l")


def event_format(word_bytes: int = NATIVE_WORD) -> struct.Struct:
    """The little-endian layout of one event for a userspace word size of 4 or 8 bytes."""
    if word_bytes == 8:
        return struct.Struct("<qqHHi")
    if word_bytes == 4:
        return struct.Struct("<iiHHi")
    raise SensorConfigError(f"word size must be 4 or 8 bytes, got {word_bytes!r}")


@dataclass(frozen=True, slots=True)
class InputEvent:
    sec: int
    usec: int
    type: int
    code: int
    value: int

    @property
    def t_ns(self) -> int:
        return self.sec * 1_000_000_000 + self.usec * 1_000


class InputEventDecoder:
    """Bytes in, whole events out; keeps the tail of a split event for the next :meth:`feed`."""

    __slots__ = ("_buf", "_fmt")

    def __init__(self, word_bytes: int = NATIVE_WORD) -> None:
        self._fmt = event_format(word_bytes)
        self._buf = b""

    @property
    def pending(self) -> int:
        """Bytes of an incomplete event held back (non-zero at end of stream = truncated)."""
        return len(self._buf)

    def feed(self, data: bytes) -> list[InputEvent]:
        buf = self._buf + data
        size = self._fmt.size
        whole = len(buf) - len(buf) % size
        out = [InputEvent(*fields) for fields in self._fmt.iter_unpack(buf[:whole])]
        self._buf = buf[whole:]
        return out

    def reset(self) -> bytes:
        """Drop and return the incomplete tail (after an unplug)."""
        tail, self._buf = self._buf, b""
        return tail
