"""Is the event log the one the table wrote? Checked before the daemon starts (``jantaku run``,
``jantaku run --check``) and by ``jantaku status``, in a time bounded by what came after the seal;
in full by ``jantaku log verify`` and by the running daemon's audit (daemon/log_audit.py);
``jantaku log accept`` is the operator's answer (docs/daemon.md, "A damaged log").

Found, each refused with one line that names it and the command that repairs or accepts it:

* ``missing``: no log, but its mark (daemon/log_mark.py) says one was written (a replaced SD
  card, a deleted file);
* ``damaged``: SQLite's ``quick_check`` fails, or the file is not a database at all (truncated);
* ``chain``: a record does not match its chain (daemon/log_chain.py): a changed byte, a missing
  or reordered record (SQLite's own check does not read the records' contents);
* ``short`` / ``diverged``: the log ends before its mark (a torn WAL, an old copy put back), or
  holds another record where the mark is.

The check at start (``full=False``) reads, besides the mark: SQLite's ``quick_check`` of every
table but the inputs (a few pages), the inputs' count and last seq, the records at the mark and
at the seal, and the records after the seal against their chain (what the checkpointer has not
read back yet: at most two checkpoints' worth after a power cut, none after a clean stop). The
records up to the seal were read back when they were written and are read again, with SQLite's
whole ``quick_check``, by the audit after READY. A log without a seal (a new mark, or damage
found by the audit) is checked in full. A brand-new table (no log, no mark) and a log without a
mark yet (written before the mark) pass.
"""

from __future__ import annotations

import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from daemon.errors import EventLogError
from daemon.log_chain import CANONICAL_SQL, Finding, Pace, Problem, chained, walk
from daemon.log_mark import NONE, Mark, MarkRecord, mark_path, read_mark, write_new


class LogDamaged(EventLogError):
    """The log is missing, damaged or behind its mark: the daemon does not start on it."""


@dataclass(frozen=True, slots=True)
class Checked:
    """What a sound log holds: its last ``(seq, chain)``, its number of records, how many of them
    were read against their chain (all of them: ``full``), and how long the check took."""

    last: Mark
    records: int
    seconds: float
    walked: int = 0
    full: bool = True


def _connect(path: Path, readonly: bool) -> sqlite3.Connection:
    if readonly:
        return sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    return sqlite3.connect(path)


def _against_mark(db: sqlite3.Connection, top: int, mark: Mark) -> Finding | None:
    if mark.seq == 0:
        return None
    if top < mark.seq:
        return Finding(Problem.SHORT, f"the log ends at input {top} but its mark says "
                       f"{mark.seq} were logged ({mark.seq - top} inputs lost)", top)
    if not _holds(db, mark):
        return Finding(Problem.DIVERGED, f"input {mark.seq} is not the one its mark names "
                       "(another or an older log)", top)
    return None


def _holds(db: sqlite3.Connection, mark: Mark) -> bool:
    row = db.execute("SELECT chain FROM inputs WHERE seq = ?", (mark.seq,)).fetchone()
    return row is not None and int(row[0]) == mark.chain


def inspect(path: Path | str, *, readonly: bool = False, full: bool = True, whole_below: int = 0,
            pace: Pace | None = None) -> Finding | Checked:
    """Check the log at ``path`` against itself and its mark. ``readonly``: the daemon may be
    running (``log verify``, ``status``, the audit); else the WAL is replayed as the daemon
    would. ``full``: every record and SQLite's whole ``quick_check``; else what came after the
    seal (see the module's text), unless the log holds at most ``whole_below`` inputs.
    ``pace``: called after each step of the walk."""
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
    except sqlite3.OperationalError as exc:
        if _transient(exc):
            raise
        return Finding(Problem.DAMAGED, f"cannot be opened: {exc}")
    except sqlite3.Error as exc:
        return Finding(Problem.DAMAGED, f"cannot be opened: {exc}")
    try:
        found = _inspect_open(db, mark, full or _small(db, whole_below), pace)
    except sqlite3.OperationalError as exc:
        if _transient(exc):
            raise  # another connection holds it, or no descriptor: no finding about the file
        return Finding(Problem.DAMAGED, f"not a readable database: {exc}")
    except sqlite3.Error as exc:
        return Finding(Problem.DAMAGED, f"not a readable database: {exc}")
    finally:
        db.close()
    if isinstance(found, Finding):
        return found
    last, records, walked, whole = found
    return Checked(last, records, time.monotonic() - start, walked, whole)


