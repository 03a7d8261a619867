"""Riichi hand values per ruleset: what the ``mahjong`` package is asked and how it is corrected.

Each test names the article it checks. Hands are written compactly (hil.hand_notation).
"""

from __future__ import annotations

import dataclasses

import pytest

from hil.hand_notation import tiles_from_text, win_from_text
from rules.outcome import HandContext, HandOutcome, ManualValue, Win
from rules.ruleset import Ruleset, load_ruleset
from rules.scoring.riichi import check_win, riichi_hand
from rules.scoring.value import ScoringError
from rules.seats import Seat, Wind
from rules.settlement import settle

S = load_ruleset("saikouisen")
C = load_ruleset("saikouisen-classic")
M = load_ruleset("mleague")
MU = load_ruleset("mu")
T = load_ruleset("tenhou")


def ctx(
    dealer: Seat = Seat.S0,
    round_wind: Wind = Wind.EAST,
    dora: str = "",
    ura: str = "",
    aka: bool = True,
    honba: int = 0,
    deposits: int = 0,
) -> HandContext:
    return HandContext(
        dealer=dealer,
        round_wind=round_wind,
        honba=honba,
        deposits=deposits,
        scores=(25000, 25000, 25000, 25000),
        aka=aka,
        dora_indicators=tiles_from_text(dora) if dora else (),
        ura_indicators=tiles_from_text(ura) if ura else (),
    )


def paid(ruleset: Ruleset, win: Win, context: HandContext) -> tuple[int, int, int, int]:
    return settle(ruleset, HandOutcome("win", context, wins=(win,))).deltas


# --- fu -------------------------------------------------------------------------------------

DOUBLE_EAST = dict(hand="111m234p567p34s11z", win="5s", winner=Seat.S0, loser=Seat.S2, riichi=True)


def test_double_wind_pair_is_2_fu_in_m_6_3_2_and_mu_56() -> None:
    """East seat in the East round with an East pair: 30 + 8 (closed 111m) + pair.
    Tenhou 4 fu → 42 → 50 fu; M 6-3-2 note ("連風牌の対子も2符") and μ §56(2)1 → 40 fu; S §49 lost
    its fu table in our copy: [I] 2 fu, as the pro leagues (saikouisen.toml)."""
    win = win_from_text(**DOUBLE_EAST)  # type: ignore[arg-type]
    tenhou = riichi_hand(T, win, ctx())
    assert (tenhou.han, tenhou.fu) == (1, 50)
    assert ("double_valued_pair", 4) in tenhou.fu_details
    for ruleset in (M, MU, S):
        hand = riichi_hand(ruleset, win, ctx())
        assert (hand.han, hand.fu) == (1, 40), ruleset.name
        assert ("double_valued_pair", 2) in hand.fu_details
    assert paid(T, win, ctx())[Seat.S0] == 2400  # 50 fu 1 han dealer ron
    assert paid(M, win, ctx())[Seat.S0] == 2000  # 40 fu 1 han dealer ron


def test_single_wind_pair_is_2_fu_everywhere() -> None:
    # South seat (dealer S3), East round, East pair: round wind only → 2 fu in every ruleset.
    win = win_from_text(**DOUBLE_EAST)  # type: ignore[arg-type]
    for ruleset in (T, M, MU, S):
        hand = riichi_hand(ruleset, win, ctx(dealer=Seat.S3))
        assert hand.fu == 40, ruleset.name
        assert ("valued_pair", 2) in hand.fu_details


