"""Claim priority on one discard (geometry "Turn order"; S §40-3, §45-4; M 4-2-1, 5-1-3; μ §33,
§65; W 鸣牌优先-2, 截和).

Ron beats pon/daiminkan, which beat chi. Several rons on one tile resolve per ruleset: head-bump
(the first in play order after the discarder wins alone) or all win; three rons may abort the
hand instead (Tenhou).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from rules.ruleset import Ruleset
from rules.seats import Seat

CLAIM_RANK = {"ron": 3, "daiminkan": 2, "pon": 2, "chi": 1}


def ron_order(discarder: Seat) -> tuple[Seat, Seat, Seat]:
    """Play order after the discarder: shimocha, toimen, kamicha (S §45-4, M 5-1-3, μ §65)."""
    return (discarder.plus(1), discarder.plus(2), discarder.plus(3))


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
