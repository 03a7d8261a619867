"""daemon.clocks.follow answers the inputs that move no clock by a set of their classes before its
match: the set must name only classes of the input union that the match's own no-move case
takes (a class missing from the set only costs the match)."""

from __future__ import annotations

from typing import Any, get_args

import pytest

from daemon import clocks as dc
from rules import inputs as ri
from rules.seats import Seat


def _running() -> dc.Clocks:
    clocks, _ = dc.follow(dc.Clocks(), ri.GameStart(ruleset="wmc", first_dealer=Seat.S1),
                          0, "table", None)
    clocks, _ = dc.follow(clocks, ri.DealDone(), 1_000, "table", 0)  # seat 0 deals
    assert clocks.state is not None
    return clocks


@pytest.mark.parametrize("cls", sorted(dc._STILL, key=str))
def test_every_class_of_the_shortcut_is_one_the_match_leaves_alone(cls: type) -> None:
    assert cls in get_args(ri.Input)
    # A subclass is not in the set by identity: its instance goes through the match.
    through_match: Any = object.__new__(type(f"Matched{cls.__name__}", (cls,), {}))
    clocks = _running()
    assert dc.follow(clocks, through_match, 2_000, "table", None) == (clocks, ())


def test_a_discard_is_not_in_the_shortcut_and_moves_the_clock() -> None:
    clocks = _running()
    after, _ = dc.follow(clocks, ri.Discard(seat=Seat(0)), 2_000_000_000, "table", None)
    assert ri.Discard not in dc._STILL
    assert after != clocks
