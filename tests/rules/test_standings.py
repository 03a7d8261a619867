"""Final standings: leftover deposits, ranks, ties, uma/oka and pt (M 6-2, points.* parameters)."""

from __future__ import annotations

import dataclasses
import json

from rules.game_flow import standings, start_game
from rules.ruleset import load_ruleset
from rules.seats import Seat
from rules.standings import compute_standings

S = load_ruleset("saikouisen")
M = load_ruleset("mleague")
MU = load_ruleset("mu")
T = load_ruleset("tenhou")
W = load_ruleset("wmc")


def pts(st: object) -> list[float]:
    return [s.total_pt for s in st.seats]  # type: ignore[attr-defined]


def test_m_6_2_4_examples() -> None:
    """M 6-2-4: 35,800 2nd → +5.8 +10.0 = +15.8; 41,600 1st → +11.6 +50.0 = +61.6 (M 6-1: 25,000
    each at the start; M 6-2-1: counted from 30,000; M 6-2-2: ranked by the final points;
    M 6-2-3: uma +50/+10/-10/-30, the oka inside the +50; 1,000 points = 1 pt)."""
    assert (M.points.start, M.points.return_points) == (25000, 30000)
    assert list(M.points.uma) == [50, 10, -10, -30] and M.points.points_per_pt == 1000
    st = compute_standings(M, (41600, 35800, 12600, 10000), Seat.S0)
    assert pts(st) == [61.6, 15.8, -27.4, -50.0]
    assert [s.rank for s in st.seats] == [1, 2, 3, 4]
    assert st.order == (Seat.S0, Seat.S1, Seat.S2, Seat.S3)
    assert round(sum(pts(st)), 6) == 0  # the oka (inside the uma) pays for the return


def test_leftover_deposits_to_the_top_m_6_2_5() -> None:
    """M 6-2-5 (and M 4-8-5): sticks left at the end go to the top."""
    st = compute_standings(M, (40000, 30000, 20000, 8000), Seat.S0, deposits=2)
    assert [s.points for s in st.seats] == [42000, 30000, 20000, 8000]
    assert st.seats[0].deposit_bonus == 2000


def test_leftover_deposits_to_nobody_s_39_12_mu_43_3() -> None:
    """S §39-12: sticks left at the end are withdrawn; μ §43(3): they go to nobody."""
    for ruleset in (S, MU):
        st = compute_standings(ruleset, (40000, 40000, 20000, 18000), Seat.S0, deposits=2)
        assert [s.points for s in st.seats] == [40000, 40000, 20000, 18000]


def test_tied_tops_split_deposits_400_300_300_m_6_2_6() -> None:
    """M 6-2-6: 1,000 → 400/300/300 and 2,000 → 800/600/600, the larger part to the seat
    nearest the first dealer."""
    scores = (20000, 26000, 26000, 26000)
    st = compute_standings(M, scores, Seat.S2, deposits=1)
    # First dealer S2: S2 is nearest, then S3, then S1.
    assert [s.deposit_bonus for s in st.seats] == [0, 300, 400, 300]
    st = compute_standings(M, scores, Seat.S2, deposits=2)
    assert [s.deposit_bonus for s in st.seats] == [0, 600, 800, 600]
    st = compute_standings(M, (30000, 30000, 20000, 18000), Seat.S0, deposits=2)
    assert [s.deposit_bonus for s in st.seats] == [1000, 1000, 0, 0]


def test_tied_ranks_share_the_uma_m_6_2_6() -> None:
    """Two tied for first share (50 + 10) / 2 = 30 each; the tied share one rank."""
    st = compute_standings(M, (35000, 35000, 20000, 10000), Seat.S0)
    assert [s.rank for s in st.seats] == [1, 1, 3, 4]
    assert [s.uma_pt for s in st.seats] == [30.0, 30.0, -10.0, -30.0]
    # Three tied for first: 50 + 10 − 10 = 50 → 16.8 / 16.6 / 16.6, the odd part to the seat
    # nearest the first dealer (first dealer S1: S1, then S2, then S3).
    st = compute_standings(M, (25000, 25000, 25000, 25000), Seat.S1)
    assert [s.rank for s in st.seats] == [1, 1, 1, 1]
    assert [s.uma_pt for s in st.seats] == [5.0, 5.0, 5.0, 5.0]
    st = compute_standings(M, (10000, 30000, 30000, 30000), Seat.S1)
    assert [s.uma_pt for s in st.seats] == [-30.0, 16.8, 16.6, 16.6]
    assert [s.rank for s in st.seats] == [4, 1, 1, 1]
    assert round(sum(pts(st)), 6) == 0


