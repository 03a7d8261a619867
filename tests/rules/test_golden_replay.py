"""Issue 16 item 7: replaying every record in tests/data gives byte-identical ``--json`` output
and the same reducer event stream as the golden files in tests/data/golden (made before the rules
core was split). A deliberate change of behaviour regenerates them: ``python tests/rules/golden.py
--write`` (see that module)."""

from __future__ import annotations

import os
import subprocess

import golden
import pytest

from hil.kit import jantaku

FILES = golden.records()


def test_the_golden_files_cover_every_record() -> None:
    assert len(FILES) >= 40
    for rs in golden.RULESETS:
        assert sorted(golden.load_replays(rs)) == FILES, rs
    for rs in golden.EVENT_RULESETS:
        assert sorted(golden.load_events(rs)) == FILES, rs


@pytest.mark.parametrize("ruleset", golden.RULESETS)
def test_replay_json_is_byte_identical(ruleset: str) -> None:
    want = golden.load_replays(ruleset)
    changed = [f for f in FILES if golden.replay_cli(f, ruleset) != want[f]]
    assert not changed, f"replay --json --verify output changed under {ruleset}: {changed}"


@pytest.mark.parametrize("ruleset", golden.EVENT_RULESETS)
def test_event_streams_are_identical(ruleset: str) -> None:
    want = golden.load_events(ruleset)
    diffs = {}
    for f in FILES:
        d = golden.first_difference(want[f], golden.event_stream(f, ruleset))
        if d is not None:
            diffs[f] = d
    assert not diffs, "\n".join(f"{f}: {d}" for f, d in diffs.items())




@pytest.mark.parametrize("file", [
    "tests/data/game-logs/riichi-rs/random-games/2022080600gm-00a9-0000-06406b7f.json",
    "tests/data/mjai/mortal_riichi_ippatsu.jsonl",
])
def test_the_real_command_prints_the_golden_bytes(file: str) -> None:
    want = golden.load_replays("tenhou")[file]
    proc = subprocess.run(
        [jantaku(), "replay", file, "--ruleset", "tenhou", "--json", "--verify"],
        cwd=golden.ROOT, capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (want.exit, want.stdout, want.stderr)
