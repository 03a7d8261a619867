"""Scripted hands for the reducer's table tests: a wall built so that the deal and the draws give
chosen tiles (compact notation, ``"123m456p789s1122z"``), fed to the reducer through the same
inputs a sensor table sends (the wall manifest, so tiles may be left out of draws)."""

from __future__ import annotations

import random
from typing import Any

from hil.hand_notation import parse_compact
from rules.events import Event
from rules.inputs import (
    DealDone,
    Discard,
    Draw,
    GameStart,
    HandStart,
    IndicatorShown,
    Input,
    RinshanDraw,
    WallRaised,
)
from rules.reducer import new_table, reduce
from rules.ruleset import Ruleset, load_ruleset
from rules.seats import Seat
from rules.table_state import HandState, TableState
from rules.tiles import BY_ID, Kind, Tile, TileAllocator
from rules.wall import Wall

S0, S1, S2, S3 = Seat.S0, Seat.S1, Seat.S2, Seat.S3


def build_wall(rs: Ruleset, dealer: Seat, hands: dict[Seat, str], draws: str = "",
               rinshan: str = "", dora: str = "", kan_dora: str = "", ura: str = "",
               aka: bool | None = None, at: dict[int, str] | None = None
               ) -> tuple[Tile, ...]:
    """``hands``: 13 tiles (or fewer; the rest random) per seat; ``draws``: the live tiles in
    order from the dealer's 14th (ring index 52: dealt under a jump, drawn otherwise); ``at``:
    tiles at chosen ring indices; everything else is a fixed shuffle of the rest."""
    alloc = TileAllocator(aka=rs.dora.red_fives if aka is None else aka)
    ring: list[Tile | None] = [None] * 136
    deal = Wall.deal_indices(dealer)

    def put(indices: list[int], text: str) -> None:
        for i, (kind, red) in zip(indices, parse_compact(text), strict=False):
            ring[i] = alloc.take(kind, red)

    for s, text in hands.items():
        idx = [i for i in deal[s] if i != 52]
        assert len(parse_compact(text)) <= len(idx), (s, text)
        put(idx, text)
    put(list(range(52, 122)), draws)
    put(list(Wall.RINSHAN), rinshan)
    put([Wall.DORA], dora)
    put(list(Wall.KAN_DORA), kan_dora)
    put(list(Wall.URA), ura)
    for index, text in sorted((at or {}).items()):
        put([index], text)
    rest_tiles = sorted(alloc.remaining(), key=BY_ID)
    random.Random(0).shuffle(rest_tiles)
    rest = iter(rest_tiles)
    return tuple(t if t is not None else next(rest) for t in ring)


class Hand:
    """One game at a table, one scripted hand at a time."""

    def __init__(self, ruleset: str = "mleague", *, dealer: Seat = S0,
                 hands: dict[Seat, str] | None = None, draws: str = "", rinshan: str = "",
                 dora: str = "", kan_dora: str = "", ura: str = "", indicator: bool = True,
                 scores: tuple[int, int, int, int] | None = None, confirm_wins: bool = False,
                 aka: bool | None = None, at: dict[int, str] | None = None) -> None:
        self.rs = load_ruleset(ruleset)
        self.state: TableState = new_table()
        self.events: list[Event] = []
        self.send(GameStart(ruleset, dealer, ("A", "B", "C", "D"), scores=scores,
                            confirm_wins=confirm_wins, aka=aka))
        self.deal(hands or {}, draws=draws, rinshan=rinshan, dora=dora, kan_dora=kan_dora,
                  ura=ura, indicator=indicator, aka=aka, at=at)

    def deal(self, hands: dict[Seat, str], *, draws: str = "", rinshan: str = "", dora: str = "",
             kan_dora: str = "", ura: str = "", indicator: bool = True,
             aka: bool | None = None, at: dict[int, str] | None = None) -> None:
        self.send(HandStart())
        p = self.state.progress
        assert p is not None
        self.wall = build_wall(self.rs, p.dealer, hands, draws, rinshan, dora, kan_dora, ura,
                               aka, at)
        self.send(WallRaised(self.wall))
        if indicator and self.rs.dora.indicator:
            self.send(IndicatorShown())
        self.send(DealDone())

    # --- sending ----------------------------------------------------------------------------
    def send(self, inp: Input) -> list[Event]:
        self.state, ev = reduce(self.state, inp)
        self.events.extend(ev)
        return list(ev)

    @property
    def h(self) -> HandState:
        assert self.state.hand is not None
        return self.state.hand

    def tile(self, seat: Seat, text: str) -> Tile:
        """A tile of that kind in the seat's (known) hand."""
        (kind, red), = parse_compact(text)
        hand = self.h.seats[seat].concealed
        assert hand is not None
        aka = self.state.game is not None and self.state.game.aka
        same = [t for t in hand if t.kind == kind and t.is_red(aka) == red]
        if same:
            return same[0]
        raise AssertionError(f"seat {seat} holds no {text}: {[x.mjai() for x in hand]}")

    def tiles(self, seat: Seat, text: str) -> tuple[Tile, ...]:
        hand = list(self.h.seats[seat].concealed or ())
        out = []
        for kind, _ in parse_compact(text):
            t = next(x for x in hand if x.kind == Kind(kind))
            hand.remove(t)
            out.append(t)
        return tuple(out)

    def four(self, seat: Seat, text: str) -> tuple[Tile, Tile, Tile, Tile]:
        """The four tiles of a kind (``"1m"``) in the seat's hand, for an ankan."""
        a, b, c, d = self.tiles(seat, text * 4)
        return (a, b, c, d)

    def draw(self, seat: Seat) -> list[Event]:
        """Draw; the dealer's first "draw" under a jump deal is the dealt 14th (no input)."""
        h = self.h
        st = h.seats[seat]
        if (seat == h.dealer and h.step == "discard" and h.turn == seat and st.discards == 0
                and st.has_drawn and not h.interrupted and self.rs.wall.dealer_fourteenth ==
                "jump" and h.next_live == Wall.FIRST_DRAW):
            return []
        return self.send(Draw(seat))

    def rinshan(self, seat: Seat) -> list[Event]:
        return self.send(RinshanDraw(seat))

    def discard(self, seat: Seat, text: str, **kw: Any) -> list[Event]:
        return self.send(Discard(seat, self.tile(seat, text), **kw))

    def cut(self, seat: Seat) -> list[Event]:
        """Discard the tile just drawn (tsumogiri)."""
        t = self.h.seats[seat].drawn
        assert t is not None
        return self.send(Discard(seat, t, tsumogiri=True))

    def go_around(self, seat: Seat, n: int = 1) -> Seat:
        """From ``seat`` to draw: n turns of draw + tsumogiri. Returns the next seat."""
        for _ in range(n):
            self.draw(seat)
            self.cut(seat)
            seat = seat.plus(1)
        return seat

    # --- looking ------------------------------------------------------------------------------
    def types(self, events: list[Event] | None = None) -> list[str]:
        return [e.TYPE for e in (self.events if events is None else events)]

    def violations(self, events: list[Event] | None = None) -> list[dict[str, Any]]:
        return [e.to_json() for e in (self.events if events is None else events)
                if e.TYPE == "violation"]

    def codes(self, events: list[Event] | None = None) -> list[str]:
        return [v["code"] for v in self.violations(events)]

    def ended(self) -> dict[str, Any]:
        ev = [e.to_json() for e in self.events if e.TYPE == "hand_ended"]
        assert ev, self.types()
        return ev[-1]
