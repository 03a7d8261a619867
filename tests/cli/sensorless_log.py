"""A real event log (SQLite, written by the daemon's TableCore) of a table without sensors: the
games a referee records by results alone (``game_start`` with ``auto_hands``, then
``manual_result`` per hand), for the tests that export it with ``jantaku log export`` and open
the export with its readers."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from daemon.engine import load_engine
from daemon.eventlog import EventLog
from daemon.table import TableCore
from hil.kit import commit_one
from rules.seats import Seat


class SensorlessLog:
    """Feed results; ``dealer`` is the seat dealing the hand being recorded (the engine's)."""

    def __init__(self, core: TableCore) -> None:
        self.core = core
        self.games = 0

    def new_game(self, ruleset: str, scores: int = 25000) -> None:
        self.submit({"type": "game_start", "ruleset": ruleset, "first_dealer": 0,
                     "names": ["Aoi", "Ben", "Chen", "Dai"], "scores": [scores] * 4,
                     "auto_hands": True})
        self.games += 1

    def submit(self, body: dict[str, Any]) -> None:
        commit_one(self.core, "input", "referee:alice", body, time.monotonic_ns(), time.time_ns(),
                   "boot-1")

    def result(self, **args: Any) -> None:
        """A ``manual_result``; fails the test when the engine refuses it (no hand ended)."""
        before = self.core.state.table.hands
        self.submit({"type": "referee", "action": "manual_result", "by": "alice",
                     "args": {"reason": "recorded by the referee", **args}})
        table = self.core.state.table
        ended = table.hand is None or table.hand.step == "ended" or table.hands > before
        assert ended, f"manual_result refused: {args}"

    @property
    def dealer(self) -> Seat:
        hand = self.core.state.table.hand
        assert hand is not None and hand.step != "ended", "no hand in play"
        return hand.dealer

    @property
    def over(self) -> bool:
        return bool(self.core.state.table.game_over)


@contextmanager
def sensorless_log(db: Path, table: str = "tsl") -> Iterator[SensorlessLog]:
    log = EventLog(db, table)
    core = TableCore(log, load_engine(), table)
    try:
        yield SensorlessLog(core)
    finally:
        log.close()
