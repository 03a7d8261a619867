"""Hardware in the loop: the simulator's bots play through emulated devices into the real daemon.

    python -m hil.runner hil/scenarios/clean-mleague.toml       # one scenario
    python -m hil.runner --ruleset wmc --seed 7 --hands 3        # a game, compared
    python -m hil.runner --real-table /dev/ttyUSB0 ...           # a real serial link (docs/hil.md)

The world side is :class:`hil.simulator.GameSimulator` (the wall, the dice, four bots): each of its
steps is *performed* on the emulated sensor table (:mod:`hil.rig`) -- table actions as table-link
frames on a pty, tile moves as RFID frames on the zone readers, declarations as seat-panel keys,
clock presses as GPIO edges -- at the bots' think-time instants scaled by ``speed``. The daemon
side is the production service (``daemon.service.Service``) built from a venue config by
``daemon.devices.build_drivers``: its real serial table driver, RFID reader drivers, sensor tracker
(``daemon/tracker.py``) and gpiozero buttons on a ``MockFactory`` (GPIO mock pins can only be
driven in-process, so the daemon runs in this process; ``hil.procdaemon`` runs ``jantaku run``
as a separate process for the kill -9 scenario).

The two are played in lockstep: after every device event the runner waits until the tracker has
consumed it (the table link and the readers are separate wires; a real player also waits for the
rack LED). At the end the daemon's rules events are compared with the simulator's own reducer run:
equal types, seats, tiles and scores, event by event (docs/hil.md, *What is compared*).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import socket
import sys
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, assert_never

from daemon.tracker import (
    FOUR_KANS,
    FOUR_RIICHI,
    FOUR_WINDS,
    NINE_TERMINALS,
    NOTEN,
    RIICHI,
    RON,
    TENPAI,
    TSUMO,
    SensorTracker,
)
from drivers.tiles.places import Place, Zone
from hil.rig import Rig, physical_manifest
from hil.simulator import GameSimulator, Step
from rules import inputs as ri
from rules.events import Event, GameStarted
from rules.ruleset import Ruleset, load_ruleset
from rules.seats import SEATS, Seat
from rules.tiles import Tile
from rules.wall import Position, Wall, break_from_dice

#: Events a sensor table cannot produce identically, by design (docs/hil.md): the link's wall
#: manifest has kinds, not tile ids, so the daemon's wall is not id-known (no ``wall_known``) and
#: a riichi win's ura indicators are shown and read (``ura_revealed``) instead of looked up.
NOT_COMPARED = frozenset({"wall_known", "ura_revealed"})


def rules_event_types() -> frozenset[str]:
    out: set[str] = set()
    todo: list[type[Any]] = [Event]
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        name = getattr(cls, "TYPE", None)
        if isinstance(name, str):
            out.add(name)
    return frozenset(out)


RULES_EVENTS = rules_event_types()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def comparable(events: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    return [_normalised(e) for e in events
            if e.get("type") in RULES_EVENTS and e["type"] not in NOT_COMPARED]


def _normalised(event: dict[str, Any]) -> dict[str, Any]:
    """The ura indicators of a hand without a riichi win: the simulator's reducer, knowing the
    wall's ids, lists them in the outcome's context; nobody turns them over at a real table, so
    the daemon cannot (they score nothing: S §24-7)."""
    outcome = event.get("outcome")
    if event.get("type") != "hand_ended" or not isinstance(outcome, dict):
        return event
    wins = outcome.get("wins") or []
    if any(isinstance(w, dict) and w.get("riichi") for w in wins):
        return event
    context = dict(outcome.get("context") or {})
    context.pop("ura_indicators", None)
    context.pop("ura_indicators_mjai", None)
    return {**event, "outcome": {**outcome, "context": context}}


def renumbered(daemon: list[dict[str, Any]], sim: Sequence[dict[str, Any]]
               ) -> list[dict[str, Any]]:
    """The daemon's game and hand numbers count the table's life (its event log holds every game
    it played); a simulator starts at 1. Both are shifted to the simulator's first numbers."""
    def first(events: Sequence[dict[str, Any]], kind: str, key: str) -> int | None:
        return next((int(e[key]) for e in events if e.get("type") == kind), None)

    shifts: dict[str, int] = {}
    for kind, key in (("game_started", "game"), ("hand_started", "hand")):
        a, b = first(daemon, kind, key), first(sim, kind, key)
        if a is not None and b is not None:
            shifts[key] = a - b
    out = []
    for e in daemon:
        if e.get("type") in ("game_started", "game_ended", "hand_started", "hand_ended"):
            e = dict(e)
            for key, shift in shifts.items():
                if isinstance(e.get(key), int):
                    e[key] -= shift
        out.append(e)
    return out


