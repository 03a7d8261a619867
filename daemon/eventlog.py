"""The event log: every input of a table, in order, in one SQLite file (WAL), plus the MQTT outbox.

The inputs are the source of truth; the table's state is a fold of them through the pure reducer
(``rules.reducer.reduce``). The daemon appends an input and commits it **before** it applies it,
so whatever the table showed or published is reproducible from the file after any crash.

fsync policy (docs/daemon.md, "Durability"):

* inputs are written by **group commit** (:meth:`EventLog.group`): the inputs waiting when a
  commit starts (each with its last event seq and the table link's position it moved: the
  controller's boot id and the last seq delivered), their events (the outbox rows) and the ids of
  the referee commands they carry go into **one** transaction committed with
  ``synchronous=FULL``: the WAL is fsync'ed before the group returns, so whatever is
  acknowledged afterwards (a link ACK, a command reply) survives a power cut, and a crash leaves
  either all of a group or none of it;
* an outbox row is deleted only after the broker's PUBACK (``synchronous=NORMAL``: a lost delete
  sends the event once more, and consumers drop it by ``seq``).

Tables (format 2, daemon/log_format.py: what is derived from the inputs, and format 1): ``meta``
(format, table id), ``inputs`` (seq 1, 2, 3, ... without gaps; each with its last event seq once
applied, and the link position it moved), ``games`` (the first seq of each game's run of inputs),
``outbox`` (events not yet acknowledged by the broker), ``commands`` (referee commands already
executed, with their reply: replay protection, pruned past the freshness window), ``links`` (per
table link: the controller's boot id and the seq of the last event logged from it, as of input
``upto``: exactly once across restarts), ``checkpoints`` (pickled states, to bound the restart
time). A commit of one input writes two pages: its ``inputs`` leaf and its ``outbox`` leaf.

A group's writes and their SQL: daemon/group_writer.py; the values the log takes and gives
(``Record``, ``LinkPosition``, ...): daemon/log_values.py.
"""

from __future__ import annotations

import copyreg
import json
import logging
import pickle
import sqlite3
import threading
import types
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Final

from daemon import log_format as fmt
from daemon.errors import EventLogError
from daemon.group_writer import GroupWriter, read_tail
from daemon.log_chain import CANONICAL_SQL, chained
from daemon.log_mark import Mark, MarkFile, mark_path
from daemon.log_values import Checkpoint, CommandRow, LinkPosition, OutboxRow, Record
from drivers.link.reports import RxPosition

FORMAT: Final = fmt.FORMAT

log = logging.getLogger("jantaku.eventlog")

def _mapping_proxy(items: dict[Any, Any]) -> types.MappingProxyType[Any, Any]:
    """Rebuilds a read-only mapping from a checkpoint (pickle needs a named module function:
    ``types.MappingProxyType`` itself cannot be looked up by name)."""
    return types.MappingProxyType(items)


# Inputs (RefereeOverride.args) and rulesets (their mapping sections) carry read-only mappings that
# states keep: make them picklable, or every checkpoint fails and restarts replay the whole log.
copyreg.pickle(types.MappingProxyType, lambda m: (_mapping_proxy, (dict(m),)))

