"""Riichi hand values: yaku, han, fu and yakuman of a tile-scored win, under a ruleset.

The ``mahjong`` package (v2) finds the yaku and fu; the ruleset decides what it is asked and how
its answer is corrected where it cannot express a rule:

* dora it is given: the first indicator only without kan dora (μ §16, C-sum), ura only with
  ura (and kan ura for the later indicators), red fives only in a game with them (M 1-2-2);
* ippatsu only where the ruleset has it (μ §51 and C-sum have none); double riichi likewise;
* open tanyao (S §45-1); double-yakuman patterns (suuankou tanki, kokushi 13-sided, junsei
  chuuren, daisuushii) only where the ruleset counts them double;
* **double-wind pair**: the package gives 4 fu; M 6-3-2 (note under the fu table) and μ §56(2)1
  give 2 (``limits.double_wind_pair_fu``);
* **yakuman that do not combine** (μ §54): the package adds them up; we count one;
* kiriage, kazoe yakuman and the sanbaiman cap are applied by :mod:`rules.scoring.limits`,
  not by the package (whose ``kiriage`` leaves the limit name empty on ordinary mangan).
"""

from __future__ import annotations

from dataclasses import dataclass

from mahjong.constants import EAST as PKG_EAST
from mahjong.hand_calculating.fu import FuCalculator
from mahjong.hand_calculating.hand import HandCalculator
from mahjong.hand_calculating.hand_config import HandConfig, HandConstants, OptionalRules
from mahjong.hand_calculating.hand_response import HandResponse
from mahjong.meld import Meld as PkgMeld

from rules.outcome import HandContext, Meld, Win
from rules.ruleset import Ruleset
from rules.scoring.value import ScoringError
from rules.tiles import Tile

_PKG_MELD = {
    "chi": PkgMeld.CHI,
    "pon": PkgMeld.PON,
    "daiminkan": PkgMeld.KAN,
    "ankan": PkgMeld.KAN,
    "kakan": PkgMeld.SHOUMINKAN,
}

# The pao yaku of PaoRules, as the package's yaku ids (Daisangen, Dai Suushii, Suu Kantsu).
_PAO_YAKU_ID = {"daisangen": 103, "daisuushii": 111, "suukantsu": 106}


@dataclass(frozen=True, slots=True)
class RiichiHand:
    """A tile-scored riichi hand: plain han (no ba-zoro), fu, yakuman multiples, the yaku as
    (name, han), the fu parts, and how many of the yakuman multiples come from a pao yaku."""

    han: int
    fu: int
    yakuman: int
    yaku: tuple[tuple[str, int], ...]
    fu_details: tuple[tuple[str, int], ...]
    pao_yakuman: int = 0


def _options(ruleset: Ruleset, aka: bool) -> OptionalRules:
    limits = ruleset.limits
    return OptionalRules(
        has_open_tanyao=ruleset.calls.open_tanyao,
        # Ids 16/52/88 are red only in a game with red fives (M 1-2-2; a record may say no).
        has_aka_dora=aka,
        has_double_yakuman=limits.double_yakuman_patterns,
        kazoe_limit=(
            HandConstants.KAZOE_LIMITED if limits.kazoe_yakuman else HandConstants.KAZOE_SANBAIMAN
        ),
        kiriage=limits.kiriage,
        fu_for_open_pinfu=True,  # M 6-3-5: an open pinfu-shaped ron is 30 fu
        fu_for_pinfu_tsumo=False,  # M 9-1-5: pinfu tsumo is 20 fu
    )


_OPTIONS_CACHE: dict[tuple[bool, ...], OptionalRules] = {}


def _pkg_meld(meld: Meld) -> PkgMeld:
    # Sorted: the package reads a chi's sequence from its first tile, and a chi's tiles come in
    # the order they were taken (the called tile first: 4m 2m 3m), which it took for no win.
    return PkgMeld(
        meld_type=_PKG_MELD[meld.kind],
        tiles=sorted(t.id for t in meld.tiles),
        opened=meld.is_open,
        called_tile=None if meld.called is None else meld.called.id,
    )


