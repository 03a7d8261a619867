"""A ron that another seat could still have claimed by shape alone (its bot passes: no yaku or
furiten) waits for the referee; the simulator confirms it and the HIL runner sends the referee's
confirm_win to the daemon (mleague, seed 277; before the simulator played the shared world of
hil/players/, seed 159 was the case that once stopped it)."""

from __future__ import annotations

from pathlib import Path

from hil.runner.session import run_game
from hil.simulator import GameSimulator
from rules.inputs import RefereeOverride


def test_the_simulator_confirms_a_ron_that_waits() -> None:
    steps = list(GameSimulator("mleague", 277, hands=4).steps())
    confirms = [s for s in steps if isinstance(s.input, RefereeOverride)]
    assert confirms, "seed 277 no longer produces a ron that waits for the referee"
    assert all(s.input.action == "confirm_win" for s in confirms)


async def test_hil_game_with_a_referee_confirmation(tmp_path: Path) -> None:
    res = await run_game("mleague", seed=277, hands=4, workdir=tmp_path)
    assert res.violations == [] and res.sim_violations == []
    assert res.difference is None, res.difference
    assert res.hands == 4