_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS inputs (
    seq INTEGER PRIMARY KEY,
    game INTEGER NOT NULL,
    kind TEXT NOT NULL,
    source TEXT NOT NULL,
    mono_ns INTEGER NOT NULL,
    wall_ns INTEGER NOT NULL,
    boot TEXT NOT NULL,
    body TEXT NOT NULL,
    chain INTEGER NOT NULL DEFAULT 0,
    events INTEGER,
    link TEXT,
    link_boot INTEGER,
    link_seq INTEGER
);
CREATE TABLE IF NOT EXISTS games (first_seq INTEGER PRIMARY KEY, game INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS outbox (
    seq INTEGER PRIMARY KEY,
    input_seq INTEGER NOT NULL,
    topic TEXT NOT NULL,
    payload TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS commands (
    user TEXT NOT NULL,
    id TEXT NOT NULL,
    received_ns INTEGER NOT NULL,
    reply TEXT NOT NULL,
    PRIMARY KEY (user, id)
);
CREATE TABLE IF NOT EXISTS links (
    name TEXT PRIMARY KEY,
    peer_boot_id INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    upto INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS checkpoints (
    input_seq INTEGER PRIMARY KEY,
    event_seq INTEGER NOT NULL,
    code TEXT NOT NULL,
    state BLOB NOT NULL
);
"""


def boot_id() -> str:
    """The kernel's boot id: monotonic timestamps are comparable only within one boot."""
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return "unknown"


class EventLog:
    """One table's log. Not thread-safe by itself: the daemon calls it from one thread at a time
    (daemon/log_gate.py); the internal lock only guards against misuse."""

    def __init__(self, path: Path | str, table_id: str, *, readonly: bool = False) -> None:
        self.path = Path(path)
        self.table_id = table_id
        self._lock = threading.Lock()
        self._sync = "FULL"
        if readonly:
            if not self.path.exists():
                raise EventLogError(f"{self.path}: no such event log")
            uri = f"file:{self.path}?mode=ro"
            self._db = sqlite3.connect(uri, uri=True, check_same_thread=False)
        else:
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(_SCHEMA)
        #: the transactions' cursor (one for every statement, not a new one each)
        self._cur = self._db.cursor()
        self._format = FORMAT
        self._check_meta(readonly)
        #: (seq, chain, game) of the last input, as the last group left it; likewise where the
        #: log is applied up to and the links' positions (None: read in the next group). The
        #: daemon is the log's one writer, so a group starts from what the last one committed
        #: without reading it back (a group that failed drops them: the next one reads them)
        self._tail: tuple[int, int, int] | None = None
        self._applied: tuple[int, int] | None = None
        self._links: dict[str, tuple[RxPosition, int]] | None = None
        self._mark: MarkFile | None = None
        self._mark_lock = threading.Lock()
        if not readonly:
            self._migrate_chain()
            self._migrate_format()
            if str(path) != ":memory:":  # a log in memory (a replay, a test) has no mark
                try:
                    self._mark = MarkFile(mark_path(self.path), Mark(*self.last_chain()))
                except OSError as exc:
                    raise EventLogError(f"{mark_path(self.path)}: cannot write the event "
                                        f"log's mark: {exc}") from None

    # ------------------------------------------------------------------ setup
    def _check_meta(self, readonly: bool) -> None:
        try:
            meta = dict(self._db.execute("SELECT key, value FROM meta").fetchall())
        except sqlite3.DatabaseError as exc:
            raise EventLogError(f"{self.path}: not a jantaku event log: {exc}") from None
        if not meta:
            if readonly:
                raise EventLogError(f"{self.path}: an empty event log")
            with self._tx("FULL"):
                self._db.executemany(
                    "INSERT INTO meta (key, value) VALUES (?, ?)",
                    [("format", str(FORMAT)), ("table", self.table_id)],
                )
            return
        if meta.get("format") not in fmt.FORMATS:
            raise EventLogError(
                f"{self.path}: event log format {meta.get('format')!r}, this daemon reads {FORMAT}"
            )
        if self.table_id and meta.get("table") != self.table_id:
            raise EventLogError(
                f"{self.path}: this is the log of table {meta.get('table')!r}, "
                f"not {self.table_id!r}"
            )
        self.table_id = meta["table"]
        self._format = int(meta["format"])

    def _migrate_chain(self) -> None:
        """A log written before the chain (no ``chain`` column): chain its records, once."""
        columns = {r[1] for r in self._db.execute("PRAGMA table_info(inputs)")}
        if "chain" in columns:
            return
        with self._tx("FULL") as db:
            db.execute("ALTER TABLE inputs ADD COLUMN chain INTEGER NOT NULL DEFAULT 0")
            chain, rows = 0, []
            for seq, blob in db.execute(f"SELECT seq, {CANONICAL_SQL} FROM inputs ORDER BY seq"):
                chain = chained(chain, blob)
                rows.append((chain, seq))
            db.executemany("UPDATE inputs SET chain = ? WHERE seq = ?", rows)
        log.warning("event log migrated: %d inputs chained", len(rows), extra={"fields": {
            "event": "event_log_migrated", "table": self.table_id, "db": str(self.path),
            "inputs": len(rows)}})

    def _migrate_format(self) -> None:
        """A log of format 1 (``applied``, ``inputs_game``, ``links`` kept apart): to format 2,
        once, in one transaction (daemon/log_format.py). Then runs of games past the last input
        (inputs deleted by hand) are forgotten, so the next input's game starts its own."""
        if self._format != FORMAT:
            with self._tx("FULL") as cur:
                inputs = fmt.migrate(cur)
            self._format = FORMAT
            log.warning("event log migrated to format %d: %d inputs", FORMAT, inputs, extra={
                "fields": {"event": "event_log_migrated", "table": self.table_id,
                           "db": str(self.path), "inputs": inputs, "format": FORMAT}})
        top = self.last_seq()
        if self._db.execute("SELECT 1 FROM games WHERE first_seq > ?", (top,)).fetchone():
            with self._tx("FULL") as cur:
                cur.execute("DELETE FROM games WHERE first_seq > ?", (top,))

    class _Tx:
        """A transaction on the log's one cursor (``Connection.execute`` makes a cursor per
        statement: three times the cost of a short statement, measured), at ``sync``."""

        def __init__(self, log: EventLog, sync: str) -> None:
            self.log, self.sync = log, sync

        def __enter__(self) -> sqlite3.Cursor:
            return self.log._begin(self.sync)

        def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
            try:
                self.log._cur.execute("ROLLBACK" if exc_type is not None else "COMMIT")
            finally:
                self.log._lock.release()

    def _begin(self, sync: str) -> sqlite3.Cursor:
        """Take the connection and open a write transaction at ``sync`` (``FULL`` again after an
        outbox delete at ``NORMAL``); on failure the connection is free again."""
        self._lock.acquire()
        try:
            if self._sync != sync:
                self._cur.execute(_SYNCHRONOUS[sync])
                self._sync = sync
            self._cur.execute("BEGIN IMMEDIATE")
        except BaseException:  # no transaction: the connection is free again
            self._lock.release()
            raise
        return self._cur

    def _tx(self, sync: str) -> EventLog._Tx:
        return EventLog._Tx(self, sync)

    def group(self) -> EventLog._Group:
        """One group commit (``synchronous=FULL``): everything written through the writer is
        committed, fsync'ed, when the block ends, or nothing of it is (an exception rolls it back
        and is re-raised: ``sqlite3.OperationalError`` "database or disk is full" on ENOSPC)."""
        return EventLog._Group(self)

    class _Group:
        """:meth:`group`'s block (a class, not a generator: one commit per input). It opens the
        transaction with :meth:`_begin`, as :meth:`_tx` does, without a second object, and ends
        it in ``__exit__`` itself (a method of its own was one call more per input)."""

        __slots__ = ("log", "writer")

        def __init__(self, log: EventLog) -> None:
            self.log = log

        def __enter__(self) -> GroupWriter:
            log = self.log
            log._begin("FULL")
            try:
                self.writer = GroupWriter(log._cur, log._tail, log._applied, log._links)
            except BaseException:
                log._cur.execute("ROLLBACK")
                log._lock.release()
                raise
            return self.writer

        def __exit__(self, exc_type: type[BaseException] | None, exc: object,
                     tb: object) -> None:
            log = self.log
            cur = log._cur
            try:
                if exc_type is None:
                    try:
                        self.writer.finish()
                    except BaseException:
                        cur.execute("ROLLBACK")
                        raise
                    cur.execute("COMMIT")
                else:
                    cur.execute("ROLLBACK")
            except BaseException:  # the COMMIT failed: the next group reads the file again
                log._tail = log._applied = log._links = None
                raise
            finally:
                log._lock.release()
            if exc_type is not None:  # rolled back: likewise
                log._tail = log._applied = log._links = None
                return
            writer = self.writer
            log._applied, log._links = writer.applied, writer.links
            last = writer.last
            if last is not None:
                log._tail = last
                if log._mark is not None:  # durable now: the mark may say so (log_mark.py)
                    log._mark.note(last[0], last[1])

    def sync_mark(self) -> None:
        """fsync the high-water mark (the WAL checkpointer, after each checkpoint)."""
        with self._mark_lock:
            if self._mark is not None:
                self._mark.sync()

    def sealed(self) -> Mark | None:
        """The last input read back against its chain with all before it (None: no mark, or
        damage was found: the seal stays at none)."""
        with self._mark_lock:
            if self._mark is None or self._mark.broken:
                return None
            return self._mark.sealed

    def seal(self, upto: Mark) -> None:
        """Inputs up to ``upto`` were read back and match their chain (daemon/log_audit.py)."""
        with self._mark_lock:
            if self._mark is not None:
                self._mark.seal(upto)

    def unseal(self) -> None:
        """Damage was found: the mark's seal goes back to none, durably (the next start reads
        the whole log and refuses it, naming what it finds)."""
        with self._mark_lock:
            if self._mark is not None:
                self._mark.unseal()

    def last_chain(self) -> tuple[int, int]:
        """``(seq, chain)`` of the last input (``(0, 0)``: none), as of the last group commit."""
        if self._tail is None:
            self._tail = read_tail(self._db)
        return self._tail[0], self._tail[1]

    def checkpoint_pages(self, pages: int) -> None:
        """A commit copies the WAL back into the database file itself once it holds ``pages``
        (SQLite's ``wal_autocheckpoint``; 1,000 unless told: daemon/wal_checkpoint.py)."""
        self._db.execute(f"PRAGMA wal_autocheckpoint={int(pages)}")

    def in_use(self) -> bool:
        """Whether a transaction (or a close, or a backup) holds the connection now."""
        return self._lock.locked()

    def close(self) -> None:
        with self._lock:
            self._db.close()
        with self._mark_lock:
            if self._mark is not None:
                self._mark.close()
                self._mark = None

    def backup(self, path: Path | str) -> None:
        """A consistent copy of the whole log (WAL included) to ``path``."""
        target = sqlite3.connect(path)
        try:
            with self._lock:
                self._db.backup(target)
        finally:
            target.close()

    # ------------------------------------------------------------------ inputs
    def last_seq(self) -> int:
        row = self._db.execute("SELECT MAX(seq) FROM inputs").fetchone()
        return int(row[0] or 0)

    def append(
        self,
        *,
        game: int,
        kind: str,
        source: str,
        body: dict[str, Any],
        mono_ns: int,
        wall_ns: int,
        boot: str,
    ) -> Record:
        """Log one input, durably (fsync'ed) before returning; its seq is the next integer."""
        with self.group() as writer:
            return writer.append(game=game, kind=kind, source=source, body=body,
                                 mono_ns=mono_ns, wall_ns=wall_ns, boot=boot)

    def records(
        self, after: int = 0, game: int | None = None, upto: int | None = None
    ) -> Iterator[Record]:
        """Inputs with seq > ``after`` (and <= ``upto``, if given; of one game, if given), in
        order. Raises on a gap."""
        query = "SELECT seq, game, kind, source, mono_ns, wall_ns, boot, body FROM inputs"
        args: tuple[Any, ...]
        if game is None:
            query += " WHERE seq > ?"
            args = (after,)
        elif self._format == 1:  # by the game index
            query += " WHERE seq > ? AND game = ?"
            args = (after, game)
        else:  # the seqs of the game's runs (log_format.py)
            runs = [(f, last) for g, f, last in self._spans() if g == game]
            if not runs:
                return
            query += " WHERE seq > ? AND seq >= ? AND seq <= ? AND game = ?"
            args = (after, runs[0][0], runs[-1][1], game)
        if upto is not None:
            query += " AND seq <= ?"
            args = (*args, upto)
        query += " ORDER BY seq"
        expect = after + 1
        for seq, g, kind, source, mono, wall, boot, body in self._db.execute(query, args):
            if game is None and seq != expect:
                raise EventLogError(f"{self.path}: input {expect} is missing (next is {seq})")
            expect = seq + 1
            yield Record(seq, g, kind, source, mono, wall, boot, json.loads(body))

    def games(self) -> list[tuple[int, int, int, int]]:
        """``(game, inputs, first seq, last seq)`` per game id."""
        if self._format == 1:
            rows = self._db.execute(
                "SELECT game, COUNT(*), MIN(seq), MAX(seq) FROM inputs GROUP BY game ORDER BY game"
            )
            return [(int(a), int(b), int(c), int(d)) for a, b, c, d in rows]
        per_game: dict[int, tuple[int, int, int]] = {}
        for game, first, last in self._spans():  # seqs without gaps: a run counts its seqs
            count, low, _ = per_game.get(game, (0, first, last))
            per_game[game] = (count + last - first + 1, low, last)
        return [(g, *per_game[g]) for g in sorted(per_game)]

    def _spans(self) -> list[tuple[int, int, int]]:
        return fmt.spans(fmt.runs(self._db), self.last_seq())

    def last_record(self) -> Record | None:
        seq = self.last_seq()
        if seq == 0:
            return None
        return next(self.records(after=seq - 1))

    # ------------------------------------------------------------------ applied + outbox
    def applied(self) -> tuple[int, int]:
        """``(last input seq whose events are committed, last event seq)``."""
        return fmt.applied(self._db, self._format)

    def commit_events(self, input_seq: int, topic: str, payloads: Sequence[str]) -> int:
        """Put an input's events (their payloads on ``topic``, seq order) in the outbox and mark
        the input applied, in one transaction. Returns the last event seq."""
        with self.group() as writer:
            return writer.put_events(input_seq, topic, payloads)

    def outbox(self, limit: int = 100, after: int = 0) -> list[OutboxRow]:
        rows = self._db.execute(
            "SELECT seq, input_seq, topic, payload FROM outbox WHERE seq > ? ORDER BY seq LIMIT ?",
            (after, limit),
        )
        return [OutboxRow(int(a), int(b), c, d) for a, b, c, d in rows]

    def ack(self, seqs: list[int]) -> None:
        """The broker acknowledged these events: drop them from the outbox."""
        if not seqs:
            return
        with self._tx("NORMAL") as db:
            db.executemany("DELETE FROM outbox WHERE seq = ?", [(s,) for s in seqs])

    def outbox_depth(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM outbox").fetchone()[0])

    # ------------------------------------------------------------------ referee commands
    def command_reply(self, user: str, cid: str) -> dict[str, Any] | None:
        row = self._db.execute(
            "SELECT reply FROM commands WHERE user = ? AND id = ?", (user, cid)
        ).fetchone()
        return None if row is None else dict(json.loads(row[0]))

    def save_command(self, user: str, cid: str, received_ns: int, reply: dict[str, Any]) -> None:
        with self.group() as writer:
            writer.save_command(CommandRow(user, cid, received_ns, reply))

    def forget_commands(self, before_ns: int) -> int:
        """Commands received before ``before_ns`` can no longer be replayed (their signature is
        out of the freshness window): forget them. Returns how many were forgotten."""
        with self._tx("NORMAL") as db:
            cur = db.execute("DELETE FROM commands WHERE received_ns < ?", (before_ns,))
            return int(cur.rowcount)

    # ------------------------------------------------------------------ table links
    def link_position(self, name: str) -> LinkPosition | None:
        """Where the log stands in table link ``name``'s event stream (None: nothing logged)."""
        at = fmt.link_at(self._db, self._format, name)
        return None if at is None else LinkPosition(name, RxPosition(at[0], at[1]))

    # ------------------------------------------------------------------ checkpoints
    def save_checkpoint(self, input_seq: int, event_seq: int, code: str, state: Any) -> None:
        blob = pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)
        with self._tx("NORMAL") as db:
            db.execute("DELETE FROM checkpoints WHERE code != ?", (code,))
            db.execute(
                "INSERT OR REPLACE INTO checkpoints (input_seq, event_seq, code, state)"
                " VALUES (?, ?, ?, ?)",
                (input_seq, event_seq, code, blob),
            )
            db.execute(
                "DELETE FROM checkpoints WHERE input_seq NOT IN"
                " (SELECT input_seq FROM checkpoints ORDER BY input_seq DESC LIMIT 2)"
            )

    def load_checkpoint(self, code: str, upto: int) -> Checkpoint | None:
        """The newest checkpoint made by this code (``code``: a digest of the rules sources) at
        or before input ``upto``; a checkpoint that does not unpickle is ignored."""
        rows = self._db.execute(
            "SELECT input_seq, event_seq, state FROM checkpoints"
            " WHERE code = ? AND input_seq <= ? ORDER BY input_seq DESC",
            (code, upto),
        ).fetchall()
        for input_seq, event_seq, blob in rows:
            try:
                state = pickle.loads(blob)  # our own file, written by this code version
            except Exception:  # a damaged row: fall back to an older one or a full replay
                continue
            return Checkpoint(int(input_seq), int(event_seq), state)
        return None


#: the statement that sets each ``synchronous`` level (one string each: the statement cache's key)
_SYNCHRONOUS: Final = {level: f"PRAGMA synchronous={level}" for level in ("FULL", "NORMAL")}