def test_pinfu_tsumo_20_fu_and_open_pinfu_30_fu() -> None:
    """M 9-1-5: pinfu tsumo is 20 fu; M 6-3-5: an open pinfu-shaped ron is 30 fu."""
    closed = win_from_text("234m567p678s34p55s", "2p", winner=Seat.S1, riichi=True)
    hand = riichi_hand(M, closed, ctx())
    assert hand.fu == 20 and ("Pinfu", 1) in hand.yaku and ("Menzen Tsumo", 1) in hand.yaku
    opened = win_from_text(
        "567p678s34p55s", "2p", winner=Seat.S1, loser=Seat.S2, melds=[("chi", "234m")]
    )
    hand = riichi_hand(M, opened, ctx())
    assert (hand.han, hand.fu) == (1, 30) and hand.yaku == (("Tanyao", 1),)


# --- dora, ippatsu, red fives ------------------------------------------------------------------

BUSY = dict(
    hand="234m567p678s34p05s",
    win="2p",
    winner=Seat.S2,
    loser=Seat.S1,
    riichi=True,
    ippatsu=True,
)


def busy_ctx() -> HandContext:
    # dora 2m (indicator 1m), kan dora 6p (indicator 5p), ura 5s ×2 with the red (indicator 4s),
    # kan ura none (indicator 9m → 1m).
    return ctx(dora="1m5p", ura="4s9m")


def test_tenhou_and_m_count_everything() -> None:
    win = win_from_text(**BUSY)  # type: ignore[arg-type]
    for ruleset in (T, M):
        hand = riichi_hand(ruleset, win, busy_ctx())
        names = dict(hand.yaku)
        assert names == {
            "Riichi": 1,
            "Ippatsu": 1,
            "Pinfu": 1,
            "Tanyao": 1,
            "Dora": 2,
            "Aka Dora": 1,
            "Ura Dora": 2,
        }
        assert hand.han == 9
        assert paid(ruleset, win, busy_ctx())[Seat.S2] == 16000  # baiman


def test_mu_has_no_ippatsu_ura_kan_dora_or_red_fives() -> None:
    """μ §16 (one indicator), §51 (no ippatsu among the 25 yaku), no ura, no red fives; no
    kiriage (μ §57-59): riichi pinfu tanyao dora 1 = 4 han 30 fu = 7,700."""
    win = win_from_text(**BUSY)  # type: ignore[arg-type]
    hand = riichi_hand(MU, win, busy_ctx())
    assert dict(hand.yaku) == {"Riichi": 1, "Pinfu": 1, "Tanyao": 1, "Dora": 1}
    assert paid(MU, win, busy_ctx())[Seat.S2] == 7700


def test_classic_has_no_ippatsu_ura_kan_dora_nor_kiriage() -> None:
    """C-sum: no ippatsu, ura or kan dora; "无切上满贯": 4 han 30 fu stays 7,700."""
    win = win_from_text(**BUSY)  # type: ignore[arg-type]
    hand = riichi_hand(C, win, busy_ctx())
    assert dict(hand.yaku) == {"Riichi": 1, "Pinfu": 1, "Tanyao": 1, "Dora": 1}
    assert paid(C, win, busy_ctx())[Seat.S2] == 7700


def test_saikouisen_has_ura_kan_dora_ippatsu_but_no_red_fives() -> None:
    """S §24-5,7 (kan dora, ura), §48 (ippatsu); red fives are not in the rules."""
    win = win_from_text(**BUSY)  # type: ignore[arg-type]
    hand = riichi_hand(S, win, busy_ctx())
    assert dict(hand.yaku) == {
        "Riichi": 1,
        "Ippatsu": 1,
        "Pinfu": 1,
        "Tanyao": 1,
        "Dora": 2,
        "Ura Dora": 2,
    }
    assert paid(S, win, busy_ctx())[Seat.S2] == 16000


def test_red_fives_follow_the_game() -> None:
    """A Tenhou room without red fives (records: rule.aka = 0) scores id 16/52/88 as plain."""
    win = win_from_text(**BUSY)  # type: ignore[arg-type]
    hand = riichi_hand(T, win, ctx(dora="1m5p", ura="4s9m", aka=False))
    assert "Aka Dora" not in dict(hand.yaku) and hand.han == 8


