"""The event log's format 2 (daemon/log_format.py): a format-1 log, as the code before it wrote
it, opened by this code: read as it is read-only, migrated once when opened to write (the same
inputs, applied mark, link positions and games), and it goes on; an input's commit writes two
WAL pages; a link's position stays exact however long ago it moved. Real SQLite files."""

from __future__ import annotations

import logging
import sqlite3
import time
from pathlib import Path
from typing import Any

import daemon_kit
import pytest

from daemon import log_format
from daemon.cli.log import main as log_main
from daemon.eventlog import EventLog
from daemon.log_chain import canonical, chained
from daemon.log_values import LinkPosition, Record
from daemon.table import Applied, Pending, TableCore
from daemon.tracking.records import KIND_MARKER
from drivers.link.reports import RxPosition

#: the schema of format 1, as daemon/eventlog.py created it
_FORMAT_1 = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE inputs (
    seq INTEGER PRIMARY KEY,
    game INTEGER NOT NULL,
    kind TEXT NOT NULL,
    source TEXT NOT NULL,
    mono_ns INTEGER NOT NULL,
    wall_ns INTEGER NOT NULL,
    boot TEXT NOT NULL,
    body TEXT NOT NULL,
    chain INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX inputs_game ON inputs (game, seq);
CREATE TABLE applied (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    input_seq INTEGER NOT NULL,
    event_seq INTEGER NOT NULL
);
INSERT INTO applied (id, input_seq, event_seq) VALUES (1, 0, 0);
CREATE TABLE outbox (
    seq INTEGER PRIMARY KEY,
    input_seq INTEGER NOT NULL,
    topic TEXT NOT NULL,
    payload TEXT NOT NULL
);
CREATE TABLE commands (
    user TEXT NOT NULL,
    id TEXT NOT NULL,
    received_ns INTEGER NOT NULL,
    reply TEXT NOT NULL,
    PRIMARY KEY (user, id)
);
CREATE TABLE links (name TEXT PRIMARY KEY, peer_boot_id INTEGER NOT NULL, seq INTEGER NOT NULL);
CREATE TABLE checkpoints (
    input_seq INTEGER PRIMARY KEY,
    event_seq INTEGER NOT NULL,
    code TEXT NOT NULL,
    state BLOB NOT NULL
);
INSERT INTO meta (key, value) VALUES ('format', '1'), ('table', 'old');
"""


def _old_log(path: Path, games: list[int], applied: int) -> None:
    """A format-1 log: one input per entry of ``games`` (its game), the first ``applied`` of
    them with one event each, two links."""
    con = sqlite3.connect(path)
    con.execute("PRAGMA journal_mode=WAL")
    con.executescript(_FORMAT_1)
    chain = 0
    for seq, game in enumerate(games, start=1):
        row = (seq, game, "marker", "table", seq * 10, seq * 20, "b", f'{{"i":{seq}}}')
        chain = chained(chain, canonical(*row))
        con.execute("INSERT INTO inputs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", (*row, chain))
        if seq <= applied:
            con.execute("INSERT INTO outbox VALUES (?, ?, 'e', 'p')", (seq, seq))
    con.execute("UPDATE applied SET input_seq = ?, event_seq = ?", (applied, applied))
    con.executemany("INSERT INTO links VALUES (?, ?, ?)", [("table", 0xC0, 41), ("aux", 7, 3)])
    con.commit()
    con.close()


def _answers(log: EventLog) -> dict[str, Any]:
    games = log.games()
    return {
        "records": [r.to_json() for r in log.records()],
        "applied": log.applied(),
        "links": [log.link_position(n) for n in ("table", "aux", "none")],
        "games": games,
        "by_game": {g: [r.seq for r in log.records(game=g)] for g, *_ in games},
        "after": [r.seq for r in log.records(after=4, game=games[-1][0])],
        "last": log.last_chain(),
    }


@pytest.mark.parametrize("games", [[0, 0, 1, 1, 1, 2, 2, 2, 2, 2], [0, 1, 1, 0, 3, 3, 1]])
def test_a_format_1_log_reads_the_same_before_and_after_its_migration(
        tmp_path: Path, games: list[int], caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "old.sqlite"
    _old_log(path, games, applied=len(games) - 2)
    old = EventLog(path, "", readonly=True)  # jantaku log, status, the backfill: as it is
    before = _answers(old)
    old.close()
    assert before["applied"] == (len(games) - 2, len(games) - 2)
    assert before["links"][0] == LinkPosition("table", RxPosition(0xC0, 41))
    with caplog.at_level(logging.WARNING, logger="jantaku.eventlog"):
        EventLog(path, "old").close()
        migrated = EventLog(path, "old")  # once: the second open finds format 2
    assert sum("format 2" in r.getMessage() for r in caplog.records) == 1
    assert _answers(migrated) == before
    migrated.close()
    con = sqlite3.connect(path)
    names = {r[0] for r in con.execute("SELECT name FROM sqlite_master")}
    assert {"applied", "inputs_game"}.isdisjoint(names)
    assert con.execute("SELECT value FROM meta WHERE key = 'format'").fetchone() == ("2",)
    con.close()
    reader = EventLog(path, "", readonly=True)
    assert _answers(reader) == before
    reader.close()


def test_a_migrated_log_goes_on_from_where_it_stood(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    _old_log(path, [0, 1, 1, 1], applied=2)
    core = TableCore(EventLog(path, "old"), daemon_kit.engine(), "old", checkpoint_every=0)
    recovery = core.recover()  # the two inputs logged but not applied get their events
    assert recovery.completed == 2
    assert core.log.applied() == (4, core.state.event_seq)
    core.submit_group([_fault(1, LinkPosition("table", RxPosition(0xC0, 42)))])
    core.log.close()
    again = EventLog(path, "old")
    assert again.link_position("table") == LinkPosition("table", RxPosition(0xC0, 42))
    assert again.link_position("aux") == LinkPosition("aux", RxPosition(7, 3))
    assert again.applied()[0] == 5
    assert [r.seq for r in again.records(game=1)] == [2, 3, 4, 5]
    again.close()


def test_jantaku_log_reads_a_format_1_log_and_verifies_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "old.sqlite"
    _old_log(path, [0, 1, 1], applied=0)
    assert log_main(["games", "--db", str(path)]) == 0
    assert "game 1: 2 inputs (seq 2..3)" in capsys.readouterr().out
    assert log_main(["verify", "--db", str(path)]) == 0  # replays a migrated copy
    assert "chain: 3 inputs" in capsys.readouterr().out
    con = sqlite3.connect(path)  # the file itself is left as it was
    assert con.execute("SELECT value FROM meta WHERE key = 'format'").fetchone() == ("1",)
    con.close()


def _fault(code: int, link: LinkPosition | None = None) -> Pending:
    body = {"type": "table_fault", "code": code, "name": "unknown", "seat": None}
    return Pending(KIND_MARKER, "table", body, time.monotonic_ns(), time.time_ns(), "b", link)


def _unreadable(n: int, link: LinkPosition) -> Pending:
    """An input the rules cannot read: one event (``daemon_bad_input``), as a table event's."""
    return Pending("input", "table", {"type": "nonsense", "n": n}, time.monotonic_ns(),
                   time.time_ns(), "b", link)


def _wal_frames(path: Path) -> int:
    wal = path.with_name(path.name + "-wal")
    return (wal.stat().st_size - 32) // (4096 + 24)


def test_an_input_commit_writes_two_wal_pages(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite"
    log = EventLog(path, "g")
    log.checkpoint_pages(1_000_000)  # the WAL only grows here
    core = TableCore(log, daemon_kit.engine(), "g", checkpoint_every=0)
    for seq in range(1, 4):  # the link's row and the game's run exist
        core.submit_group([_unreadable(seq, LinkPosition("table", RxPosition(0xC0, seq)))])
    grew = []
    for seq in range(4, 44):
        before = _wal_frames(path)
        (applied,) = core.submit_group(
            [_unreadable(seq, LinkPosition("table", RxPosition(0xC0, seq)))])
        assert isinstance(applied, Applied) and len(applied.events) == 1
        grew.append(_wal_frames(path) - before)
    # the input's leaf and its event's (a leaf that fills splits now and then: a page or two
    # more); format 1 wrote five: its game index leaf, the applied row and the link's row too
    assert grew.count(2) >= 0.8 * len(grew), grew
    assert sum(grew) <= 2.5 * len(grew), grew
    log.close()


def test_a_link_that_moved_long_ago_is_read_back_exactly(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(log_format, "LINK_REFRESH", 8)
    path = tmp_path / "g.sqlite"
    core = TableCore(EventLog(path, "g"), daemon_kit.engine(), "g", checkpoint_every=0)
    core.submit_group([_fault(0, LinkPosition("aux", RxPosition(9, 1)))])
    core.submit_group([_fault(1, LinkPosition("table", RxPosition(0xC0, 1)))])
    core.submit_group([_fault(2, LinkPosition("aux", RxPosition(9, 2)))])  # on its input's row
    for seq in range(3, 30):  # inputs from no link, then the table link's
        core.submit_group([_fault(seq, None if seq < 20 else
                                  LinkPosition("table", RxPosition(0xC0, seq)))])
    seen: list[str] = []
    core.log.close()
    again = EventLog(path, "g")
    again._db.set_trace_callback(seen.append)
    assert again.link_position("aux") == LinkPosition("aux", RxPosition(9, 2))
    assert again.link_position("table") == LinkPosition("table", RxPosition(0xC0, 29))
    (upto,) = again._db.execute("SELECT upto FROM links WHERE name = 'aux'").fetchone()
    assert upto >= 30 - 8  # refreshed: a restart reads at most LINK_REFRESH rows back
    again.close()


def test_a_game_is_read_by_its_seqs(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "g.sqlite", "g")
    for game in [0, 0, 1, 1, 2, 2, 2]:
        log.append(game=game, kind="marker", source="t", body={}, mono_ns=0, wall_ns=0,
                   boot="b")
    assert log._db.execute("SELECT first_seq, game FROM games").fetchall() == [
        (1, 0), (3, 1), (5, 2)]
    assert log.games() == [(0, 2, 1, 2), (1, 2, 3, 4), (2, 3, 5, 7)]
    assert [r.seq for r in log.records(game=2)] == [5, 6, 7]
    assert [r.seq for r in log.records(after=5, game=2)] == [6, 7]
    assert list(log.records(game=3)) == []
    assert isinstance(log.last_record(), Record)
    log.close()
