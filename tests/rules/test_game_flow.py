"""Game flow: renchan, rotation, honba, deposits, replays and the end of the game, per ruleset."""

from __future__ import annotations

import dataclasses

import pytest

from rules.game_flow import GameFlowError, GameProgress, advance, start_game
from rules.outcome import HandContext, HandOutcome, ManualValue, Win
from rules.ruleset import Ruleset, load_ruleset
from rules.seats import Seat, Wind
from rules.settlement import settle

S = load_ruleset("saikouisen")
C = load_ruleset("saikouisen-classic")
M = load_ruleset("mleague")
MU = load_ruleset("mu")
T = load_ruleset("tenhou")
W = load_ruleset("wmc")


def context(p: GameProgress, riichi: tuple[Seat, ...] = ()) -> HandContext:
    scores = tuple(s - (1000 if Seat(i) in riichi else 0) for i, s in enumerate(p.scores))
    return HandContext(
        dealer=p.dealer,
        round_wind=p.round_wind,
        honba=p.honba,
        deposits=p.deposits + len(riichi),
        scores=scores,  # type: ignore[arg-type]
        aka=True,
        riichi_seats=riichi,
    )


def ron(ruleset: Ruleset, p: GameProgress, winner: Seat, loser: Seat, han: int = 1,
        fu: int = 30, riichi: tuple[Seat, ...] = ()) -> GameProgress:  # fmt: skip
    value = (
        ManualValue(points=han * 10) if ruleset.meta.family == "zung_jung" else ManualValue(han, fu)
    )
    win = Win(winner, loser, (), None, manual=value)
    outcome = HandOutcome("win", context(p, riichi), wins=(win,))
    return advance(ruleset, p, outcome, settle(ruleset, outcome))


def tsumo(
    ruleset: Ruleset, p: GameProgress, winner: Seat, han: int = 1, fu: int = 30
) -> GameProgress:
    outcome = HandOutcome(
        "win", context(p), wins=(Win(winner, None, (), None, manual=ManualValue(han, fu)),)
    )
    return advance(ruleset, p, outcome, settle(ruleset, outcome))


def draw(
    ruleset: Ruleset, p: GameProgress, *tenpai: Seat, riichi: tuple[Seat, ...] = ()
) -> GameProgress:
    outcome = HandOutcome("exhaustive", context(p, riichi), tenpai=tenpai)
    return advance(ruleset, p, outcome, settle(ruleset, outcome))


def where(p: GameProgress) -> tuple[str, int, int, int]:
    return (p.round_wind.mjai, p.hand_in_round + 1, int(p.dealer), p.honba)


def test_start_game() -> None:
    p = start_game(M, Seat.S2)
    assert where(p) == ("E", 1, 2, 0) and p.scores == (25000,) * 4 and p.rounds == 2
    assert start_game(S, Seat.S0).scores == (30000,) * 4
    assert start_game(T, Seat.S0, rounds=1).rounds == 1
    assert start_game(T, Seat.S0, scores=(1, 2, 3, 4)).scores == (1, 2, 3, 4)
    with pytest.raises(GameFlowError):
        start_game(T, Seat.S0, rounds=0)


def test_renchan_on_a_dealer_win_honba_up_reset_by_a_non_dealer_win() -> None:
    """S §27-1, §50-1,3; M 3-12-3, 3-13-1,4."""
    p = start_game(M, Seat.S1)
    p = ron(M, p, Seat.S1, Seat.S2)
    assert where(p) == ("E", 1, 1, 1)
    p = tsumo(M, p, Seat.S1)
    assert where(p) == ("E", 1, 1, 2)
    p = ron(M, p, Seat.S3, Seat.S1)
    assert where(p) == ("E", 2, 2, 0)


def test_draw_tenpai_renchan_and_honba_after_draw() -> None:
    """M 3-12-3: dealer tenpai keeps the deal; M 3-13-1: any draw adds a honba."""
    p = start_game(M, Seat.S0)
    p = draw(M, p, Seat.S0, Seat.S2)
    assert where(p) == ("E", 1, 0, 1) and p.scores == (26500, 23500, 26500, 23500)
    p = draw(M, p, Seat.S1)
    assert where(p) == ("E", 2, 1, 2)


