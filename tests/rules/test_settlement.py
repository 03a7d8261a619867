"""Payments: ron/tsumo splits, honba, deposits, multiple ron, pao, draws, nagashi, chombo, and
the Zung Jung family through the same ``settle``."""

from __future__ import annotations

import dataclasses

import pytest

from hil.hand_notation import win_from_text
from rules.outcome import HandContext, HandOutcome, ManualValue, Win
from rules.ruleset import load_ruleset
from rules.scoring.value import ScoringError
from rules.seats import Seat, Wind
from rules.settlement import settle, tenpai_payments

S = load_ruleset("saikouisen")
C = load_ruleset("saikouisen-classic")
M = load_ruleset("mleague")
MU = load_ruleset("mu")
T = load_ruleset("tenhou")
W = load_ruleset("wmc")


def ctx(
    dealer: Seat = Seat.S0,
    honba: int = 0,
    deposits: int = 0,
    riichi_seats: tuple[Seat, ...] = (),
) -> HandContext:
    return HandContext(
        dealer=dealer,
        round_wind=Wind.EAST,
        honba=honba,
        deposits=deposits,
        scores=(25000, 25000, 25000, 25000),
        aka=True,
        riichi_seats=riichi_seats,
    )


def manual(winner: Seat, loser: Seat | None, han: int = 0, fu: int = 0, **kw: object) -> Win:
    yakuman = int(kw.pop("yakuman", 0))  # type: ignore[call-overload]
    return Win(
        winner,
        loser,
        (),
        None,
        manual=ManualValue(han, fu, yakuman),
        **kw,  # type: ignore[arg-type]
    )


def win_outcome(context: HandContext, *wins: Win) -> HandOutcome:
    return HandOutcome("win", context, wins=wins)


# --- ron, tsumo, honba, deposits ------------------------------------------------------------


def test_ron_loser_pays_all_with_honba_and_winner_takes_deposits() -> None:
    # M 3-13-3: 300 per honba on the win; M 4-8-5: the deposits go to the winner.
    s = settle(M, win_outcome(ctx(honba=2, deposits=3), manual(Seat.S1, Seat.S3, 1, 30)))
    assert s.deltas == (0, 1000 + 600 + 3000, 0, -1600)
    assert s.deposits_after == 0
    (w,) = s.wins
    assert (w.points, w.honba_points, w.deposit_points) == (1000, 600, 3000)


def test_tsumo_each_pays_a_third_of_the_honba() -> None:
    # M 6-5-6: 1300/2600 with one honba is 1400/2700; S §50-2: +100 from each payer.
    s = settle(S, win_outcome(ctx(honba=1, deposits=1), manual(Seat.S2, None, 3, 40)))
    assert s.deltas == (-2700, -1400, 1400 + 1400 + 2700 + 1000, -1400)


def test_dealer_tsumo_all_pay_the_same() -> None:
    s = settle(M, win_outcome(ctx(dealer=Seat.S3, honba=1), manual(Seat.S3, None, 3, 30)))
    assert s.deltas == (-2100, -2100, -2100, 6300)


def test_a_deltas_sum_equals_the_collected_deposits() -> None:
    for honba in range(4):
        for deposits in range(3):
            s = settle(
                T, win_outcome(ctx(honba=honba, deposits=deposits), manual(Seat.S0, None, 2, 50))
            )
            assert sum(s.deltas) == 1000 * deposits


# --- several rons ----------------------------------------------------------------------------


def test_head_bump_keeps_the_winner_nearest_the_discarder() -> None:
    """S §45-4, M 5-1-3, μ §65: shimocha, then toimen, then kamicha."""
    wins = (manual(Seat.S0, Seat.S2, 3, 30), manual(Seat.S1, Seat.S2, 1, 30))
    for ruleset in (S, M, MU):
        s = settle(ruleset, win_outcome(ctx(honba=1, deposits=1), *wins))
        # Discarder S2: S3 would be first, then S0, then S1 → S0 takes it.
        assert [int(w.winner) for w in s.wins] == [0]
        assert s.deltas == (5800 + 300 + 1000, 0, -6100, 0)
        assert "head-bump" in s.notes[0]


