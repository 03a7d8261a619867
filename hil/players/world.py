"""The world of a simulated table: the shuffled wall, the dice, the break, the deal, draws from the
live wall and the dead wall (rinshan), the dora indicators, and each seat's hand as the players
model it (:class:`~hil.players.hand_model.SeatModel`: concealed tiles, melds, river, riichi,
furiten, kuikae).

It never reads the reducer's state: hands, rivers and turns are its own. Between hands it takes
the game's progress (dealer, round wind, honba, deposits, scores) from the settlement's
:class:`~rules.game_flow.GameProgress`, the value the reducer's ``HandStart`` begins the hand with;
within the hand it keeps the scores itself (a riichi stick leaves the scores when the riichi
stands). It uses pure rule helpers only (hand_shape, the kuikae kinds, the ron order).

Every action is a :class:`Move`: the input a table (or an importer) would send, and the seat whose
action it is. Modes: ``table`` (wall manifest, dice, break, positions, tiles), ``record`` (tiles
but no dice, break or positions: an importer), ``blind`` (dice and break, no tiles at all: a table
without sensors).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Literal

from hil.players.hand_model import SeatModel
from rules import hand_shape
from rules.claims import kuikae_kinds, resolve_rons, ron_order
from rules.game_flow import GameProgress
from rules.inputs import (
    AbortKind,
    Ankan,
    BreakOpened,
    Call,
    CallKind,
    DealDone,
    DiceRolled,
    Discard,
    Draw,
    IndicatorShown,
    Input,
    Kakan,
    RinshanDraw,
    WallRaised,
)
from rules.outcome import HandContext, Meld, Win
from rules.ruleset import Ruleset
from rules.seats import SEATS, Seat, seat_by_dice
from rules.tiles import Kind, Tile, kinds_to_34
from rules.wall import Position, Wall, break_from_dice

Mode = Literal["table", "record", "blind"]


@dataclass(frozen=True, slots=True)
class Move:
    """One action: the input and the seat whose decision it was (``None``: the table's)."""

    input: Input
    actor: Seat | None = None


class World:
    """One table's world, hand after hand. ``rng`` shuffles the wall and rolls the dice."""

    def __init__(self, rs: Ruleset, rng: random.Random, mode: Mode = "table", *,
                 tsumogiri: bool = False, draw_positions: bool = True) -> None:
        self.rs = rs
        self.rng = rng
        self.mode = mode
        self.tsumogiri = tsumogiri  # mark a discard of the drawn tile (a sensor table sees it)
        # a draw's wall position (a sensor table's tracker reads draws from the hand zone only)
        self.draw_positions = draw_positions
        self.progress: GameProgress | None = None

    # --- the hand's setup -----------------------------------------------------------------
    def setup(self, progress: GameProgress) -> Iterator[Move]:
        """Shuffle, raise, roll, break, flip the indicator and deal (S §§16-20)."""
        rs, rng = self.rs, self.rng
        ids = list(range(136))
        rng.shuffle(ids)
        self.wall = [Tile(i) for i in ids]
        self.progress = progress
        self.dealer = progress.dealer
        self.scores = list(progress.scores)
        self.deposits = progress.deposits
        if self.mode == "table":
            yield Move(WallRaised(tuple(self.wall)))
        elif self.mode == "blind":
            yield Move(WallRaised(None))
        self.geo: Wall | None = None
        if self.mode != "record":
            yield from self._break()
        self.shown: list[Tile] = []
        self.indicators = 0
        if rs.dora.indicator:
            yield self.show_indicator()
        self.jump = rs.wall.dealer_fourteenth == "jump"
        deal = Wall.deal_indices(self.dealer)
        self.players = {s: SeatModel() for s in SEATS}
        for s in SEATS:
            self.players[s].hand = [self.wall[i] for i in deal[s] if self.jump or i != 52]
        # In deal order, not sorted: a table places them so, and a sensor table's tracker takes
        # the dealer's last tile placed as the jump tile, his drawn tile (RULESETS.md 2.4).
        hands = tuple(tuple(self.players[s].hand) for s in SEATS)
        known = self.mode != "blind"
        yield Move(DealDone(hands=(hands[0], hands[1], hands[2], hands[3]) if known else None))
        self.next_live = 53 if self.jump else 52
        self.kans = 0
        self.kan_seats: list[Seat] = []
        self.rinshan = 0
        self.due_after: list[Seat] = []  # after-discard kan indicators owed
        # the dealer's 14th tile of a jump deal counts as drawn (its discard is tsumogiri)
        self.drawn: Tile | None = self.wall[52] if self.jump else None
        self.rinshan_turn = False
        self.first_discards: list[Tile] = []
        self.interrupted = False
        self.called: set[int] = set()  # ids of river tiles taken by calls
        self.ended = False

    def _break(self) -> Iterator[Move]:
        rs, rng, dealer = self.rs, self.rng, self.dealer
        d1 = (rng.randint(1, 6), rng.randint(1, 6))
        yield Move(DiceRolled(dealer, d1), dealer)
        rolls: tuple[tuple[int, int], ...] = (d1,)
        if rs.wall.break_method == "two_rolls":
            roller = seat_by_dice(dealer, sum(d1))
            d2 = (rng.randint(1, 6), rng.randint(1, 6))
            yield Move(DiceRolled(roller, d2), roller)
            rolls = (d1, d2)
        brk = break_from_dice(rs, dealer, rolls)
        yield Move(BreakOpened(brk.seat, brk.count))
        self.geo = Wall(brk)

    # --- what the players can see and know -------------------------------------------------
    def live_left(self) -> int:
        return 122 - self.kans - self.next_live

    def seat_wind(self, s: Seat) -> int:
        return s.wind(self.dealer)

    def context(self) -> HandContext:
        assert self.progress is not None
        return HandContext(
            dealer=self.dealer, round_wind=self.progress.round_wind, honba=self.progress.honba,
            deposits=self.deposits, scores=(self.scores[0], self.scores[1], self.scores[2],
                                            self.scores[3]),
            aka=self.rs.dora.red_fives, dora_indicators=tuple(self.shown))

    def visible34(self) -> list[int]:
        tiles = list(self.shown)
        for pl in self.players.values():
            tiles.extend(t for t in pl.river if t.id not in self.called)
            for m in pl.melds:
                tiles.extend(m.tiles)
        return kinds_to_34(tiles)

    def furiten(self, s: Seat) -> bool:
        """S §51: a wait in one's own river, or a winning tile passed (riichi: for good)."""
        if not self.rs.furiten.enabled:
            return False
        pl = self.players[s]
        w = pl.waits()
        return any(t.kind in w for t in pl.river) or pl.missed or pl.passed

    def can_riichi(self, s: Seat) -> bool:
        rs, pl = self.rs, self.players[s]
        return (rs.riichi.enabled and pl.closed and not pl.riichi
                and self.live_left() >= rs.riichi.min_live_tiles
                and (not rs.riichi.requires_deposit_points
                     or self.scores[s] >= rs.riichi.deposit))

    def win(self, s: Seat, loser: Seat | None, tile: Tile, *, chankan: bool = False) -> Win:
        pl = self.players[s]
        hand = pl.hand if loser is None else [*pl.hand, tile]
        last = self.live_left() == 0
        return Win(winner=s, loser=loser, hand=tuple(sorted(hand, key=lambda t: t.id)),
                   win_tile=tile, melds=tuple(pl.melds), riichi=pl.riichi,
                   rinshan=loser is None and self.rinshan_turn,
                   haitei=loser is None and last and not self.rinshan_turn,
                   houtei=loser is not None and last and not chankan, chankan=chankan)

    def tenpai(self) -> tuple[Seat, ...]:
        return tuple(s for s in SEATS if self.players[s].waits())

    def abort_due(self) -> AbortKind | None:
        """An abortive draw the table declares before the next draw (S §52, M 3-10)."""
        aborts = self.rs.draws.abortive
        if "four_riichi" in aborts and all(p.riichi for p in self.players.values()):
            return "four_riichi"
        f = self.first_discards
        if ("four_winds" in aborts and len(f) == 4 and not self.interrupted
                and len({t.kind for t in f}) == 1 and f[0].kind.is_wind):
            return "four_winds"
        if "four_kans" in aborts and self.kans == 4 and len(set(self.kan_seats)) >= 2:
            return "four_kans"
        return None

    # --- tiles moving ------------------------------------------------------------------------
    def _pos(self, index: int) -> Position | None:
        return None if self.geo is None or self.mode != "table" else self.geo.position(index)

    def _tile(self, t: Tile) -> Tile | None:
        return t if self.mode != "blind" else None

    def show_indicator(self) -> Move:
        n = self.indicators
        index = Wall.DORA if n == 0 else Wall.KAN_DORA[n - 1]
        self.shown.append(self.wall[index])
        self.indicators += 1
        return Move(IndicatorShown(position=self._pos(index), tile=self._tile(self.wall[index])))

    def ura(self) -> tuple[Tile, ...]:
        n = self.indicators if (self.rs.dora.kan_dora and self.rs.dora.kan_ura) else 1
        return tuple(self.wall[i] for i in Wall.URA[:n])

    def draw(self, s: Seat) -> Move:
        t = self.wall[self.next_live]
        pos = self._pos(self.next_live) if self.draw_positions else None
        self.next_live += 1
        self.players[s].hand.append(t)
        self.drawn, self.rinshan_turn = t, False
        return Move(Draw(s, self._tile(t), pos), s)

    def rinshan_draw(self, s: Seat) -> Move:
        t = self.wall[Wall.RINSHAN[self.rinshan]]
        self.rinshan += 1
        self.players[s].hand.append(t)
        self.drawn, self.rinshan_turn = t, True
        return Move(RinshanDraw(s, self._tile(t)), s)

    def kan_indicators(self, s: Seat, open_kan: bool) -> Iterator[Move]:
        """A kan's indicator: at once, or after the kan's discard (S §24-3, M 4-5-4)."""
        rs = self.rs
        if not (rs.dora.indicator and rs.dora.kan_dora):
            return
        timing = rs.dora.kan_dora_open if open_kan else rs.dora.kan_dora_closed
        # An earlier kan's indicator still owed is turned at this kan's declaration, whatever
        # this kan's own timing (Tenhou: a kakan, its rinshan tile, then a second kakan turns the
        # first one's indicator before the second rinshan draw; rules/reducer/calls.py
        # _register_kan). Waiting for the discard instead played an `indicator_missing`.
        for _ in self.due_after:
            yield self.show_indicator()
        self.due_after = []
        if timing == "immediate":
            yield self.show_indicator()
        else:
            self.due_after.append(s)

    def discard_indicators(self, s: Seat) -> Iterator[Move]:
        for _ in [x for x in self.due_after if x == s]:
            yield self.show_indicator()
        self.due_after = [x for x in self.due_after if x != s]

    def _kan(self, s: Seat) -> None:
        self.kans += 1
        self.kan_seats.append(s)
        self.interrupted = True

    def ankan(self, s: Seat, kind: Kind) -> Move:
        pl = self.players[s]
        tiles = [t for t in pl.hand if t.kind == kind]
        for t in tiles:
            pl.hand.remove(t)
        pl.melds.append(Meld("ankan", tuple(tiles)))
        self._kan(s)
        known = (tiles[0], tiles[1], tiles[2], tiles[3]) if self.mode != "blind" else None
        return Move(Ankan(s, known), s)

    def kakan(self, s: Seat, t: Tile) -> Move:
        pl = self.players[s]
        pl.hand.remove(t)
        i = next(i for i, m in enumerate(pl.melds) if m.kind == "pon" and m.tiles[0].kind == t.kind)
        pl.melds[i] = replace(pl.melds[i], kind="kakan", tiles=(*pl.melds[i].tiles, t))
        self._kan(s)
        return Move(Kakan(s, self._tile(t)), s)

    def discard(self, s: Seat, tile: Tile, riichi: bool) -> Move:
        pl = self.players[s]
        tsumogiri = (tile == self.drawn) if self.tsumogiri else None
        pl.hand.remove(tile)
        pl.river.append(tile)
        pl.kuikae = ()
        pl.passed = False  # S §51(2): the same-go-around furiten ends at one's own discard
        if len(self.first_discards) < 4 and not self.interrupted:
            self.first_discards.append(tile)
        if riichi:
            pl.riichi = True
        return Move(Discard(s, self._tile(tile), riichi=riichi, tsumogiri=tsumogiri), s)

    def riichi_stands(self, s: Seat) -> None:
        """The riichi discard passed: the stick goes on the table (S §30)."""
        self.scores[s] -= self.rs.riichi.deposit
        self.deposits += 1

    def mark_passed(self, owner: Seat, tile: Tile, taker: Seat | None) -> None:
        """Seats that let a winning tile go by are furiten (S §51(2)(3), M 5-5)."""
        for o in ron_order(owner):
            pl = self.players[o]
            if o == taker or not pl.wins_on(tile):
                continue
            if pl.riichi:
                pl.missed = True
            else:
                pl.passed = True

    def call(self, o: Seat, kind: CallKind, used: tuple[Tile, ...], tile: Tile,
             discarder: Seat) -> Move:
        pl = self.players[o]
        for t in used:
            pl.hand.remove(t)
        pl.melds.append(Meld(kind, (*used, tile), called=tile, from_seat=discarder))
        self.called.add(tile.id)
        self.interrupted = True
        self.drawn = None
        if kind == "daiminkan":
            self._kan(o)
        elif self.rs.calls.kuikae == "forbidden":
            pl.kuikae = kuikae_kinds(kind, tile.kind, used)
        return Move(Call(o, kind, used if self.mode != "blind" else None), o)

    # --- a declared win ----------------------------------------------------------------------
    def more_rons_possible(self, declared: list[Seat], loser: Seat | None, tile: Tile) -> bool:
        """Could another seat still ron by the shape of its hand (what the reducer waits for)?"""
        if loser is None:
            return False
        order = ron_order(loser)
        head_bump = self.rs.calls.multiple_ron == "head_bump"
        if head_bump and order[0] in declared:
            return False
        first = next(x for x in order if x in declared)
        for o in order:
            if o in declared or (head_bump and order.index(o) > order.index(first)):
                continue
            if self.mode != "blind" and not hand_shape.is_complete(
                    hand_shape.counts_of([*self.players[o].hand, tile])):
                continue
            return True
        return False

    def sealed(self, declared: list[Seat], loser: Seat | None, tile: Tile, shown: bool) -> bool:
        """Does the declared win end the hand by itself: every win scorable (its tiles known or
        shown), no further ron possible, the ura known or not needed?"""
        standing = declared
        if loser is not None:
            res = resolve_rons(self.rs, loser, declared)
            if res.kind == "abort":
                return True
            standing = list(res.winners)
        if self.more_rons_possible(declared, loser, tile):
            return False
        if self.mode == "blind" and not shown:
            return False
        rs = self.rs
        ura_due = (rs.dora.indicator and rs.dora.ura and self.mode != "table"
                   and any(self.players[w].riichi for w in standing))
        return not ura_due
