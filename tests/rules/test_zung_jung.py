"""Zung Jung v1.03 scoring (rules/scoring/zung_jung*.py) under the ``wmc`` ruleset: every
pattern on a concrete hand, the additive and same-series rules, Freedom of Count, the limits,
false wins, the payoff scheme, and a venue's own values (``extends = "wmc"``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

import pytest

from hil.hand_notation import parse_compact
from rules.outcome import HandContext, ManualValue, Meld, MeldKind, Win
from rules.ruleset import Ruleset, load_ruleset
from rules.scoring.zung_jung import (
    FalseWin,
    PatternTableError,
    ZungJungError,
    ZungJungValue,
    pattern_values,
    zung_jung_payments,
    zung_jung_value,
)
from rules.scoring.zung_jung_patterns import PATTERNS
from rules.seats import Seat, Wind
from rules.tiles import Tile, TileAllocator

WMC = load_ruleset("wmc")
S0, S1, S2, S3 = Seat.S0, Seat.S1, Seat.S2, Seat.S3


def ctx(dealer: Seat = S0) -> HandContext:
    return HandContext(
        dealer=dealer, round_wind=Wind.EAST, honba=0, deposits=0, scores=(0, 0, 0, 0), aka=False
    )


def make_win(
    hand: str,
    win: str,
    *,
    melds: tuple[tuple[str, str], ...] = (),
    ron_from: Seat | None = None,
    winner: Seat = S1,
    **flags: Any,
) -> Win:
    """``hand`` in compact notation (winning tile included), ``win`` the winning kind, ``melds``
    as (kind, compact tiles) claimed from the seat before the winner (ankan: from nobody)."""
    alloc = TileAllocator(aka=False)
    shown = []
    for name, text in melds:
        kind = cast(MeldKind, name)
        tiles = tuple(alloc.take(k) for k, _ in parse_compact(text))
        if kind == "ankan":
            shown.append(Meld(kind, tiles))
        else:
            shown.append(Meld(kind, tiles, tiles[0], winner.plus(3)))
    in_hand = tuple(alloc.take(k) for k, _ in parse_compact(hand))
    win_kind = parse_compact(win)[0][0]
    win_tile = next(t for t in reversed(in_hand) if t.kind == win_kind)
    return Win(
        winner=winner,
        loser=ron_from,
        hand=in_hand,
        win_tile=win_tile,
        melds=tuple(shown),
        **flags,
    )


def score(win: Win, ruleset: Ruleset = WMC, dealer: Seat = S0) -> ZungJungValue:
    return zung_jung_value(ruleset, win, ctx(dealer))


def pats(value: ZungJungValue) -> dict[str, int]:
    out: dict[str, int] = {}
    for key, points in value.patterns:
        out[key] = out.get(key, 0) + points
    return out


# --- every pattern on a concrete hand (winner S1 = South; dealer S0 = East) -----------------

CHI, PON, DMK, ANKAN, KAKAN = "chi", "pon", "daiminkan", "ankan", "kakan"

# (id, hand, win tile, melds, ron from (None = self-draw), flags, expected patterns, total)
CASES: list[tuple[str, str, str, tuple[Any, ...], Seat | None, dict[str, Any], dict[str, int], int]]
CASES = [
    ("1.1 all sequences", "456p678s123m99s", "9s", ((CHI, "234m"),), S2, {},
     {"all_sequences": 5}, 5),
    ("1.2 concealed hand", "123m456p789s555s11z", "1z", (), S2, {},
     {"concealed_hand": 5}, 5),
    ("1.3 no terminals", "345p678s456s88m", "8m", ((PON, "222m"),), S2, {},
     {"no_terminals": 5}, 5),
    ("2.1.1 mixed one-suit", "456m678m111z99m", "9m", ((CHI, "234m"),), S2, {},
     {"mixed_one_suit": 40}, 40),
    ("2.1.2 pure one-suit", "456m678m222m99m", "9m", ((CHI, "234m"),), S2, {},
     {"pure_one_suit": 100}, 100),
    ("3.1 value honor", "234m456p678s22z", "2z", ((PON, "555z"),), S2, {},
     {"value_honor": 10}, 10),
    ("3.2.1 small three dragons", "234m456p77z", "4p", ((PON, "555z"), (PON, "666z")), S2, {},
     {"value_honor": 20, "small_three_dragons": 30}, 50),
    ("3.2.2 big three dragons", "234m99p", "9p",
     ((PON, "555z"), (PON, "666z"), (PON, "777z")), S2, {},
     {"value_honor": 30, "big_three_dragons": 130}, 160),
    ("3.3.1 small three winds", "234m456p44z", "4z", ((PON, "111z"), (PON, "333z")), S2, {},
     {"small_three_winds": 25}, 25),
    ("3.3.2 big three winds", "234m55p", "5p", ((PON, "111z"), (PON, "333z"), (PON, "444z")),
     S2, {}, {"big_three_winds": 120}, 120),
    ("3.3.3 small four winds", "234m22z", "2z", ((PON, "111z"), (PON, "333z"), (PON, "444z")),
     S2, {}, {"small_four_winds": 320, "mixed_one_suit": 40}, 320),
    ("4.1 all triplets", "888m55s", "8m", ((PON, "222m"), (PON, "444p"), (PON, "666s")), S2, {},
     {"all_triplets": 40, "no_terminals": 5}, 45),
    ("4.2.1 two concealed triplets", "333p777s678m55s", "5s", ((CHI, "234m"),), S2, {},
     {"two_concealed_triplets": 5, "no_terminals": 5}, 10),
    ("4.2.2 three concealed triplets", "333p777s888m55s", "5s", ((CHI, "234m"),), S2, {},
     {"three_concealed_triplets": 25, "no_terminals": 5}, 30),
    ("4.2.3 four concealed triplets", "222m333p777s888m55s", "8m", (), None, {},
     {"four_concealed_triplets": 115, "all_triplets": 40, "concealed_hand": 5,
      "no_terminals": 5}, 165),
    ("4.3.1 one kong", "345p678s456s88m", "8m", ((DMK, "2222m"),), S2, {},
     {"one_kong": 5, "no_terminals": 5}, 10),
    ("4.3.2 two kongs", "345p456s88m", "8m", ((DMK, "2222m"), (ANKAN, "7777s")), S2, {},
     {"two_kongs": 20, "no_terminals": 5}, 25),
    ("4.3.3 three kongs", "345s88m", "8m",
     ((DMK, "2222m"), (ANKAN, "7777s"), (KAKAN, "4444p")), S2, {},
     {"three_kongs": 120, "no_terminals": 5}, 125),
    ("5.1.1 two identical sequences", "234m678p345s99p", "9p", ((CHI, "234m"),), S2, {},
     {"two_identical_sequences": 10, "all_sequences": 5}, 15),
    ("5.1.2 two identical sequences twice", "234m567p567p99s", "9s", ((CHI, "234m"),), S2, {},
     {"two_identical_sequences_twice": 60, "all_sequences": 5}, 65),
    ("5.1.3 three identical sequences", "234m234m567p99s", "9s", ((CHI, "234m"),), S2, {},
     {"three_identical_sequences": 120, "all_sequences": 5}, 125),
    ("6.1 three similar sequences", "345p345s789m11z", "1z", ((CHI, "345m"),), S2, {},
     {"three_similar_sequences": 35, "all_sequences": 5}, 40),
    ("6.2.1 small three similar triplets", "44s234m678s", "4s", ((PON, "444m"), (PON, "444p")),
     S2, {}, {"small_three_similar_triplets": 25, "no_terminals": 5}, 30),
    ("6.2.2 three similar triplets", "444s234m66s", "6s", ((PON, "444m"), (PON, "444p")), S2, {},
     {"three_similar_triplets": 120, "no_terminals": 5}, 125),
    ("7.1 nine-tile straight", "456p789p345s11z", "1z", ((CHI, "123p"),), S2, {},
     {"nine_tile_straight": 40, "all_sequences": 5}, 45),
    ("7.2.1 three consecutive triplets", "555s678m99p", "9p", ((PON, "333s"), (PON, "444s")),
     S2, {}, {"three_consecutive_triplets": 100}, 100),
    ("7.2.2 four consecutive triplets", "666s99p", "9p",
     ((PON, "333s"), (PON, "444s"), (PON, "555s")), S2, {},
     {"four_consecutive_triplets": 200, "all_triplets": 40}, 240),
    ("8.1.1 mixed lesser terminals", "789p789s111z99m", "9m", ((CHI, "123m"),), S2, {},
     {"mixed_lesser_terminals": 40}, 40),
    ("8.1.2 pure lesser terminals", "789p789s111s99m", "9m", ((CHI, "123m"),), S2, {},
     {"pure_lesser_terminals": 50}, 50),
    ("8.1.3 mixed greater terminals", "111z999s55z", "9s", ((PON, "111m"), (PON, "999p")), S2,
     {}, {"mixed_greater_terminals": 100, "all_triplets": 40}, 140),
    ("9.1.1 final draw", "123m456s789s11z", "1z", ((PON, "777p"),), None, {"haitei": True},
     {"final_draw": 10}, 10),
    ("9.1.2 final discard", "123m456s789s11z", "1z", ((PON, "777p"),), S2, {"houtei": True},
     {"final_discard": 10}, 10),
    ("9.2 win on kong", "123m456s789s11z", "1z", ((DMK, "7777p"),), None, {"rinshan": True},
     {"one_kong": 5, "win_on_kong": 15}, 20),
    ("9.2 + 9.1.1 on the same tile", "123m456s789s11z", "1z", ((DMK, "7777p"),), None,
     {"rinshan": True, "haitei": True}, {"one_kong": 5, "win_on_kong": 15, "final_draw": 10}, 30),
    ("9.3 robbing a kong", "123m456s789s11z", "1z", ((PON, "777p"),), S2, {"chankan": True},
     {"robbing_a_kong": 15}, 15),
    ("10.2 seven pairs", "1155m2277p3399s66z", "6z", (), S2, {},
     {"seven_pairs": 25, "concealed_hand": 5}, 30),
    ("10.2 seven pairs, four of a kind as two pairs", "11115577m22p33s66z", "6z", (), S2, {},
     {"seven_pairs": 25, "concealed_hand": 5}, 30),
    ("chicken hand", "123m456s789s11z", "1z", ((PON, "777p"),), None, {}, {}, 1),
]  # fmt: skip


@pytest.mark.parametrize(
    ("hand", "win", "melds", "ron_from", "flags", "expected", "total"),
    [pytest.param(*c[1:], id=c[0]) for c in CASES],
)
def test_pattern_on_a_concrete_hand(
    hand: str,
    win: str,
    melds: tuple[Any, ...],
    ron_from: Seat | None,
    flags: dict[str, Any],
    expected: dict[str, int],
    total: int,
) -> None:
    value = score(make_win(hand, win, melds=melds, ron_from=ron_from, **flags))
    assert pats(value) == expected
    assert value.total == total
    assert value.chicken == (not expected)
    if value.limit is None and expected:
        assert value.total == sum(expected.values()) == value.raw_total


# Patterns worth more than the limit stand alone ("listed limit hands", [WDs]).
LISTED: list[tuple[Any, ...]] = [
    ("2.2 nine gates", "11123456789999m", "9m", (), S2, {}, "nine_gates", 480),
    ("3.3.4 big four winds", "444z55m", "5m", ((PON, "111z"), (PON, "222z"), (PON, "333z")), S2,
     {}, "big_four_winds", 400),
    ("4.3.4 four kongs", "88m", "8m",
     ((DMK, "2222m"), (ANKAN, "7777s"), (KAKAN, "4444p"), (DMK, "6666m")), None, {},
     "four_kongs", 480),
    ("5.1.4 four identical sequences", "223344m55s", "5s", ((CHI, "234m"), (CHI, "234m")), S2,
     {}, "four_identical_sequences", 480),
    ("8.1.4 pure greater terminals", "111s999s99m", "9m", ((PON, "111m"), (PON, "999p")), S2, {},
     "pure_greater_terminals", 400),
]  # fmt: skip


@pytest.mark.parametrize(
    ("hand", "win", "melds", "ron_from", "flags", "key", "points"),
    [pytest.param(*c[1:], id=c[0]) for c in LISTED],
)
def test_listed_limit_pattern_stands_alone(
    hand: str,
    win: str,
    melds: tuple[Any, ...],
    ron_from: Seat | None,
    flags: dict[str, Any],
    key: str,
    points: int,
) -> None:
    value = score(make_win(hand, win, melds=melds, ron_from=ron_from, **flags))
    assert value.patterns == ((key, points),)
    assert value.total == points
    assert value.limit == "listed"
    assert value.set_aside, "the other patterns are reported as set aside"
    assert value.raw_total == points + sum(p for _, p in value.set_aside)


def test_big_four_winds_sets_aside_the_rest() -> None:
    value = score(
        make_win("444z55m", "5m", melds=((PON, "111z"), (PON, "222z"), (PON, "333z")), ron_from=S2)
    )
    # South is the winner's own wind: a value honor; East/West/North are not (no prevailing wind).
    assert dict(value.set_aside) == {"value_honor": 10, "all_triplets": 40, "mixed_one_suit": 40}


IRREGULAR_AND_BLESSINGS: list[tuple[Any, ...]] = [
    ("10.1 thirteen terminals", "19m19p19s12345677z", "7z", None, S1, {}, "thirteen_terminals"),
    ("9.4.1 blessing of heaven", "123m456s789s11z777p", "7p", None, S0, {"tenhou": True},
     "blessing_of_heaven"),
    ("9.4.2 blessing of earth", "123m456s789s11z777p", "7p", S0, S1, {"chiihou": True},
     "blessing_of_earth"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("hand", "win", "ron_from", "winner", "flags", "key"),
    [pytest.param(*c[1:], id=c[0]) for c in IRREGULAR_AND_BLESSINGS],
)
def test_320_point_patterns_reach_the_compound_limit(
    hand: str, win: str, ron_from: Seat | None, winner: Seat, flags: dict[str, Any], key: str
) -> None:
    value = score(make_win(hand, win, ron_from=ron_from, winner=winner, **flags))
    found = pats(value)
    assert found[key] == 320
    assert found["concealed_hand"] == 5  # MT-old v1.03: also on the irregular hands
    assert value.raw_total > 320
    assert value.total == 320
    assert value.limit == "compound"


def test_every_pattern_has_a_concrete_hand_above() -> None:
    covered = {k for c in CASES for k in c[6]} | {c[6] for c in LISTED}
    covered |= {c[6] for c in IRREGULAR_AND_BLESSINGS}
    covered |= {"all_honors"}  # test_compound_limit_caps_the_sum
    assert covered == {p.key for p in PATTERNS}
    assert len(PATTERNS) == 44


# --- additive rule, series, value honors ------------------------------------------------------


def test_compound_limit_caps_the_sum() -> None:
    value = score(
        make_win("666z77z", "7z", melds=((PON, "111z"), (PON, "333z"), (PON, "555z")), ron_from=S2)
    )
    # All Honors + 2 value honors + All Triplets + Small Three Dragons + Mixed Greater Terminals.
    assert pats(value) == {
        "all_honors": 320,
        "value_honor": 20,
        "all_triplets": 40,
        "small_three_dragons": 30,
        "mixed_greater_terminals": 100,
    }
    assert value.raw_total == 510
    assert value.total == 320
    assert value.limit == "compound"


def test_same_series_counts_only_the_highest() -> None:
    # Small Four Winds implies Big and Small Three Winds (3.3): only 320 counts, not 320+120+25.
    value = score(
        make_win("234m22z", "2z", melds=((PON, "111z"), (PON, "333z"), (PON, "444z")), ron_from=S2)
    )
    assert [k for k, _ in value.patterns if k.endswith("_winds")] == ["small_four_winds"]
    # Pure Greater Terminals implies the other three of 8.1; Pure One-Suit implies Mixed.
    keys = {k for k, _ in score(make_win("456m678m222m99m", "9m", melds=((CHI, "234m"),))).patterns}
    assert keys == {"pure_one_suit"}


def test_different_series_add_even_when_implied() -> None:
    # [MTS]: Big Three Dragons "always includes three Dragon triplets, so it scores at least
    # 130+10+10+10=160 points"; Four Concealed Triplets is also Concealed Hand and All Triplets.
    big = score(
        make_win("234m99p", "9p", melds=((PON, "555z"), (PON, "666z"), (PON, "777z")), ron_from=S2)
    )
    assert big.total == 160
    four = score(make_win("111m333p777s999m55s", "5s", ron_from=S2))
    found = pats(four)
    assert found["four_concealed_triplets"] + found["concealed_hand"] + found["all_triplets"] == (
        115 + 5 + 40
    )
    assert four.total >= 160


def test_value_honor_counts_each_set_and_ignores_the_prevailing_wind() -> None:
    # ZJ 3.1: seat wind and dragons only. South (S1's wind) + Red + White: 3 × 10.
    value = score(make_win("222z456p99s", "9s", melds=((PON, "555z"), (PON, "777z")), ron_from=S2))
    assert value.patterns.count(("value_honor", 10)) == 3
    # East is nobody's value honor but the dealer's, whatever the round (HandContext.round_wind).
    east = make_win("111z456p789s55m", "9s", melds=((CHI, "234m"),), ron_from=S2)
    assert "value_honor" not in pats(score(east))
    dealer_east = make_win("111z456p789s55m", "9s", melds=((CHI, "234m"),), ron_from=S2, winner=S0)
    assert pats(score(dealer_east))["value_honor"] == 10


def test_concealed_triplet_completed_by_a_discard_is_not_concealed() -> None:
    tsumo = score(make_win("222m333p777s888m55s", "8m"))
    ron = score(make_win("222m333p777s888m55s", "8m", ron_from=S2))
    assert pats(tsumo)["four_concealed_triplets"] == 115
    assert pats(ron)["three_concealed_triplets"] == 25
    assert "four_concealed_triplets" not in pats(ron)
    # Won on the eyes, every triplet stays concealed.
    eyes = score(make_win("222m333p777s888m55s", "5s", ron_from=S2))
    assert pats(eyes)["four_concealed_triplets"] == 115


def test_concealed_kong_is_a_concealed_triplet_and_keeps_the_hand_concealed() -> None:
    value = score(make_win("333p777s55s345m", "5s", melds=((ANKAN, "2222m"),), ron_from=S2))
    assert pats(value) == {
        "three_concealed_triplets": 25,
        "one_kong": 5,
        "concealed_hand": 5,
        "no_terminals": 5,
    }


# --- Freedom of Count -------------------------------------------------------------------------


def test_freedom_of_count_places_the_winning_tile_where_it_scores_best() -> None:
    """W 和牌的计分-11 (Freedom of Count): the arrangement worth most is scored."""
    # 1m completes either 111m or 123m: read in the chow, 111m stays a concealed triplet.
    value = score(make_win("111123m555p777s99s", "1m", ron_from=S2))
    assert pats(value) == {"three_concealed_triplets": 25, "concealed_hand": 5}
    arr = value.arrangement
    assert arr is not None and arr.win_group is not None
    assert arr.groups[arr.win_group].kind == "chow"


def test_freedom_of_count_never_mixes_arrangements() -> None:
    # W 和牌的计分-11 (Freedom of Count): one arrangement, never patterns of two.
    # 222333444s: three triplets (Three Consecutive Triplets) or three 234s (Three Identical
    # Sequences) — never both. On the discard 4s the sequences read scores more.
    value = score(make_win("222333444s55m", "4s", melds=((CHI, "678m"),), ron_from=S2))
    assert pats(value) == {"three_identical_sequences": 120, "all_sequences": 5, "no_terminals": 5}
    # Seven Pairs and Two Identical Sequences Twice never add either.
    pairs = score(make_win("112233m445566p77s", "7s", ron_from=S2))
    assert pats(pairs) == {
        "two_identical_sequences_twice": 60,
        "all_sequences": 5,
        "concealed_hand": 5,
    }
    assert pairs.arrangement is not None and pairs.arrangement.shape == "regular"


def test_freedom_of_count_prefers_the_triplets_when_they_score_more() -> None:
    tsumo = score(make_win("111222333m555p77s", "3m"))
    assert pats(tsumo) == {
        "concealed_hand": 5,
        "all_triplets": 40,
        "four_concealed_triplets": 115,
        "three_consecutive_triplets": 100,
    }
    assert tsumo.total == 260


# --- false wins and bad input -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "win", "melds"),
    [
        ("123m456p789s12344z", "4z", ()),  # three lone honors
        ("1133557799m1135p", "5p", ()),  # six pairs and two singles
        ("19m19p19s12345666z", "6z", ()),  # thirteen terminals without the red dragon
        ("123m456p79s111z", "9s", ((PON, "777p"),)),  # right count with a meld, no eyes
    ],
)
def test_not_a_winning_hand_is_a_false_win(hand: str, win: str, melds: tuple[Any, ...]) -> None:
    w = make_win(hand, win, melds=melds, ron_from=S2)
    if len(w.hand) + 3 * len(w.melds) != 14:
        pytest.fail(f"bad test hand {hand}")
    with pytest.raises(FalseWin, match="not a winning hand"):
        score(w)


def test_wrong_tile_count_is_a_false_win() -> None:
    with pytest.raises(FalseWin, match="expected 14"):
        score(make_win("123m456p789s11z", "1z", ron_from=S2))


def test_impossible_input_is_rejected() -> None:
    w = make_win("123m456s789s11z", "1z", melds=((PON, "777p"),), ron_from=S2)
    with pytest.raises(ZungJungError, match="appears twice"):
        score(Win(S1, S2, (*w.hand[:-1], w.hand[0]), w.hand[0], w.melds))
    with pytest.raises(ZungJungError, match="not among the hand tiles"):
        score(Win(S1, S2, w.hand, Tile(135), w.melds))
    with pytest.raises(ZungJungError, match="contradictory win flags"):
        score(make_win("123m456s789s11z", "1z", melds=((PON, "777p"),), ron_from=S2, haitei=True))
    with pytest.raises(ZungJungError, match="contradictory win flags"):
        score(make_win("123m456s789s11z", "1z", melds=((PON, "777p"),), rinshan=True))
    with pytest.raises(ZungJungError, match="contradictory win flags"):
        score(make_win("123m456s789s11z777p", "7p", tenhou=True))  # S1 is not the dealer
    bad_chi = Meld("chi", (Tile(1), Tile(33), Tile(13)), Tile(1), S0)
    with pytest.raises(ZungJungError, match="three consecutive"):
        score(Win(S1, S2, w.hand, w.win_tile, (bad_chi,)))
    with pytest.raises(ZungJungError, match="no \\[zung_jung\\] table"):
        zung_jung_value(load_ruleset("mleague"), w, ctx())


def test_blessing_of_earth_is_a_win_on_the_dealers_first_discard_only() -> None:
    # ZJ 9.4.2; a riichi-style chiihou (first self-draw) is no Zung Jung pattern.
    tsumo = score(make_win("123m456s789s11z777p", "7p", chiihou=True))
    assert "blessing_of_earth" not in pats(tsumo)
    other = score(make_win("123m456s789s11z777p", "7p", ron_from=S3, chiihou=True))
    assert "blessing_of_earth" not in pats(other)


def test_chicken_hand_and_minimum() -> None:
    chicken = make_win("123m456s789s11z", "1z", melds=((PON, "777p"),), ron_from=S2)
    value = score(chicken)
    assert value.chicken and value.total == 1 and value.patterns == ()
    assert value.limit is None


# --- rulesets: values are data ----------------------------------------------------------------


def _venue(tmp_path: Path, name: str, body: str) -> Ruleset:
    path = tmp_path / f"{name}.toml"
    path.write_text(body, encoding="utf-8")
    return load_ruleset(str(path))


def test_wmc_has_exactly_the_44_patterns() -> None:
    assert WMC.zung_jung is not None
    values = pattern_values(WMC.zung_jung)
    assert set(values) == {p.key for p in PATTERNS}
    # The v1.03 (MT-old) choices, against the later values (docs/zung-jung.md).
    assert values["four_concealed_triplets"] == 115
    assert values["all_triplets"] == 40
    assert values["pure_one_suit"] == 100
    assert values["small_three_dragons"] == 30
    assert values["seven_pairs"] == 25
    assert values["thirteen_terminals"] == values["blessing_of_heaven"] == 320
    assert values["win_on_kong"] == 15
    assert WMC.zung_jung.discard_threshold == 25
    assert WMC.zung_jung.minimum == 0


def test_venue_override_changes_a_value(tmp_path: Path) -> None:
    # A venue playing the WSoM/v3.3 values: [MTS] 115+5+40 becomes [ZJ33r] 125+5+30 = 160.
    venue = _venue(
        tmp_path,
        "venue",
        'extends = "wmc"\n[zung_jung.patterns]\nfour_concealed_triplets = 125\nall_triplets = 30\n',
    )
    hand = make_win("111m333p777s999m55s", "5s", ron_from=S2)
    value = score(hand, venue)
    found = pats(value)
    assert found["four_concealed_triplets"] + found["concealed_hand"] + found["all_triplets"] == 160
    assert pats(score(hand))["four_concealed_triplets"] == 115  # wmc itself unchanged


def test_venue_override_can_make_seven_pairs_the_best_arrangement(tmp_path: Path) -> None:
    venue = _venue(tmp_path, "pairs", 'extends = "wmc"\n[zung_jung.patterns]\nseven_pairs = 100\n')
    hand = make_win("112233m445566p77s", "7s", ron_from=S2)
    assert score(hand).arrangement.shape == "regular"  # type: ignore[union-attr]
    value = score(hand, venue)
    assert value.arrangement is not None and value.arrangement.shape == "seven_pairs"
    assert pats(value) == {"seven_pairs": 100, "concealed_hand": 5}


def test_venue_2008_minimum_refuses_a_chicken_hand(tmp_path: Path) -> None:
    venue = _venue(
        tmp_path,
        "wsom2008",
        'extends = "wmc"\n[zung_jung]\nminimum = 5\ndiscard_threshold = 30\n'
        "concealed_hand_irregular = false\n[zung_jung.patterns]\nseven_pairs = 30\n",
    )
    with pytest.raises(FalseWin, match="below the minimum 5"):
        score(make_win("123m456s789s11z", "1z", melds=((PON, "777p"),), ron_from=S2), venue)
    assert score(make_win("1155m2277p3399s66z", "6z", ron_from=S2), venue).patterns == (
        ("seven_pairs", 30),
    )
    manual = Win(S1, S2, (), None, manual=ManualValue(points=4))
    with pytest.raises(FalseWin, match="below the minimum"):
        score(manual, venue)


def test_misspelt_pattern_key_is_an_error(tmp_path: Path) -> None:
    venue = _venue(tmp_path, "typo", 'extends = "wmc"\n[zung_jung.patterns]\npure_one_suite = 80\n')
    with pytest.raises(PatternTableError, match="unknown pure_one_suite"):
        score(make_win("123m456s789s11z", "1z", melds=((PON, "777p"),)), venue)


def test_missing_pattern_key_is_an_error(tmp_path: Path) -> None:
    text = (Path(__file__).parents[2] / "rules" / "rulesets" / "wmc.toml").read_text("utf-8")
    lines = [ln for ln in text.splitlines() if not ln.startswith("seven_pairs =")]
    venue = _venue(tmp_path, "incomplete", "\n".join(lines) + "\n")
    with pytest.raises(PatternTableError, match="missing seven_pairs"):
        score(make_win("123m456s789s11z", "1z", melds=((PON, "777p"),)), venue)


def test_manual_value_is_taken_as_given() -> None:
    value = score(Win(S1, S2, (), None, manual=ManualValue(points=45)))
    assert value.manual and value.total == 45 and value.arrangement is None


def test_json_view() -> None:
    value = score(
        make_win("234m99p", "9p", melds=((PON, "555z"), (PON, "666z"), (PON, "777z")), ron_from=S2)
    )
    data = json.loads(json.dumps(value.to_json()))
    assert data["total"] == 160
    assert data["limit"] is None
    assert {"key": "big_three_dragons", "number": "3.2.2", "name": "Big Three Dragons",
            "chinese": "大三元", "points": 130} in data["patterns"]  # fmt: skip
    assert data["arrangement"]["shape"] == "regular"
    assert [g["tiles"] for g in data["arrangement"]["groups"]] == [
        "234m", "PPP", "FFF", "CCC", "99p"
    ]  # fmt: skip
    assert data["arrangement"]["groups"][4]["kind"] == "pair"


# --- the payoff scheme ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "loser", "responsible", "threshold", "expected"),
    [
        # Self-draw: each of the others pays V.
        (10, None, None, 25, (-10, 30, -10, -10)),
        (320, None, None, 25, (-320, 960, -320, -320)),
        # On a discard worth ≤ 25: everyone pays V.
        (25, S0, None, 25, (-25, 75, -25, -25)),
        (5, S3, None, 25, (-5, 15, -5, -5)),
        # Worth > 25: the discarder 3V - 50, the others 25 each.
        (26, S0, None, 25, (-28, 78, -25, -25)),
        (160, S2, None, 25, (-25, 480, -430, -25)),
        (320, S3, None, 25, (-25, 960, -25, -910)),
        # Following discard: the first discarder of the tile this go-around pays.
        (40, S0, S3, 25, (-25, 120, -25, -70)),
        (20, S0, S3, 25, (-20, 60, -20, -20)),
        # ... and if that was the winner himself, it is paid as a self-draw.
        (40, S0, S1, 25, (-40, 120, -40, -40)),
        # A self-draw ignores any responsible seat.
        (40, None, S3, 25, (-40, 120, -40, -40)),
        # WSOM 2008 [RM08]: threshold 30; "for a 35 point hand, the other two players will pay
        # just 30 points and the player throwing the winning tile will pay 45".
        (35, S2, None, 30, (-30, 105, -45, -30)),
        (0, S2, None, 25, (0, 0, 0, 0)),
    ],
)
def test_payments(
    value: int,
    loser: Seat | None,
    responsible: Seat | None,
    threshold: int,
    expected: tuple[int, int, int, int],
) -> None:
    deltas = zung_jung_payments(value, S1, loser, responsible, threshold)
    assert deltas == expected
    assert sum(deltas) == 0
    assert deltas[S1] == 3 * value


def test_payments_reject_bad_input() -> None:
    with pytest.raises(ZungJungError, match="own discard"):
        zung_jung_payments(10, S1, S1, None, 25)
    with pytest.raises(ZungJungError, match="≥ 0"):
        zung_jung_payments(-1, S1, S0, None, 25)
    with pytest.raises(ZungJungError, match="threshold"):
        zung_jung_payments(10, S1, S0, None, -25)


def test_scored_win_to_payments_end_to_end() -> None:
    # Big Three Dragons (160) on S2's discard: S2 pays 3·160 − 50 = 430, S0 and S3 pay 25.
    win = make_win(
        "234m99p", "9p", melds=((PON, "555z"), (PON, "666z"), (PON, "777z")), ron_from=S2
    )
    value = score(win)
    assert WMC.zung_jung is not None
    deltas = zung_jung_payments(
        value.total, win.winner, win.loser, win.responsible, WMC.zung_jung.discard_threshold
    )
    assert deltas == (-25, 480, -430, -25)


def test_irregular_hands_take_the_tile_patterns_but_not_the_set_patterns() -> None:
    # Seven Pairs of seven honors: All Honors and Mixed Greater Terminals (tiles), no Value Honor
    # (no triplets); capped at 320.
    honors = score(make_win("11223344556677z", "7z", ron_from=S2))
    assert pats(honors) == {
        "seven_pairs": 25,
        "concealed_hand": 5,
        "all_honors": 320,
        "mixed_greater_terminals": 100,
    }
    assert honors.total == 320
    # Seven Pairs in one suit with no terminals.
    pure = score(make_win("22223344556688m", "8m"))  # 2222 as two pairs
    assert pats(pure) == {
        "seven_pairs": 25,
        "concealed_hand": 5,
        "no_terminals": 5,
        "pure_one_suit": 100,
    }
    # Thirteen Terminals is not also Mixed Greater Terminals ([RA]).
    kokushi = score(make_win("19m19p19s12345677z", "7z"))
    assert "mixed_greater_terminals" not in pats(kokushi)
    assert kokushi.arrangement is not None and kokushi.arrangement.shape == "thirteen_terminals"