def test_classic_renchan_on_a_win_only() -> None:
    """C-sum: the dealer keeps the deal only by winning; no tenpai payments."""
    p = draw(C, start_game(C, Seat.S0), Seat.S0)
    assert where(p) == ("E", 2, 1, 1) and p.scores == (30000,) * 4
    p = ron(C, p, Seat.S1, Seat.S0)
    assert where(p) == ("E", 2, 1, 2)


def test_deposits_carry_over_draws_and_go_to_the_next_winner() -> None:
    """S §39-11: a deposit left at a draw stays on the table and goes to the next winner."""
    p = draw(S, start_game(S, Seat.S0), Seat.S1, riichi=(Seat.S1,))
    assert p.deposits == 1 and p.scores == (29000, 32000, 29000, 29000)
    p = ron(S, p, Seat.S2, Seat.S3, riichi=(Seat.S0,))
    assert p.deposits == 0
    assert p.scores == (28000, 32000, 29000 + 1000 + 300 + 2000, 29000 - 1300)


def test_chombo_replays_the_hand_honba_unchanged() -> None:
    """M 7-4-6 (積み棒は増えない), S §53-5: same dealer, same honba; −20 pt to the offender."""
    p = draw(M, start_game(M, Seat.S0), Seat.S0)
    outcome = HandOutcome("chombo", context(p), offender=Seat.S3)
    q = advance(M, p, outcome, settle(M, outcome))
    assert where(q) == where(p) and q.hands_played == p.hands_played + 1
    assert q.pt_adjustments == (0.0, 0.0, 0.0, -20.0) and q.scores == p.scores


def test_abortive_draw_keeps_the_deal_with_a_honba() -> None:
    p = start_game(T, Seat.S0)
    outcome = HandOutcome("abortive", context(p, riichi=(Seat.S1,)), abort_kind="nine_terminals")
    p = advance(T, p, outcome, settle(T, outcome))
    assert where(p) == ("E", 1, 0, 1) and p.deposits == 1


def test_double_ron_with_the_dealer_among_the_winners_is_renchan() -> None:
    p = start_game(T, Seat.S0)
    wins = (
        Win(Seat.S0, Seat.S2, (), None, manual=ManualValue(1, 30)),
        Win(Seat.S3, Seat.S2, (), None, manual=ManualValue(1, 30)),
    )
    outcome = HandOutcome("win", context(p), wins=wins)
    p = advance(T, p, outcome, settle(T, outcome))
    assert where(p) == ("E", 1, 0, 1)


def test_wmc_fixed_rotation_eight_hands() -> None:
    """W 庄家及门风-6: no renchan, not even for the dealer's win; the session is fixed."""
    p = start_game(W, Seat.S3)
    seen = []
    for _ in range(8):
        seen.append(where(p))
        p = ron(W, p, p.dealer, p.dealer.shimocha)
    assert p.finished and p.end_reason == "last_hand" and p.hands_played == 8
    assert [s[2] for s in seen] == [3, 0, 1, 2, 3, 0, 1, 2]
    assert [s[0] for s in seen] == ["E"] * 4 + ["S"] * 4
    assert sum(p.scores) == 0


def test_game_ends_after_the_last_hand_without_renchan() -> None:
    p = dataclasses.replace(start_game(M, Seat.S0), round_wind=Wind.SOUTH, hand_in_round=3,
                            dealer=Seat.S3)  # fmt: skip
    q = ron(M, p, Seat.S3, Seat.S0)  # the all-last dealer wins: M plays on (no stop rule)
    assert not q.finished and where(q) == ("S", 4, 3, 1)
    q = ron(M, q, Seat.S1, Seat.S0)
    assert q.finished and q.end_reason == "last_hand"
    with pytest.raises(GameFlowError):
        ron(M, q, Seat.S1, Seat.S0)


def test_east_only_game_from_a_game_start_override() -> None:
    p = dataclasses.replace(start_game(T, Seat.S0, rounds=1), hand_in_round=3, dealer=Seat.S3,
                            scores=(31000, 25000, 24000, 20000))  # fmt: skip
    q = ron(T, p, Seat.S0, Seat.S1)
    assert q.finished and q.end_reason == "last_hand"