def test_double_ron_pays_each_and_honba_deposits_to_the_nearest() -> None:
    """Tenhou: each ron paid; honba and deposits to the winner nearest the discarder (records:
    ron-2-no-honba.json, hand 南2 2本場 1供託: 9300 and 1000, -8300 -1000)."""
    wins = (manual(Seat.S2, Seat.S3, 1, 30), manual(Seat.S0, Seat.S3, 4, 30))
    s = settle(T, win_outcome(ctx(dealer=Seat.S1, honba=2, deposits=1), *wins))
    assert s.deltas == (9300, 0, 1000, -9300)
    assert [int(w.winner) for w in s.wins] == [0, 2]


def test_triple_ron_is_abortive_where_the_ruleset_says() -> None:
    wins = tuple(manual(seat, Seat.S0, 1, 30) for seat in (Seat.S1, Seat.S2, Seat.S3))
    s = settle(T, win_outcome(ctx(deposits=2), *wins))
    assert s.kind == "abortive" and s.deltas == (0, 0, 0, 0) and s.deposits_after == 2
    allowed = dataclasses.replace(T, calls=dataclasses.replace(T.calls, triple_ron_abortive=False))
    s = settle(allowed, win_outcome(ctx(deposits=2), *wins))
    assert s.kind == "win" and s.deltas == (-3000, 1000 + 2000, 1000, 1000)


def test_several_wins_must_share_one_discard() -> None:
    with pytest.raises(ScoringError, match="same discard"):
        settle(T, win_outcome(ctx(), manual(Seat.S0, Seat.S1, 1, 30), manual(Seat.S2, None, 1, 30)))
    with pytest.raises(ScoringError, match="twice"):
        settle(
            T, win_outcome(ctx(), manual(Seat.S0, Seat.S1, 1, 30), manual(Seat.S0, Seat.S1, 1, 30))
        )


# --- pao ----------------------------------------------------------------------------------------

DAISANGEN_TSUUIISOU = dict(hand="555666z11z22z", win="2z", melds=[("pon", "777z")])


def test_pao_m_8_1_3_example_tsumo_double_yakuman() -> None:
    """M 8-1-3: "一本場で西家が南家の大三元を確定させる牌を鳴かせ、南家の手牌が大三元字一色で、
    ツモアガった場合　東家16000、西家32300+8000、北家8000"."""
    win = win_from_text(
        **DAISANGEN_TSUUIISOU,  # type: ignore[arg-type]
        winner=Seat.S1,
        pao=Seat.S2,
        pao_yaku="daisangen",
    )
    s = settle(M, win_outcome(ctx(dealer=Seat.S0, honba=1), win))
    assert s.deltas == (-16000, 16000 + 40300 + 8000, -(32300 + 8000), -8000)
    assert s.wins[0].pao == Seat.S2 and s.wins[0].yakuman == 2


def test_pao_ron_by_another_is_half_each_honba_on_the_liable() -> None:
    """M 8-1 "別の放銃者がいたら折半払い"; M 8-1-2: the honba by the liable seat; μ §67: half
    each."""
    win = win_from_text(
        hand="555666z11s22s", win="2s", melds=[("pon", "777z")], winner=Seat.S1, loser=Seat.S3,
        pao=Seat.S2, pao_yaku="daisangen",
    )  # fmt: skip
    s = settle(M, win_outcome(ctx(honba=2), win))
    assert s.deltas == (0, 32600, -(16000 + 600), -16000)
    s = settle(MU, win_outcome(ctx(honba=2), win))
    assert s.deltas == (0, 32600, -(16000 + 600), -16000)


def test_pao_discarder_is_the_liable_seat_pays_all() -> None:
    win = manual(Seat.S1, Seat.S2, yakuman=1, pao=Seat.S2, pao_yaku="daisangen")
    s = settle(M, win_outcome(ctx(honba=1), win))
    assert s.deltas == (0, 32300, -32300, 0)


def test_pao_tsumo_single_yakuman_liable_pays_all() -> None:
    """M 6-5-3: a pao tsumo is paid by the liable seat alone (一家包)."""
    win = manual(Seat.S0, None, yakuman=1, pao=Seat.S3, pao_yaku="daisuushii")
    s = settle(MU, win_outcome(ctx(dealer=Seat.S0), win))
    assert s.deltas == (48000, 0, 0, -48000)


