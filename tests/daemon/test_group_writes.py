"""What a group commit writes, statement by statement (daemon/eventlog.py ``GroupWriter``): the
``applied`` row once per group (where the group ends), the link's row updated in place after
its first insert; and what a reopened log reads back is the same. Real SQLite files."""

from __future__ import annotations

import time
from pathlib import Path

import daemon_kit

from daemon.eventlog import EventLog, LinkPosition
from daemon.table import Pending, TableCore
from daemon.tracking.records import KIND_MARKER
from drivers.link.reports import RxPosition


def _fault(code: int, link: LinkPosition | None = None) -> Pending:
    body = {"type": "table_fault", "code": code, "name": "unknown", "seat": None}
    return Pending(KIND_MARKER, "table", body, time.monotonic_ns(), time.time_ns(), "b", link)


def _statements(log: EventLog) -> list[str]:
    seen: list[str] = []
    log._db.set_trace_callback(seen.append)
    return seen


def test_the_applied_row_is_written_once_per_group_where_the_group_ends(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite"
    core = TableCore(EventLog(path, "g"), daemon_kit.engine(), "g", checkpoint_every=0)
    core.submit_group([_fault(0)])
    seen = _statements(core.log)
    core.submit_group([_fault(1), _fault(2), _fault(3)])
    assert sum(s.startswith("UPDATE applied") for s in seen) == 1
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
    assert not any("REPLACE" in s for s in seen)
    rowid = core.log._db.execute("SELECT rowid FROM links WHERE name = 'table'").fetchone()
    core.submit_group([LinkPosition("table", RxPosition(0xC1, 1))])
    assert core.log._db.execute(
        "SELECT rowid FROM links WHERE name = 'table'").fetchone() == rowid
    core.log.close()
    again = EventLog(path, "g")
    assert again.link_position("table") == LinkPosition("table", RxPosition(0xC1, 1))
    assert again.link_position("other") == LinkPosition("other", RxPosition(7, 9))
    again.close()
