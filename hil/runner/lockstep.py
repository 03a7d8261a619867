"""The world side: :class:`HilRunner` performs each of the simulator's steps on the emulated
sensor table (:mod:`hil.rig`) and waits, after every device event, until the daemon has consumed
it (the table link and the readers are separate wires)."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
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
)
from drivers.tiles.places import Place, Zone
from hil.errors import ScenarioError
from hil.rig import Rig, physical_manifest
from hil.simulator import Step
from rules import inputs as ri
from rules.events import GameStarted
from rules.ruleset import Ruleset
from rules.seats import SEATS, Seat
from rules.tiles import Tile
from rules.wall import Position, Wall, break_from_dice


@dataclass
class Perform:
    """How the runner performs one step; a scenario's fault may replace or surround it."""

    index: int
    step: Step
    hand: int  # hands started so far (1 = the first hand)


Hook = Callable[["HilRunner", Perform], Any]
# the inputs of a hand's setup and of its play, as HilRunner.perform hands them on
_SetupInput = (ri.HandStart | ri.WallRaised | ri.DiceRolled | ri.BreakOpened | ri.IndicatorShown
               | ri.DealDone)
_PlayInput = (ri.Draw | ri.RinshanDraw | ri.Discard | ri.Call | ri.Ankan | ri.Kakan | ri.Tsumo
              | ri.Ron | ri.ExhaustiveDraw | ri.AbortiveDraw)


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
        inp = step.input
        self.count_step(step)
        match inp:
            case ri.GameStart() | ri.RefereeOverride():
                await self.daemon.submit_referee(inp)
                return
            case (ri.HandStart() | ri.WallRaised() | ri.DiceRolled() | ri.BreakOpened()
                  | ri.IndicatorShown() | ri.DealDone()):
                await self._perform_setup(inp)
            case ri.UraRevealed() | ri.WinShown():
                # The rig turns the ura itself after a riichi win (_show_ura); a shown hand is
                # what the sensors read, not a step of its own.
                raise ScenarioError(f"the rig cannot perform {inp!r}")
            case _:
                await self._perform_play(inp, following)
        for ev in step.events:
            if ev.TYPE == "riichi_accepted":
                self._riichi.add(Seat.of(ev.to_json()["seat"]))
        await self.sync(ordering=self._pending_inputs > 0)

    async def _perform_setup(self, inp: _SetupInput) -> None:
        """A hand's setup, up to the deal."""
        rig = self.rig
        match inp:
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
            case _:
                assert_never(inp)

    async def _perform_play(self, inp: _PlayInput, following: Step | None) -> None:
        """A hand's play: draws, discards, melds, and its end (a win, or a draw of the hand)."""
        rig = self.rig
        match inp:
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
                    raise ScenarioError(f"no seat key for the abortive draw {inp.kind!r}")
                rig.key(inp.seat if inp.seat is not None else Seat.S0, button)
            case _:
                assert_never(inp)

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
        raise ScenarioError("no other kind at the end of the wall")

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
