"""What a group commit writes, statement by statement (daemon/group_writer.py ``GroupWriter``): each
input's row once, whole (its last event seq and the link position it moved in its one INSERT:
log_format.py), a link's row only when no input carries its position, updated in place after
its first insert, a marker's JSON text as the intake made it when it checked it; and what a
reopened log reads back is the same. Real SQLite files."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import daemon_kit
import pytest

from daemon.eventlog import EventLog
from daemon.intake import InputRefused, Intake
from daemon.log_values import LinkPosition
from daemon.table import Applied, Pending, TableCore
from daemon.tracking.records import KIND_MARKER
from drivers.link.reports import RxPosition


def _fault(code: int, link: LinkPosition | None = None) -> Pending:
    body = {"type": "table_fault", "code": code, "name": "unknown", "seat": None}
    return Pending(KIND_MARKER, "table", body, time.monotonic_ns(), time.time_ns(), "b", link)


def _statements(log: EventLog) -> list[str]:
    seen: list[str] = []
    log._db.set_trace_callback(seen.append)
    return seen


def test_an_inputs_row_is_written_once_with_its_applied_mark(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite"
    core = TableCore(EventLog(path, "g"), daemon_kit.engine(), "g", checkpoint_every=0)
    core.submit_group([_fault(0)])
    seen = _statements(core.log)
    core.submit_group([_fault(1), _fault(2), _fault(3)])
    assert sum(s.startswith("INSERT INTO inputs") for s in seen) == 3
    assert not any(s.startswith("UPDATE") for s in seen)
    events = core.state.event_seq
    assert core.log.applied() == (4, events)
    core.log.close()
    again = EventLog(path, "g")
    assert again.applied() == (4, events)
    assert [r.seq for r in again.records()] == [1, 2, 3, 4]
    again.close()


def test_a_link_row_is_inserted_once_then_updated_in_place(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite"
    core = TableCore(EventLog(path, "g"), daemon_kit.engine(), "g", checkpoint_every=0)
    seen = _statements(core.log)
    for seq in range(1, 4):
        core.submit_group([_fault(seq, LinkPosition("table", RxPosition(0xC0, seq)))])
    core.submit_group([LinkPosition("other", RxPosition(7, 9))])
    assert sum(s.startswith("INSERT INTO links") for s in seen) == 2  # each link's first
    assert not any(s.startswith("UPDATE links") for s in seen)  # "table" rides on its inputs
    assert not any("REPLACE INTO links" in s for s in seen)
    rowid = core.log._db.execute("SELECT rowid FROM links WHERE name = 'table'").fetchone()
    core.submit_group([LinkPosition("table", RxPosition(0xC1, 1))])
    assert core.log._db.execute(
        "SELECT rowid FROM links WHERE name = 'table'").fetchone() == rowid
    core.log.close()
    again = EventLog(path, "g")
    assert again.link_position("table") == LinkPosition("table", RxPosition(0xC1, 1))
    assert again.link_position("other") == LinkPosition("other", RxPosition(7, 9))
    again.close()


def test_a_markers_text_is_made_once_by_the_intake_and_is_what_the_log_holds(
        tmp_path: Path) -> None:
    core = TableCore(EventLog(tmp_path / "g.sqlite", "g"), daemon_kit.engine(), "g",
                     checkpoint_every=0)
    intake = Intake(core, _direct, "b")
    body = {"type": "tracker_hold", "what": "tile", "tile": 53, "zone": "é"}
    item = intake.pending(KIND_MARKER, "tracker", body)
    body["tile"] = 54  # the caller's dict, changed after: the input is what was submitted
    (applied,) = core.submit_group([item])
    assert isinstance(applied, Applied)
    stored = core.log._db.execute("SELECT body FROM inputs WHERE seq = 1").fetchone()[0]
    assert stored == '{"tile":53,"type":"tracker_hold","what":"tile","zone":"é"}'
    assert applied.record.body == json.loads(stored)
    with pytest.raises(InputRefused, match="not JSON"):
        intake.pending(KIND_MARKER, "tracker", {"type": "x", "what": object()})
    circular: dict[str, Any] = {"type": "x"}
    circular["self"] = circular
    with pytest.raises(InputRefused, match="not JSON"):
        intake.pending(KIND_MARKER, "tracker", circular)


async def _direct(fn: Any, items: Any) -> Any:
    return fn(items)