def first_difference(a: Sequence[dict[str, Any]], b: Sequence[dict[str, Any]]) -> str | None:
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return f"event {i}: simulator {json.dumps(x)} != daemon {json.dumps(y)}"
    if len(a) != len(b):
        longer, name = (a, "simulator") if len(a) > len(b) else (b, "daemon")
        extra = longer[min(len(a), len(b))]
        return f"{name} has {abs(len(a) - len(b))} more events, first: {json.dumps(extra)}"
    return None


# --------------------------------------------------------------------------- the daemon side
class EventTap:
    """A daemon driver that keeps every event envelope the service publishes (and the latest
    snapshot): what a subscriber of ``events`` would receive, in order."""

    name = "tap"

    def __init__(self, on_events: Callable[[dict[str, Any], Sequence[dict[str, Any]]], None]
                 | None = None) -> None:
        self.envelopes: list[dict[str, Any]] = []
        self.board: dict[str, Any] = {}  # the last scoreboard (rules.table_view.scoreboard)
        self.on_events = on_events

    async def run(self, sink: Any) -> None:
        await asyncio.Event().wait()

    async def show(self, board: dict[str, Any], events: Sequence[dict[str, Any]]) -> None:
        self.envelopes.extend(events)
        self.board = board
        if self.on_events is not None:
            self.on_events(board, events)

    def health(self) -> dict[str, Any]:
        return {"kind": "tap", "status": "up", "events": len(self.envelopes)}

    @property
    def data(self) -> list[dict[str, Any]]:
        return [e["data"] for e in self.envelopes]


