"""Final standings: ranks, final points, uma/oka and pt, with the ruleset's tie rule.

* Leftover riichi deposits (``points.leftover_deposits``): ``to_top`` — to the top seat
  (M 4-8-5, 6-2-5); tied tops share them in 100-point units, the remainder to the seat nearest
  the first dealer (M 6-2-6: 1,000 → 400/300/300, 2,000 → 800/600/600). ``to_nobody`` — they
  vanish (S §39-12, μ §43(3)).
* Ranks by the points *before* the leftover deposits (M 6-2-6: the sticks are shared among the
  tied tops, so they never break the tie they are shared over). Ties (``points.ties``):
  ``split`` — the tied seats share a rank and
  share the uma of the places they cover, in units of a tenth of a pt, the remainder to the seat
  nearest the first dealer (M 6-2-6); ``seat_order`` — the seat nearer the first dealer ranks
  higher (Tenhou).
* pt = (final points − ``return_points``) / ``points_per_pt`` + uma (oka sits inside the uma,
  M 6-2-1..4: "35,800点の2位→+5.8p+10.0p=+15.8p") + pt penalties (chombo, M 7-4-1).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from rules.ruleset import Ruleset
from rules.seats import SEATS, Seat


@dataclass(frozen=True, slots=True)
class Standing:
    seat: Seat
    rank: int  # 1..4; tied seats under "split" share the best rank of their group
    points: int  # final points, leftover deposits included
    deposit_bonus: int
    score_pt: float  # (points - return) / points_per_pt
    uma_pt: float
    penalty_pt: float
    total_pt: float

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": int(self.seat),
            "rank": self.rank,
            "points": self.points,
            "deposit_bonus": self.deposit_bonus,
            "score_pt": self.score_pt,
            "uma_pt": self.uma_pt,
            "penalty_pt": self.penalty_pt,
            "total_pt": self.total_pt,
        }


@dataclass(frozen=True, slots=True)
class Standings:
    """Per seat (index = seat) and the order of finish (best first)."""

    seats: tuple[Standing, Standing, Standing, Standing]
    order: tuple[Seat, Seat, Seat, Seat]
    finished: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "standings",
            "finished": self.finished,
            "order": [int(s) for s in self.order],
            "seats": [s.to_json() for s in self.seats],
        }


def _share(total: int, seats: list[Seat], unit: int, first_dealer: Seat) -> dict[Seat, int]:
    """Split ``total`` among ``seats`` in multiples of ``unit``; the remainder goes to the seat
    nearest the first dealer (M 6-2-6)."""
    if not seats:
        return {}
    n = len(seats)
    each = (total // unit // n) * unit
    remainder = total - each * n
    out = dict.fromkeys(seats, each)
    nearest = min(seats, key=lambda s: first_dealer.relative(s))
    out[nearest] += remainder
    return out


def compute_standings(
    ruleset: Ruleset,
    scores: tuple[int, int, int, int],
    first_dealer: Seat,
    deposits: int = 0,
    pt_adjustments: tuple[float, ...] = (0.0, 0.0, 0.0, 0.0),
    finished: bool = True,
) -> Standings:
    rules = ruleset.points
    unit = max(1, rules.points_per_pt // 10)
    by_seat_order = sorted(SEATS, key=lambda s: first_dealer.relative(s))
    points = dict(zip(SEATS, scores, strict=True))

    bonus: dict[Seat, int] = dict.fromkeys(SEATS, 0)
    leftover = deposits * ruleset.riichi.deposit
    if leftover > 0 and rules.leftover_deposits == "to_top":
        top_score = max(points.values())
        tops = [s for s in by_seat_order if points[s] == top_score]
        if rules.ties == "seat_order":
            tops = tops[:1]
        bonus.update(_share(leftover, tops, 100, first_dealer))
    final = {s: points[s] + bonus[s] for s in SEATS}

    # Order: points before the sticks descending (M 6-2-6: an uneven 400/300/300 split must not
    # rank the tied tops apart), then nearer the first dealer (only decides under seat_order).
    order = sorted(by_seat_order, key=lambda s: -points[s])
    uma_points: dict[Seat, int] = {}
    rank: dict[Seat, int] = {}
    place = 0
    while place < 4:
        group = [order[place]]
        if rules.ties == "split":
            while place + len(group) < 4 and points[order[place + len(group)]] == points[group[0]]:
                group.append(order[place + len(group)])
        total = sum(rules.uma[place + i] for i in range(len(group))) * rules.points_per_pt
        uma_points.update(_share(total, group, unit, first_dealer))
        for s in group:
            rank[s] = place + 1
        place += len(group)

    standings = []
    for s in SEATS:
        score_pt = Fraction(final[s] - rules.return_points, rules.points_per_pt)
        uma_pt = Fraction(uma_points[s], rules.points_per_pt)
        penalty = float(pt_adjustments[s]) if s < len(pt_adjustments) else 0.0
        standings.append(
            Standing(
                seat=s,
                rank=rank[s],
                points=final[s],
                deposit_bonus=bonus[s],
                score_pt=round(float(score_pt), 3),
                uma_pt=round(float(uma_pt), 3),
                penalty_pt=penalty,
                total_pt=round(float(score_pt + uma_pt) + penalty, 3),
            )
        )
    return Standings(
        seats=(standings[0], standings[1], standings[2], standings[3]),
        order=(order[0], order[1], order[2], order[3]),
        finished=finished,
    )
