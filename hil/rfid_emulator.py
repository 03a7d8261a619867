"""Emulators of the two kinds of RFID reader, speaking the bytes the real ones send.

* :class:`KeyboardReaderEmulator` — a keyboard-emulating USB reader: ``struct input_event``
  records (as the kernel's evdev device file returns them) through a FIFO at a ``by-path``-like
  path. Each character is ``MSC_SCAN``, key press, ``SYN_REPORT``, key release, ``SYN_REPORT``
  (what a USB HID keyboard produces), the tag ends with Enter.
* :class:`SerialReaderEmulator` — a serial frame reader on a pty, with a stable symlink as udev's
  ``/dev/serial/by-path`` link would be.

Both unplug (the link disappears, the reader sees end of file / EIO) and plug back in (a new FIFO
or pty behind the same link). Fault injection: raw garbage bytes, garbage keys, truncated tags and
frames, partial events, duplicates, bad checksums, dropped events; unknown tags and silence need no
helper (send a tag that is not enrolled; send nothing).

The encoders here are written from the kernel's and the module's definitions, independently of
the decoders in ``drivers/tiles``, so that a mistake in one is caught by the other.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import struct
import termios
import time
import tty
from functools import reduce
from pathlib import Path
from typing import Final

from hil.errors import EmulatorError

EV_SYN: Final = 0
EV_KEY: Final = 1
EV_MSC: Final = 4
MSC_SCAN: Final = 4
SYN_DROPPED: Final = 3
KEY_ENTER: Final = 28

#: US layout key codes (linux/input-event-codes.h) for what a reader types
KEY_CODES: Final[dict[str, int]] = {
    **{str(d): 2 + (d - 1) for d in range(1, 10)}, "0": 11,
    "A": 30, "B": 48, "C": 46, "D": 32, "E": 18, "F": 33, "G": 34, "H": 35, "I": 23, "J": 36,
    "K": 37, "L": 38, "M": 50, "N": 49, "O": 24, "P": 25, "Q": 16, "R": 19, "S": 31, "T": 20,
    "U": 22, "V": 47, "W": 17, "X": 45, "Y": 21, "Z": 44, " ": 57, "-": 12,
}  # fmt: skip
#: USB HID usage ids that the kernel reports in MSC_SCAN (keyboard page 0x07)
_HID_USAGE: Final[dict[int, int]] = {
    **{KEY_CODES[str(d)]: 0x1D + d for d in range(1, 10)}, 11: 0x27, KEY_ENTER: 0x28,
    **{KEY_CODES[c]: 0x04 + i for i, c in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZ")},
}


def input_event(t_ns: int, type_: int, code: int, value: int, word_bytes: int = 8) -> bytes:
    fmt = "<qqHHi" if word_bytes == 8 else "<iiHHi"
    sec, rest = divmod(t_ns, 1_000_000_000)
    return struct.pack(fmt, sec, rest // 1000, type_, code, value)


def key_stroke(code: int, t_ns: int, word_bytes: int = 8, hold_ns: int = 300_000) -> bytes:
    usage = 0x70000 + _HID_USAGE.get(code, 0)
    return b"".join([
        input_event(t_ns, EV_MSC, MSC_SCAN, usage, word_bytes),
        input_event(t_ns, EV_KEY, code, 1, word_bytes),
        input_event(t_ns, EV_SYN, 0, 0, word_bytes),
        input_event(t_ns + hold_ns, EV_MSC, MSC_SCAN, usage, word_bytes),
        input_event(t_ns + hold_ns, EV_KEY, code, 0, word_bytes),
        input_event(t_ns + hold_ns, EV_SYN, 0, 0, word_bytes),
    ])


def typed(text: str, t_ns: int, *, enter: bool = True, interval_ns: int = 1_000_000,
          word_bytes: int = 8) -> bytes:
    """The events of typing ``text`` (then Enter) starting at ``t_ns``."""
    codes = [KEY_CODES[ch] for ch in text.upper()] + ([KEY_ENTER] if enter else [])
    return b"".join(key_stroke(c, t_ns + i * interval_ns, word_bytes) for i, c in enumerate(codes))


class KeyboardReaderEmulator:
    """A keyboard-emulating reader behind a FIFO at ``path`` (create with :meth:`plug`)."""

    def __init__(self, path: Path, *, word_bytes: int = struct.calcsize("@l")) -> None:
        self.path = path
        self.word_bytes = word_bytes
        self._fd: int | None = None

    def plug(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        os.mkfifo(self.path)
        # O_RDWR: the FIFO has a writer from now on, so the reader sees data, not end of file
        self._fd = os.open(self.path, os.O_RDWR | os.O_NONBLOCK)

    def unplug(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)

    def write(self, data: bytes) -> None:
        if self._fd is None:
            raise EmulatorError("emulated reader is unplugged")
        view = memoryview(data)
        while view:
            n = os.write(self._fd, view)
            view = view[n:]

    def now(self) -> int:
        return time.time_ns()  # evdev's default clock is CLOCK_REALTIME

    def tag(self, tag: str, t_ns: int | None = None) -> None:
        self.write(typed(tag, self.now() if t_ns is None else t_ns, word_bytes=self.word_bytes))

    def keys(self, text: str, *, enter: bool = True, t_ns: int | None = None) -> None:
        """Type any text (garbage keys, a truncated tag with ``enter=False``)."""
        self.write(typed(text, self.now() if t_ns is None else t_ns, enter=enter,
                         word_bytes=self.word_bytes))

    def dropped(self, t_ns: int | None = None) -> None:
        t = self.now() if t_ns is None else t_ns
        self.write(input_event(t, EV_SYN, SYN_DROPPED, 0, self.word_bytes))

    def partial_event(self, t_ns: int | None = None) -> None:
        """Half of an input_event: what a reader cut off mid-record would leave."""
        t = self.now() if t_ns is None else t_ns
        whole = input_event(t, EV_KEY, KEY_CODES["1"], 1, self.word_bytes)
        self.write(whole[: len(whole) // 2])


def rdm6300_frame(tag: str) -> bytes:
    """STX, hex UID, hex XOR checksum of the UID bytes, ETX (docs/tiles.md)."""
    uid = bytes.fromhex(tag)
    check = reduce(lambda a, b: a ^ b, uid, 0)
    return b"\x02" + (uid.hex() + f"{check:02x}").upper().encode() + b"\x03"


class SerialReaderEmulator:
    """A serial frame reader on a pty, reachable through the symlink ``path``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._master: int | None = None
        self._slave: int | None = None

    def plug(self) -> None:
        self._master, self._slave = os.openpty()
        tty.setraw(self._slave)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(os.ttyname(self._slave), self.path)

    def unplug(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)
        for fd in (self._master, self._slave):
            if fd is not None:
                os.close(fd)
        self._master = self._slave = None

    def write(self, data: bytes) -> None:
        if self._master is None:
            raise EmulatorError("emulated reader is unplugged")
        view = memoryview(data)
        while view:
            n = os.write(self._master, view)
            view = view[n:]

    def unread(self) -> int:
        """Bytes written and not yet read by the daemon: the tty's input queue, which every
        open file of the pty's slave shares (0 while unplugged)."""
        if self._slave is None:
            return 0
        buf = bytearray(4)
        fcntl.ioctl(self._slave, termios.FIONREAD, buf)
        return int.from_bytes(buf, "little")

    def tag(self, tag: str, *, crlf: bool = False) -> None:
        self.write(rdm6300_frame(tag) + (b"\r\n" if crlf else b""))

    def truncated(self, tag: str, keep: int = 5) -> None:
        self.write(rdm6300_frame(tag)[:keep])

    def bad_checksum(self, tag: str) -> None:
        frame = bytearray(rdm6300_frame(tag))
        frame[-2] = ord("0") if frame[-2] != ord("0") else ord("1")
        self.write(bytes(frame))
