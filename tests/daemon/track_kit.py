"""A pure sensor table for the tracking fold's tests: a simulated game (hil.simulator) performed
as the device items a sensor table reports (table link messages, RFID tile reads, seat keys --
what hil.runner.lockstep performs on the emulated rig), and the live path of the daemon without
its I/O: ``track`` step by step, each input applied through the real reducer before the next
step."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from daemon.tracking.held import Held
from daemon.tracking.records import KIND_INPUT, Entry
from daemon.tracking.track import Item, Setup, track
from drivers.link import messages as m
from drivers.link.messages import SeatKey
from drivers.tiles.events import TileRead
from drivers.tiles.places import Place, Zone
from hil.rig import physical_manifest
from hil.simulator import GameSimulator
from rules import inputs as ri
from rules.reducer import new_table, reduce
from rules.ruleset import Ruleset
from rules.seats import SEATS, Seat
from rules.table_state import TableState
from rules.tiles import Tile
from rules.wall import Layer, Wall, break_from_dice

#: a referee's input (applied directly: no device event, the tracker never sees it)
Referee = ri.GameStart


def read(place: Place, tile: Tile, reader: str = "r") -> TileRead:
    return TileRead(reader, f"T{tile.id:03d}", tile, place, None, 0)


def hand(seat: int) -> Place:
    return Place(Zone.HAND, Seat(seat))


def river(seat: int) -> Place:
    return Place(Zone.RIVER, Seat(seat))


def melds(seat: int) -> Place:
    return Place(Zone.MELDS, Seat(seat))


DORA = Place(Zone.DORA)


@dataclass
class Table:
    """The live path: the tracker's fold and the core's reducer, without the log's I/O."""

    setup: Setup = field(default_factory=lambda: Setup(sensed=True))
    state: TableState = field(default_factory=new_table)
    held: Held = field(default_factory=Held)
    log: list[Entry] = field(default_factory=list)  # what the tracker committed, in order
    events: list[dict[str, object]] = field(default_factory=list)

    def referee(self, inp: ri.Input) -> None:
        self.state, events = reduce(self.state, inp)
        self.events.extend(e.to_json() for e in events)

    def feed(self, item: Item | Referee) -> list[Entry]:
        if isinstance(item, ri.GameStart):
            self.referee(item)
            return []
        made: list[Entry] = []
        while True:
            out = track(self.held, self.state, item, self.setup)
            for e in out.entries:
                if e.kind == KIND_INPUT:
                    self.referee(ri.input_from_json(e.as_json()))
            made.extend(out.entries)
            self.log.extend(out.entries)
            self.held = out.held
            self.stepped()
            if not out.more:
                return made

    def stepped(self) -> None:
        """After each step of the fold (a test may watch ``held`` and ``log`` here)."""

    def feed_all(self, items: Sequence[Item | Referee]) -> list[Entry]:
        return [e for item in items for e in self.feed(item)]

    def inputs(self) -> list[ri.Input]:
        return [ri.input_from_json(e.as_json()) for e in self.log if e.kind == KIND_INPUT]


def game_start(ruleset: str = "mleague", dealer: int = 0) -> ri.GameStart:
    return ri.GameStart(ruleset=ruleset, first_dealer=Seat(dealer), names=("a", "b", "c", "d"))


