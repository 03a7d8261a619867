"""What a score display shows, and the displays driven over the table link."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from drivers.link.messages import Capability, HonbaDisplay, ScoreDisplay
from drivers.table.link import TableLink


@dataclass(frozen=True, slots=True)
class Scoreboard:
    """Honba counter, deposits (riichi sticks on the table) and the four scores by seat."""

    honba: int
    deposits: int
    scores: tuple[int, int, int, int]


class BoardDisplay(Protocol):
    async def show(self, board: Scoreboard) -> None: ...


class LinkBoardDisplay:
    """The table's own honba and per-seat score displays, through the table link. Sends only
    what the table announced (capabilities ``honba_display``, ``score_displays``); after a
    reconnect :meth:`show` the last board again, as the table may have lost power (the daemon's
    table driver does: daemon/devices.py)."""

    def __init__(self, link: TableLink) -> None:
        self.link = link
        self.last: Scoreboard | None = None

    async def show(self, board: Scoreboard) -> None:
        self.last = board
        caps = self.link.state.capabilities
        if Capability.HONBA_DISPLAY in caps:
            await self.link.send(HonbaDisplay(board.honba, board.deposits))
        if Capability.SCORE_DISPLAYS in caps:
            await self.link.send(ScoreDisplay(board.scores))
