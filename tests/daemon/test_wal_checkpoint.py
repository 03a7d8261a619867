"""daemon/wal_checkpoint.py: the WAL is copied back into the database file by a connection and a
thread of its own, at quiet moments, so no group commit pays for a checkpoint (issue 20); the
commit's own checkpoint is only a backstop."""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import daemon_kit
from conftest import running_service

from daemon.config import Config
from daemon.eventlog import EventLog
from daemon.service import Service
from daemon.wal_checkpoint import BACKSTOP_PAGES, WalCheckpointer


def _inputs_in_main_file(log_path: Path, tmp: Path) -> int:
    """The inputs the database file holds by itself (what a checkpoint has copied into it)."""
    alone = tmp / "alone.sqlite"
    shutil.copyfile(log_path, alone)  # without its -wal
    db = sqlite3.connect(alone)
    try:
        return int(db.execute("SELECT COUNT(*) FROM inputs").fetchone()[0])
    except sqlite3.OperationalError:  # not even the schema was copied back yet
        return 0
    finally:
        db.close()


def _commit(log: EventLog, n: int) -> None:
    for i in range(n):
        with log.group() as writer:
            writer.append(game=1, kind="marker", source="test", body={"type": "x", "i": i},
                          mono_ns=i, wall_ns=i, boot="b")


def test_a_checkpoint_copies_the_committed_log_into_the_database_file(tmp_path: Path) -> None:
    path = tmp_path / "log.sqlite"
    log = EventLog(path, "w")
    log.checkpoint_pages(BACKSTOP_PAGES)
    _commit(log, 300)  # ~600 WAL pages: under the backstop, so no commit checkpointed
    assert _inputs_in_main_file(path, tmp_path) == 0
    wal = WalCheckpointer(path, "w", lambda: 300)
    try:
        wal.checkpoint()
        assert (wal.runs, wal.failures) == (1, 0) and wal.pages > 0
        assert _inputs_in_main_file(path, tmp_path) == 300
        _commit(log, 5)  # the writer goes on after (and beside) the checkpointer
        assert len(list(log.records())) == 305
    finally:
        wal.close()
        log.close()


def test_it_runs_at_a_quiet_moment_or_when_too_much_waits() -> None:
    wal = WalCheckpointer("unused.sqlite", "w", lambda: 0, quiet=100, busy=1000, stale_s=60)
    try:
        assert not wal.due(0, quiet=True, since_s=3600)  # nothing to copy
        assert not wal.due(99, quiet=True, since_s=1)
        assert wal.due(100, quiet=True, since_s=1)  # a pause between two inputs
        assert not wal.due(999, quiet=False, since_s=1)  # commits coming: not now
        assert wal.due(1000, quiet=False, since_s=1)  # a log that is never quiet
        assert wal.due(1, quiet=False, since_s=60)  # and never later than a minute
    finally:
        wal.close()


async def test_the_daemon_checkpoints_off_the_input_path(
    broker: daemon_kit.Broker, make_config: Callable[..., Config], tmp_path: Path
) -> None:
    """In the running service the commit's own checkpoint is the backstop only, and after a
    pause the database file holds what was committed before it."""
    config = make_config(broker.port)
    async with running_service(config) as service:
        assert isinstance(service, Service)
        db = service.eventlog._db
        assert db.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == BACKSTOP_PAGES
        wal = service.wal
        wal._poll_s, wal._quiet = 0.05, 10
        for body in daemon_kit.game_inputs(1)[:40]:
            await service.submit("input", "table", body)
        for _ in range(100):
            if wal.runs:
                break
            await asyncio.sleep(0.05)
        assert wal.runs >= 1 and wal.failures == 0
        assert _inputs_in_main_file(Path(config.eventlog.path), tmp_path) >= 40
