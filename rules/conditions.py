"""What each seat needs to move up one rank: by ron (off a third seat), by tsumo, by a direct
hit (ron off the seat just above): the "conditions" (条件) broadcasts compute by hand.

Pure. For each seat below first: the smallest hand (han and fu, or a limit) whose payment puts it
above the seat directly ahead, with this hand's honba and the riichi deposits on the table (the
winner collects both: M 3-13-3, S §45). A tie goes to the seat nearer the first dealer where
the ruleset breaks ties by seat order (M 6-2-6); under ``split`` a tie shares the rank, so only a
strictly higher score moves up. Riichi family only (Zung Jung has no honba or deposits to count
and its values are pattern sums: no conditions).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from rules.ruleset import Ruleset
from rules.scoring.limits import basic_points, ron_points, tsumo_points
from rules.seats import SEATS, Seat

Way = Literal["ron", "tsumo", "direct"]
_FU = (30, 40, 50, 60, 70, 80, 90, 100, 110)


@dataclass(frozen=True, slots=True)
class Need:
    """The smallest hand that is enough: ``points`` its value before honba and deposits (ron:
    the discarder's payment; tsumo: the sum of the three), ``label`` as a caster says it."""

    han: int
    fu: int
    limit: str
    points: int
    label: str

    def to_json(self) -> dict[str, Any]:
        return {"han": self.han, "fu": self.fu, "limit": self.limit, "points": self.points,
                "label": self.label}


@dataclass(frozen=True, slots=True)
class Condition:
    seat: Seat
    target: Seat  # the seat directly above
    target_rank: int  # the rank to reach (the target's now)
    ron: Need | None  # None: no single hand is enough
    tsumo: Need | None
    direct: Need | None

    def to_json(self) -> dict[str, Any]:
        return {
            "target": int(self.target), "target_rank": self.target_rank,
            "ron": None if self.ron is None else self.ron.to_json(),
            "tsumo": None if self.tsumo is None else self.tsumo.to_json(),
            "direct": None if self.direct is None else self.direct.to_json(),
        }


_Ladder = tuple[tuple[int, int, int, str], ...]
#: per ruleset object (kept alive here, so its id is not reused) and tsumo: its ladder. Not
#: functools.cache: a Ruleset need not be hashable (its sections may hold mappings).
_LADDERS: dict[tuple[int, bool], tuple[Ruleset, _Ladder]] = {}


def _ladder(ruleset: Ruleset, tsumo: bool) -> _Ladder:
    """(basic points, han, fu, limit) of every hand a win can be, smallest first; a (han, fu)
    that no hand has is left out (a 20 fu ron, 1 han 25 fu, a 1 han 20 fu tsumo)."""
    key = (id(ruleset), tsumo)
    hit = _LADDERS.get(key)
    if hit is None or hit[0] is not ruleset:
        hit = _LADDERS[key] = (ruleset, _make_ladder(ruleset, tsumo))
    return hit[1]


def _make_ladder(ruleset: Ruleset, tsumo: bool) -> _Ladder:
    shapes: list[tuple[int, int]] = [(h, f) for h in range(1, 5) for f in _FU]
    shapes += [(h, 25) for h in range(3 if tsumo else 2, 5)]  # chiitoitsu (S §30)
    if tsumo:
        shapes += [(h, 20) for h in range(2, 5)]  # pinfu tsumo (S §33-3)
    shapes += [(h, 0) for h in (5, 6, 8, 11)]
    out: dict[int, tuple[int, int, int, str]] = {}
    for han, fu in shapes:
        basic, limit = basic_points(ruleset, han, fu)
        key = (basic, han, fu, limit)
        if basic not in out or key < out[basic]:
            out[basic] = key
    basic, limit = basic_points(ruleset, 0, 0, yakuman=1)
    out.setdefault(basic, (basic, 13, 0, limit))
    return tuple(sorted(out.values()))


def _ahead(ruleset: Ruleset, first_dealer: Seat, a: Seat, pa: int, b: Seat, pb: int) -> bool:
    """Does ``a`` with ``pa`` rank above ``b`` with ``pb``?"""
    if pa != pb:
        return pa > pb
    return ruleset.points.ties == "seat_order" and \
        first_dealer.relative(a) < first_dealer.relative(b)


def _ranks(ruleset: Ruleset, scores: tuple[int, ...], first_dealer: Seat) -> dict[Seat, int]:
    return {s: 1 + sum(1 for o in SEATS if o != s and
                       _ahead(ruleset, first_dealer, o, scores[o], s, scores[s]))
            for s in SEATS}


def _label(ruleset: Ruleset, basic: int, winner_is_dealer: bool, tsumo: bool) -> tuple[int, str]:
    if not tsumo:
        p = ron_points(basic, winner_is_dealer)
        return p, f"{p:,}"
    dealer_pays, each = tsumo_points(basic, winner_is_dealer)
    if winner_is_dealer:
        return 3 * each, f"{each:,} all"
    return dealer_pays + 2 * each, f"{each:,}-{dealer_pays:,}"


def _need(ruleset: Ruleset, scores: tuple[int, ...], dealer: Seat, first_dealer: Seat,
          honba: int, deposits: int, seat: Seat, target: Seat, way: Way) -> Need | None:
    bonus = deposits * ruleset.riichi.deposit
    hv = honba * ruleset.game.honba_value
    tsumo = way == "tsumo"
    for basic, han, fu, limit in _ladder(ruleset, tsumo):
        if tsumo:
            dealer_pays, each = tsumo_points(basic, seat == dealer)
            paid = dealer_pays if target == dealer else each
            gain = (3 * each if seat == dealer else dealer_pays + 2 * each) + hv + bonus
            loss = paid + hv // 3
        else:
            paid = ron_points(basic, seat == dealer)
            gain = paid + hv + bonus
            loss = paid + hv if way == "direct" else 0
        if _ahead(ruleset, first_dealer, seat, scores[seat] + gain, target, scores[target] - loss):
            points, label = _label(ruleset, basic, seat == dealer, tsumo)
            return Need(han, fu, limit, points, label)
    return None


def conditions(ruleset: Ruleset, scores: tuple[int, ...], dealer: Seat, first_dealer: Seat,
               honba: int, deposits: int) -> tuple[Condition | None, ...]:
    """Per seat (index = seat): what moves it up one rank, ``None`` for the leader (and for
    every seat outside the riichi family)."""
    if ruleset.meta.family != "riichi":
        return (None, None, None, None)
    ranks = _ranks(ruleset, scores, first_dealer)
    out: list[Condition | None] = []
    for s in SEATS:
        if ranks[s] == 1:
            out.append(None)
            continue
        # the seat directly above: the lowest-ranked of those ahead
        target = max((o for o in SEATS if ranks[o] < ranks[s]), key=lambda o: ranks[o])
        args = (ruleset, scores, dealer, first_dealer, honba, deposits, s, target)
        out.append(Condition(s, target, ranks[target], _need(*args, "ron"),
                             _need(*args, "tsumo"), _need(*args, "direct")))
    return tuple(out)