def test_seat_order_ties_tenhou() -> None:
    """Tenhou: the seat nearer the first dealer ranks higher; the leftover goes to that top."""
    st = compute_standings(T, (25000, 25000, 25000, 25000), Seat.S2, deposits=1)
    assert st.order == (Seat.S2, Seat.S3, Seat.S0, Seat.S1)
    assert [s.rank for s in st.seats] == [3, 4, 1, 2]
    assert [s.deposit_bonus for s in st.seats] == [0, 0, 1000, 0]


def test_pt_penalties_are_added() -> None:
    p = dataclasses.replace(
        start_game(M, Seat.S0), scores=(41600, 35800, 12600, 10000),
        pt_adjustments=(0.0, -20.0, 0.0, 0.0), finished=True,
    )  # fmt: skip
    st = standings(M, p)
    assert pts(st) == [61.6, -4.2, -27.4, -50.0] and st.finished
    assert st.seats[1].penalty_pt == -20.0


def test_wmc_points_are_pt() -> None:
    st = compute_standings(W, (120, -25, -25, -70), Seat.S0)
    assert pts(st) == [120.0, -25.0, -25.0, -70.0]
    assert [s.rank for s in st.seats] == [1, 2, 2, 4]


def test_standings_json() -> None:
    st = compute_standings(M, (41600, 35800, 12600, 10000), Seat.S0)
    data = json.loads(json.dumps(st.to_json()))
    assert data["order"] == [0, 1, 2, 3] and data["seats"][1]["total_pt"] == 15.8


def test_negative_shares_keep_the_larger_part_nearest_the_first_dealer() -> None:
    """M 6-2-6 "起家に近い方が大きいポイント": with a negative total the nearer seat loses less."""
    odd = dataclasses.replace(M, points=dataclasses.replace(M.points, uma=(30, 10, -10, -31)))
    st = compute_standings(odd, (50000, 20000, 20000, 20000), Seat.S2)
    # Places 2-4 share 10 − 10 − 31 = −31 pt: −10.4 each, 0.2 back to S2 (the first dealer).
    assert [s.uma_pt for s in st.seats] == [30.0, -10.4, -10.2, -10.4]
    assert round(sum(s.uma_pt for s in st.seats), 6) == -1.0


def test_sticks_never_break_the_tie_they_are_shared_over_m_6_2_6() -> None:
    """M 6-2-6: three tied for first with one leftover stick. The stick is split 400/300/300,
    but the rank and the uma are decided on the points before the sticks: all three share first
    place and its uma (16.8/16.6/16.6), and the stick shares come on top."""
    st = compute_standings(M, (30000, 30000, 30000, 8000), Seat.S0, deposits=1)
    assert [s.deposit_bonus for s in st.seats] == [400, 300, 300, 0]
    assert [s.points for s in st.seats] == [30400, 30300, 30300, 8000]
    assert [s.rank for s in st.seats] == [1, 1, 1, 4]
    assert [s.uma_pt for s in st.seats] == [16.8, 16.6, 16.6, -30.0]
    assert pts(st) == [17.2, 16.9, 16.9, -52.0]
    # Two tied for first with one stick: 500 each, both share (50 + 10) / 2.
    st = compute_standings(M, (35000, 35000, 20000, 9000), Seat.S1, deposits=1)
    assert [s.rank for s in st.seats] == [1, 1, 3, 4]
    assert [s.uma_pt for s in st.seats] == [30.0, 30.0, -10.0, -30.0]