def _indicators(ruleset: Ruleset, context: HandContext, win: Win) -> tuple[list[int], list[int]]:
    dora: tuple[Tile, ...] = ()
    ura: tuple[Tile, ...] = ()
    if ruleset.dora.indicator:
        dora = context.dora_indicators if ruleset.dora.kan_dora else context.dora_indicators[:1]
    if ruleset.dora.ura and (win.riichi or win.double_riichi):
        ura = context.ura_indicators if ruleset.dora.kan_ura else context.ura_indicators[:1]
    return [t.id for t in dora], [t.id for t in ura]


def _config(ruleset: Ruleset, win: Win, context: HandContext) -> HandConfig:
    aka = context.aka and ruleset.dora.red_fives
    limits = ruleset.limits
    key = (
        ruleset.calls.open_tanyao,
        limits.double_yakuman_patterns,
        limits.kazoe_yakuman,
        limits.kiriage,
        aka,
    )
    options = _OPTIONS_CACHE.get(key)
    if options is None:
        options = _options(ruleset, aka)
        _OPTIONS_CACHE[key] = options
    double = win.double_riichi and ruleset.riichi.double_riichi
    riichi = win.riichi or win.double_riichi
    seat_wind = win.winner.wind(context.dealer)
    return HandConfig(
        is_tsumo=win.tsumo,
        is_riichi=riichi,
        is_daburu_riichi=double,
        is_ippatsu=win.ippatsu and riichi and ruleset.riichi.ippatsu,
        is_rinshan=win.rinshan,
        is_chankan=win.chankan,
        is_haitei=win.haitei,
        is_houtei=win.houtei,
        is_tenhou=win.tenhou,
        # Riichi chiihou is a non-dealer's first self-draw (M 6-6-1); the flag on a ron is Zung
        # Jung's Blessing of Earth (ZJ 9.4.2), no yakuman here.
        is_chiihou=win.chiihou and win.loser is None,
        player_wind=PKG_EAST + int(seat_wind),
        round_wind=PKG_EAST + int(context.round_wind),
        options=options,
    )


def _hand_tiles(win: Win) -> list[int]:
    tiles = [t.id for t in win.hand]
    for meld in win.melds:
        tiles.extend(t.id for t in meld.tiles)
    return tiles


def _estimate(ruleset: Ruleset, win: Win, context: HandContext) -> tuple[HandResponse, HandConfig]:
    if win.win_tile is None:
        raise ScoringError(f"a tile-scored win needs its winning tile: {win!r}")
    if win.win_tile not in win.hand:
        raise ScoringError(
            f"winning tile {win.win_tile} is not among the concealed tiles "
            f"{' '.join(str(t) for t in win.hand)}"
        )
    n = len(win.hand) + 3 * len(win.melds)
    if n != 14:
        raise ScoringError(
            f"a winning hand holds 14 tiles counting each meld as 3, got {n} "
            f"({len(win.hand)} concealed, {len(win.melds)} melds)"
        )
    for meld in win.melds:
        _check_meld(meld)
    tiles = _hand_tiles(win)
    if len(set(tiles)) != len(tiles):
        raise ScoringError(f"a physical tile appears twice in the hand and melds: {sorted(tiles)}")
    if len(win.melds) > 4:
        raise ScoringError(f"at most 4 melds, got {len(win.melds)}")
    config = _config(ruleset, win, context)
    dora, ura = _indicators(ruleset, context, win)
    try:
        response = HandCalculator.estimate_hand_value(
            tiles=tiles,
            win_tile=win.win_tile.id,
            melds=[_pkg_meld(m) for m in win.melds] or None,
            dora_indicators=dora or None,
            ura_dora_indicators=ura or None,
            config=config,
        )
    except Exception as exc:  # the package's own failure on odd input: never past this point
        raise ScoringError(
            f"the hand could not be evaluated ({type(exc).__name__}: {exc})"
        ) from exc
    return response, config


