"""Claim priority on one discard (geometry "Turn order"; S §40-3, §45-4; M 4-2-1, 5-1-3; μ §33,
§65; W 鸣牌优先-2, 截和).

Ron beats pon/daiminkan, which beat chi. Several rons on one tile resolve per ruleset: head-bump
(the first in play order after the discarder wins alone) or all win; three rons may abort the
hand instead (Tenhou).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from rules.ruleset import Ruleset
from rules.seats import Seat
from rules.tiles import Kind, Tile

CLAIM_RANK = {"ron": 3, "daiminkan": 2, "pon": 2, "chi": 1}


def ron_order(discarder: Seat) -> tuple[Seat, Seat, Seat]:
    """Play order after the discarder: shimocha, toimen, kamicha (S §45-4, M 5-1-3, μ §65)."""
    return _RON_ORDER[discarder]


# every discard asks for it (furiten marks): a table, not three Seat.plus calls
_RON_ORDER: tuple[tuple[Seat, Seat, Seat], ...] = tuple(
    (d.plus(1), d.plus(2), d.plus(3)) for d in Seat)


@dataclass(frozen=True, slots=True)
class RonResolution:
    kind: Literal["wins", "abort"]
    winners: tuple[Seat, ...]  # in play order after the discarder
    bumped: tuple[Seat, ...]  # head-bumped declarations


def resolve_rons(ruleset: Ruleset, discarder: Seat, declared: Iterable[Seat]) -> RonResolution:
    seats = set(declared)
    ordered = tuple(s for s in ron_order(discarder) if s in seats)
    if len(ordered) >= 3 and ruleset.calls.triple_ron_abortive:
        return RonResolution("abort", (), ())
    if ruleset.calls.multiple_ron == "head_bump":
        return RonResolution("wins", ordered[:1], ordered[1:])
    return RonResolution("wins", ordered, ())


def chi_allowed_from(caller: Seat, discarder: Seat) -> bool:
    """Chi only from the player on the left (the discarder's shimocha calls)."""
    return caller == discarder.plus(1)


def kuikae_kinds(kind: str, called: Kind, held: Sequence[Tile]) -> tuple[int, ...]:
    """S §40-6, M 7-2-2(3): after a pon, not the called kind; after a chi, not the called kind
    nor the kind at the other end of the run (called 4 with 56: not 4 or 7)."""
    if kind == "pon":
        return (int(called),)
    if kind != "chi" or len(held) != 2:
        return ()
    out = [int(called)]
    lo, hi = sorted(t.kind.value for t in held)
    c = called.value
    suit_lo = c - c % 9
    if c < lo and hi + 1 < suit_lo + 9:
        out.append(hi + 1)
    elif c > hi and lo - 1 >= suit_lo:
        out.append(lo - 1)
    return tuple(out)