def test_ura_only_for_riichi() -> None:
    win = win_from_text("234m567p678s34p05s", "2p", winner=Seat.S2, loser=Seat.S1)
    hand = riichi_hand(T, win, busy_ctx())
    assert "Ura Dora" not in dict(hand.yaku)


# --- limits -------------------------------------------------------------------------------------

KIRIAGE = dict(hand="234m567p678s34p55s", win="2p", winner=Seat.S1, loser=Seat.S2, riichi=True)


@pytest.mark.parametrize(
    ("name", "points"),
    [
        ("mleague", 8000),  # M 6-4-2: 30 fu 6翻 = 30 fu 4 han is mangan
        ("saikouisen", 8000),  # [I] kiriage (C-sum lists its absence as a difference)
        ("saikouisen-classic", 7700),  # C-sum: no kiriage
        ("mu", 7700),  # μ §57-59
        ("tenhou", 7700),
    ],
)
def test_kiriage_30_fu_4_han(name: str, points: int) -> None:
    # riichi pinfu tanyao + dora (indicator 1m → 2m): 4 han 30 fu, non-dealer ron.
    win = win_from_text(**KIRIAGE)  # type: ignore[arg-type]
    assert paid(load_ruleset(name), win, ctx(dora="1m"))[Seat.S1] == points


def test_kiriage_60_fu_3_han_m_6_6_1() -> None:
    # Open hand: 1111m daiminkan (16) + 999p pon (4) + kanchan (2) + base 20 = 42 → 50 fu?
    # Use an ankan instead: 1111m ankan (32) + 20 + 2 (kanchan) = 54 → 60 fu, closed ron +10 =
    # 64 → 70. So: tsumo, closed: 20 + 32 + 2 (kanchan) + 2 (tsumo) = 56 → 60 fu.
    win = win_from_text(
        "234p567s79s88p", "8s", winner=Seat.S1, melds=[("ankan", "1111m")], riichi=True
    )
    hand = riichi_hand(M, win, ctx(dora="3p"))
    assert (hand.han, hand.fu) == (3, 60)  # riichi, menzen tsumo, dora 4p
    # M: mangan tsumo 2000/4000; Tenhou: 60 fu 3 han = 2000/3900.
    assert paid(M, win, ctx(dora="3p")) == (-4000, 8000, -2000, -2000)
    assert paid(T, win, ctx(dora="3p")) == (-3900, 7900, -2000, -2000)


KAZOE = dict(hand="11s22s33s6s77s88s99s", win="6s", winner=Seat.S0, riichi=True, ippatsu=True)


def test_kazoe_yakuman_tenhou_records_but_sanbaiman_in_m_s_mu() -> None:
    """13+ han without yakuman: Tenhou counts yakuman (yakuman-kazoe record: 役満8000-16000);
    M 6-6-2, S-sum ("无累计役满") and μ §59(4) cap at sanbaiman."""
    win = win_from_text(**KAZOE)  # type: ignore[arg-type]
    context = ctx(dealer=Seat.S3, dora="9s")
    hand = riichi_hand(T, win, context)
    assert hand.han >= 13 and hand.yakuman == 0
    assert paid(T, win, context) == (32000, -8000, -8000, -16000)
    for ruleset in (M, S, MU):
        assert paid(ruleset, win, context) == (24000, -6000, -6000, -12000), ruleset.name


DAISANGEN_TSUUIISOU = dict(
    hand="555666z11z22z", win="2z", winner=Seat.S1, loser=Seat.S3, melds=[("pon", "777z")]
)


def test_yakuman_combine_in_m_s_tenhou_but_not_in_mu_54() -> None:
    """M 6-6-1 note and S-sum: yakuman combine (×2); μ §54: "只相当于一次役满"."""
    win = win_from_text(**DAISANGEN_TSUUIISOU)  # type: ignore[arg-type]
    for ruleset in (M, S, T):
        hand = riichi_hand(ruleset, win, ctx())
        assert hand.yakuman == 2 and {"Daisangen", "Tsuu Iisou"} <= set(dict(hand.yaku))
        assert paid(ruleset, win, ctx())[Seat.S1] == 64000
    assert riichi_hand(MU, win, ctx()).yakuman == 1
    assert paid(MU, win, ctx())[Seat.S1] == 32000