def _quick_check(db: sqlite3.Connection, tables: list[str] | None) -> Finding | None:
    """SQLite's ``quick_check`` of the whole file (``None``) or of these tables only."""
    result: list[str] = []
    for table in [None] if tables is None else tables:
        arg = "" if table is None else f"({table})"
        result += [r[0] for r in db.execute(f"PRAGMA quick_check{arg}") if r[0] != "ok"]
    if result:
        return Finding(Problem.DAMAGED, f"SQLite's quick_check fails: {'; '.join(result[:3])}")
    return None


def _transient(exc: sqlite3.OperationalError) -> bool:
    """Locked or busy (another connection holds the file), or the file that exists cannot be
    opened now (the process is out of descriptors: the daemon's audit under a connection
    crowd): nothing found about the log, to be tried again."""
    text = str(exc)
    return "locked" in text or "busy" in text or "unable to open database file" in text


def _small(db: sqlite3.Connection, whole_below: int) -> bool:
    """A log of at most ``whole_below`` inputs (one COUNT over the smallest index: 5 ms for a
    million): read whole at start."""
    if whole_below <= 0:
        return False
    try:
        (count,) = db.execute("SELECT COUNT(*) FROM inputs").fetchone()
    except sqlite3.DatabaseError:
        return True  # no inputs table yet, or a damaged file: the whole check says which
    return bool(count <= whole_below)


def _inspect_open(db: sqlite3.Connection, mark: MarkRecord | None, full: bool,
                  pace: Pace | None) -> Finding | tuple[Mark, int, int, bool]:
    tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    sealed = NONE if mark is None else mark.sealed
    bounded = not full and sealed.seq > 0 and "inputs" in tables
    problem = _quick_check(db, [t for t in tables if t != "inputs"] if bounded else None)
    if problem is not None:
        return problem
    if "inputs" not in tables:  # an empty file: nothing was written yet
        return Mark(0, 0), 0, 0, True
    if "chain" not in {r[1] for r in db.execute("PRAGMA table_info(inputs)")}:
        return Mark(0, 0), 0, 0, True  # chained when next opened
    # two statements: each takes SQLite's shortcut (the b-tree's last key; the pages of the
    # smallest index, 12 MB for a million inputs), where one statement with both reads every record
    (top,) = db.execute("SELECT COALESCE(MAX(seq), 0) FROM inputs").fetchone()
    (count,) = db.execute("SELECT COUNT(*) FROM inputs").fetchone()
    if bounded:
        assert mark is not None
        against = _against_mark(db, top, mark.last)
        if against is not None:
            return against
        # a record missing or changed up to the seal: the whole walk names the first
        bounded = count == top and top >= sealed.seq and _holds(db, sealed)
    begin = sealed if bounded else NONE
    last, found = walk(db, begin, top, pace)
    if found is not None:
        return found
    if not bounded and mark is not None:
        against = _against_mark(db, top, mark.last)
        if against is not None:
            return against
    return last, top, top - begin.seq, not bounded


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


def check_at_start(path: Path | str, accept: str, whole_below: int = 0) -> Checked:
    """``jantaku run`` (and ``--check``): a sound log, or :class:`LogDamaged` with one line.
    A log of at most ``whole_below`` inputs is read whole (``eventlog.full_check_below``: a
    fraction of a second at 100,000); a longer one is bounded by its seal (the module's text)."""
    try:
        found = inspect(path, full=False, whole_below=whole_below)
    except (sqlite3.OperationalError, OSError) as exc:
        raise LogDamaged(f"event log {path}: cannot be read now ({exc}); nothing was found "
                         "about it: start again once nothing else holds it") from None
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
            write_new(mark, MarkRecord(last, last))
            return (f"event log {path}: accepted from input {found.seq} as it is "
                    f"(re-chained to input {last.seq}, marked)")
        case Problem.SHORT | Problem.DIVERGED:
            last = _last(path)
            write_new(mark, MarkRecord(last, last))  # the walk above read every record
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
