"""The event log's formats (daemon/eventlog.py): what format 2 derives from the inputs, what
format 1 stored apart, and the migration from 1 to 2 (docs/daemon.md, "Durability").

Format 1 wrote five pages per input commit: the ``inputs`` leaf, its ``inputs_game`` index leaf,
the ``outbox`` leaf, the one-row ``applied`` table and the link's ``links`` row. Format 2 writes
two (the ``inputs`` leaf and the ``outbox`` leaf): what the other three held is on the input's own
row or derived from the inputs, each with one owner:

* ``applied`` (the last input whose events are in the outbox, and the last event seq): each
  input's ``events`` column, the last event seq once its events are in the outbox (NULL before:
  logged, not applied yet); the inputs applied are a prefix of the log, so the newest row with
  ``events`` says where it stands;
* a table link's position (the controller's boot id and the seq of its last frame logged): on the
  row of the input that moved it (``link``, ``link_boot``, ``link_seq``). ``links`` keeps one row
  per link, the position as of input ``upto``; the newest input after ``upto`` that names the
  link overrides it. The row is written when a link is first seen, when a position moves with no
  input of its own to carry it, and for every link once ``upto`` is :data:`LINK_REFRESH` inputs
  old (so a restart reads at most that many rows back, however long ago the link last moved);
* the games: ``games`` holds one row per run of inputs of one game (its first seq), written when
  an input's game differs from the one before it (a game's start): a game's inputs are read by
  seq range, without an index page per input.

A log of format 1 is migrated when the daemon opens it (one transaction; a log opened read-only,
by ``jantaku log``/``status`` or the backfill's replayer, is read in its own format).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from typing import Final

FORMAT: Final = 2
#: the formats this code reads (older ones are migrated by a writer)
FORMATS: Final = frozenset({"1", str(FORMAT)})

#: inputs between two writes of every link's row (bounds the rows a restart reads back)
LINK_REFRESH: Final = 1024

#: the columns format 2 adds to ``inputs`` (all NULL on a format-1 row)
INPUT_COLUMNS: Final = (("events", "INTEGER"), ("link", "TEXT"), ("link_boot", "INTEGER"),
                        ("link_seq", "INTEGER"))

#: the newest applied input (format 2)
APPLIED_SQL: Final = ("SELECT seq, events FROM inputs WHERE events IS NOT NULL"
                      " ORDER BY seq DESC LIMIT 1")
#: the newest input after ``upto`` that moved a link (format 2)
LINK_ROW_SQL: Final = ("SELECT link_boot, link_seq FROM inputs WHERE seq > ? AND link = ?"
                       " ORDER BY seq DESC LIMIT 1")


def applied(db: sqlite3.Connection | sqlite3.Cursor, fmt: int) -> tuple[int, int]:
    """``(last input seq whose events are committed, last event seq)`` in format ``fmt``."""
    if fmt == 1:
        row = db.execute("SELECT input_seq, event_seq FROM applied WHERE id = 1").fetchone()
    else:
        row = db.execute(APPLIED_SQL).fetchone()
    return (0, 0) if row is None else (int(row[0]), int(row[1]))


def link_at(db: sqlite3.Connection | sqlite3.Cursor, fmt: int,
            name: str) -> tuple[int, int, int] | None:
    """Link ``name``'s ``(peer boot id, seq, upto)``: its position as of input ``upto``
    (None: nothing logged from it)."""
    if fmt == 1:
        try:
            row = db.execute("SELECT peer_boot_id, seq FROM links WHERE name = ?",
                             (name,)).fetchone()
        except sqlite3.OperationalError:  # a log written before the links table (read-only)
            return None
        return None if row is None else (int(row[0]), int(row[1]), 0)
    row = db.execute("SELECT peer_boot_id, seq, upto FROM links WHERE name = ?",
                     (name,)).fetchone()
    if row is None:
        return None
    newer = db.execute(LINK_ROW_SQL, (row[2], name)).fetchone()
    if newer is not None:
        return int(newer[0]), int(newer[1]), int(row[2])
    return int(row[0]), int(row[1]), int(row[2])


def link_names(db: sqlite3.Connection | sqlite3.Cursor) -> list[str]:
    return [str(r[0]) for r in db.execute("SELECT name FROM links ORDER BY name")]


def spans(runs: Iterable[tuple[int, int]], top: int) -> list[tuple[int, int, int]]:
    """``(game, first seq, last seq)`` of each run of one game's inputs, from the ``games`` rows
    ``(first seq, game)`` in seq order and the log's last seq ``top``."""
    rows = [(f, g) for f, g in runs if f <= top]
    return [(g, f, (rows[i + 1][0] - 1) if i + 1 < len(rows) else top)
            for i, (f, g) in enumerate(rows)]


def runs(db: sqlite3.Connection | sqlite3.Cursor) -> list[tuple[int, int]]:
    """The ``games`` rows: ``(first seq, game)`` in seq order (format 2)."""
    rows = db.execute("SELECT first_seq, game FROM games ORDER BY first_seq")
    return [(int(f), int(g)) for f, g in rows]


def migrate(cur: sqlite3.Cursor) -> int:
    """Format 1 to 2, inside the caller's transaction; each step is skipped when done already.
    Returns the number of inputs."""
    columns = {r[1] for r in cur.execute("PRAGMA table_info(inputs)")}
    for name, kind in INPUT_COLUMNS:
        if name not in columns:
            cur.execute(f"ALTER TABLE inputs ADD COLUMN {name} {kind}")
    (top,) = cur.execute("SELECT COALESCE(MAX(seq), 0) FROM inputs").fetchone()
    tables = {r[0] for r in cur.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if "applied" in tables:
        row = cur.execute("SELECT input_seq, event_seq FROM applied WHERE id = 1").fetchone()
        if row is not None and row[0] > 0:
            cur.execute("UPDATE inputs SET events = ? WHERE seq = ?", (row[1], row[0]))
        cur.execute("DROP TABLE applied")
    if "upto" not in {r[1] for r in cur.execute("PRAGMA table_info(links)")}:
        cur.execute("ALTER TABLE links ADD COLUMN upto INTEGER NOT NULL DEFAULT 0")
    cur.execute("UPDATE links SET upto = ?", (top,))  # every position is the table's
    cur.execute("DELETE FROM games")
    cur.executemany("INSERT INTO games (first_seq, game) VALUES (?, ?)", _game_runs(cur))
    cur.execute("DROP INDEX IF EXISTS inputs_game")
    cur.execute("UPDATE meta SET value = ? WHERE key = 'format'", (str(FORMAT),))
    return int(top)


def _game_runs(cur: sqlite3.Cursor) -> list[tuple[int, int]]:
    """``(first seq, game)`` of each run of a format-1 log: from its game index when every game
    is one run (the usual: games only start), else from the inputs in seq order."""
    per_game = cur.execute("SELECT game, MIN(seq), MAX(seq), COUNT(*) FROM inputs GROUP BY game"
                           " ORDER BY MIN(seq)").fetchall()
    expect = per_game[0][1] if per_game else 0
    whole = True
    for _, first, last, count in per_game:
        whole = whole and first == expect and count == last - first + 1
        expect = last + 1
    if whole:
        return [(int(first), int(game)) for game, first, _, _ in per_game]
    return [(int(s), int(g)) for s, g in cur.execute(
        "SELECT seq, game FROM (SELECT seq, game, LAG(game) OVER (ORDER BY seq) AS before"
        " FROM inputs) WHERE before IS NULL OR before != game")]
