"""Emulator of a standalone serial score display (drivers/display/lines.py protocol) on a pty.

It keeps what a real display would show (honba, deposits, four scores), renders it as the
characters of 6-digit 7-segment displays, records every line it received, and can be muted
(answers nothing) or unplugged/replugged like the table controller.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from drivers.display.errors import DisplayProtocolError
from drivers.display.lines import (
    PROTOCOL_VERSION,
    Clear,
    Err,
    ErrCode,
    LineSplitter,
    Ok,
    Ping,
    Pong,
    Reply,
    SetClocks,
    SetHonba,
    SetScores,
    format_reply,
    parse_command,
)
from hil.table_controller import PtyPort

DIGITS = 6


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
