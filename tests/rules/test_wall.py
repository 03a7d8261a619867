"""Wall geometry exactly as docs/table-geometry.md states it (S §11-12, §24, §34;
M 2-2..2-6, 3-4-5/6; μ §9, §14, §16; W 开门-1..4, 配牌)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.ruleset import load_ruleset
from rules.seats import SEATS, Seat, seat_by_dice
from rules.wall import (
    Break,
    Layer,
    Position,
    Wall,
    WallError,
    break_from_dice,
    dora_indicator_indices,
    fallback_break_from_indicator,
    fallback_break_no_indicator,
    ura_indicator_indices,
    wall_report,
)


def spec_ring_stacks(b: Seat, t: int) -> list[tuple[Seat, int]]:
    """The ring as the spec words it, stack by stack: for t <= 17, b's stacks t+1..17, then
    b-1, b-2, b-3 stacks 1..17, then b's stacks 1..t; for WMC's t > 17 the count runs on into
    the wall of the breaker's left neighbour (its stack 1 is the 18th) and the live wall starts
    right after the counted stacks."""
    out: list[tuple[Seat, int]] = []
    if t <= 17:
        out += [(b, n) for n in range(t + 1, 18)]
        for k in (1, 2, 3):
            out += [(b.plus(-k), n) for n in range(1, 18)]
        out += [(b, n) for n in range(1, t + 1)]
    else:
        left = b.plus(-1)
        u = t - 17
        out += [(left, n) for n in range(u + 1, 18)]
        for k in (2, 3):
            out += [(b.plus(-k), n) for n in range(1, 18)]
        out += [(b, n) for n in range(1, 18)]
        out += [(left, n) for n in range(1, u + 1)]
    return out


@pytest.mark.parametrize("b", SEATS)
@pytest.mark.parametrize("t", range(1, 25))
def test_ring_order_matches_the_spec_wording(b: Seat, t: int) -> None:
    wall = Wall(Break(b, t))
    ring = wall.ring()
    stacks = spec_ring_stacks(b, t)
    assert len(stacks) == 68 and len(set(stacks)) == 68
    for i, pos in enumerate(ring):
        seat, stack = stacks[i // 2]
        assert (pos.seat, pos.stack) == (seat, stack), i
        assert pos.layer is (Layer.TOP if i % 2 == 0 else Layer.BOTTOM)
    assert len(set(ring)) == 136


@given(st.sampled_from(SEATS), st.integers(1, 24), st.integers(0, 135))
def test_index_and_position_are_inverse(b: Seat, t: int, i: int) -> None:
    w = Wall(Break(b, t))
    assert w.index(w.position(i)) == i


def test_worked_example_break_at_seat_2_leaving_7() -> None:
    # Dealer 0 rolls 7 (3+4): opposite wall (S §3), 7 stacks left on its right (S §11).
    brk = break_from_dice(load_ruleset("saikouisen"), Seat.S0, ((3, 4),))
    assert brk == Break(Seat.S2, 7)
    w = Wall(brk)
    assert w.position(0) == Position(Seat.S2, 8, Layer.TOP)
    assert w.position(1) == Position(Seat.S2, 8, Layer.BOTTOM)
    assert w.position(19) == Position(Seat.S2, 17, Layer.BOTTOM)
    assert w.position(20) == Position(Seat.S1, 1, Layer.TOP)  # on to the breaker's left
    # dead wall end (王牌末尾) = ring stack 67 = b's stack t; the indicator D3 upper = stack t-2
    assert w.position(134) == Position(Seat.S2, 7, Layer.TOP)
    assert w.position(135) == Position(Seat.S2, 7, Layer.BOTTOM)
    assert w.position(132) == Position(Seat.S2, 6, Layer.TOP)
    assert w.position(Wall.DORA) == Position(Seat.S2, 5, Layer.TOP)
    assert w.position(Wall.URA[0]) == Position(Seat.S2, 5, Layer.BOTTOM)
    assert [w.position(i).stack for i in Wall.KAN_DORA] == [4, 3, 2, 1]


def test_deal_indices_per_spec() -> None:
    for dealer in SEATS:
        deal = Wall.deal_indices(dealer)
        east, south, west, north = (deal[dealer.plus(k)] for k in range(4))
        assert east == [0, 1, 2, 3, 16, 17, 18, 19, 32, 33, 34, 35, 48, 52]
        assert south == [4, 5, 6, 7, 20, 21, 22, 23, 36, 37, 38, 39, 49]
        assert west == [8, 9, 10, 11, 24, 25, 26, 27, 40, 41, 42, 43, 50]
        assert north == [12, 13, 14, 15, 28, 29, 30, 31, 44, 45, 46, 47, 51]
        used = sorted(i for v in deal.values() for i in v)
        assert used == list(range(53))
    assert Wall.FIRST_DRAW == 53


def test_dead_wall_indices() -> None:
    """S §12-1: each kan moves the haitei one tile into the dead wall (14 tiles stay)."""
    assert Wall.RINSHAN == (134, 135, 132, 133)
    assert Wall.DORA == 130
    assert Wall.KAN_DORA == (128, 126, 124, 122)
    assert Wall.URA == (131, 129, 127, 125, 123)
    w = Wall(Break(Seat.S1, 5))
    assert w.live_end == 122
    assert [w.haitei(k) for k in range(5)] == [121, 120, 119, 118, 117]
    # 69 - k live draws after the deal (geometry "Dead wall")
    assert [w.haitei(k) - Wall.FIRST_DRAW + 1 for k in range(5)] == [69, 68, 67, 66, 65]
    with pytest.raises(WallError):
        w.haitei(5)


def test_indicator_indices_follow_the_ruleset() -> None:
    assert dora_indicator_indices(load_ruleset("saikouisen")) == [130, 128, 126, 124, 122]
    assert dora_indicator_indices(load_ruleset("mu")) == [130]  # μ §16: one per hand
    assert dora_indicator_indices(load_ruleset("wmc")) == []
    assert ura_indicator_indices(load_ruleset("mleague")) == [131, 129, 127, 125, 123]
    assert ura_indicator_indices(load_ruleset("saikouisen-classic")) == []


@pytest.mark.parametrize(
    ("total", "relative"),
    [(5, 0), (9, 0), (2, 1), (6, 1), (10, 1), (3, 2), (7, 2), (11, 2), (4, 3), (8, 3), (12, 3)],
)
def test_dice_count_the_roller_as_one(total: int, relative: int) -> None:
    for roller in SEATS:
        assert seat_by_dice(roller, total) == roller.plus(relative)


def test_wmc_two_rolls_count_past_17() -> None:
    rs = load_ruleset("wmc")
    # Dealer 3 rolls 6: the seat at his right (3+1 = 0) breaks and rolls 6+6: count 18.
    brk = break_from_dice(rs, Seat.S3, ((3, 3), (6, 6)))
    assert brk == Break(Seat.S0, 18)
    w = Wall(brk)
    # W 开门-4: past 17 the count runs into the breaker's left wall (seat 3), stack 1 = 18th.
    assert w.position(0) == Position(Seat.S3, 2, Layer.TOP)
    assert w.position(Wall.RINSHAN[0]) == Position(Seat.S3, 1, Layer.TOP)
    top = break_from_dice(rs, Seat.S0, ((6, 6), (6, 6)))
    assert top == Break(Seat.S3, 24)
    assert Wall(top).position(0) == Position(Seat.S2, 8, Layer.TOP)
    with pytest.raises(WallError, match="2 rolls"):
        break_from_dice(rs, Seat.S0, ((1, 2),))
    with pytest.raises(WallError, match="1 roll"):
        break_from_dice(load_ruleset("saikouisen"), Seat.S0, ((1, 2), (3, 4)))
    with pytest.raises(WallError, match=r"1\.\.6"):
        break_from_dice(load_ruleset("saikouisen"), Seat.S0, ((0, 7),))


def test_m_3_4_6_fallback_dealer_breaks_at_7() -> None:
    for dealer in SEATS:
        brk = fallback_break_no_indicator(dealer)
        assert brk == Break(dealer, 7)
        # ... and turns the dealer's stack 5 top = ring index 130 again.
        assert Wall(brk).position(Wall.DORA) == Position(dealer, 5, Layer.TOP)


@given(st.sampled_from(SEATS), st.integers(1, 17))
def test_m_3_4_5_fallback_keeps_the_indicator_third_in_the_dead_wall(seat: Seat,
                                                                      stack: int) -> None:
    ind = Position(seat, stack, Layer.TOP)
    brk = fallback_break_from_indicator(ind)
    assert Wall(brk).position(Wall.DORA) == ind


def test_m_3_4_5_wraps_to_the_left_wall() -> None:
    assert fallback_break_from_indicator(Position(Seat.S2, 16, Layer.TOP)) == Break(Seat.S1, 1)
    assert fallback_break_from_indicator(Position(Seat.S2, 15, Layer.TOP)) == Break(Seat.S2, 17)


def test_bad_geometry_values() -> None:
    with pytest.raises(WallError):
        Position(Seat.S0, 18, Layer.TOP)
    with pytest.raises(WallError):
        Break(Seat.S0, 25)
    with pytest.raises(WallError):
        Wall(Break(Seat.S0, 5), dead_wall_tiles=16)
    with pytest.raises(WallError):
        Position.from_json({"seat": 0, "stack": 3})
    for bad in (2.5, "3", True):
        with pytest.raises(WallError, match="stack must be an integer"):
            Position.from_json({"seat": 0, "stack": bad, "layer": "top"})
    assert Position.from_json({"seat": 1, "stack": 3, "layer": "bottom"}) == Position(
        Seat.S1, 3, Layer.BOTTOM)


def test_wall_report_is_consistent() -> None:
    rs = load_ruleset("mleague")
    rep = wall_report(rs, Seat.S1, ((2, 2),), kans=1)
    assert rep["break"] == {"seat": 0, "count": 4}
    assert rep["haitei"] == 120
    assert rep["ring"][0] == {"seat": 0, "stack": 5, "layer": "top"}
    assert rep["deal"]["1"][-1] == 52
    with pytest.raises(WallError):
        wall_report(rs, Seat.S1, ((2, 2),), kans=5)
