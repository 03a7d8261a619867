"""`jantaku log export --db FILE --game N --format mjai|tenhou6` on a sensor table's event log (a
real SQLite file written by the daemon's TableCore): every draw, discard and call is in the
record, it opens in riichienv (a Mortal/libriichi-family mjai reader) and re-imports with
`jantaku replay --verify` clean; an unfinished hand is left out with a note; a missing game is
refused with a clear message."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "daemon"))

import itertools

import daemon_kit

from daemon.eventlog import EventLog
from daemon.table import TableCore
from hil.kit import commit_one


def jantaku(*args: str) -> subprocess.CompletedProcess[str]:
    exe = Path(sys.executable).with_name("jantaku")
    return subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=120)


def sensor_log(db: Path, hands: int, extra: tuple[dict[str, object], ...] = ()
               ) -> list[dict[str, object]]:
    game = daemon_kit.legal_game(hands, seed=3)
    log = EventLog(db, "tsens")
    core = TableCore(log, daemon_kit.engine(), "tsens")
    for body in [*game, *extra]:
        commit_one(core, "input", "table", body, time.monotonic_ns(), time.time_ns(), "boot-1")
    log.close()
    return game


def test_a_sensor_game_goes_to_review_tools(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite"
    game = sensor_log(db, 4, ({"type": "hand_start"}, {"type": "wall_raised"}))
    out = tmp_path / "g.mjson"
    r = jantaku("log", "export", "--db", str(db), "--game", "1", "--format", "mjai",
                "--out", str(out))
    assert r.returncode == 0, r.stderr
    # the hand the table had only begun is left out, and said so
    assert "has not ended: left out" in r.stderr
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    kinds = {e["type"] for e in lines}
    assert {"start_kyoku", "tsumo", "dahai", "end_kyoku"} <= kinds
    draws = sum(1 for g in game if g["type"] == "draw")
    assert sum(1 for e in lines if e["type"] == "tsumo") >= draws  # rinshan draws too
    riichienv = pytest.importorskip("riichienv")
    kyokus = list(riichienv.MjaiReplay.from_jsonl(str(out)).take_kyokus())
    starts = sum(1 for g in game if g["type"] == "hand_start")
    assert len(kyokus) == starts
    for a, b in itertools.pairwise(kyokus):
        assert list(a.end_scores) == list(b.scores)  # the reader follows every payment
    verify = jantaku("replay", str(out), "--format", "mjai", "--ruleset", "mleague", "--verify")
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert "verified: every hand matches the record" in verify.stdout
    r = jantaku("log", "export", "--db", str(db), "--game", "1", "--format", "tenhou6")
    assert r.returncode == 0, r.stderr
    t6 = tmp_path / "g.json"
    t6.write_text(r.stdout)
    assert len(json.loads(r.stdout)["log"]) == starts
    verify = jantaku("replay", str(t6), "--format", "tenhou6", "--ruleset", "mleague", "--verify")
    assert verify.returncode == 0, verify.stdout + verify.stderr


def test_refusals(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite"
    sensor_log(db, 1)
    r = jantaku("log", "export", "--db", str(db), "--game", "7", "--format", "mjai")
    assert r.returncode == 1 and "no game 7" in r.stderr
    r = jantaku("log", "export", "--db", str(db), "--format", "mjai")
    assert r.returncode == 2 and "--format needs --game" in r.stderr
    # a game whose first hand has not ended has nothing to export yet
    db2 = tmp_path / "t2.sqlite"
    log = EventLog(db2, "tsens")
    core = TableCore(log, daemon_kit.engine(), "tsens")
    for body in ({"type": "game_start", "ruleset": "mleague", "first_dealer": 0},
                 {"type": "hand_start"}):
        commit_one(core, "input", "table", body, time.monotonic_ns(), time.time_ns(), "b")
    log.close()
    r = jantaku("log", "export", "--db", str(db2), "--game", "1", "--format", "tenhou6")
    assert r.returncode == 1 and "no finished hand yet" in r.stderr
