"""Every scenario in hil/scenarios/ plays through the HIL path and meets its expectation."""

from __future__ import annotations

from pathlib import Path

import pytest

from hil.broker import mosquitto_binary
from hil.scenario import FAULTS, ScenarioError, load_scenario, parse_scenario, run_scenario

SCENARIOS = sorted((Path(__file__).parents[2] / "hil" / "scenarios").glob("*.toml"))
# the clean games (one per ruleset) are played by tests/hil/test_hil_games.py, with more checks
FAULTY = [p for p in SCENARIOS if not p.stem.startswith("clean-")]


def test_the_library_covers_every_fault_and_ruleset() -> None:
    scenarios = [load_scenario(p) for p in SCENARIOS]
    kinds = {f.kind for s in scenarios for f in s.faults}
    assert kinds == set(FAULTS)
    clean = {s.ruleset for s in scenarios if not s.faults}
    assert clean == {"saikouisen", "saikouisen-classic", "mleague", "mu", "wmc", "tenhou"}


@pytest.mark.parametrize("path", FAULTY, ids=[p.stem for p in FAULTY])
async def test_scenario(path: Path, tmp_path: Path) -> None:
    sc = load_scenario(path)
    assert sc.faults, "a fault scenario without a fault"
    needs_broker = any(f.kind in ("broker_down", "kill9") for f in sc.faults)
    if needs_broker and mosquitto_binary() is None:
        pytest.skip("needs a mosquitto binary (a private broker)")
    report = await run_scenario(sc, workdir=tmp_path)
    assert report.ok, report.summary()


async def test_a_wrong_expectation_fails(tmp_path: Path) -> None:
    sc = parse_scenario({
        "name": "misread-claimed-clean", "ruleset": "mleague", "seed": 5, "hands": 1,
        "fault": [{"kind": "misread", "at": {"hand": 1, "input": "draw", "nth": 2}}],
        "expect": {"equal": True, "violations": []},  # no rejection listed: must fail
    })
    report = await run_scenario(sc, workdir=tmp_path)
    assert not report.ok
    assert any("manifest_mismatch" in p for p in report.problems)


def test_scenario_files_are_checked() -> None:
    with pytest.raises(ScenarioError, match="kind"):
        parse_scenario({"name": "x", "ruleset": "mleague", "seed": 1,
                        "fault": [{"kind": "lightning", "at": {"input": "draw"}}]})
    with pytest.raises(ScenarioError, match="unknown key"):
        parse_scenario({"name": "x", "ruleset": "mleague", "seed": 1, "colour": "red"})
