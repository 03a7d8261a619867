"""The event log's chain: what each record's checksum covers, and the walk that checks it
(docs/daemon.md, "The chain and the mark").

Every input carries ``chain``: the CRC-32 of its stored bytes (:func:`canonical`) continued from
the chain of the record before it (0 before the first). A changed byte, a missing, reordered or
cut record changes every chain from there on. :func:`walk` reads records back and compares; it
is used at start for the records after the seal (daemon/log_integrity.py), by the checkpointer
for the records since the last seal, and for the whole log by ``jantaku log verify`` and the
daemon's audit after READY (daemon/log_audit.py).
"""

from __future__ import annotations

import enum
import sqlite3
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from daemon.log_mark import Mark

#: the columns a record's chain covers, as stored (SQL text of :func:`canonical`, for the checks)
CANONICAL_SQL: Final = (
    "CAST(seq || '|' || game || '|' || kind || '|' || source || '|' || mono_ns || '|'"
    " || wall_ns || '|' || boot || '|' || body AS BLOB)"
)

#: records per step of the walk (one SQL aggregate each: SQLite builds the bytes, zlib hashes)
CHUNK: Final = 20_000


def canonical(seq: int, game: int, kind: str, source: str, mono_ns: int, wall_ns: int,
              boot: str, body: str) -> bytes:
    """A record's bytes as stored (``body`` is the stored JSON text): what its chain covers."""
    return f"{seq}|{game}|{kind}|{source}|{mono_ns}|{wall_ns}|{boot}|{body}".encode()


def chained(previous: int, record: bytes) -> int:
    """The chain of a record: CRC-32 of every record's canonical bytes up to it, i.e. CRC-32
    continued from the previous record's chain (0 before the first). A changed byte, a missing
    or a reordered record changes every chain from there on (docs/daemon.md, "A damaged log")."""
    return zlib.crc32(record, previous)


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


#: called after each step of a walk with the seconds it took (the audit's pacing; may raise to
#: stop the walk)
Pace = Callable[[float], None]


def walk(db: sqlite3.Connection, start: Mark, top: int,
         pace: Pace | None = None) -> tuple[Mark, Finding | None]:
    """Records ``start.seq + 1`` to ``top`` against their chain, continued from ``start.chain``:
    a chunk's records concatenated by SQLite, CRC-32 continued over them in C, compared with the
    chain stored on the chunk's last record (then each record of a failing chunk, to name the
    first one that fails). Returns the last record's ``(seq, chain)`` and what failed, if any."""
    text = CANONICAL_SQL.removeprefix("CAST(").removesuffix(" AS BLOB)")
    query = (f"SELECT COUNT(*), MAX(seq), group_concat({text}, '') FROM"
             " (SELECT * FROM inputs WHERE seq >= ? AND seq < ? ORDER BY seq)")
    chain, lo = start.chain, start.seq + 1
    while lo <= top:
        began = time.monotonic()
        end = min(lo + CHUNK, top + 1)
        n, hi, joined = db.execute(query, (lo, end)).fetchone()
        ok = n == end - lo and hi == end - 1
        if ok:
            now = chained(chain, joined.encode())
            (stored,) = db.execute("SELECT chain FROM inputs WHERE seq = ?", (hi,)).fetchone()
            ok = now == stored
        if not ok:
            return _walk_rows(db, lo, chain, top)
        chain, lo = now, hi + 1
        if pace is not None:
            pace(time.monotonic() - began)
    return Mark(max(top, start.seq), chain), None


def _walk_rows(db: sqlite3.Connection, lo: int, chain: int,
               top: int) -> tuple[Mark, Finding | None]:
    """Record by record from ``lo`` (``chain``: the chain before it) to the first that fails."""
    expect = lo - 1
    rows = db.execute(f"SELECT seq, chain, {CANONICAL_SQL} FROM inputs WHERE seq >= ?"
                      " AND seq <= ? ORDER BY seq", (lo, top))
    for seq, stored, blob in rows:
        expect += 1
        if seq != expect:
            return Mark(expect - 1, chain), _missing(expect, seq, chain)
        now = chained(chain, blob)
        if now != stored:
            return Mark(expect - 1, chain), Finding(
                Problem.CHAIN, f"input {seq} does not match its chain (changed bytes)", seq, chain)
        chain = now
    if expect < top:
        return Mark(expect, chain), _missing(expect + 1, top, chain)
    return Mark(expect, chain), None


def _missing(seq: int, after: int, chain: int) -> Finding:
    return Finding(Problem.CHAIN, f"input {seq} is missing (the next is {after})", seq, chain,
                   gap=True)
