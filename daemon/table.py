"""One table's core: log the input, fold it through the reducer and the clocks, queue its events.

This is the synchronous heart of the daemon (the asyncio service calls it from its database
thread). The state is always ``fold(inputs in the log)``: :meth:`TableCore.recover` rebuilds it at
start (from the newest checkpoint made by the same code, or from the first input), and puts in the
outbox the events of an input that was logged but not yet applied when the daemon stopped.

Event envelopes (the ``events`` payload, schema ``jantaku/event/1``) are built from the logged
input only (its wall time, its seq), so a replay produces the same bytes.
"""

from __future__ import annotations

import logging
import math
import sqlite3
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any, ClassVar, Final, cast

from daemon import clocks as dc
from daemon.disclosure import Concealed
from daemon.engine import Engine
from daemon.eventlog import EventLog
from daemon.json_text import compact_encoder
from daemon.log_values import CommandRow, LinkPosition, Record
from daemon.replayed_game import ReplayedGame, entries_of, logged_input
from daemon.topics import SCHEMA_EVENT, Topics
from daemon.tracking.records import KIND_INPUT, Body, Entry, compact
from rules.evolve import fast_init, maker
from rules.inputs import INPUT_NAMES, DealDone, GameStart, Input, InputError, input_from_json
from rules.table_state import TableState

log = logging.getLogger("jantaku.table")


@dataclass(frozen=True, slots=True)
class DaemonBadInput:
    """A logged input the rules cannot read (a hand-edited log): skipped, reported."""

    TYPE: ClassVar[str] = "daemon_bad_input"
    seq: int  # the input's seq in the log
    error: str

    def to_json(self) -> dict[str, Any]:
        return {"type": self.TYPE, "seq": self.seq, "error": self.error}


@dataclass(frozen=True, slots=True)
class DaemonEngineError:
    """The rules engine raised on an input (its contract says never): the fold goes on."""

    TYPE: ClassVar[str] = "daemon_engine_error"
    error: str

    def to_json(self) -> dict[str, Any]:
        return {"type": self.TYPE, "error": self.error}


#: the daemon's own event classes (daemon/schema_gen.py types their ``data``)
#: (and ``concealed``: what ``events`` shows of a wholly concealed event, daemon/disclosure.py)
DAEMON_EVENTS: tuple[type, ...] = (DaemonBadInput, DaemonEngineError, Concealed)


@dataclass(frozen=True, slots=True)
class CoreState:
    """Everything the fold carries (pickled in checkpoints)."""

    table: TableState
    clocks: dc.Clocks
    game: int = 0  # games started in this log (the ``game`` column and envelope field)
    hand: int | None = None  # the reducer's hand number (from its ``hand_started`` event)
    input_seq: int = 0
    event_seq: int = 0


@dataclass(frozen=True, slots=True)
class Applied:
    record: Record
    events: tuple[dict[str, Any], ...]  # the envelopes, seq order
    reply: dict[str, Any] | None = None  # a referee command's reply, committed with the input
    #: the envelopes as written to the outbox (JSON text), when applied by a group commit
    payloads: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Recovery:
    inputs: int  # inputs in the log
    replayed: int  # inputs folded at start (after the checkpoint)
    checkpoint: int  # the checkpoint's input seq (0: none)
    completed: int  # inputs whose events were put in the outbox now (logged, not yet applied)
    mismatch: str | None  # the replay disagreed with the logged event count (code changed?)


@dataclass(frozen=True, slots=True)
class CommandStamp:
    """A referee command riding on an input: its ``(user, id)`` and its reply (built from what the
    input did) are written in the input's transaction, so a retry after any crash finds them."""

    user: str
    id: str
    received_ns: int
    reply: Callable[[Applied], dict[str, Any]]
    #: the command's input as the desk read it (checking its arguments): not read again here;
    #: the log still writes the command's own JSON body (daemon/referee_desk.py)
    input: Input | None = None


@dataclass(frozen=True, slots=True)
class Pending:
    """One input waiting for the next group commit, with what must be durable with it."""

    kind: str
    source: str
    body: Body  # a typed input (kind ``input``, from the tracker), or a JSON object
    mono_ns: int
    wall_ns: int
    boot: str
    link: LinkPosition | None = None  # a table event: the link's position after it
    command: CommandStamp | None = None
    #: a JSON body's text as the log writes it, when the intake made it (checking that the
    #: body is JSON: daemon/intake.py), so that the log does not encode it a second time
    text: str | None = None


