"""One table's core: log the input, fold it through the reducer and the clocks, queue its events.

This is the synchronous heart of the daemon (the asyncio service calls it from its database
thread). The state is always ``fold(inputs in the log)``: :meth:`TableCore.recover` rebuilds it at
start (from the newest checkpoint made by the same code, or from the first input), and puts in the
outbox the events of an input that was logged but not yet applied when the daemon stopped.

Event envelopes (the ``events`` payload, schema ``jantaku/event/1``) are built from the logged
input only (its wall time, its seq), so a replay produces the same bytes.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any, ClassVar

from daemon import clocks as dc
from daemon.engine import Engine
from daemon.eventlog import EventLog, Record
from daemon.topics import SCHEMA_EVENT, Topics
from rules.inputs import GameStart, Input, InputError, input_from_json, input_to_json

log = logging.getLogger("jantaku.table")

KIND_INPUT = "input"
KIND_TIMER = "timer"
KIND_MARKER = "marker"


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
DAEMON_EVENTS: tuple[type, ...] = (DaemonBadInput, DaemonEngineError)


@dataclass(frozen=True, slots=True)
class CoreState:
    """Everything the fold carries (pickled in checkpoints)."""

    table: Any
    clocks: dc.Clocks
    game: int = 0  # games started in this log (the ``game`` column and envelope field)
    hand: int | None = None  # the reducer's hand number (from its ``hand_started`` event)
    input_seq: int = 0
    event_seq: int = 0


@dataclass(frozen=True, slots=True)
class Applied:
    record: Record
    events: tuple[dict[str, Any], ...]  # the envelopes, seq order

    @property
    def last_event_seq(self) -> int | None:
        return self.events[-1]["seq"] if self.events else None


@dataclass(frozen=True, slots=True)
class Recovery:
    inputs: int  # inputs in the log
    replayed: int  # inputs folded at start (after the checkpoint)
    checkpoint: int  # the checkpoint's input seq (0: none)
    completed: int  # inputs whose events were put in the outbox now (logged, not yet applied)
    mismatch: str | None  # the replay disagreed with the logged event count (code changed?)


def iso(wall_ns: int) -> str:
    stamp = datetime.fromtimestamp(wall_ns / 1e9, UTC).isoformat(timespec="milliseconds")
    return stamp.replace("+00:00", "Z")


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
        self._snapshot: dict[str, Any] | None = None
        self._checkpoints_ok = True
        self._warn = on_warning or log.warning

    # ------------------------------------------------------------------ fold
    def _fold(self, cs: CoreState, rec: Record) -> tuple[CoreState, list[dict[str, Any]]]:
        """One logged input applied to the state: the new state and the events' JSON."""
        out: list[dict[str, Any]] = []
        table, clocks, hand, game = cs.table, cs.clocks, cs.hand, rec.game
        if rec.kind == KIND_INPUT:
            try:
                inp = input_from_json(rec.body)
            except InputError as exc:  # never logged by this daemon; a hand-edited log
                out.append(DaemonBadInput(rec.seq, str(exc)).to_json())
                inp = None
            if inp is not None:
                try:
                    table, events = self.engine.reduce(table, inp)
                except Exception as exc:  # the contract says never; stay a fold anyway
                    out.append(DaemonEngineError(repr(exc)).to_json())
                    events = ()
                aka = _plays_aka(table)
                for event in events:
                    body = event.to_json(aka=aka)
                    if body.get("type") == "hand_started" and isinstance(body.get("hand"), int):
                        hand = body["hand"]
                    elif body.get("type") == "game_started":
                        hand = None
                    out.append(body)
                dealer = None
                if rec.body.get("type") == "deal_done":
                    dealer = _dealer(self.engine.snapshot(table))
                clocks, tevents = dc.follow(clocks, inp, rec.mono_ns, rec.source, dealer)
                out.extend(dc.events_json(tevents))
        else:
            clocks, tevents = dc.apply_record(clocks, rec.body, rec.mono_ns)
            out.extend(dc.events_json(tevents))
        new = CoreState(table, clocks, game, hand, rec.seq, cs.event_seq + len(out))
        return new, out

    def _envelopes(
        self, rec: Record, first_seq: int, hand: int | None, bodies: list[dict[str, Any]]
    ) -> list[dict[str, Any]]:
        ts = iso(rec.wall_ns)
        out = []
        for i, body in enumerate(bodies):
            seq = first_seq + i
            out.append(
                {
                    "schema": SCHEMA_EVENT,
                    "seq": seq,
                    "id": f"{self.table_id}:{seq}",
                    "type": body.get("type", "unknown"),
                    "ts": ts,
                    "table": self.table_id,
                    "game": rec.game if rec.game > 0 else None,
                    "hand": hand,
                    "input_seq": rec.seq,
                    "source": rec.source,
                    "data": body,
                }
            )
        return out

    def _commit(
        self, rec: Record, before: CoreState, after: CoreState, bodies: list[Any]
    ) -> Applied:
        envs = self._envelopes(rec, before.event_seq + 1, after.hand, bodies)
        rows = [(self.topics.events, _dumps(e)) for e in envs]
        self.log.commit_events(rec.seq, rows)
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
        for rec in self.log.records(after=cs.input_seq):
            before = cs
            cs, bodies = self._fold(cs, rec)
            replayed += 1
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
        self._snapshot = None
        return Recovery(last, replayed, cp_seq, completed, mismatch)

    # ------------------------------------------------------------------ run
    def submit(
        self, kind: str, source: str, body: dict[str, Any], mono_ns: int, wall_ns: int, boot: str
    ) -> Applied:
        """Log ``body`` (fsync'ed), then apply it and queue its events. Returns what happened."""
        cs = self.state
        game = cs.game + 1 if kind == KIND_INPUT and body.get("type") == "game_start" else cs.game
        rec = self.log.append(
            game=game, kind=kind, source=source, body=body, mono_ns=mono_ns, wall_ns=wall_ns,
            boot=boot,
        )
        after, bodies = self._fold(cs, rec)
        applied = self._commit(rec, cs, after, bodies)
        self.state = after
        self._snapshot = None
        if self.checkpoint_every and rec.seq % self.checkpoint_every == 0:
            self.checkpoint()
        return applied

    def submit_input(
        self, inp: Input, source: str, mono_ns: int, wall_ns: int, boot: str
    ) -> Applied:
        return self.submit(KIND_INPUT, source, input_to_json(inp), mono_ns, wall_ns, boot)

    def checkpoint(self) -> bool:
        if not self._checkpoints_ok:
            return False
        try:
            self.log.save_checkpoint(
                self.state.input_seq, self.state.event_seq, self.engine.code, self.state
            )
        except Exception as exc:  # an unpicklable state: restarts replay the whole log
            self._checkpoints_ok = False
            self._warn(f"checkpoints disabled: the state cannot be saved: {exc!r}")
            return False
        return True

    # ------------------------------------------------------------------ views
    def snapshot(self) -> dict[str, Any]:
        if self._snapshot is None:
            self._snapshot = self.engine.snapshot(self.state.table)
        return self._snapshot

    @property
    def game_running(self) -> bool:
        return self.state.game > 0


def _dealer(snapshot: dict[str, Any]) -> int | None:
    dealer = snapshot.get("dealer")
    return dealer if isinstance(dealer, int) and 0 <= dealer <= 3 else None


def _plays_aka(table: Any) -> bool:
    """Whether the game in ``table`` plays red fives (tile names ``5mr``); before a game, yes."""
    game = getattr(table, "game", None)
    return bool(getattr(game, "aka", True))


def _dumps(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False, sort_keys=False)


def game_start_of(body: dict[str, Any]) -> GameStart | None:
    inp = input_from_json(body)
    return inp if isinstance(inp, GameStart) else None