def _check_meld(meld: Meld) -> None:
    kinds = [t.kind.value for t in meld.tiles]
    size = 3 if meld.kind in ("chi", "pon") else 4
    shown = f"{meld.kind} {' '.join(str(t) for t in meld.tiles)}"
    if len(kinds) != size:
        raise ScoringError(f"a {meld.kind} holds {size} tiles: {shown}")
    if meld.kind == "chi":
        ordered = sorted(kinds)
        if (
            ordered[0] >= 27
            or ordered[0] // 9 != ordered[2] // 9
            or ordered != [ordered[0], ordered[0] + 1, ordered[0] + 2]
        ):
            raise ScoringError(f"not a sequence: {shown}")
    elif len(set(kinds)) != 1:
        raise ScoringError(f"not {size} of a kind: {shown}")


def check_win(ruleset: Ruleset, win: Win, context: HandContext) -> str | None:
    """``None`` if the win scores, else why not (the package's error code, e.g. ``no_yaku``)."""
    try:
        response, _ = _estimate(ruleset, win, context)
    except ScoringError as exc:
        return str(exc)
    return response.error


def riichi_hand(ruleset: Ruleset, win: Win, context: HandContext) -> RiichiHand:
    """Score a tile-scored riichi win; raises :class:`ScoringError` if it is not a legal win."""
    response, _ = _estimate(ruleset, win, context)
    if response.error is not None or response.yaku is None or response.han is None:
        raise ScoringError(
            f"not a scoring win ({response.error}): hand "
            f"{' '.join(str(t) for t in win.hand)}, melds "
            f"{[m.kind + ':' + ' '.join(str(t) for t in m.tiles) for m in win.melds]}, "
            f"winning tile {win.win_tile}"
        )
    is_open = response.is_open_hand
    yaku: list[tuple[str, int]] = []
    yakuman_multiples: list[int] = []
    pao_yakuman = 0
    for item in response.yaku:
        han = item.han_open if (is_open and item.han_open) else item.han_closed
        yaku.append((item.name, han))
        if item.is_yakuman:
            multiple = max(1, han // 13)
            yakuman_multiples.append(multiple)
            if (
                win.pao is not None
                and win.pao_yaku in ruleset.pao.yaku
                and item.yaku_id == _PAO_YAKU_ID.get(win.pao_yaku or "")
            ):
                pao_yakuman = multiple
    fu_details = tuple((str(d["reason"]), int(d["fu"])) for d in response.fu_details or ())
    fu = int(response.fu or 0)
    if yakuman_multiples:
        if ruleset.limits.yakuman_stacking:
            yakuman = sum(yakuman_multiples)  # M 6-6-1 note, S-sum
        else:
            yakuman = max(yakuman_multiples)  # μ §54: combined yakuman count as one
            pao_yakuman = min(pao_yakuman, yakuman)
        return RiichiHand(
            han=0,
            fu=fu,
            yakuman=yakuman,
            yaku=tuple(yaku),
            fu_details=fu_details,
            pao_yakuman=pao_yakuman,
        )
    # The package gives the double-wind pair 4 fu; M 6-3-2 (note) and μ §56(2)1 give 2.
    pair_fu = ruleset.limits.double_wind_pair_fu
    if any(reason == FuCalculator.DOUBLE_VALUED_PAIR for reason, _ in fu_details) and pair_fu != 4:
        fu_details = tuple(
            (reason, pair_fu if reason == FuCalculator.DOUBLE_VALUED_PAIR else value)
            for reason, value in fu_details
        )
        fu = -(-sum(v for _, v in fu_details) // 10) * 10
    return RiichiHand(
        han=int(response.han),
        fu=fu,
        yakuman=0,
        yaku=tuple(yaku),
        fu_details=fu_details,
    )