class InProcessDaemon:
    """The production service with the drivers its config names, in this process."""

    def __init__(self, config_text: str, source: Path, gpio: Any,
                 on_events: Callable[[dict[str, Any], Sequence[dict[str, Any]]], None]
                 | None = None) -> None:
        from daemon.config import parse_config
        from daemon.devices import build_drivers
        from daemon.engine import load_engine
        from daemon.service import Service

        self.config = parse_config(config_text, source)
        drivers = build_drivers(self.config, pin_factory=gpio)
        self.tap = EventTap(on_events)
        self.tracker = next(d for d in drivers if isinstance(d, SensorTracker))
        self.service = Service(self.config, load_engine(), drivers=[*drivers, self.tap],
                               ready_timeout=0.5)
        self._task: asyncio.Task[int] | None = None

    async def __aenter__(self) -> InProcessDaemon:
        self._task = asyncio.create_task(self.service.run(), name="daemon")
        ready = asyncio.create_task(self.service.ready.wait())
        done, _ = await asyncio.wait([ready, self._task], return_when=asyncio.FIRST_COMPLETED)
        if self._task in done:
            ready.cancel()
            raise RuntimeError(f"the daemon stopped at start: {self._task.result()}")
        # a serial port flushes its input when opened: play starts once every reader is open
        readers = len(self.tracker.tiles.readers) if self.tracker.tiles is not None else 0
        deadline = time.monotonic() + 30
        while self.tracker.reader_connects < readers and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.service.stop()
        if self._task is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._task, 15)

    async def submit_referee(self, inp: ri.Input) -> None:
        from daemon.tracking.records import KIND_INPUT

        await self.service.submit(KIND_INPUT, "referee:hil", ri.input_to_json(inp))
        await self.settled()  # its events are the last game's, not the next one's

    async def sync(self, consumed: int, timeout: float = 30.0, ordering: bool = True) -> None:
        await self.tracker.wait_consumed(consumed, timeout)
        # the tracker's last input is queued: wait until the service has applied it
        await asyncio.wait_for(self.service.queue.join(), timeout)

    @property
    def events(self) -> list[dict[str, Any]]:
        return self.tap.data

    @property
    def envelopes(self) -> list[dict[str, Any]]:
        return self.tap.envelopes

    async def drained(self, timeout: float = 20.0) -> None:
        """Until the broker has acknowledged every event (the outbox is empty)."""
        deadline = time.monotonic() + timeout
        while self.service.eventlog.outbox_depth() and time.monotonic() < deadline:
            await asyncio.sleep(0.1)

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    async def step_done(self, expected_inputs: int) -> None:
        """Lockstep is per device event in-process (:meth:`sync`): nothing more to wait for."""

    async def settled(self, timeout: float = 10.0) -> None:
        """Until the tap has seen every event the core has made: the service shows a group's
        events to its drivers after the outbox had its turn (daemon/service.py ``_applied``),
        so an input can be applied a moment before the tap sees its events."""
        deadline = time.monotonic() + timeout
        while self._shown() < self.service.core.state.event_seq:
            if time.monotonic() > deadline:
                raise TimeoutError(f"the tap saw events up to {self._shown()}, the core made "
                                   f"{self.service.core.state.event_seq}")
            await asyncio.sleep(0.005)

    def _shown(self) -> int:
        seen = self.tap.envelopes
        return int(seen[-1]["seq"]) if seen else 0

    def stats(self) -> tuple[int, int, Counter[str]]:
        """(rejected reads, reader faults, rejections by reason) so far."""
        t = self.tracker
        return t.rejected, t.reader_faults, Counter(t.reasons)

    def scores(self) -> list[int] | None:
        return _scores(self.service.core.state.table)

    def game_running(self) -> bool:
        st = self.service.core.state.table
        return st.game is not None and not st.game_over

    def published(self) -> int:
        return self.service.core.state.event_seq

    def outbox_depth(self) -> int:
        return self.service.eventlog.outbox_depth()


# --------------------------------------------------------------------------- the world side
@dataclass
class Perform:
    """How the runner performs one step; a scenario's fault may replace or surround it."""

    index: int
    step: Step
    hand: int  # hands started so far (1 = the first hand)


Hook = Callable[["HilRunner", Perform], Any]


@dataclass
class GameResult:
    ruleset: str
    seed: int
    hands: int
    steps: int
    seconds: float
    sim_events: list[dict[str, Any]]
    daemon_events: list[dict[str, Any]]
    violations: list[dict[str, Any]]  # in the daemon's stream
    sim_violations: list[dict[str, Any]]
    rejections: int
    reader_faults: int
    difference: str | None
    final_scores: list[int] | None
    sim_scores: list[int] | None
    notes: list[str] = field(default_factory=list)
    rejection_reasons: dict[str, int] = field(default_factory=dict)
    published: int = 0  # events the daemon numbered (event_seq)
    outbox_depth: int = 0
    envelopes: list[dict[str, Any]] = field(default_factory=list)  # as published, this game
    clock_events: dict[str, int] = field(default_factory=dict)  # the clocks' events by type

    @property
    def equal(self) -> bool:
        return self.difference is None

    def summary(self) -> dict[str, Any]:
        return {
            "ruleset": self.ruleset, "seed": self.seed, "hands": self.hands, "steps": self.steps,
            "seconds": round(self.seconds, 2), "events": len(self.daemon_events),
            "equal": self.equal, "difference": self.difference,
            "violations": [v.get("code") for v in self.violations],
            "rejections": self.rejections, "reader_faults": self.reader_faults,
            "scores": self.final_scores, "notes": self.notes,
        }


