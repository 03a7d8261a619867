"""A restart reads each logged input once (issue 30 item 1): the core's recovery decodes the
log's inputs as it replays them, and the device tracker's restore folds those same typed inputs
instead of reading the game from the log a second time. Real SQLite files, the real reducer,
the real tracker shell."""

from __future__ import annotations

import asyncio
import contextlib
import time
from pathlib import Path
from typing import Any

import daemon_kit
import pytest
from track_kit import Table, simulated_items

import daemon.replayed_game
import daemon.table
import daemon.tracking.held
from daemon.eventlog import EventLog
from daemon.table import TableCore
from daemon.tracker import DeviceTracker
from daemon.tracking.records import KIND_INPUT, Entry
from drivers.tiles.registry import TagRegistry
from drivers.tiles.sensor import TileSensor
from hil.kit import commit_one, until
from rules import inputs as ri
from rules.inputs import Input


def _live_mid_meld() -> tuple[Table, ri.GameStart, list[Entry]]:
    """A simulated game fed to the live fold until the tracker holds a meld being laid (68
    inputs in): the table, the referee's game start and what the tracker committed."""
    items = list(simulated_items("mleague", 0, hands=2))
    start = items[0]
    assert isinstance(start, ri.GameStart)
    table = Table()
    for item in items:
        table.feed(item)
        if table.held.melds:
            return table, start, table.log
    raise AssertionError("no meld was ever held")


def _logged(path: Path, start: ri.GameStart, entries: list[Entry], every: int) -> int:
    """The game start and the tracker's records committed to a log at ``path``, as the daemon
    would; the number of inputs logged."""
    core = TableCore(EventLog(path, "g"), daemon_kit.engine(), "g", checkpoint_every=every)
    core.recover()
    records = [(KIND_INPUT, "referee:alice", start), *((e.kind, e.source, e.body) for e in entries)]
    for kind, source, body in records:
        commit_one(core, kind, source, body, time.monotonic_ns(), time.time_ns(), "b")
    core.log.close()
    return sum(kind == KIND_INPUT for kind, _, _ in records)


class _Sink:
    """What the tracker's restore asks of the service (daemon/service.py ``game_records``)."""

    def __init__(self, core: TableCore) -> None:
        self.core = core

    async def game_records(self) -> list[Entry]:
        return self.core.game_entries()


@pytest.mark.parametrize("every", [0, 50])  # no checkpoint; the replay starts mid-game
async def test_a_restart_reads_each_input_of_the_game_once(
    tmp_path: Path, every: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    live, start, entries = _live_mid_meld()
    inputs = _logged(tmp_path / "g.sqlite", start, entries, every)
    decoded: list[str] = []

    def counted(body: dict[str, Any]) -> Input:
        decoded.append(str(body.get("type")))
        return ri.input_from_json(body)

    monkeypatch.setattr(daemon.table, "input_from_json", counted)
    monkeypatch.setattr(daemon.replayed_game, "input_from_json", counted)
    monkeypatch.setattr(daemon.tracking.held, "input_from_json", counted)
    core = TableCore(EventLog(tmp_path / "g.sqlite", "g"), daemon_kit.engine(), "g",
                     checkpoint_every=every)
    recovery = core.recover()
    assert (recovery.checkpoint > 0) == (every > 0)
    assert every == 0 or recovery.replayed < recovery.inputs
    assert core.state.table == live.state  # the game in progress
    tracker = DeviceTracker((), TileSensor(TagRegistry({}), {}))
    task = asyncio.create_task(tracker.run(_Sink(core)))  # type: ignore[arg-type]
    try:
        await until(lambda: tracker.health()["status"] == "up", 10)
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    assert tracker.held == live.held  # the restored tracker holds what the live one held
    assert len(decoded) == inputs  # each logged input of the game read once, no more
    # a tracker restarting later (after a failure) reads the log: the same records
    decoded.clear()
    again = [(e.kind, e.source, e.body) for e in core.game_entries()]
    assert again == [(KIND_INPUT, "referee:alice", start),
                     *((e.kind, e.source, e.body) for e in entries)]
    assert len(decoded) == inputs
    core.log.close()
