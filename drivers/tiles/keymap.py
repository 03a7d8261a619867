"""Key codes of a keyboard-emulating RFID reader → tag ids (pure).

Such a reader "types" the tag id as key presses and ends it with Enter, through the US keymap
(linux/input-event-codes.h key codes: a reader sends the same codes whatever the host's layout).
:class:`KeyTagAssembler` collects the presses into tags and reports everything else as a fault:
non-hex keys, autorepeat, an Enter without digits, a tag cut off by silence (a reader types a whole
tag within a few milliseconds, so a gap of ``gap_ns`` inside a tag means it was truncated), a tag
longer than any tag id, and events the kernel dropped.
"""

from __future__ import annotations

from typing import Final

from drivers.tiles.events import FaultKind, ReaderEvent, ReaderFault, TagSeen
from drivers.tiles.input_event import EV_KEY, EV_SYN, SYN_DROPPED, InputEvent

KEY_ENTER: Final = 28
KEY_KPENTER: Final = 96
KEY_LEFTSHIFT: Final = 42
KEY_RIGHTSHIFT: Final = 54

#: key code → character, US layout (what a reader types: digits, letters, keypad digits)
US_KEYMAP: Final[dict[int, str]] = {
    2: "1", 3: "2", 4: "3", 5: "4", 6: "5", 7: "6", 8: "7", 9: "8", 10: "9", 11: "0",
    12: "-", 57: " ",
    16: "Q", 17: "W", 18: "E", 19: "R", 20: "T", 21: "Y", 22: "U", 23: "I", 24: "O", 25: "P",
    30: "A", 31: "S", 32: "D", 33: "F", 34: "G", 35: "H", 36: "J", 37: "K", 38: "L",
    44: "Z", 45: "X", 46: "C", 47: "V", 48: "B", 49: "N", 50: "M",
    71: "7", 72: "8", 73: "9", 75: "4", 76: "5", 77: "6", 79: "1", 80: "2", 81: "3", 82: "0",
}  # fmt: skip

#: character → key code (for the emulator and the docs): main-row digits, letters
US_CODES: Final[dict[str, int]] = {ch: code for code, ch in US_KEYMAP.items() if code < 71}

HEX_DIGITS: Final = frozenset("0123456789ABCDEF")
MIN_TAG_CHARS: Final = 4
MAX_TAG_CHARS: Final = 32
DEFAULT_GAP_NS: Final = 200_000_000  # 200 ms: readers type a tag in well under 50 ms


class KeyTagAssembler:
    """Key events of one reader in, :class:`TagSeen` / :class:`ReaderFault` out."""

    __slots__ = ("_bad", "_chars", "_gap_ns", "_last_ns", "_name", "_overflow")

    def __init__(self, name: str, gap_ns: int = DEFAULT_GAP_NS) -> None:
        self._name = name
        self._gap_ns = gap_ns
        self._chars: list[str] = []
        self._bad: list[str] = []  # why the tag in progress is not a tag (non-hex keys, ...)
        self._overflow = False
        self._last_ns: int | None = None

    @property
    def in_progress(self) -> bool:
        return bool(self._chars or self._bad)

    def _fault(self, kind: FaultKind, detail: str, t_ns: int) -> ReaderFault:
        return ReaderFault(self._name, kind, detail, t_ns)

    def _text(self) -> str:
        return "".join(self._chars)

    def _clear(self) -> None:
        self._chars.clear()
        self._bad.clear()
        self._overflow = False

    def flush(self, now_ns: int, *, force: bool = False) -> list[ReaderEvent]:
        """Report a tag in progress as truncated if the reader has been silent for the gap (or at
        once with ``force``, when the device goes away)."""
        if not self.in_progress or self._last_ns is None:
            return []
        if not force and now_ns - self._last_ns < self._gap_ns:
            return []
        out: list[ReaderEvent] = [
            self._fault(FaultKind.TRUNCATED, f"no Enter after {self._text()!r}", self._last_ns)
        ]
        self._clear()
        return out

    def feed(self, ev: InputEvent) -> list[ReaderEvent]:
        t = ev.t_ns
        if ev.type == EV_SYN and ev.code == SYN_DROPPED:
            out: list[ReaderEvent] = [
                self._fault(FaultKind.DROPPED, f"kernel dropped events after {self._text()!r}", t)
            ]
            self._clear()
            return out
        if ev.type != EV_KEY:
            return []  # SYN_REPORT, MSC_SCAN, LEDs: framing, not content
        if ev.code in (KEY_LEFTSHIFT, KEY_RIGHTSHIFT):
            return []  # hex letters are the same tag in either case
        if ev.value == 0:
            return []  # release
        out = []
        if self.in_progress and self._last_ns is not None and t - self._last_ns >= self._gap_ns:
            out += self.flush(t, force=True)
        self._last_ns = t
        if ev.value == 2:
            self._bad.append(f"autorepeat of key {ev.code}")
            return out
        if ev.code in (KEY_ENTER, KEY_KPENTER):
            out.append(self._finish(t))
            self._clear()
            return out
        ch = US_KEYMAP.get(ev.code)
        if ch is None:
            self._bad.append(f"key code {ev.code}")
        elif ch not in HEX_DIGITS:
            self._bad.append(f"non-hex {ch!r}")
        if len(self._chars) >= MAX_TAG_CHARS:
            self._overflow = True
        else:
            self._chars.append(ch if ch is not None else "?")
        return out

    def _finish(self, t: int) -> ReaderEvent:
        text = self._text()
        if self._overflow:
            return self._fault(FaultKind.TOO_LONG, f"more than {MAX_TAG_CHARS} keys", t)
        if self._bad:
            return self._fault(FaultKind.GARBAGE, f"{text!r}: {', '.join(self._bad)}", t)
        if not text:
            return self._fault(FaultKind.GARBAGE, "Enter without a tag", t)
        if len(text) < MIN_TAG_CHARS:
            return self._fault(
                FaultKind.TRUNCATED, f"{text!r} is shorter than {MIN_TAG_CHARS} digits", t
            )
        return TagSeen(self._name, text, t)