class HilRunner:
    """Plays one simulated game through a rig into a daemon (see the module doc)."""

    def __init__(self, rig: Rig, daemon: Any, ruleset: Ruleset, *, speed: float = 0.0,
                 before: Hook | None = None, after: Hook | None = None,
                 replace: Callable[[HilRunner, Perform], Any] | None = None) -> None:
        self.rig = rig
        self.daemon = daemon
        self.rs = ruleset
        self.speed = speed
        self.before, self.after, self.replace = before, after, replace
        self.sim_events: list[dict[str, Any]] = []
        self._sim_aka = True
        self._wall: tuple[Tile, ...] = ()
        self._last_discard: Tile | None = None
        self._riichi: set[Seat] = set()
        self._indicators = 0
        self._winners: list[Seat] = []
        self.hand = 0
        self._ahead = _Lookahead(iter(()))
        self.played = 0
        self.expected_inputs = 0  # rules inputs the daemon should have logged after this step
        self._pending_inputs = 0  # a meld closes at the next event: its input comes then
        self._ring: Wall | None = None
        # a scenario's late clock press: made after the next seat's discard (+ seconds)
        self.late_clock = 0.0
        self._late: list[tuple[Seat, float]] = []

    async def sync(self, ordering: bool = True) -> None:
        """In-process: until the tracker consumed every device event so far. A process daemon
        is only observable through its log (:meth:`step_done`): it gets a gap where the next
        device event is on another wire and must come after (``ordering``)."""
        await self.daemon.sync(self.rig.events, ordering=ordering)

    async def play(self, steps: Iterable[Step]) -> None:
        """Perform every step; ``steps`` may be a generator (the simulator thinks as it goes:
        the runner looks ahead at most to the end of the setup)."""
        t_prev = 0.0
        ahead = _Lookahead(iter(steps))
        i = -1
        while True:
            step = ahead.next()
            if step is None:
                break
            i += 1
            self.played = i + 1
            if self.speed > 0 and step.t > t_prev:
                await asyncio.sleep((step.t - t_prev) / self.speed)
            t_prev = step.t
            if isinstance(step.input, ri.HandStart):
                self.hand += 1
            p = Perform(i, step, self.hand)
            if self.before is not None:
                await _maybe(self.before(self, p))
            self._ahead = ahead
            if self.replace is None or not await _maybe(self.replace(self, p)):
                await self.perform(step, ahead.peek(0))
                await self.daemon.step_done(self.expected_inputs)
            if self._late and isinstance(step.input, ri.Discard) and all(
                    seat != step.input.seat for seat, _ in self._late):
                await self._press_late()  # after the next seat's discard
            if self.after is not None:
                await _maybe(self.after(self, p))
            for e in step.events:
                if isinstance(e, GameStarted):  # tile names follow the game's red fives
                    self._sim_aka = e.aka
                self.sim_events.append(e.to_json(aka=self._sim_aka))

    async def perform(self, step: Step, following: Step | None) -> None:
        """The device actions that make the daemon see ``step.input``."""
        inp, rig = step.input, self.rig
        self.count_step(step)
        match inp:
            case ri.GameStart() | ri.RefereeOverride():
                await self.daemon.submit_referee(inp)
                return
            case ri.HandStart():
                self._riichi, self._indicators, self._winners = set(), 0, []
                rig.press_start()
            case ri.WallRaised():
                assert inp.wall is not None
                self._wall = inp.wall
                rig.raise_wall(self.manifest())
            case ri.DiceRolled():
                rig.roll(inp.dice)
            case ri.BreakOpened():
                rig.open_break(inp.seat, inp.count)
            case ri.IndicatorShown():
                assert inp.position is not None and inp.tile is not None
                rig.turn_indicator(inp.position, inp.tile)
                await self.sync()
                rig.tag(Place(Zone.DORA), inp.tile)
                self._indicators += 1
            case ri.DealDone():
                assert inp.hands is not None
                for s in SEATS:
                    rig.tags(Place(Zone.HAND, s), inp.hands[s])
            case ri.Draw() | ri.RinshanDraw():
                assert inp.tile is not None
                rig.tag(Place(Zone.HAND, inp.seat), inp.tile)
            case ri.Discard():
                assert inp.tile is not None
                if inp.riichi:
                    rig.key(inp.seat, RIICHI)
                    await self.sync()
                rig.tag(Place(Zone.RIVER, inp.seat), inp.tile)
                self._last_discard = inp.tile
                await self.sync(ordering=False)
                if self.late_clock > 0:
                    self._late.append((inp.seat, self.late_clock))
                    self.late_clock = 0.0
                else:
                    await rig.clock(inp.seat)
            case ri.Call():
                assert inp.tiles is not None and self._last_discard is not None
                rig.tags(Place(Zone.MELDS, inp.seat), [*inp.tiles, self._last_discard])
            case ri.Ankan():
                assert inp.tiles is not None
                rig.tags(Place(Zone.MELDS, inp.seat), inp.tiles)
            case ri.Kakan():
                assert inp.tile is not None
                rig.tag(Place(Zone.MELDS, inp.seat), inp.tile)
            case ri.Tsumo() | ri.Ron():
                rig.key(inp.seat, TSUMO if isinstance(inp, ri.Tsumo) else RON)
                self._winners.append(inp.seat)
                if not (following is not None and isinstance(following.input, ri.Ron)):
                    await self.sync(ordering=False)
                    await self.daemon.step_done(self.expected_inputs)
                    await self._show_ura()
            case ri.ExhaustiveDraw():
                for s in SEATS:
                    rig.key(s, TENPAI if s in inp.tenpai else NOTEN)
            case ri.AbortiveDraw():
                button = {"nine_terminals": NINE_TERMINALS, "four_winds": FOUR_WINDS,
                          "four_riichi": FOUR_RIICHI, "four_kans": FOUR_KANS}.get(inp.kind)
                if button is None:
                    raise ValueError(f"no seat key for the abortive draw {inp.kind!r}")
                rig.key(inp.seat if inp.seat is not None else Seat.S0, button)
            case ri.UraRevealed() | ri.WinShown():
                # The rig turns the ura itself after a riichi win (_show_ura); a shown hand is
                # what the sensors read, not a step of its own.
                raise ValueError(f"the rig cannot perform {inp!r}")
            case _:
                assert_never(inp)
        for ev in step.events:
            if ev.TYPE == "riichi_accepted":
                self._riichi.add(Seat.of(ev.to_json()["seat"]))
        await self.sync(ordering=self._pending_inputs > 0)

    async def _show_ura(self) -> None:
        """After a riichi win the ura indicators are turned onto the dora spot (S §24-7)."""
        dora = self.rs.dora
        if not (dora.indicator and dora.ura) or not any(w in self._riichi for w in
                                                        self._winners):
            return
        n = self._indicators
        count = n if (dora.kan_dora and dora.kan_ura) else min(n, 1)
        self.rig.tags(Place(Zone.DORA), [self._wall[i] for i in Wall.URA[:count]])
        self.expected_inputs += 1

    def manifest(self) -> tuple[str, ...]:
        """What the table reads into its manifest: the tiles of this hand's wall by physical
        position. The simulator gives the wall in ring order for the break its coming dice call,
        so the positions follow from those dice (the tiles are where they are, whatever the
        dice)."""
        rolls: list[tuple[int, int]] = []
        dealer: Seat | None = None
        k = 0
        while (later := self._ahead.peek(k)) is not None:
            k += 1
            if isinstance(later.input, ri.DiceRolled):
                dealer = later.input.seat if dealer is None else dealer
                rolls.append(later.input.dice)
            elif rolls:
                break
        assert dealer is not None, "a wall without dice"
        brk = break_from_dice(self.rs, dealer, tuple(rolls))
        self._ring = Wall(brk)
        return physical_manifest(self._wall, self._ring, self.rig.aka)

    async def _press_late(self) -> None:
        """The late presses deferred from an earlier discard, now that another seat discarded."""
        late, self._late = self._late, []
        for seat, seconds in late:
            await asyncio.sleep(seconds)
            await self.rig.clock(seat)
            await asyncio.sleep(0.05)  # the edge reaches the daemon on gpiozero's thread
            await self.sync()

    def wall_position(self, index: int) -> Position:
        assert self._ring is not None
        return self._ring.position(index)

    def wall_tile(self, index: int) -> Tile:
        return self._wall[index]

    def unseen_tile_not_of(self, tile: Tile) -> Tile:
        """A tile still in the dead wall, of another kind (what a misread tag would name)."""
        for i in (121, 120, 119, 118, 117, 116):
            if self._wall[i].kind != tile.kind:
                return self._wall[i]
        raise ValueError("no other kind at the end of the wall")

    def count_step(self, step: Step) -> None:
        """The rules inputs the daemon will have logged once ``step`` is performed (a meld's
        comes with the next step: the meld area closes at the next event)."""
        if isinstance(step.input, ri.Call | ri.Ankan | ri.Kakan):
            self._pending_inputs += 1
        else:
            self.expected_inputs += 1 + self._pending_inputs
            self._pending_inputs = 0

    @property
    def last_discard(self) -> Tile | None:
        return self._last_discard

    def following(self) -> Step | None:
        return self._ahead.peek(0)

    async def finish(self) -> None:
        await self._press_late()


