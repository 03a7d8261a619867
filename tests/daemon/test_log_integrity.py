"""A log never rolls back or changes silently (issue 29, item 4; daemon/log_integrity.py).

From outside: a log written by a real process (killed with SIGKILL, so its WAL stays as a crash
leaves it), then damaged the ways a table's SD card is damaged, and the real ``jantaku run``,
``jantaku run --check``, ``jantaku log verify`` and ``jantaku status`` asked about it: exit 2, one
line naming what was found and ``jantaku log accept``, never a traceback, never READY.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

import daemon_kit
import pytest

from daemon.eventlog import EventLog
from daemon.log_mark import mark_path, read_mark
from hil.kit import jantaku

REPO = Path(__file__).resolve().parents[2]

# A writer that logs N inputs, each group commit as the daemon makes it, keeps everything in the
# WAL (no checkpoint), prints its last seq and dies by SIGKILL: the state a crash leaves.
WRITER = """
import json, os, signal, sys
from daemon.eventlog import EventLog
db, n = sys.argv[1], int(sys.argv[2])
log = EventLog(db, "integrity")
log.checkpoint_pages(1_000_000)
for i in range(n):
    with log.group() as w:
        w.append(game=1, kind="input", source="table", mono_ns=i, wall_ns=i, boot="b",
                 body={"type": "discard", "seat": i % 4, "tile": "5m", "n": i})
print(log.last_seq(), flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


def _write(db: Path, n: int) -> None:
    out = subprocess.run([sys.executable, "-c", WRITER, str(db), str(n)], capture_output=True,
                         text=True, cwd=REPO, timeout=60)
    assert out.returncode == -signal.SIGKILL, out.stderr
    assert out.stdout.split() == [str(n)]


def _checkpoint(db: Path) -> None:
    con = sqlite3.connect(db)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()


@pytest.fixture
def table(tmp_path: Path) -> tuple[Path, Path]:
    db = tmp_path / "t.sqlite"
    config = tmp_path / "t.toml"
    config.write_text(daemon_kit.config_text(table=daemon_kit.unique_table("li"), db=db,
                                             port=daemon_kit.free_port()))
    return db, config


def _cli(*args: str, timeout: float = 30,
         notify: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NOTIFY_SOCKET": notify}
    return subprocess.run([jantaku(), *args], capture_output=True, text=True, timeout=timeout,
                          env=env)


def _run_never_ready(config: Path, *words: str) -> None:
    """``jantaku run`` under a systemd-style notify socket: refused, and no READY=1 sent."""
    path = config.with_name("notify.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(path))
    sock.setblocking(False)
    try:
        _refused(_cli("run", "--config", str(config), notify=str(path)), *words)
        got = b""
        while True:
            try:
                got += sock.recv(4096)
            except BlockingIOError:
                break
        assert b"READY=1" not in got, got
    finally:
        sock.close()
        path.unlink()


def _refused(out: subprocess.CompletedProcess[str], *words: str) -> str:
    assert out.returncode == 2, (out.returncode, out.stdout, out.stderr)
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr  # one line, no traceback
    assert "Traceback" not in out.stderr and "READY" not in out.stdout
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


def _all_refuse(db: Path, config: Path, *words: str) -> None:
    _refused(_cli("run", "--check", "--config", str(config)), *words, "jantaku log accept",
             f"--config {config}")
    _run_never_ready(config, *words, "jantaku log accept")
    _refused(_cli("log", "verify", "--db", str(db)), *words, "jantaku log accept", f"--db {db}")
    _refused(_cli("status", "--db", str(db)), *words, "jantaku log accept")


def _accept_then_ok(config: Path) -> None:
    out = _cli("log", "accept", "--config", str(config))
    assert out.returncode == 0, out.stderr
    ok = _cli("run", "--check", "--config", str(config))
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.strip().endswith(")")


def test_a_new_table_starts_as_today_and_a_sound_log_passes(table: tuple[Path, Path]) -> None:
    db, config = table
    assert _cli("run", "--check", "--config", str(config)).returncode == 0
    assert not db.exists()  # --check writes nothing
    _write(db, 40)
    assert read_mark(mark_path(db)) is not None
    assert _cli("run", "--check", "--config", str(config)).returncode == 0
    out = _cli("log", "verify", "--db", str(db))
    assert "40 inputs match their chain" in out.stdout, out.stdout + out.stderr


def test_a_wal_truncated_to_half_is_refused(table: tuple[Path, Path]) -> None:
    db, config = table
    _write(db, 300)
    wal = db.with_name(db.name + "-wal")
    size = wal.stat().st_size
    assert size > 100_000  # the inputs are in the WAL only
    os.truncate(wal, size // 2)
    _all_refuse(db, config, "its mark says 300", "inputs lost")
    _accept_then_ok(config)


def test_flipped_bytes_inside_a_record_are_refused(table: tuple[Path, Path]) -> None:
    db, config = table
    _write(db, 200)
    _checkpoint(db)
    raw = bytearray(db.read_bytes())
    at = raw.index(b'"n":117,')
    raw[at + 4:at + 7] = b"771"  # the record stays valid JSON: only the chain can tell
    db.write_bytes(bytes(raw))
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA quick_check").fetchall() == [("ok",)]  # SQLite does not see it
    con.close()
    _all_refuse(db, config, "input 118 does not match its chain")
    _accept_then_ok(config)


def test_a_removed_log_with_its_mark_present_is_refused(table: tuple[Path, Path]) -> None:
    db, config = table
    _write(db, 20)
    for suffix in ("", "-wal", "-shm"):
        db.with_name(db.name + suffix).unlink(missing_ok=True)
    line = _refused(_cli("run", "--check", "--config", str(config)), "missing",
                    "its mark says 20", "jantaku log accept")
    assert "Traceback" not in line
    _run_never_ready(config, "missing")
    _refused(_cli("status", "--config", str(config)), "missing", "jantaku log accept")
    _accept_then_ok(config)


def test_a_truncated_database_file_is_refused(table: tuple[Path, Path]) -> None:
    db, config = table
    _write(db, 400)
    _checkpoint(db)
    os.truncate(db, db.stat().st_size // 2)
    _all_refuse(db, config, "event log")
    _accept_then_ok(config)
    assert list(db.parent.glob("t.sqlite.damaged-*"))  # set aside, not deleted


def test_an_old_log_is_chained_once_and_the_migration_logged(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    db = tmp_path / "old.sqlite"
    log = EventLog(db, "old")
    for i in range(30):
        log.append(game=1, kind="input", source="table", body={"i": i}, mono_ns=i, wall_ns=i,
                   boot="b")
    chains = [r[0] for r in log._db.execute("SELECT chain FROM inputs ORDER BY seq")]
    log.close()
    con = sqlite3.connect(db)
    con.execute("ALTER TABLE inputs DROP COLUMN chain")  # the format before the chain
    con.commit()
    con.close()
    mark_path(db).unlink()
    with caplog.at_level(logging.WARNING, logger="jantaku.eventlog"):
        log = EventLog(db, "old")
        log.close()
        EventLog(db, "old").close()
    migrated = [r for r in caplog.records if "migrated" in r.getMessage()]
    assert len(migrated) == 1 and "30 inputs" in migrated[0].getMessage()
    con = sqlite3.connect(db)
    assert [r[0] for r in con.execute("SELECT chain FROM inputs ORDER BY seq")] == chains
    con.close()
    mark = read_mark(mark_path(db))
    assert mark is not None and mark.seq == 30
    out = _cli("log", "verify", "--db", str(db))
    assert out.returncode == 0, out.stderr

