"""The writes of one group commit (daemon/eventlog.py, :meth:`EventLog.group`): the inputs' rows,
their events in the outbox, the table links' positions and the referee commands' replies, on
the transaction's cursor, and the SQL they run (format 2, daemon/log_format.py)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import Any, Final

from daemon import log_format as fmt
from daemon.errors import EventLogError
from daemon.json_text import compact_encoder
from daemon.log_chain import canonical, chained
from daemon.log_format import FORMAT
from daemon.log_values import CommandRow, LinkPosition, Record
from drivers.link.reports import RxPosition
from rules.evolve import maker

#: one per input: the quick constructor (rules/evolve.py; daemon/log_values.py gives it)
_record = maker(Record)

#: an input's body as the log stores it (compact, keys sorted, UTF-8): one encoder for every
#: input (daemon/json_text.py)
_BODY_JSON: Final = compact_encoder(sort_keys=True)


def body_text(body: Any) -> str:
    """``body`` as the log writes it (:meth:`GroupWriter.append`'s ``text``): raises
    ``TypeError``, ``ValueError`` or ``RecursionError`` for what JSON has no form for."""
    return _BODY_JSON(body)


_PUT_EVENT: Final = "INSERT INTO outbox (seq, input_seq, topic, payload) VALUES (?, ?, ?, ?)"
_ADD_INPUT: Final = (
    "INSERT INTO inputs (seq, game, kind, source, mono_ns, wall_ns, boot, body, chain, events,"
    " link, link_boot, link_seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
_SET_EVENTS: Final = "UPDATE inputs SET events = ? WHERE seq = ?"
_ADD_RUN: Final = "INSERT OR REPLACE INTO games (first_seq, game) VALUES (?, ?)"
_SET_LINK: Final = "UPDATE links SET peer_boot_id = ?, seq = ?, upto = ? WHERE name = ?"
_ADD_LINK: Final = "INSERT INTO links (name, peer_boot_id, seq, upto) VALUES (?, ?, ?, ?)"
#: the places of an input's row (:data:`_ADD_INPUT`) a group fills after its append
_EVENTS, _LINK, _LINK_BOOT, _LINK_SEQ = 9, 10, 11, 12


def read_tail(db: sqlite3.Connection | sqlite3.Cursor) -> tuple[int, int, int]:
    """``(seq, chain, game)`` of the log's last input (``(0, 0, -1)``: none)."""
    row = db.execute("SELECT seq, chain, game FROM inputs ORDER BY seq DESC LIMIT 1").fetchone()
    return (0, 0, -1) if row is None else (int(row[0]), int(row[1]), int(row[2]))


def _read_links(db: sqlite3.Cursor) -> dict[str, tuple[RxPosition, int]]:
    """Every link's position and its row's ``upto`` (log_format.py)."""
    out = {}
    for name in fmt.link_names(db):
        at = fmt.link_at(db, FORMAT, name)
        if at is not None:
            out[name] = (RxPosition(at[0], at[1]), at[2])
    return out


class GroupWriter:
    """Writes of one group commit (:meth:`EventLog.group`); seqs continue from the log.

    An input's row is written once, whole (format 2, log_format.py): it waits here until the
    next input or the group's end, so its last event seq and the link position it moved go in
    its one INSERT (no ``applied`` row, no link row: their pages are not written)."""

    def __init__(self, db: sqlite3.Cursor, tail: tuple[int, int, int] | None = None,
                 applied: tuple[int, int] | None = None,
                 links: dict[str, tuple[RxPosition, int]] | None = None) -> None:
        self._db = db
        # (seq, chain, game) of the log's last input, if the caller knows it (else read at the
        # first append), and the applied mark likewise (else read at the first put_events)
        self._tail = tail
        self.last: tuple[int, int, int] | None = None  # (seq, chain, game) of the last written
        self.applied = applied  # (input seq, event seq) as this group leaves it
        #: each link's position and its row's ``upto`` as this group leaves them
        self.links = _read_links(db) if links is None else links
        self._row: list[Any] | None = None  # the last input's row, not inserted yet

    def _top(self) -> tuple[int, int, int]:
        if self._tail is None:
            self._tail = read_tail(self._db)
        return self._tail

    def append(
        self, *, game: int, kind: str, source: str, body: dict[str, Any], mono_ns: int,
        wall_ns: int, boot: str, text: str | None = None,
    ) -> Record:
        """Log one input; its seq is the next integer. ``body`` is written as JSON here, once (the
        record returned holds the same object: it is not read back); ``text``: that JSON, when
        the caller made it already with :func:`body_text`."""
        if text is None:
            text = _BODY_JSON(body)
        if self._row is not None:
            self._db.execute(_ADD_INPUT, self._row)
        top, chain, last_game = self._tail or self._top()
        seq = top + 1
        # chained from the stored bytes (the JSON text as written), so what is checked is what
        # is on disk, whatever produced it
        chain = chained(chain, canonical(seq, game, kind, source, mono_ns, wall_ns, boot, text))
        if game != last_game:  # a game's first input (or the log's): its run starts here
            self._db.execute(_ADD_RUN, (seq, game))
        self._row = [seq, game, kind, source, mono_ns, wall_ns, boot, text, chain,
                     None, None, None, None]
        self._tail = self.last = (seq, chain, game)
        return _record(seq, game, kind, source, mono_ns, wall_ns, boot, body)

    def put_events(self, input_seq: int, topic: str, payloads: Sequence[str]) -> int:
        """An input's events (their payloads on ``topic``, seq order) into the outbox, and the
        input marked applied. Returns the last event seq."""
        if self.applied is None:
            self.applied = fmt.applied(self._db, FORMAT)
        applied, event_seq = self.applied
        if input_seq != applied + 1:
            raise EventLogError(f"events of input {input_seq} after input {applied}")
        if len(payloads) == 1:  # the usual input: one event (executemany costs more for one row)
            event_seq += 1
            self._db.execute(_PUT_EVENT, (event_seq, input_seq, topic, payloads[0]))
        elif payloads:
            self._db.executemany(_PUT_EVENT, [(event_seq + i, input_seq, topic, p)
                                              for i, p in enumerate(payloads, start=1)])
            event_seq += len(payloads)
        row = self._row
        if row is not None and row[0] == input_seq:
            row[_EVENTS] = event_seq
        else:  # an input logged by an earlier group (completed after a restart)
            self._db.execute(_SET_EVENTS, (event_seq, input_seq))
        self.applied = (input_seq, event_seq)
        return event_seq

    def finish(self) -> None:
        """Before the group's COMMIT: the last input's row; and every link's row once it is
        :data:`~daemon.log_format.LINK_REFRESH` inputs old (a restart reads back that far)."""
        if self._row is not None:
            self._db.execute(_ADD_INPUT, self._row)
            self._row = None
        if self.last is not None:
            top = self.last[0]
            for name, (at, upto) in self.links.items():
                if top - upto >= fmt.LINK_REFRESH:
                    self._write_link(name, at, top)

    def set_link(self, position: LinkPosition) -> None:
        """Link ``position.name`` stands at ``position.at``: on the row of the input being
        written, if it carries no other position (an event's input: the usual) and is newer
        than the link's row; else the link's row, updated in place (inserted the first time: a
        restart reads it back from there)."""
        name, at, row = position.name, position.at, self._row
        known = self.links.get(name)
        if known is not None and row is not None and row[_LINK] is None and row[0] > known[1]:
            row[_LINK], row[_LINK_BOOT], row[_LINK_SEQ] = name, at.peer_boot_id, at.seq
            self.links[name] = (at, known[1])
        else:
            self._write_link(name, at, self._top()[0])

    def _write_link(self, name: str, at: RxPosition, upto: int) -> None:
        """The link's row (the links known are the table's rows: inserted when new)."""
        if name in self.links:
            self._db.execute(_SET_LINK, (at.peer_boot_id, at.seq, upto, name))
        else:
            self._db.execute(_ADD_LINK, (name, at.peer_boot_id, at.seq, upto))
        self.links[name] = (at, upto)

    def command_reply(self, user: str, cid: str) -> dict[str, Any] | None:
        row = self._db.execute(
            "SELECT reply FROM commands WHERE user = ? AND id = ?", (user, cid)
        ).fetchone()
        return None if row is None else dict(json.loads(row[0]))

    def save_command(self, row: CommandRow) -> None:
        self._db.execute(
            "INSERT OR REPLACE INTO commands (user, id, received_ns, reply) VALUES (?, ?, ?, ?)",
            (row.user, row.id, row.received_ns, json.dumps(row.reply, sort_keys=True)),
        )
