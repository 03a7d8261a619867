"""Checkpoints hold the whole table state (daemon/table.py): every ruleset and every input a state
may keep must pickle, or the daemon silently falls back to replaying the whole log on restart."""

from __future__ import annotations

import time
import types
from pathlib import Path

import daemon_kit
import pytest

from daemon.eventlog import EventLog
from daemon.table import TableCore
from hil.kit import commit_one
from rules.inputs import RefereeOverride


@pytest.mark.parametrize("ruleset", ["saikouisen", "mleague"])
def test_a_restart_resumes_from_a_checkpoint(tmp_path: Path, ruleset: str) -> None:
    # saikouisen carries the S §54-3 minor-chombo table (a mapping inside the ruleset)
    script = daemon_kit.game_inputs(2, ruleset=ruleset, seed=3)
    db = tmp_path / "t.sqlite"
    log = EventLog(db, "cp")
    core = TableCore(log, daemon_kit.engine(), "cp", checkpoint_every=5)
    for body in script:
        commit_one(core, "input", "table", body, time.monotonic_ns(), time.time_ns(), "b")
    assert core.checkpoint()
    snap = core.view()
    log.close()
    log = EventLog(db, "cp")
    try:
        again = TableCore(log, daemon_kit.engine(), "cp", checkpoint_every=5)
        rec = again.recover()
        assert rec.checkpoint == len(script) and rec.replayed == 0
        assert again.view() == snap
    finally:
        log.close()


def test_a_referee_override_with_args_survives_a_checkpoint(tmp_path: Path) -> None:
    # RefereeOverride.args is read-only (types.MappingProxyType) once decoded from JSON
    override = RefereeOverride("set_scores", args=types.MappingProxyType({"scores": [1, 2, 3, 4]}))
    log = EventLog(tmp_path / "t.sqlite", "cp")
    try:
        log.save_checkpoint(1, 1, "code", {"kept": override})
        cp = log.load_checkpoint("code", 1)
        assert cp is not None and cp.state == {"kept": override}
        assert isinstance(cp.state["kept"].args, types.MappingProxyType)
    finally:
        log.close()