class _Lookahead:
    def __init__(self, it: Iterator[Step]) -> None:
        self._it = it
        self._buf: deque[Step] = deque()

    def peek(self, k: int) -> Step | None:
        while len(self._buf) <= k:
            nxt = next(self._it, None)
            if nxt is None:
                return None
            self._buf.append(nxt)
        return self._buf[k]

    def next(self) -> Step | None:
        if self._buf:
            return self._buf.popleft()
        return next(self._it, None)


async def _maybe(value: Any) -> Any:
    if asyncio.iscoroutine(value):
        return await value
    return value


def sim_steps(ruleset: str, seed: int, hands: int | None) -> tuple[GameSimulator, list[Step]]:
    sim = GameSimulator(ruleset, seed, hands=hands)
    return sim, list(sim.steps())


def _scores(state: Any) -> list[int] | None:
    h = state.hand
    if h is not None and h.step != "ended":
        return list(h.scores)
    p = state.progress
    return None if p is None else list(p.scores)


class HilSession:
    """A rig and an in-process daemon that stay up for one game after another (``jantaku
    demo``); :func:`run_game` is one session with one game."""

    def __init__(self, ruleset: str, *, workdir: Path, table_id: str = "hil",
                 mqtt: tuple[str, int] | None = None, real_table: str | None = None,
                 link_path: str | None = None,
                 on_events: Callable[[dict[str, Any], Sequence[dict[str, Any]]], None]
                 | None = None, process: bool = False,
                 real_buttons: tuple[tuple[int, int], ...] | None = None,
                 reader_ports: dict[str, tuple[str, str]] | None = None) -> None:
        self.process = process
        self.real_buttons, self.reader_ports = real_buttons, reader_ports
        self.ruleset = ruleset
        self.rs = load_ruleset(ruleset)
        self.workdir = workdir
        self.table_id = table_id
        self.mqtt = mqtt
        self.real_table, self.link_path = real_table, link_path
        self.on_events = on_events
        self._stack = contextlib.AsyncExitStack()
        self.rig: Rig | None = None
        self.daemon: Any = None  # InProcessDaemon, or hil.procdaemon.ProcessDaemon
        self.runner: HilRunner | None = None

    async def __aenter__(self) -> HilSession:
        from gpiozero import Device
        from gpiozero.pins.mock import MockFactory

        # real GPIO (a loopback harness on a Pi): the default pin factory, no mock
        gpio = None if (self.process or self.real_buttons) else MockFactory()
        if gpio is not None:
            Device.pin_factory = gpio
        host, port = self.mqtt if self.mqtt is not None else ("127.0.0.1", free_port())
        try:
            self.rig = await self._stack.enter_async_context(
                Rig(self.workdir, aka=self.rs.dora.red_fives, gpio=gpio,
                    real_table=self.real_table, real_buttons=self.real_buttons,
                    reader_ports=self.reader_ports))
            referee = None
            if self.process:
                from hil.procdaemon import referee_key

                referee = referee_key()
            eventlog = self.workdir / "events.sqlite"
            text = self.rig.config_toml(table_id=self.table_id, ruleset=self.ruleset,
                                        eventlog=eventlog, mqtt_host=host,
                                        mqtt_port=port, link=self.link_path, referee=referee)
            config = self.workdir / "jantaku.toml"
            config.write_text(text, encoding="utf-8")
            if self.process:
                from hil.procdaemon import ProcessDaemon

                self.daemon = await self._stack.enter_async_context(
                    ProcessDaemon(config, eventlog, self.table_id, (host, port),
                                  readers=len(self.rig.readers)))
            else:
                self.daemon = await self._stack.enter_async_context(
                    InProcessDaemon(text, config, gpio, self.on_events))
        except BaseException:
            await self._stack.aclose()
            raise
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._stack.aclose()

    async def play(self, seed: int, hands: int | None, *, speed: float = 0.0,
                   before: Hook | None = None, after: Hook | None = None,
                   replace: Callable[[HilRunner, Perform], Any] | None = None,
                   drain: bool = False, max_steps: int | None = None) -> GameResult:
        assert self.rig is not None and self.daemon is not None
        rig, daemon = self.rig, self.daemon
        if daemon.game_running():
            # the last game was cut short (--hands): the referee ends it before a new one
            await daemon.submit_referee(ri.RefereeOverride(action="end_game", by="hil"))
        sim = GameSimulator(self.ruleset, seed, hands=hands)
        steps: Iterable[Step] = sim.steps()  # the bots think as the game goes
        if max_steps is not None:
            steps = itertools.islice(steps, max_steps)
        runner = HilRunner(rig, daemon, self.rs, speed=speed, before=before, after=after,
                           replace=replace)
        self.runner = runner
        first_event = len(daemon.events)
        rejected, faults, reasons = daemon.stats()
        t0 = time.monotonic()
        await runner.play(steps)
        await runner.finish()
        await daemon.sync(rig.events)
        await daemon.step_done(runner.expected_inputs)
        await daemon.settled()
        if drain:
            await daemon.drained()
        seconds = time.monotonic() - t0
        d_all = daemon.events[first_event:]
        a = comparable(runner.sim_events)
        b = renumbered(comparable(d_all), a)
        rejected_now, faults_now, reasons_now = daemon.stats()
        return GameResult(
            ruleset=self.ruleset, seed=seed, hands=runner.hand, steps=runner.played,
            seconds=seconds, sim_events=a, daemon_events=b,
            violations=[e for e in d_all if e.get("type") == "violation"],
            sim_violations=list(sim.violations),
            rejections=rejected_now - rejected,
            reader_faults=faults_now - faults,
            difference=first_difference(a, b),
            final_scores=daemon.scores(), sim_scores=_scores(sim.state),
            rejection_reasons=dict(reasons_now - reasons),
            published=daemon.published(),
            outbox_depth=daemon.outbox_depth(),
            envelopes=list(daemon.envelopes[first_event:]),
            clock_events=dict(Counter(str(e.get("type")) for e in d_all
                                      if str(e.get("type", "")).startswith("clock_"))),
        )


