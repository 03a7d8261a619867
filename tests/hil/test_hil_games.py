"""Complete simulated games through the HIL path: the bots' actions as table-link frames, RFID
frames, seat keys and GPIO edges into the production daemon, whose rules events must equal the
simulator's own reducer run, event by event (docs/hil.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hil.broker import PrivateBroker, mosquitto_binary
from hil.kit import bounded
from hil.runner.compare import comparable, first_difference
from hil.runner.session import run_game
from hil.scenario import Report, check, load_scenario

RULESETS = ("saikouisen", "saikouisen-classic", "mleague", "mu", "wmc", "tenhou")


CLEAN = {r: Path(__file__).parents[2] / "hil" / "scenarios" / f"clean-{r}.toml" for r in RULESETS}


@pytest.mark.parametrize("ruleset", RULESETS)
async def test_hil_game_equals_the_simulator(ruleset: str, logdir: Path) -> None:
    """The library's clean game of each ruleset (hil/scenarios/clean-*.toml)."""
    sc = load_scenario(CLEAN[ruleset])
    assert sc.ruleset == ruleset and not sc.faults and sc.expect.equal
    res = await run_game(ruleset, seed=sc.seed, hands=sc.hands, workdir=logdir)
    report = Report(sc, res)
    check(sc, res, report, None)
    assert report.ok, report.problems
    assert res.hands == 2
    assert res.violations == [] and res.sim_violations == []
    assert res.rejections == 0, res.rejection_reasons
    assert res.difference is None, res.difference
    # the comparison covers the whole game: every hand ended with the same scores
    ended = [e for e in res.daemon_events if e["type"] == "hand_ended"]
    assert len(ended) == 2
    assert res.final_scores == res.sim_scores
    assert sum(res.final_scores or []) + 1000 * ended[-1]["next"]["deposits"] == sum(
        ended[0]["outcome"]["context"]["scores"]) + 1000 * ended[0]["outcome"]["context"][
        "deposits"]


@pytest.mark.skipif(mosquitto_binary() is None, reason="no mosquitto binary")
async def test_hil_game_through_jantaku_run(tmp_path: Path) -> None:
    """The daemon as a venue runs it: `jantaku run --config` in its own process, the game started
    by a signed referee command, the events as an MQTT subscriber receives them."""
    broker = PrivateBroker(tmp_path / "broker").start()
    try:
        res = await run_game("wmc", seed=4, hands=1, workdir=tmp_path / "rig",
                             mqtt=("127.0.0.1", broker.port), process=True)
    finally:
        broker.stop()
    assert res.difference is None, res.difference
    assert res.violations == [] and res.rejections == 0
    assert [int(e["seq"]) for e in res.envelopes] == list(range(1, res.published + 1))
    assert any(e["type"] == "hand_ended" for e in res.daemon_events)


def test_the_comparison_sees_a_difference() -> None:
    a = [{"type": "discard", "seat": 1, "tile": 5, "riichi": False}]
    b = [{"type": "discard", "seat": 1, "tile": 6, "riichi": False}]
    assert first_difference(a, b) is not None
    assert first_difference(a, a) is None
    assert first_difference(a, a + a) is not None
    # timer and daemon events are not rules events; wall_known is not comparable by design
    assert comparable([{"type": "clock_started"}, {"type": "wall_known", "tiles": 136}]) == []


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", RULESETS)
async def test_hil_whole_games(ruleset: str, logdir: Path) -> None:
    seeds = range(40, bounded(41, 50))
    for seed in seeds:
        res = await run_game(ruleset, seed=seed, hands=None, workdir=logdir / str(seed))
        assert res.difference is None and not res.violations, (seed, res.difference)


async def test_games_one_after_another_in_one_daemon(logdir: Path) -> None:
    """A venue table plays game after game into one event log (jantaku demo, the soak): a game
    cut short is ended by the referee, and every game still equals its simulator run (the
    table-life game and hand numbers are shifted to the simulator's)."""
    from hil.runner.session import HilSession

    async with HilSession("tenhou", workdir=logdir) as session:
        for seed in (1, 2):
            res = await session.play(seed, 1)
            assert res.difference is None and not res.violations, (seed, res.difference)
        assert session.daemon is not None
        games = [e for e in session.daemon.events if e["type"] == "game_started"]
        assert [g["game"] for g in games] == [1, 2]


async def test_an_abortive_draw_declared_on_the_seat_panel(tmp_path: Path) -> None:
    """Four riichi (tenhou, seed 29: the first seed whose simulated game declares it in its 1st
    hand): the abort is a seat-panel key, the tenpai answers and the riichi keys of four seats
    all go through the tracker."""
    res = await run_game("tenhou", seed=29, hands=1, workdir=tmp_path)
    assert res.difference is None and not res.violations, res.difference
    aborts = [e for e in res.daemon_events if e["type"] == "hand_ended"
              and e["outcome"]["kind"] == "abortive"]
    assert [a["outcome"]["abort_kind"] for a in aborts] == ["four_riichi"]
