"""Rank-up conditions (rules/conditions.py) against hand-computed cases (issue 19 item 3).

M.League payments (M 6-6, ron/tsumo tables of S §45), honba 300 (M 3-13-3), a riichi stick 1000
collected by the winner; ties go to the seat nearer the first dealer (M 6-2-6)."""

from __future__ import annotations

from rules.conditions import conditions
from rules.ruleset import load_ruleset
from rules.seats import Seat

ML = load_ruleset("mleague")
E, S, W, N = Seat.S0, Seat.S1, Seat.S2, Seat.S3
SCORES = (30000, 28000, 22000, 20000)


def _c(scores: tuple[int, ...] = SCORES, dealer: Seat = E, honba: int = 0, deposits: int = 0,
       ruleset: str = "mleague") -> tuple:  # type: ignore[type-arg]
    return conditions(load_ruleset(ruleset), scores, dealer, E, honba, deposits)


def test_the_leader_has_no_condition() -> None:
    assert _c()[0] is None


def test_second_place_two_thousand_behind_the_dealer() -> None:
    """S 28,000 behind E (dealer, first dealer) 30,000: a tie goes to E (M 6-2-6), so S needs
    more than 2,000. Ron off W or N: 2,300 (1 han 70 fu; 2,000 only ties). Tsumo: E pays the
    dealer's share, so 2·700 + 2·400 = 2,200 swings it: 400-700 (1 han 40 fu; 300-500 gains
    1,100 + 500 = 1,600 of swing, short). Direct hit off E: each point counts twice: more than
    1,000, so 1,300 (1 han 40 fu)."""
    c = _c()[1]
    assert c is not None and c.target == E and c.target_rank == 1
    assert c.ron is not None and (c.ron.points, c.ron.label) == (2300, "2,300")
    assert (c.ron.han, c.ron.fu) == (1, 70)
    assert c.tsumo is not None and c.tsumo.label == "400-700"
    assert (c.tsumo.han, c.tsumo.fu) == (1, 40)
    assert c.direct is not None and c.direct.label == "1,300"


def test_honba_and_deposits_count_for_the_winner() -> None:
    """One honba and one stick on the table: S collects 300 + 1,000 besides the hand, so any
    ron (1,000) is enough; a tsumo needs a swing over 600 in payments: 300-500."""
    c = _c(honba=1, deposits=1)[1]
    assert c is not None and c.ron is not None and c.ron.label == "1,000"
    assert c.tsumo is not None and c.tsumo.label == "300-500"
    assert c.direct is not None and c.direct.label == "1,000"


def test_third_place_six_thousand_behind() -> None:
    """W 22,000 behind S 28,000 (S nearer the first dealer wins a tie): ron 6,400 (6,000 only
    ties); tsumo d + 3n > 6,000: 1,300-2,600 (2 han 80 fu: 6,500; 1,200-2,300 is 5,900); direct
    hit 2P > 6,000: 3,200."""
    c = _c()[2]
    assert c is not None and c.target == S and c.target_rank == 2
    assert c.ron is not None and c.ron.points == 6400
    assert c.tsumo is not None and c.tsumo.label == "1,300-2,600"
    assert c.direct is not None and c.direct.label == "3,200"


def test_a_tie_wins_for_the_seat_nearer_the_first_dealer() -> None:
    """E (the first dealer) 24,000 behind S (dealer) 30,000: a tie goes to E, so a direct hit
    of 3,000 would do; no non-dealer ron pays exactly 3,000: 2,900 leaves 26,900 against 27,100,
    so 3,200 (1 han 100 fu)."""
    c = _c(scores=(24000, 30000, 23000, 23000), dealer=S)[0]
    assert c is not None and c.target == S
    assert c.direct is not None and c.direct.points == 3200


def test_a_dealer_tsumo_is_all() -> None:
    """N dealer 20,000 behind W 22,000 (W nearer the first dealer E): each pays the same, the
    target pays one share: 3e + e > 2,000: 700 all (1 han 40 fu, 2,800 swing; 500 all is 2,000:
    a tie, lost)."""
    c = _c(scores=(30000, 28000, 22000, 20000), dealer=N)[3]
    assert c is not None and c.tsumo is not None and c.tsumo.label == "700 all"


def test_out_of_reach_is_none_and_zung_jung_has_no_conditions() -> None:
    far = _c(scores=(100000, 0, 0, 0))
    c = far[1]
    assert c is not None and c.direct is None and c.ron is None and c.tsumo is None
    assert _c(ruleset="wmc") == (None, None, None, None)