@dataclass(frozen=True, slots=True)
class Refused:
    """A group item whose referee command the rules engine rejects: nothing was logged;
    ``violations`` are the rejecting violations."""

    violations: list[dict[str, Any]]


@dataclass(frozen=True, slots=True)
class Repeated:
    """A group item whose referee command ``(user, id)`` was already logged: nothing was applied;
    ``reply`` is the first reply."""

    reply: dict[str, Any]


#: the fold's values, one or two per input: the quick constructor (rules/evolve.py; a CoreState
#: by the dataclass's own ``__init__`` took 9,900 instructions, 5,500 this way)
fast_init([CoreState, Applied, Pending])
_core_state = maker(CoreState)
_applied = maker(Applied)

#: what a group commit takes: inputs, and link positions alone (a table event that the device
#: tracker consumed without an input of its own)
GroupItem = Pending | LinkPosition


def iso(wall_ns: int) -> str:
    """``wall_ns`` as an ISO 8601 UTC time stamp to the millisecond (``...T03:35:35.123Z``):
    what ``datetime.fromtimestamp(wall_ns / 1e9, UTC).isoformat(timespec="milliseconds")``
    gives, with the ``Z``. Every event envelope carries one: the date and time of day are
    formatted once per second, and the milliseconds come from the integer when that gives the
    same digits (see :data:`_ISO_CLEAR_NS`), else from the float as ``fromtimestamp`` rounds it
    (to the microsecond, half to even, then cut), so the bytes are the same."""
    millis, under = divmod(wall_ns, 1_000_000)
    if not (_ISO_CLEAR_NS <= under < 1_000_000 - _ISO_CLEAR_NS and 0 <= wall_ns < _ISO_INT_NS):
        return _iso_float(wall_ns)
    second, milli = divmod(millis, 1000)
    global _iso_cached
    cached_second, head = _iso_cached
    if second != cached_second:
        head = datetime.fromtimestamp(second, UTC).isoformat(timespec="seconds")[:-6]
        _iso_cached = (second, head)
    return head + _MILLIS[milli]


#: below 2**32 s (year 2106) the float ``wall_ns / 1e9`` is within 0.24 µs of the exact time
#: and ``fromtimestamp`` rounds it to the microsecond (0.5 µs more): a time at least this far
#: (ns) from a millisecond's edge gets the integer's millisecond (half the cost of the float's
#: modf and round, measured: envelopes stamp every input)
_ISO_CLEAR_NS: Final = 1_000
_ISO_INT_NS: Final = 2**32 * 10**9
#: ``.mmmZ`` for each millisecond
_MILLIS: Final = tuple(f".{m:03d}Z" for m in range(1000))


