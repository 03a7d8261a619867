"""The scoreboard (rules/table_view.py:scoreboard) the daemon reads after every input, for the
score and honba displays and ``state/scores``, holds the same values as the whole view model at
every step of played games (hands won, drawn, renchan, honba and sticks carried), in every
riichi ruleset."""

from __future__ import annotations

from typing import Any

import pytest

from hil.simulator import GameSimulator
from rules.reducer.dispatch import new_table, reduce
from rules.table_view import scoreboard, table_view


def _from_view(view: dict[str, Any]) -> dict[str, Any]:
    seats = view["seats"]
    return {
        "names": [s.get("name", "") for s in seats],
        "scores": [s.get("score") for s in seats],
        "dealer": view.get("dealer"),
        "round_wind": view.get("round_wind"),
        "hand_in_round": view.get("hand_in_round"),
        "honba": view.get("honba"),
        "deposits": view.get("deposits"),
    }


@pytest.mark.parametrize("ruleset", ["mleague", "saikouisen", "mu", "tenhou"])
def test_the_scoreboard_is_the_view_s_numbers_at_every_step(ruleset: str) -> None:
    t = new_table()
    assert scoreboard(t) == _from_view(table_view(t))
    honba = set()
    for step in GameSimulator(ruleset, 11, hands=4).steps():
        t, _ = reduce(t, step.input)
        board = scoreboard(t)
        assert board == _from_view(table_view(t)), step.input
        honba.add(board["honba"])
    assert board["scores"] != [None] * 4