async def run_game(ruleset: str, seed: int, hands: int | None, *, workdir: Path,
                   speed: float = 0.0, table_id: str = "hil", mqtt: tuple[str, int] | None = None,
                   real_table: str | None = None, link_path: str | None = None,
                   before: Hook | None = None, after: Hook | None = None,
                   replace: Callable[[HilRunner, Perform], Any] | None = None,
                   on_events: Callable[[dict[str, Any], Sequence[dict[str, Any]]], None]
                   | None = None, drain: bool = False,
                   max_steps: int | None = None, process: bool = False,
                   real_buttons: tuple[tuple[int, int], ...] | None = None,
                   reader_ports: dict[str, tuple[str, str]] | None = None) -> GameResult:
    """One game through the rig into a daemon (in this process, or ``jantaku run`` with
    ``process``); the result compares both sides."""
    async with HilSession(ruleset, workdir=workdir, table_id=table_id, mqtt=mqtt,
                          real_table=real_table, link_path=link_path,
                          on_events=on_events, process=process, real_buttons=real_buttons,
                          reader_ports=reader_ports) as session:
        return await session.play(seed, hands, speed=speed, before=before, after=after,
                                  replace=replace, drain=drain, max_steps=max_steps)


if __name__ == "__main__":
    # The command lives in hil/cli.py, which imports both this module and hil.scenario (the
    # scenario runner plays through this one): no import cycle between the two.
    from hil.cli import main

    sys.exit(main())

