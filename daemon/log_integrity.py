"""Is the event log the one the table wrote? Checked before the daemon starts (``jantaku run``,
``jantaku run --check``), by ``jantaku log verify`` and ``jantaku status``; ``jantaku log accept``
is the operator's answer (docs/daemon.md, "A damaged log").

Found, each refused with one line that names it and the command that repairs or accepts it:

* ``missing``: no log, but its mark (daemon/log_mark.py) says one was written (a replaced SD
  card, a deleted file);
* ``damaged``: SQLite's ``quick_check`` fails, or the file is not a database at all (truncated);
* ``chain``: a record does not match its chain (daemon/eventlog.py): a changed byte, a missing
  or reordered record (SQLite's own check does not read the records' contents);
* ``short`` / ``diverged``: the log ends before its mark (a torn WAL, an old copy put back), or
  holds another record where the mark is.

A brand-new table (no log, no mark) and a log without a mark yet (written before the mark) pass.
"""

from __future__ import annotations

import enum
import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from daemon.errors import EventLogError
from daemon.eventlog import CANONICAL_SQL, chained
from daemon.log_mark import Mark, mark_path, read_mark, write_new


class Problem(enum.Enum):
    MISSING = "missing"
    DAMAGED = "damaged"
    CHAIN = "chain"
    SHORT = "short"
    DIVERGED = "diverged"


@dataclass(frozen=True, slots=True)
class Finding:
    problem: Problem
    what: str  # for the operator: what was found
    seq: int = 0  # CHAIN: the first record that fails; SHORT/DIVERGED: the log's last seq
    chain: int = 0  # CHAIN: the chain of the record before ``seq``
    gap: bool = False  # CHAIN: record ``seq`` is missing (not changed)


class LogDamaged(EventLogError):
    """The log is missing, damaged or behind its mark: the daemon does not start on it."""


@dataclass(frozen=True, slots=True)
class Checked:
    """What a sound log holds: its last ``(seq, chain)`` and how long the check took."""

    last: Mark
    records: int
    seconds: float


def _connect(path: Path, readonly: bool) -> sqlite3.Connection:
    if readonly:
        return sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    return sqlite3.connect(path)


#: records per step of the walk (one SQL aggregate each: SQLite builds the bytes, zlib hashes)
CHUNK = 20_000


def _walk(db: sqlite3.Connection) -> tuple[Mark, int, Finding | None]:
    """Every record against its chain, in seq order: a chunk's records concatenated by SQLite,
    CRC-32 continued over them in C, compared with the chain stored on the chunk's last record
    (then each record of a failing chunk, to name the first one that fails)."""
    (top,) = db.execute("SELECT COALESCE(MAX(seq), 0) FROM inputs").fetchone()
    text = CANONICAL_SQL.removeprefix("CAST(").removesuffix(" AS BLOB)")
    query = (f"SELECT COUNT(*), MAX(seq), group_concat({text}, '') FROM"
             " (SELECT * FROM inputs WHERE seq >= ? AND seq < ? ORDER BY seq)")
    chain, lo = 0, 1
    while lo <= top:
        n, hi, joined = db.execute(query, (lo, lo + CHUNK)).fetchone()
        ok = n == min(CHUNK, top - lo + 1) and hi == lo + n - 1
        if ok:
            now = chained(chain, joined.encode())
            (stored,) = db.execute("SELECT chain FROM inputs WHERE seq = ?", (hi,)).fetchone()
            ok = now == stored
        if not ok:
            return _walk_rows(db, lo, chain)
        chain, lo = now, hi + 1
    return Mark(top, chain), top, None


def _walk_rows(db: sqlite3.Connection, lo: int, chain: int) -> tuple[Mark, int, Finding | None]:
    """Record by record from ``lo`` (``chain``: the chain before it) to the first that fails."""
    expect = lo - 1
    rows = db.execute(f"SELECT seq, chain, {CANONICAL_SQL} FROM inputs WHERE seq >= ?"
                      " ORDER BY seq", (lo,))
    for seq, stored, blob in rows:
        expect += 1
        if seq != expect:
            return Mark(expect - 1, chain), expect - 1, Finding(
                Problem.CHAIN, f"input {expect} is missing (the next is {seq})", expect, chain,
                gap=True)
        now = chained(chain, blob)
        if now != stored:
            return Mark(expect - 1, chain), expect - 1, Finding(
                Problem.CHAIN, f"input {seq} does not match its chain (changed bytes)", seq, chain)
        chain = now
    return Mark(expect, chain), expect, None


def _against_mark(db: sqlite3.Connection, last: Mark, mark: Mark | None) -> Finding | None:
    if mark is None or mark.seq == 0:
        return None
    if last.seq < mark.seq:
        return Finding(Problem.SHORT, f"the log ends at input {last.seq} but its mark says "
                       f"{mark.seq} were logged ({mark.seq - last.seq} inputs lost)", last.seq)
    row = db.execute("SELECT chain FROM inputs WHERE seq = ?", (mark.seq,)).fetchone()
    if row is None or int(row[0]) != mark.chain:
        return Finding(Problem.DIVERGED, f"input {mark.seq} is not the one its mark names "
                       "(another or an older log)", last.seq)
    return None


