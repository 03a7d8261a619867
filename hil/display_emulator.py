"""Emulator of a standalone serial score display (drivers/display/lines.py protocol) on a pty,
with the display's half of the line protocol (commands parsed, replies formatted).

It keeps what a real display would show (honba, deposits, four scores), renders it as the
characters of 6-digit 7-segment displays, records every line it received, and can be muted
(answers nothing) or unplugged/replugged like the table controller.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from pathlib import Path

from drivers.display.errors import DisplayProtocolError
from drivers.display.lines import (
    MAX_LINE,
    PROTOCOL_VERSION,
    Clear,
    DisplayCommand,
    Err,
    LineSplitter,
    Ok,
    Ping,
    Pong,
    Reply,
    SetClocks,
    SetHonba,
    SetScores,
)
from hil.table_controller import PtyPort

DIGITS = 6


class ErrCode(IntEnum):
    UNKNOWN_COMMAND = 1
    BAD_ARGUMENT = 2
    LINE_TOO_LONG = 3


def _ints(args: list[str], count: int, lo: int, hi: int, line: str) -> list[int]:
    if len(args) != count:
        raise DisplayProtocolError(f"{line!r}: expected {count} numbers, got {len(args)}")
    try:
        values = [int(a, 10) for a in args]
    except ValueError:
        raise DisplayProtocolError(f"{line!r}: arguments must be decimal integers") from None
    if not all(lo <= v <= hi for v in values):
        raise DisplayProtocolError(f"{line!r}: numbers must be {lo}..{hi}")
    return values


def parse_command(line: str) -> DisplayCommand:
    """Raises DisplayProtocolError; its ``args[0]`` is the text of the ERR reply."""
    word, *args = line.split(" ")
    if word == "PING" and not args:
        return Ping()
    if word == "CLEAR" and not args:
        return Clear()
    if word == "HONBA":
        honba, deposits = _ints(args, 2, 0, 99, line)
        return SetHonba(honba, deposits)
    if word == "SCORES":
        a, b, c, d = _ints(args, 4, -9_999_999, 99_999_999, line)
        return SetScores((a, b, c, d))
    if word == "CLOCKS":
        r, t, h0, h1, h2, h3 = _ints(args, 6, -9999, 9999, line)
        if not -1 <= r <= 3:
            raise DisplayProtocolError(f"{line!r}: the running seat must be -1..3")
        return SetClocks(r, t, (h0, h1, h2, h3))
    raise DisplayProtocolError(f"unknown command {line!r}")


def format_reply(reply: Reply) -> bytes:
    match reply:
        case Ok():
            text = "OK"
        case Err(code, message):
            text = f"ERR {code} {message}"
        case Pong(version, model):
            text = f"PONG {version} {model}"
    return (text.encode("ascii", "replace")[:MAX_LINE - 1] + b"\n")


@dataclass(slots=True)
class ShownState:
    honba: int = 0
    deposits: int = 0
    scores: tuple[int, int, int, int] = (0, 0, 0, 0)
    clocks: SetClocks | None = None
    lines: list[str | None] = field(default_factory=list)


def seven_segment(value: int, digits: int = DIGITS) -> str:
    """What a ``digits``-wide 7-segment display shows for ``value`` (dashes when it cannot)."""
    text = str(value)
    return text.rjust(digits) if len(text) <= digits else "-" * digits


class SerialDisplayEmulator:
    def __init__(self, link: Path, *, model: str = "hil-7seg-6") -> None:
        self.model = model
        self.state = ShownState()
        self.muted = False
        self._splitter = LineSplitter()
        self.port = PtyPort(link, self._on_data)

    @property
    def path(self) -> Path:
        return self.port.link

    async def __aenter__(self) -> SerialDisplayEmulator:
        self.port.plug()
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.port.unplug()

    def rendered(self) -> dict[str, str]:
        """The digits on each display: ``seat0``..``seat3``, ``honba``, ``deposits``."""
        shown = {f"seat{k}": seven_segment(s) for k, s in enumerate(self.state.scores)}
        shown["honba"] = seven_segment(self.state.honba, 2)
        shown["deposits"] = seven_segment(self.state.deposits, 2)
        return shown

    def _on_data(self, data: bytes) -> None:
        for line in self._splitter.feed(data):
            self.state.lines.append(line)
            reply = self._answer(line)
            if not self.muted:
                self.port.write(format_reply(reply))

    def _answer(self, line: str | None) -> Reply:
        if line is None:
            return Err(ErrCode.LINE_TOO_LONG, "line too long")
        try:
            command = parse_command(line)
        except DisplayProtocolError as exc:
            code = ErrCode.UNKNOWN_COMMAND if "unknown" in str(exc) else ErrCode.BAD_ARGUMENT
            return Err(code, str(exc))
        if self.muted:
            return Ok()
        match command:
            case Ping():
                return Pong(PROTOCOL_VERSION, self.model)
            case SetHonba(honba, deposits):
                self.state.honba, self.state.deposits = honba, deposits
            case SetScores(scores):
                self.state.scores = scores
            case SetClocks():
                self.state.clocks = command
            case Clear():
                self.state.honba = self.state.deposits = 0
                self.state.scores = (0, 0, 0, 0)
        return Ok()
