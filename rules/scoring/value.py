"""What one win is worth and who pays it: :class:`WinValue`, the per-win part of a settlement.

Riichi wins carry han, fu, yakuman multiples, yaku and the limit reached; Zung Jung wins carry
their patterns and hand value. Both carry the payments per seat, so that displays, overlays and
records read one shape whichever rulebook the table runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from rules.errors import RulesError
from rules.seats import Seat

Family = Literal["riichi", "zung_jung"]


class ScoringError(RulesError, ValueError):
    """A win that cannot be scored (not a winning hand, no yaku, inconsistent flags); the message
    carries the hand and what was wrong."""


@dataclass(frozen=True, slots=True)
class WinValue:
    """One win, valued and paid.

    ``payments`` are this win's score changes per seat (the winner positive), everything
    included: the hand itself, honba, and the riichi deposits this winner collected.
    ``points`` is the hand's value before honba and deposits (ron: what the discarder owes in
    total; tsumo: the sum of the three payments), ``honba_points`` and ``deposit_points`` the
    two additions. ``yaku`` are (name, han) pairs; a yakuman is listed with 13 han per multiple;
    dora appear as ``Dora``/``Aka Dora``/``Ura Dora`` with their count.
    """

    family: Family
    winner: Seat
    loser: Seat | None
    payments: tuple[int, int, int, int]
    points: int
    honba_points: int = 0
    deposit_points: int = 0
    han: int = 0
    fu: int = 0
    yakuman: int = 0
    yaku: tuple[tuple[str, int], ...] = ()
    fu_details: tuple[tuple[str, int], ...] = ()
    limit: str = ""
    # Basic points (基本点) the payments were derived from: fu × 2^(han+2), or the limit's.
    basic: int = 0
    pao: Seat | None = None
    # Zung Jung: the patterns counted and the hand value.
    patterns: tuple[tuple[str, int], ...] = ()
    value: int = 0
    manual: bool = False
    nagashi: bool = False

    @property
    def tsumo(self) -> bool:
        return self.loser is None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "family": self.family,
            "winner": int(self.winner),
            "loser": None if self.loser is None else int(self.loser),
            "tsumo": self.tsumo,
            "payments": list(self.payments),
            "points": self.points,
            "honba_points": self.honba_points,
            "deposit_points": self.deposit_points,
            "manual": self.manual,
        }
        if self.family == "riichi":
            out.update(
                han=self.han,
                fu=self.fu,
                yakuman=self.yakuman,
                yaku=[[name, han] for name, han in self.yaku],
                fu_details=[[reason, fu] for reason, fu in self.fu_details],
                limit=self.limit,
                basic=self.basic,
                pao=None if self.pao is None else int(self.pao),
                nagashi=self.nagashi,
            )
        else:
            out.update(
                patterns=[[name, value] for name, value in self.patterns],
                value=self.value,
            )
        return out