def inspect(path: Path | str, *, readonly: bool = False) -> Finding | Checked:
    """Check the log at ``path`` against itself and its mark. ``readonly``: the daemon may be
    running (``log verify``, ``status``); else the WAL is replayed as the daemon would."""
    path = Path(path)
    start = time.monotonic()
    try:
        mark = read_mark(mark_path(path))
    except EventLogError as exc:
        return Finding(Problem.MISSING, str(exc))
    if not path.exists():
        if mark is not None:
            return Finding(Problem.MISSING, f"the log is missing, but its mark says {mark.seq} "
                           "inputs were logged")
        return Checked(Mark(0, 0), 0, 0.0)
    try:
        db = _connect(path, readonly)
    except sqlite3.Error as exc:
        return Finding(Problem.DAMAGED, f"cannot be opened: {exc}")
    try:
        return _inspect_open(db, mark, start)
    except sqlite3.Error as exc:
        return Finding(Problem.DAMAGED, f"not a readable database: {exc}")
    finally:
        db.close()


def _inspect_open(db: sqlite3.Connection, mark: Mark | None, start: float) -> Finding | Checked:
    result = [r[0] for r in db.execute("PRAGMA quick_check(3)")]
    if result != ["ok"]:
        return Finding(Problem.DAMAGED, f"SQLite's quick_check fails: {'; '.join(result)}")
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if "inputs" not in tables:  # an empty file: nothing was written yet
        last, n = Mark(0, 0), 0
    elif "chain" not in {r[1] for r in db.execute("PRAGMA table_info(inputs)")}:
        return Checked(Mark(0, 0), 0, time.monotonic() - start)  # chained when next opened
    else:
        last, n, found = _walk(db)
        if found is not None:
            return found
    against = _against_mark(db, last, mark)
    return against if against is not None else Checked(last, n, time.monotonic() - start)


def message(path: Path | str, found: Finding, accept: str) -> str:
    """One line: what was found and what to do (``accept``: ``--config F`` or ``--db F``)."""
    fix = "restore the log from a backup, or accept"
    match found.problem:
        case Problem.MISSING:
            fix = "put the log back, or start a new one"
        case Problem.DAMAGED:
            fix = "restore the log from a backup, or set it aside and start a new one"
        case Problem.CHAIN:
            fix = "restore the log from a backup, or accept it as it is"
        case Problem.SHORT | Problem.DIVERGED:
            fix = "restore the log from a backup, or accept it as it is (seqs are then reused)"
    return (f"event log {path}: {found.what}; {fix} with: jantaku log accept {accept} "
            "(docs/daemon.md, \"A damaged log\")")


def check_at_start(path: Path | str, accept: str) -> Checked:
    """``jantaku run`` (and ``--check``): a sound log, or :class:`LogDamaged` with one line."""
    found = inspect(path)
    if isinstance(found, Finding):
        raise LogDamaged(message(path, found, accept))
    return found


def accept(path: Path | str) -> str:
    """The operator's decision on a log the check refuses: what was done (one line). The daemon
    must be stopped. Nothing is deleted: a damaged file is renamed aside."""
    path = Path(path)
    found = inspect(path)
    mark = mark_path(path)
    if isinstance(found, Checked):
        return f"event log {path}: nothing to accept (sound, {found.records} inputs)"
    match found.problem:
        case Problem.MISSING:
            mark.unlink(missing_ok=True)
            return f"event log {path}: mark removed; the table starts a new log"
        case Problem.DAMAGED:
            stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
            moved = []
            for suffix in ("", "-wal", "-shm"):
                part = path.with_name(path.name + suffix)
                if part.exists():
                    os.replace(part, part.with_name(f"{part.name}.damaged-{stamp}"))
                    moved.append(part.name)
            mark.unlink(missing_ok=True)
            return (f"event log {path}: {', '.join(moved)} set aside as *.damaged-{stamp}; "
                    "the table starts a new log")
        case Problem.CHAIN if found.gap:
            raise LogDamaged(f"event log {path}: {found.what}: a missing input cannot be "
                             "accepted (the replay needs every input); restore the log from a "
                             "backup, or set it aside and start a new one")
        case Problem.CHAIN:
            last = _rechain(path, found)
            write_new(mark, last)
            return (f"event log {path}: accepted from input {found.seq} as it is "
                    f"(re-chained to input {last.seq}, marked)")
        case Problem.SHORT | Problem.DIVERGED:
            last = _last(path)
            write_new(mark, last)
            return f"event log {path}: accepted as it is, marked at input {last.seq}"


def _last(path: Path) -> Mark:
    db = sqlite3.connect(path)
    try:
        row = db.execute("SELECT seq, chain FROM inputs ORDER BY seq DESC LIMIT 1").fetchone()
    finally:
        db.close()
    return Mark(0, 0) if row is None else Mark(int(row[0]), int(row[1]))


def _rechain(path: Path, found: Finding) -> Mark:
    """Chain the records from ``found.seq`` on as they now are (a gap is kept: seqs are not
    renumbered, so the replay refuses it and says where)."""
    db = sqlite3.connect(path, isolation_level=None)
    try:
        db.execute("BEGIN IMMEDIATE")
        chain, rows = found.chain, []
        for seq, blob in db.execute(
                f"SELECT seq, {CANONICAL_SQL} FROM inputs WHERE seq >= ? ORDER BY seq",
                (found.seq,)):
            chain = chained(chain, blob)
            rows.append((chain, seq))
        db.executemany("UPDATE inputs SET chain = ? WHERE seq = ?", rows)
        db.execute("COMMIT")
    finally:
        db.close()
    return _last(path)