def test_manual_yakuman_count_does_not_combine_in_mu() -> None:
    win = Win(Seat.S1, Seat.S3, (), None, manual=ManualValue(yakuman=2))
    assert paid(MU, win, ctx())[Seat.S1] == 32000
    assert paid(M, win, ctx())[Seat.S1] == 64000


SUUANKOU_TANKI = dict(hand="111m333p555s777s9p", win="9p", winner=Seat.S2, loser=Seat.S0)


def test_double_yakuman_patterns_only_where_the_ruleset_has_them() -> None:
    win = win_from_text(**SUUANKOU_TANKI)  # type: ignore[arg-type]
    assert riichi_hand(T, win, ctx()).yakuman == 1  # no double yakuman patterns
    doubled = dataclasses.replace(
        T, limits=dataclasses.replace(T.limits, double_yakuman_patterns=True)
    )
    hand = riichi_hand(doubled, win, ctx())
    assert hand.yakuman == 2 and dict(hand.yaku) == {"Suu Ankou Tanki": 26}


# --- validity -----------------------------------------------------------------------------------


def test_open_tanyao_is_a_ruleset_choice() -> None:
    win = win_from_text(
        "567p678s34p55s", "2p", winner=Seat.S1, loser=Seat.S2, melds=[("chi", "234m")]
    )
    assert check_win(M, win, ctx()) is None  # S §45-1 / M: kuitan
    closed_only = dataclasses.replace(M, calls=dataclasses.replace(M.calls, open_tanyao=False))
    assert check_win(closed_only, win, ctx()) == "no_yaku"
    with pytest.raises(ScoringError, match="no_yaku"):
        settle(closed_only, HandOutcome("win", ctx(), wins=(win,)))


def test_not_a_winning_hand_is_refused_with_the_hand_in_the_message() -> None:
    win = win_from_text("123m456p789s1357z", "2z", winner=Seat.S1, loser=Seat.S2)
    assert check_win(M, win, ctx()) == "hand_not_winning"
    with pytest.raises(ScoringError, match="hand_not_winning"):
        riichi_hand(M, win, ctx())


def test_wrong_tile_count_is_refused() -> None:
    win = win_from_text("123m456p789s1z", "1z", winner=Seat.S1, loser=Seat.S2)
    with pytest.raises(ScoringError, match="14 tiles"):
        riichi_hand(M, win, ctx())


def test_winning_tile_must_be_in_the_hand() -> None:
    base = win_from_text("234m567p678s34p55s", "2p", winner=Seat.S1, loser=Seat.S2)
    broken = dataclasses.replace(base, win_tile=tiles_from_text("9m")[0])
    with pytest.raises(ScoringError, match="not among"):
        riichi_hand(M, broken, ctx())


def test_rinshan_chankan_haitei_houtei_are_yaku() -> None:
    closed = win_from_text(
        "234p567s79s88p", "8s", winner=Seat.S1, melds=[("ankan", "1111m")], rinshan=True
    )
    assert ("Rinshan Kaihou", 1) in riichi_hand(M, closed, ctx()).yaku
    ron = win_from_text("234m567p678s34p55s", "2p", winner=Seat.S1, loser=Seat.S2, chankan=True)
    assert ("Chankan", 1) in riichi_hand(M, ron, ctx()).yaku
    ron = dataclasses.replace(ron, chankan=False, houtei=True)
    assert ("Houtei Raoyui", 1) in riichi_hand(M, ron, ctx()).yaku
    tsumo = win_from_text("234m567p678s34p55s", "2p", winner=Seat.S1, haitei=True)
    assert ("Haitei Raoyue", 1) in riichi_hand(M, tsumo, ctx()).yaku