def test_bust_ends_a_tenhou_game_but_m_plays_on() -> None:
    """M 3-2-4: play continues below zero; Tenhou: a score below zero ends the game."""
    scores = (1000, 33000, 33000, 33000)
    for ruleset, finished in ((T, True), (M, False)):
        p = dataclasses.replace(start_game(ruleset, Seat.S0), scores=scores)
        q = ron(ruleset, p, Seat.S1, Seat.S0, han=3, fu=30)
        assert q.scores[0] < 0 and q.finished is finished
        assert q.end_reason == ("bust" if finished else "")
    p = dataclasses.replace(start_game(T, Seat.S0), scores=(1000, 33000, 33000, 33000))
    q = ron(T, p, Seat.S1, Seat.S0, han=1, fu=30)  # exactly zero: play on
    assert q.scores[0] == 0 and not q.finished


def south_four(ruleset: Ruleset, scores: tuple[int, int, int, int]) -> GameProgress:
    return dataclasses.replace(start_game(ruleset, Seat.S0), round_wind=Wind.SOUTH,
                               hand_in_round=3, dealer=Seat.S3, scores=scores)  # fmt: skip


def test_all_last_dealer_stop_when_top() -> None:
    """Tenhou: the all-last dealer who is sole top after a win or tenpai ends the game."""
    p = south_four(T, (30000, 20000, 15000, 35000))
    q = ron(T, p, Seat.S3, Seat.S2)
    assert q.finished and q.end_reason == "all_last_stop"
    q = draw(T, p, Seat.S3)
    assert q.finished and q.end_reason == "all_last_stop"
    # Not top: plays on.
    p = south_four(T, (40000, 20000, 15000, 25000))
    q = ron(T, p, Seat.S3, Seat.S2)
    assert not q.finished and where(q) == ("S", 4, 3, 1)
    # Tied top is not top.
    p = south_four(T, (34000, 26000, 6000, 33000))
    q = ron(T, p, Seat.S3, Seat.S2, han=1, fu=30)  # dealer +1500 → 34500 > 34000
    assert q.finished
    p = south_four(T, (34500, 26000, 6000, 33000))
    q = ron(T, p, Seat.S3, Seat.S2, han=1, fu=30)  # 34500 = 34500: not sole top
    assert not q.finished


def test_tenhou_west_round_extension() -> None:
    """Tenhou: nobody at 30,000 after South 4 → West; it ends as soon as somebody reaches it
    at a hand's end, or after the West round."""
    p = south_four(T, (27000, 26000, 24000, 23000))
    q = ron(T, p, Seat.S0, Seat.S1)  # 28000: nobody reached 30,000
    assert not q.finished and where(q) == ("W", 1, 0, 0) and q.in_extension
    r = ron(T, q, Seat.S2, Seat.S3)  # S2 25000
    assert not r.finished and where(r) == ("W", 2, 1, 0)
    r = ron(T, r, Seat.S1, Seat.S2)  # the West 2 dealer: 26000 + 1500, renchan
    assert not r.finished and where(r) == ("W", 2, 1, 1)
    r = ron(T, r, Seat.S0, Seat.S3, han=2)  # S0 28000 + 2000 + 300 = 30300
    assert r.scores[0] == 30300
    assert r.finished and r.end_reason == "extension_target"
    # Played out: West 4 ends the game whatever the scores.
    w4 = dataclasses.replace(
        q, hand_in_round=3, dealer=Seat.S3, scores=(26000, 25000, 25000, 24000)
    )
    end = ron(T, w4, Seat.S0, Seat.S1)
    assert end.finished and end.end_reason == "extension_end"
    # Somebody at 30,000 after South 4: no extension.
    p = south_four(T, (31000, 26000, 20000, 23000))
    assert ron(T, p, Seat.S0, Seat.S1).end_reason == "last_hand"


def test_progress_json() -> None:
    data = start_game(M, Seat.S1).to_json()
    assert data["dealer"] == 1 and data["round_wind"] == "E" and data["scores"] == [25000] * 4