def test_no_pao_where_the_ruleset_has_none() -> None:
    """S-sum: no pao; μ §67: only daisangen and daisuushii (not suukantsu)."""
    win = manual(Seat.S0, None, yakuman=1, pao=Seat.S3, pao_yaku="daisangen")
    assert settle(S, win_outcome(ctx(), win)).deltas == (48000, -16000, -16000, -16000)
    win = manual(Seat.S0, None, yakuman=1, pao=Seat.S3, pao_yaku="suukantsu")
    assert settle(MU, win_outcome(ctx(), win)).deltas == (48000, -16000, -16000, -16000)
    assert settle(M, win_outcome(ctx(), win)).deltas == (48000, 0, 0, -48000)


def test_pao_is_ignored_when_the_hand_lacks_the_yakuman() -> None:
    # The reducer flagged pao for daisangen, but the tiles hold no daisangen: no liability.
    win = win_from_text(
        hand="123m456p789s1z", win="1z", melds=[("pon", "777z")], winner=Seat.S1,
        pao=Seat.S2, pao_yaku="daisangen",
    )  # fmt: skip
    s = settle(M, win_outcome(ctx(), win))
    assert s.wins[0].pao is None and s.deltas[Seat.S2] == s.deltas[Seat.S3]


# --- draws ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tenpai", "deltas"),
    [
        ((), (0, 0, 0, 0)),
        ((Seat.S2,), (-1000, -1000, 3000, -1000)),
        ((Seat.S0, Seat.S1), (1500, 1500, -1500, -1500)),
        ((Seat.S0, Seat.S1, Seat.S3), (1000, 1000, -3000, 1000)),
        ((Seat.S0, Seat.S1, Seat.S2, Seat.S3), (0, 0, 0, 0)),
    ],
)
def test_tenpai_payments_s_52_8(tenpai: tuple[Seat, ...], deltas: tuple[int, ...]) -> None:
    """S §52-8: 3,000 from the noten seats to the tenpai ones (none if all or none are tenpai);
    S §39-11: the deposits stay on the table."""
    for ruleset in (S, M, MU, T):
        s = settle(ruleset, HandOutcome("exhaustive", ctx(deposits=2), tenpai=tenpai))
        assert s.deltas == deltas and s.deposits_after == 2 and s.kind == "exhaustive"


def test_no_tenpai_payments_in_classic_and_wmc() -> None:
    for ruleset in (C, W):
        s = settle(ruleset, HandOutcome("exhaustive", ctx(), tenpai=(Seat.S1,)))
        assert s.deltas == (0, 0, 0, 0)
    assert tenpai_payments(0, (Seat.S1,)) == (0, 0, 0, 0)


def test_nagashi_mangan_is_a_mangan_tsumo_without_honba_nor_tenpai_payments() -> None:
    """Tenhou record abort-nagashi-mangan.json (南3 1本場 1供託, the dealer seat 2):
    流し満貫 [-4000, -4000, 12000, -4000]; the deposit stays."""
    outcome = HandOutcome(
        "exhaustive", ctx(dealer=Seat.S2, honba=1, deposits=1), tenpai=(Seat.S0,),
        nagashi=(Seat.S2,),
    )  # fmt: skip
    s = settle(T, outcome)
    assert s.deltas == (-4000, -4000, 12000, -4000) and s.deposits_after == 1
    assert s.wins[0].nagashi and s.winners == ()
    # Without nagashi mangan in the ruleset the seat list is ignored: tenpai payments instead.
    s = settle(M, outcome)
    assert s.deltas == (3000, -1000, -1000, -1000) and s.wins == ()


def test_abortive_draw_moves_nothing() -> None:
    s = settle(T, HandOutcome("abortive", ctx(deposits=4), abort_kind="four_riichi"))
    assert s.deltas == (0, 0, 0, 0) and s.deposits_after == 4 and not s.replay


# --- chombo -----------------------------------------------------------------------------------


def test_chombo_pt_m_7_4_and_replay() -> None:
    s = settle(M, HandOutcome("chombo", ctx(deposits=1, riichi_seats=(Seat.S1,)), offender=Seat.S2))
    assert s.pt_penalties == (0.0, 0.0, -20.0, 0.0)
    assert s.deltas == (0, 0, 0, 0) and s.replay and s.deposits_after == 1


def test_chombo_classic_is_16_pt() -> None:
    s = settle(C, HandOutcome("chombo", ctx(), offender=Seat.S0))
    assert s.pt_penalties == (-16.0, 0.0, 0.0, 0.0)


