"""How a hand ended: the contract between the hand reducer (which knows what happened) and the
scoring and payment code (which knows what it is worth).

The reducer builds a :class:`HandOutcome` when a hand ends; :mod:`rules.settlement` turns it into
score deltas under a ruleset, and the game flow decides renchan, honba and deposits from it. A
referee's manual result (no tile sensors) builds the same objects, with ``han``/``fu`` or
``points`` given instead of tiles, so that one payment path settles both.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from rules.seats import Seat, Wind
from rules.tiles import Tile

MeldKind = Literal["chi", "pon", "daiminkan", "ankan", "kakan"]


@dataclass(frozen=True, slots=True)
class Meld:
    """A shown set. ``tiles`` are all its tiles (3 or 4), ``called`` the claimed tile (``None``
    for an ankan), ``from_seat`` the seat it was claimed from (for a kakan: the pon's source)."""

    kind: MeldKind
    tiles: tuple[Tile, ...]
    called: Tile | None = None
    from_seat: Seat | None = None

    @property
    def is_kan(self) -> bool:
        return self.kind in ("daiminkan", "ankan", "kakan")

    @property
    def is_open(self) -> bool:
        return self.kind != "ankan"

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "tiles": [t.id for t in self.tiles],
            "called": None if self.called is None else self.called.id,
            "from_seat": None if self.from_seat is None else int(self.from_seat),
        }


@dataclass(frozen=True, slots=True)
class ManualValue:
    """A value entered by a referee instead of tiles: riichi han/fu (or a yakuman count), or
    Zung Jung points."""

    han: int = 0
    fu: int = 0
    yakuman: int = 0
    points: int = 0  # Zung Jung hand value
    # The yaku the referee ticked, (name, han) as the engine names them; they add up to ``han``
    # (a yakuman: 13 per multiple). Only carried into the records (tenhou.net/6 yaku strings).
    yaku: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True, slots=True)
class Win:
    """One win (a multiple ron has several). ``loser`` is ``None`` for tsumo."""

    winner: Seat
    loser: Seat | None
    # Concealed tiles including the winning tile (14 - 3 per meld), or () with a manual value.
    hand: tuple[Tile, ...]
    win_tile: Tile | None
    melds: tuple[Meld, ...] = ()
    riichi: bool = False
    double_riichi: bool = False
    ippatsu: bool = False
    haitei: bool = False  # tsumo on the last live tile
    houtei: bool = False  # ron on the last discard
    rinshan: bool = False
    chankan: bool = False
    tenhou: bool = False
    chiihou: bool = False
    # Seat that fed a liability set (pao, M 8-1 / μ §67), as the reducer saw it.
    pao: Seat | None = None
    pao_yaku: str | None = None
    manual: ManualValue | None = None
    # WMC "following discard" exemption (跟张免责): the seat first responsible for the tile.
    responsible: Seat | None = None

    @property
    def tsumo(self) -> bool:
        return self.loser is None


@dataclass(frozen=True, slots=True)
class HandContext:
    """What every outcome needs: who dealt, the round, honba, deposits on the table at the end of
    the hand (this hand's riichi sticks included), the scores before settlement, red fives, and
    the dora/ura indicators revealed (ura are only counted for riichi winners)."""

    dealer: Seat
    round_wind: Wind
    honba: int
    deposits: int
    scores: tuple[int, int, int, int]
    aka: bool
    dora_indicators: tuple[Tile, ...] = ()
    ura_indicators: tuple[Tile, ...] = ()
    riichi_seats: tuple[Seat, ...] = ()  # seats whose riichi stood this hand


OutcomeKind = Literal["win", "exhaustive", "abortive", "chombo"]


@dataclass(frozen=True, slots=True)
class HandOutcome:
    kind: OutcomeKind
    context: HandContext
    wins: tuple[Win, ...] = ()
    # Exhaustive draw: the seats that declared tenpai; nagashi mangan seats (where the ruleset
    # has it).
    tenpai: tuple[Seat, ...] = ()
    nagashi: tuple[Seat, ...] = ()
    abort_kind: str | None = None
    # Chombo: the offender; ``offenders`` when several seats committed one in the same hand
    # (two noten riichi at the draw): every one of them is penalised (M 7-4-5, μ §69).
    offender: Seat | None = None
    offenders: tuple[Seat, ...] = ()

    @property
    def chombo_seats(self) -> tuple[Seat, ...]:
        if self.offenders:
            return self.offenders
        return () if self.offender is None else (self.offender,)