def test_a_point_chombo_can_bust_where_a_bust_ends_the_game() -> None:
    rs = dataclasses.replace(
        MU,
        penalties=dataclasses.replace(MU.penalties, chombo="points"),
        game=dataclasses.replace(MU.game, bust="end_below_zero"),
    )
    p = dataclasses.replace(start_game(rs, Seat.S0), scores=(10000, 40000, 40000, 30000))
    outcome = HandOutcome("chombo", context(p), offender=Seat.S0)
    q = advance(rs, p, outcome, settle(rs, outcome))
    assert q.scores[0] == -10000 and q.finished and q.end_reason == "bust"
    plain = dataclasses.replace(rs, game=MU.game)
    q = advance(plain, p, outcome, settle(plain, outcome))
    assert not q.finished and where(q) == where(p)


def test_mu_24_east_and_south_and_43_2_deposits_stay_on_a_draw() -> None:
    """μ §24: a game ends when every seat has dealt twice (East and South); μ §43(2): at a draw
    the riichi deposit stays on the table for the next winner."""
    p = start_game(MU, Seat.S0)
    assert p.rounds == 2
    p = draw(MU, p, Seat.S1, riichi=(Seat.S1,))
    assert p.deposits == 1 and where(p) == ("E", 2, 1, 1)  # the noten dealer passes the deal
    q = ron(MU, p, Seat.S2, Seat.S3)
    assert q.deposits == 0  # the next winner takes it
    p = dataclasses.replace(p, round_wind=Wind.SOUTH, hand_in_round=3, dealer=Seat.S3)
    q = ron(MU, p, Seat.S1, Seat.S0)
    assert q.finished and q.end_reason == "last_hand"
    p = dataclasses.replace(p, round_wind=Wind.EAST, hand_in_round=3, dealer=Seat.S3)
    assert not ron(MU, p, Seat.S1, Seat.S0).finished  # after East 4 comes South 1


def test_s_27_east_and_south_renchan_on_win_or_tenpai() -> None:
    """S §27-1,2: the dealer keeps the deal when winning or tenpai at a draw; S §27-3..6: East
    then South, the game ends after South 4; S §60: the next hand's dealer, round and honba
    follow from the result."""
    p = start_game(S, Seat.S0)
    assert p.rounds == 2
    p = draw(S, p, Seat.S0)
    assert where(p) == ("E", 1, 0, 1)  # dealer tenpai: renchan, one honba
    p = ron(S, p, Seat.S0, Seat.S1)
    assert where(p) == ("E", 1, 0, 2)  # dealer win: renchan
    p = draw(S, p, Seat.S1)
    assert where(p) == ("E", 2, 1, 3)  # dealer noten: the deal passes, the honba stays
    p = ron(S, p, Seat.S2, Seat.S3)
    assert where(p) == ("E", 3, 2, 0)  # a non-dealer win: next dealer, honba reset
    p = dataclasses.replace(p, hand_in_round=3, dealer=Seat.S3)
    q = ron(S, p, Seat.S1, Seat.S0)
    assert where(q)[0] == "S" and not q.finished  # after East 4, South 1
    p = dataclasses.replace(p, round_wind=Wind.SOUTH)
    q = ron(S, p, Seat.S1, Seat.S0)
    assert q.finished and q.end_reason == "last_hand"


def test_s_54_2_a_chombo_replays_the_hand() -> None:
    """S §53-5, §54-1,2: after a chombo the hand is replayed: same dealer, same honba."""
    p = draw(S, start_game(S, Seat.S0), Seat.S0)
    outcome = HandOutcome("chombo", context(p), offender=Seat.S2)
    q = advance(S, p, outcome, settle(S, outcome))
    assert where(q) == where(p) and q.hands_played == p.hands_played + 1
    assert q.pt_adjustments[Seat.S2] < 0


def test_an_abortive_draw_at_all_last_never_ends_the_game_tenhou() -> None:
    """Issue 17 B14 (the external engine, Tenhou rules): the all-last dealer stop follows a win
    or a tenpai renchan only; an abortive draw keeps the deal and the game goes on (before, a
    sole-top dealer's nine-terminals draw ended it)."""
    p = south_four(T, (30000, 20000, 15000, 35000))
    for kind in ("nine_terminals", "four_winds", "four_riichi", "four_kans", "triple_ron"):
        outcome = HandOutcome("abortive", context(p), abort_kind=kind)  # type: ignore[arg-type]
        q = advance(T, p, outcome, settle(T, outcome))
        assert not q.finished, kind
        assert where(q) == ("S", 4, 3, p.honba + 1), kind