def test_double_riichi_only_where_the_ruleset_has_it() -> None:
    win = win_from_text(
        "234m567p678s34p55s", "2p", winner=Seat.S1, loser=Seat.S2, double_riichi=True
    )
    assert ("Double Riichi", 2) in riichi_hand(M, win, ctx()).yaku
    no_double = dataclasses.replace(M, riichi=dataclasses.replace(M.riichi, double_riichi=False))
    hand = riichi_hand(no_double, win, ctx())
    assert ("Riichi", 1) in hand.yaku and "Double Riichi" not in dict(hand.yaku)


def test_blessings_and_kokushi_are_yakuman() -> None:
    tenhou = win_from_text("234m567p678s34p55s", "2p", winner=Seat.S0, tenhou=True)
    assert riichi_hand(M, tenhou, ctx(dealer=Seat.S0)).yakuman == 1
    chiihou = dataclasses.replace(tenhou, tenhou=False, chiihou=True)
    assert riichi_hand(M, chiihou, ctx(dealer=Seat.S3)).yakuman == 1
    kokushi = win_from_text("19m19p19s1234566z", "7z", winner=Seat.S1, loser=Seat.S2)
    hand = riichi_hand(T, kokushi, ctx())
    assert hand.yakuman == 1 and dict(hand.yaku) == {"Kokushi Musou": 13}
    thirteen_sided = win_from_text("19m19p19s1234567z", "1z", winner=Seat.S1, loser=Seat.S2)
    assert riichi_hand(T, thirteen_sided, ctx()).yakuman == 1  # no double-yakuman patterns


def test_riichi_on_an_open_hand_is_refused() -> None:
    win = win_from_text(
        "567p678s34p55s", "2p", winner=Seat.S1, loser=Seat.S2, melds=[("chi", "234m")], riichi=True
    )
    assert check_win(M, win, ctx()) == "open_hand_riichi_not_allowed"


def test_malformed_melds_are_refused() -> None:
    win = win_from_text(
        "567p678s34p55s", "2p", winner=Seat.S1, loser=Seat.S2, melds=[("chi", "235m")]
    )
    with pytest.raises(ScoringError, match="not a sequence"):
        riichi_hand(M, win, ctx())
    win = win_from_text(
        "567p678s34p55s", "2p", winner=Seat.S1, loser=Seat.S2, melds=[("pon", "223m")]
    )
    with pytest.raises(ScoringError, match="of a kind"):
        riichi_hand(M, win, ctx())


def test_m_1_2_2_2_6_4_a_red_five_is_a_dora() -> None:
    """M 1-2-2: one red five of each suit in the set; M 2-6-4: each counts as a dora."""
    win = win_from_text("234m567p678s34p05s", "2p", winner=Seat.S2, loser=Seat.S1)
    red = riichi_hand(M, win, ctx(aka=True))
    plain = riichi_hand(M, win, ctx(aka=False))
    assert dict(red.yaku).get("Aka Dora") == 1 and "Aka Dora" not in dict(plain.yaku)
    assert red.han == plain.han + 1


@pytest.mark.parametrize("order", ["234m", "423m", "342m", "432m", "324m"])
def test_a_chi_scores_whatever_order_its_tiles_come_in(order: str) -> None:
    """Issue 17 C23: a chi's tiles come in the order they were taken (the called tile first);
    the hand scores the same as with ascending tiles (M 6-3-5: open pinfu shape, 30 fu)."""
    opened = win_from_text(
        "567p678s34p55s", "2p", winner=Seat.S1, loser=Seat.S2, melds=[("chi", order)]
    )
    hand = riichi_hand(M, opened, ctx())
    assert (hand.han, hand.fu) == (1, 30) and hand.yaku == (("Tanyao", 1),)
