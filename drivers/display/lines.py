"""The serial display line protocol (docs/protocol/table-link.md §10). Pure.

ASCII lines ending in LF (a CR before it is ignored), at most 64 bytes, fields separated by one
space. Every host line gets exactly one reply line::

    host -> display                 display -> host
    PING                            PONG <protocol version> <model>
    HONBA <honba> <deposits>        OK
    SCORES <s0> <s1> <s2> <s3>      OK            (signed points, seat 0..3 in order)
    CLOCKS <r> <t> <h0> <h1> <h2> <h3>  OK        (WMC clocks, whole seconds: r = the running
                                                   seat or -1, t = its turn time left, h0..h3 =
                                                   each seat's hand time left; negative = over)
    CLEAR                           OK
    (anything else)                 ERR <code> <text>   1 unknown command, 2 bad argument,
                                                        3 line too long

The host's half is here (commands formatted, replies parsed); the display's half (commands
parsed, replies formatted) is the emulator's, hil/display_emulator.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

from drivers.display.errors import DisplayProtocolError

PROTOCOL_VERSION = 1
MAX_LINE = 64


@dataclass(frozen=True, slots=True)
class Ping:
    pass


@dataclass(frozen=True, slots=True)
class SetHonba:
    honba: int
    deposits: int


@dataclass(frozen=True, slots=True)
class SetScores:
    scores: tuple[int, int, int, int]


@dataclass(frozen=True, slots=True)
class SetClocks:
    """Per-seat remaining time (W 打牌时限): the running seat (-1: none), its turn time left and
    every seat's hand time left, in whole seconds (negative past a limit)."""

    running: int
    turn_left: int
    hand_left: tuple[int, int, int, int]


@dataclass(frozen=True, slots=True)
class Clear:
    pass


@dataclass(frozen=True, slots=True)
class Ok:
    pass


@dataclass(frozen=True, slots=True)
class Err:
    code: int
    text: str


@dataclass(frozen=True, slots=True)
class Pong:
    version: int
    model: str


DisplayCommand: TypeAlias = Ping | SetHonba | SetScores | SetClocks | Clear
Reply: TypeAlias = Ok | Err | Pong


def format_command(command: DisplayCommand) -> bytes:
    match command:
        case Ping():
            text = "PING"
        case SetHonba(honba, deposits):
            text = f"HONBA {honba} {deposits}"
        case SetScores(scores):
            text = "SCORES " + " ".join(str(s) for s in scores)
        case SetClocks(running, turn_left, hand_left):
            text = f"CLOCKS {running} {turn_left} " + " ".join(str(h) for h in hand_left)
        case Clear():
            text = "CLEAR"
    return (text + "\n").encode("ascii")


def parse_reply(line: str) -> Reply:
    word, _, rest = line.partition(" ")
    if line == "OK":
        return Ok()
    if word == "ERR":
        code, _, text = rest.partition(" ")
        if code.isdigit():
            return Err(int(code), text)
    if word == "PONG":
        version, _, model = rest.partition(" ")
        if version.isdigit():
            return Pong(int(version), model)
    raise DisplayProtocolError(f"not a display reply: {line!r}")


class LineSplitter:
    """Bytes in, complete lines out. A line longer than MAX_LINE is dropped up to its LF and
    reported as ``None`` so that the display can answer ERR 3."""

    def __init__(self) -> None:
        self._buf = bytearray()
        self._overlong = False

    def feed(self, data: bytes) -> list[str | None]:
        *complete, tail = data.split(b"\n")
        out = [self._finish(part) for part in complete]
        if not self._overlong:
            self._buf += tail
            if len(self._buf) > MAX_LINE:
                self._overlong = True
                self._buf.clear()
        return out

    def _finish(self, part: bytes) -> str | None:
        if self._overlong or len(self._buf) + len(part) > MAX_LINE:
            self._overlong = False
            self._buf.clear()
            return None
        line = bytes(self._buf + part).rstrip(b"\r")
        self._buf.clear()
        return line.decode("ascii", "replace")