def test_chombo_mu_68_returns_the_riichi_sticks() -> None:
    context = ctx(deposits=3, riichi_seats=(Seat.S0, Seat.S3))
    s = settle(MU, HandOutcome("chombo", context, offender=Seat.S1))
    assert s.pt_penalties[Seat.S1] == -20.0
    assert s.deltas == (1000, 0, 0, 1000) and s.deposits_after == 1 and s.replay
    # μ §68 option (B): −20,000 points on the spot.
    points = dataclasses.replace(MU, penalties=dataclasses.replace(MU.penalties, chombo="points"))
    s = settle(points, HandOutcome("chombo", context, offender=Seat.S1))
    assert s.deltas == (1000, -20000, 0, 1000) and s.pt_penalties == (0.0, 0.0, 0.0, 0.0)


def test_chombo_needs_an_offender() -> None:
    with pytest.raises(ScoringError, match="offender"):
        settle(M, HandOutcome("chombo", ctx()))


# --- manual values ----------------------------------------------------------------------------


def test_manual_value_is_checked() -> None:
    with pytest.raises(ScoringError, match="han"):
        settle(M, win_outcome(ctx(), manual(Seat.S1, Seat.S2)))
    with pytest.raises(ScoringError, match="fu"):
        settle(M, win_outcome(ctx(), manual(Seat.S1, Seat.S2, 2, 0)))
    with pytest.raises(ScoringError, match="multiple of 10"):
        settle(M, win_outcome(ctx(), manual(Seat.S1, Seat.S2, 2, 32)))
    s = settle(M, win_outcome(ctx(), manual(Seat.S1, Seat.S2, 6, 0)))
    assert s.deltas[Seat.S1] == 12000 and s.wins[0].manual


def test_manual_and_tile_scored_pay_the_same() -> None:
    tiles = win_from_text("234m567p678s34p55s", "2p", winner=Seat.S1, loser=Seat.S2, riichi=True)
    by_tiles = settle(M, win_outcome(ctx(honba=1, deposits=1), tiles))
    by_hand = settle(M, win_outcome(ctx(honba=1, deposits=1), manual(Seat.S1, Seat.S2, 3, 30)))
    assert by_tiles.deltas == by_hand.deltas == (0, 3900 + 300 + 1000, -4200, 0)


# --- Zung Jung --------------------------------------------------------------------------------


def test_zung_jung_manual_value_uses_the_zj_payoff() -> None:
    """v1.03 payoff ([RA], ZUNG-JUNG-WSOM.md §2): above 25 on a discard, 3V−50 and 25 each."""
    win = Win(Seat.S1, Seat.S3, (), None, manual=ManualValue(points=40))
    s = settle(W, win_outcome(ctx(honba=3, deposits=0), win))
    assert s.deltas == (-25, 120, -25, -70)
    assert s.wins[0].family == "zung_jung" and s.wins[0].value == 40
    tsumo = Win(Seat.S1, None, (), None, manual=ManualValue(points=40))
    assert settle(W, win_outcome(ctx(), tsumo)).deltas == (-40, 120, -40, -40)


def test_zung_jung_tile_scored_win() -> None:
    # All Pungs-ish hand with a value honor: scored by rules.scoring.zung_jung, paid the same.
    win = win_from_text(
        "111m999p55s77z", "7z", winner=Seat.S2, loser=Seat.S0, melds=[("pon", "333s")], aka=False
    )
    s = settle(W, win_outcome(ctx(), win))
    (w,) = s.wins
    assert w.family == "zung_jung" and w.value > 0 and w.patterns
    assert s.deltas[Seat.S2] == 3 * w.value and sum(s.deltas) == 0


def test_zung_jung_false_win_is_a_scoring_error() -> None:
    win = win_from_text("123m456p789s1357z", "2z", winner=Seat.S1, loser=Seat.S2, aka=False)
    with pytest.raises(ScoringError):
        settle(W, win_outcome(ctx(), win))


def test_settlement_json_is_plain() -> None:
    import json

    s = settle(M, win_outcome(ctx(honba=1), manual(Seat.S1, None, 3, 40)))
    data = json.loads(json.dumps(s.to_json()))
    assert data["type"] == "settlement" and data["wins"][0]["han"] == 3
    assert data["deltas"] == list(s.deltas)
