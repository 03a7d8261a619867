"""The pure leading-edge debouncer (drivers/debounce.py)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drivers.debounce import Debouncer, presses

MS = 1_000_000


def test_a_bouncy_press_and_release_is_one_press_at_the_first_contact() -> None:
    edges = [
        (100 * MS, True),
        (100 * MS + 80_000, False),  # bounce
        (100 * MS + 150_000, True),
        (100 * MS + 900_000, False),
        (101 * MS, True),
        (180 * MS, False),  # release, with its own bounce
        (180 * MS + 50_000, True),
        (180 * MS + 300_000, False),
    ]
    assert presses(edges, 20 * MS) == [100 * MS]


def test_presses_after_a_quiet_window_all_count() -> None:
    edges = [(0, True), (50 * MS, False), (90 * MS, True), (95 * MS, False), (116 * MS, True)]
    assert presses(edges, 20 * MS) == [0, 90 * MS, 116 * MS]


def test_a_lost_release_edge_costs_no_later_press() -> None:
    # the opening edge after the first press was coalesced away: two closing edges in a row
    assert presses([(0, True), (500 * MS, True)], 20 * MS) == [0, 500 * MS]


def test_an_edge_timestamped_in_the_past_counts_as_simultaneous() -> None:
    state, first = Debouncer(20 * MS).feed(100 * MS, True)
    state, late = state.feed(90 * MS, False)
    assert first and not late
    assert state.last_edge_ns == 100 * MS
    _, pressed = state.feed(119 * MS, True)
    assert not pressed


def test_window_zero_takes_every_closing_edge() -> None:
    assert presses([(0, True), (1, False), (2, True)], 0) == [0, 2]


@pytest.mark.parametrize("window", [-1, 1.5, True])
def test_bad_window(window: object) -> None:
    with pytest.raises((TypeError, ValueError)):
        Debouncer(window)  # type: ignore[arg-type]


EDGES = st.lists(st.tuples(st.integers(0, 50 * MS), st.booleans()), max_size=60).map(
    lambda steps: [(sum(d for d, _ in steps[: i + 1]), c) for i, (_, c) in enumerate(steps)]
)


@given(EDGES, st.integers(0, 30 * MS))
def test_properties(edges: list[tuple[int, bool]], window: int) -> None:
    got = presses(edges, window)
    closing = [t for t, c in edges if c]
    assert set(got) <= set(closing)  # a press is a real closing edge, with its own time
    assert all(b - a >= window for a, b in itertools.pairwise(got))
    # every closing edge preceded by a quiet window is a press
    for i, (t, c) in enumerate(edges):
        if c and (i == 0 or t - edges[i - 1][0] >= window):
            assert t in got
    assert presses(edges, window) == got  # deterministic