def _iso_float(wall_ns: int) -> str:
    """:func:`iso` near a millisecond's edge: from the float, rounded as ``fromtimestamp``."""
    t = wall_ns / 1e9
    frac, whole = math.modf(t)
    micros = round(frac * 1e6)
    if micros >= 1_000_000:
        micros -= 1_000_000
        whole += 1.0
    if micros < 0 or whole < 0:  # before 1970: never a live clock; the slow, plain way
        return _iso_slow(wall_ns)
    second = int(whole)
    global _iso_cached
    cached_second, head = _iso_cached
    if second != cached_second:
        head = datetime.fromtimestamp(second, UTC).isoformat(timespec="seconds")[:-6]
        _iso_cached = (second, head)
    return head + _MILLIS[micros // 1000]


def _iso_slow(wall_ns: int) -> str:
    stamp = datetime.fromtimestamp(wall_ns / 1e9, UTC).isoformat(timespec="milliseconds")
    return stamp.replace("+00:00", "Z")


#: the second :func:`iso` formatted last, and its date and time of day
_iso_cached: tuple[int, str] = (-1, "")


class TableCore:
    def __init__(
        self,
        eventlog: EventLog,
        engine: Engine,
        table_id: str,
        *,
        checkpoint_every: int = 2000,
        on_warning: Callable[[str], None] | None = None,
    ) -> None:
        self.log = eventlog
        self.engine = engine
        self.table_id = table_id
        self.topics = Topics(table_id)
        self.checkpoint_every = checkpoint_every
        self.state = CoreState(table=engine.new_table(), clocks=dc.Clocks())
        self._view: dict[str, Any] | None = None
        self._checkpoints_ok = True
        self._warn = on_warning or log.warning
        self._replayed: ReplayedGame | None = None  # what :meth:`recover` read of the game

    # ------------------------------------------------------------------ fold
    def _fold(
        self, cs: CoreState, rec: Record, typed: Input | None = None, bad: str | None = None
    ) -> tuple[CoreState, list[dict[str, Any]]]:
        """One logged input applied to the state: the new state and the events' JSON. ``typed``:
        the input itself, when the caller has it (the live path, a restart's replay); else it is
        read from the record's JSON (a backfill). ``bad``: why the caller could not read it."""
        out: list[dict[str, Any]] = []
        table, clocks, hand, game = cs.table, cs.clocks, cs.hand, rec.game
        if rec.kind == KIND_INPUT:
            inp = typed
            if inp is None:
                if bad is None:
                    inp, bad = logged_input(rec)
                if bad is not None:  # never logged by this daemon; a hand-edited log
                    out.append(DaemonBadInput(rec.seq, bad).to_json())
            if inp is not None:
                try:
                    table, events = self.engine.reduce(table, inp)
                except Exception as exc:  # the contract says never; stay a fold anyway
                    out.append(DaemonEngineError(repr(exc)).to_json())
                    events = ()
                aka = _plays_aka(table) if events else True
                for event in events:
                    body = event.to_json(aka=aka)
                    kind = body.get("type")
                    if kind == "hand_started" and isinstance(body.get("hand"), int):
                        hand = body["hand"]
                    elif kind == "game_started":
                        hand = None
                    out.append(body)
                dealer = _dealer(table) if isinstance(inp, DealDone) else None
                clocks, tevents = dc.follow(clocks, inp, rec.mono_ns, rec.source, dealer)
                if tevents:  # (most inputs move no clock)
                    out.extend(dc.events_json(tevents))
        else:
            clocks, tevents = dc.apply_record(clocks, rec.body, rec.mono_ns)
            out.extend(dc.events_json(tevents))
        return _core_state(table, clocks, game, hand, rec.seq, cs.event_seq + len(out)), out

    def _envelopes(
        self, rec: Record, first_seq: int, hand: int | None, bodies: list[dict[str, Any]]
    ) -> list[dict[str, Any]]:
        ts, table = iso(rec.wall_ns), self.table_id
        game, input_seq, source = (rec.game if rec.game > 0 else None), rec.seq, rec.source
        envs: list[dict[str, Any]] = []
        for seq, body in enumerate(bodies, first_seq):  # (a loop: most inputs make one event,
            envs.append({                                # and a comprehension is a call)
                "schema": SCHEMA_EVENT,
                "seq": seq,
                "id": f"{table}:{seq}",
                "type": body.get("type", "unknown"),
                "ts": ts,
                "table": table,
                "game": game,
                "hand": hand,
                "input_seq": input_seq,
                "source": source,
                "data": body,
            })
        return envs

    def refold(self, cs: CoreState, rec: Record) -> tuple[CoreState, list[dict[str, Any]]]:
        """``rec`` folded again on ``cs``: the state after it and its envelopes, the same bytes
        as when it was applied (daemon/backfill.py serves past events with this)."""
        after, bodies = self._fold(cs, rec)
        return after, self._envelopes(rec, cs.event_seq + 1, after.hand, bodies)

    def _commit(
        self, rec: Record, before: CoreState, after: CoreState, bodies: list[Any]
    ) -> Applied:
        envs = self._envelopes(rec, before.event_seq + 1, after.hand, bodies)
        self.log.commit_events(rec.seq, self.topics.events, [_dumps(e) for e in envs])
        return Applied(rec, tuple(envs))

    # ------------------------------------------------------------------ start
    def recover(self) -> Recovery:
        applied_in, applied_ev = self.log.applied()
        last = self.log.last_seq()
        cs = CoreState(table=self.engine.new_table(), clocks=dc.Clocks())
        cp_seq = 0
        if self.checkpoint_every:
            cp = self.log.load_checkpoint(self.engine.code, applied_in)
            if cp is not None and isinstance(cp.state, CoreState):
                cs, cp_seq = cp.state, cp.input_seq
        replayed = completed = 0
        mismatch: str | None = None
        start, game = cs.input_seq, cs.game
        entries: list[Entry] = []  # the game's records, for the tracker's restore
        for rec in self.log.records(after=cs.input_seq):
            inp, bad = logged_input(rec)  # each input read once at a restart: here
            before = cs
            cs, bodies = self._fold(cs, rec, inp, bad)
            replayed += 1
            if rec.game != game:
                game, entries = rec.game, []
            if bad is None:
                entries.append(Entry(rec.kind, rec.source, rec.body if inp is None else inp))
            if rec.seq <= applied_in:
                continue
            if before.event_seq != applied_ev and mismatch is None:
                mismatch = (
                    f"the replay of inputs 1..{before.input_seq} gives {before.event_seq} events,"
                    f" the log numbered {applied_ev}; numbering continues from the log"
                )
                self._warn(mismatch)
                before = replace(before, event_seq=applied_ev)
                cs = replace(cs, event_seq=applied_ev + len(bodies))
            self._commit(rec, before, cs, bodies)
            applied_ev = cs.event_seq
            completed += 1
        if cs.input_seq == applied_in and cs.event_seq != applied_ev and mismatch is None:
            mismatch = (
                f"the replay of inputs 1..{cs.input_seq} gives {cs.event_seq} events,"
                f" the log numbered {applied_ev}; numbering continues from the log"
            )
            self._warn(mismatch)
            cs = replace(cs, event_seq=applied_ev)
        self.state = cs
        self._view = None
        self._replayed = ReplayedGame(game, start, cs.input_seq, entries)
        return Recovery(last, replayed, cp_seq, completed, mismatch)

    def game_entries(self) -> list[Entry]:
        """The logged records of the game being played, in order (none before the first game),
        as the device tracker's restore folds them (daemon/tracking/held.py): an input typed, a
        marker or clock record as its JSON; an input the rules cannot read is left out (neither
        the rules nor the tracker fold it). At a restart each input is read from the log once:
        the records :meth:`recover` replayed are passed on as it read them (the first call after
        it; later calls, a tracker restarting after a failure, read the log)."""
        replayed, self._replayed = self._replayed, None
        game = self.state.game
        if not game:
            return []
        if replayed is None or replayed.game != game:
            return entries_of(self.log.records(game=game))
        return [*entries_of(self.log.records(game=game, upto=replayed.start)), *replayed.entries,
                *entries_of(self.log.records(after=replayed.end, game=game))]

    # ------------------------------------------------------------------ run
    def submit_group(self, items: list[GroupItem]) -> list[Applied | Repeated | Refused | None]:
        """Log and apply ``items`` in one group commit: all of them, their events, link positions
        and command replies are durable together when this returns, or none is and the state is
        unchanged (the exception is re-raised: the caller keeps the items and retries)."""
        cs = self.state
        out: list[Applied | Repeated | Refused | None] = []
        checkpoint = False
        every, topic = self.checkpoint_every, self.topics.events
        with self.log.group() as writer:
            for item in items:
                if isinstance(item, LinkPosition):
                    writer.set_link(item)
                    out.append(None)
                    continue
                if type(item.body) in INPUT_NAMES:  # the usual: :func:`_read`'s first case
                    inp = cast(Input, item.body)
                    typed, body = (inp if item.kind == KIND_INPUT else None), compact(inp)
                else:
                    typed, body = _read(item)
                if item.command is not None:
                    first = writer.command_reply(item.command.user, item.command.id)
                    if first is not None:  # a retry racing its original: applied once
                        out.append(Repeated(first))
                        continue
                    # a referee command the rules engine refuses is not logged: a refusal
                    # changes nothing, ``seq`` included; judged on the state this
                    # group has reached so far
                    refused = self._refusal(cs, typed)
                    if refused is not None:
                        out.append(Refused(refused))
                        continue
                new_game = isinstance(typed, GameStart)
                if new_game:  # recovery's game is over: a table without a tracker lets it go
                    self._replayed = None
                rec = writer.append(
                    game=cs.game + 1 if new_game else cs.game,
                    kind=item.kind, source=item.source, body=body, mono_ns=item.mono_ns,
                    wall_ns=item.wall_ns, boot=item.boot, text=item.text,
                )
                after, bodies = self._fold(cs, rec, typed)
                envs = self._envelopes(rec, cs.event_seq + 1, after.hand, bodies)
                texts = tuple(map(_dumps, envs))
                writer.put_events(rec.seq, topic, texts)
                applied = _applied(rec, tuple(envs), None, texts)
                if item.link is not None:
                    writer.set_link(item.link)
                if item.command is not None:
                    c = item.command
                    reply = c.reply(applied)
                    writer.save_command(CommandRow(c.user, c.id, c.received_ns, reply))
                    applied = replace(applied, reply=reply)
                if every and rec.seq % every == 0:
                    checkpoint = True
                cs = after
                out.append(applied)
        self.state = cs
        self._view = None
        if checkpoint:
            self.checkpoint()
        return out

    def _refusal(self, cs: CoreState, inp: Input | None) -> list[dict[str, Any]] | None:
        """The rejecting violations ``body`` would get on ``cs`` (``None``: it would apply),
        computed without logging it: the reducer is pure, so this is exactly what the fold
        would do. The daemon does not log a referee command the engine refuses."""
        if inp is None:
            return None
        _, events = self.engine.reduce(cs.table, inp)
        bodies = [e.to_json() for e in events]
        rejected = [b for b in bodies if b.get("type") == "violation"
                    and b.get("sanction") == "rejected"]
        return rejected or None

    def checkpoint(self) -> bool:
        if not self._checkpoints_ok:
            return False
        try:
            self.log.save_checkpoint(
                self.state.input_seq, self.state.event_seq, self.engine.code, self.state
            )
        except sqlite3.OperationalError as exc:  # a full disk: the next checkpoint tries again
            self._warn(f"checkpoint at input {self.state.input_seq} not written: {exc}")
            return False
        except Exception as exc:  # an unpicklable state: restarts replay the whole log
            self._checkpoints_ok = False
            self._warn(f"checkpoints disabled: the state cannot be saved: {exc!r}")
            return False
        return True

    # ------------------------------------------------------------------ views
    def view(self) -> dict[str, Any]:
        """The table's view model (rules/table_view.py), built once per state."""
        if self._view is None:
            self._view = self.engine.view(self.state.table)
        return self._view

    @property
    def game_running(self) -> bool:
        return self.state.game > 0


def _dealer(table: TableState) -> int | None:
    """The dealer, as the view model shows it (rules/table_view.py): the hand's, else the
    game's next hand's."""
    h, p = table.hand, table.progress
    dealer = h.dealer if h is not None else (p.dealer if p is not None else None)
    return None if dealer is None else int(dealer)


def _read(item: Pending) -> tuple[Input | None, dict[str, Any]]:
    """The input ``item`` carries (None: a marker, a clock record, or JSON the rules cannot
    read -- the fold reports that one as ``daemon_bad_input``), and its body as the log holds
    it (records.body_json). A typed input from the tracker is passed on as it is, and so is a
    referee command's as the desk read it; another JSON body (the console) is read here, once."""
    body = item.body
    if type(body) in INPUT_NAMES:  # the usual: a typed input (a dict lookup, not an ABC check)
        inp = cast(Input, body)
        return (inp if item.kind == KIND_INPUT else None), compact(inp)
    if not isinstance(body, Mapping):
        return (body if item.kind == KIND_INPUT else None), compact(body)
    logged = dict(body)
    if item.kind != KIND_INPUT:
        return None, logged
    if item.command is not None and item.command.input is not None:
        return item.command.input, logged
    try:
        return input_from_json(dict(body)), logged
    except InputError:
        return None, logged


def _plays_aka(table: Any) -> bool:
    """Whether the game in ``table`` plays red fives (tile names ``5mr``); before a game, yes."""
    game = getattr(table, "game", None)
    return bool(getattr(game, "aka", True))


#: an envelope's outbox text (compact, UTF-8): one encoder for every event (daemon/json_text.py)
_dumps: Callable[[Any], str] = compact_encoder(sort_keys=False)