def simulated_items(ruleset: str, seed: int, hands: int = 2,
                    aka: bool = True) -> Iterator[Item | Referee]:
    """A simulated game as a sensor table reports it (hil.runner.lockstep.HilRunner.perform,
    without the rig)."""
    sim = GameSimulator(ruleset, seed, hands=hands)
    steps = list(sim.steps())
    rs = sim.ruleset
    wall: tuple[Tile, ...] = ()
    riichi: set[Seat] = set()
    winners: list[Seat] = []
    indicators = 0
    last_discard: Tile | None = None
    for k, step in enumerate(steps):
        inp = step.input
        match inp:
            case ri.GameStart():
                yield inp
            case ri.HandStart():
                riichi, winners, indicators = set(), [], 0
                yield m.StartPressed()
            case ri.WallRaised():
                assert inp.wall is not None
                wall = inp.wall
                yield m.WallRaised()
                yield m.WallManifest(_manifest(rs, steps[k + 1:], wall, aka))
            case ri.DiceRolled():
                yield m.Dice(inp.dice)
            case ri.BreakOpened():
                yield m.BreakOpened(int(inp.seat), inp.count)
            case ri.IndicatorShown():
                assert inp.position is not None and inp.tile is not None
                layer = m.Layer.TOP if inp.position.layer is Layer.TOP else m.Layer.BOTTOM
                yield m.IndicatorTurned(int(inp.position.seat), inp.position.stack, layer)
                yield read(DORA, inp.tile)
                indicators += 1
            case ri.DealDone():
                assert inp.hands is not None
                for s in SEATS:
                    yield from (read(Place(Zone.HAND, s), t) for t in inp.hands[s])
            case ri.Draw() | ri.RinshanDraw():
                assert inp.tile is not None
                yield read(Place(Zone.HAND, inp.seat), inp.tile)
            case ri.Discard():
                assert inp.tile is not None
                if inp.riichi:
                    yield m.SeatButton(int(inp.seat), SeatKey.RIICHI)
                yield read(Place(Zone.RIVER, inp.seat), inp.tile)
                yield m.SeatButton(int(inp.seat), SeatKey.CLOCK)
                last_discard = inp.tile
            case ri.Call():
                assert inp.tiles is not None and last_discard is not None
                for t in (*inp.tiles, last_discard):
                    yield read(Place(Zone.MELDS, inp.seat), t)
            case ri.Ankan():
                assert inp.tiles is not None
                yield from (read(Place(Zone.MELDS, inp.seat), t) for t in inp.tiles)
            case ri.Kakan():
                assert inp.tile is not None
                yield read(Place(Zone.MELDS, inp.seat), inp.tile)
            case ri.Tsumo() | ri.Ron():
                yield m.SeatButton(int(inp.seat), SeatKey.TSUMO if isinstance(inp, ri.Tsumo)
                                   else SeatKey.RON)
                winners.append(inp.seat)
                following = steps[k + 1].input if k + 1 < len(steps) else None
                dora = rs.dora
                if (not isinstance(following, ri.Ron) and dora.indicator and dora.ura
                        and riichi & set(winners)):
                    count = indicators if (dora.kan_dora and dora.kan_ura) else min(indicators, 1)
                    yield from (read(DORA, wall[i]) for i in Wall.URA[:count])
            case ri.ExhaustiveDraw():
                for s in SEATS:
                    yield m.SeatButton(int(s), SeatKey.TENPAI if s in inp.tenpai
                                       else SeatKey.NOTEN)
            case ri.AbortiveDraw():
                key = {"nine_terminals": SeatKey.NINE_TERMINALS, "four_winds": SeatKey.FOUR_WINDS,
                       "four_riichi": SeatKey.FOUR_RIICHI, "four_kans": SeatKey.FOUR_KANS}
                yield m.SeatButton(int(inp.seat or 0), key[inp.kind])
            case _:
                raise AssertionError(f"no device performs {inp!r}")
        riichi |= {Seat.of(int(e.to_json()["seat"])) for e in step.events
                   if e.TYPE == "riichi_accepted"}


def _manifest(rs: Ruleset, ahead: Sequence[object], wall: tuple[Tile, ...],
              aka: bool) -> tuple[str, ...]:
    rolls: list[tuple[int, int]] = []
    dealer: Seat | None = None
    for step in ahead:
        inp = getattr(step, "input", None)
        if isinstance(inp, ri.DiceRolled):
            dealer = inp.seat if dealer is None else dealer
            rolls.append(inp.dice)
        elif rolls:
            break
    assert dealer is not None
    return physical_manifest(wall, Wall(break_from_dice(rs, dealer, tuple(rolls))), aka)
