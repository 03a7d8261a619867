"""A whole M.League hanchan at a table without sensors, played through `jantaku referee` against a
real `jantaku run` (``devices.table.kind = "none"``, a private Mosquitto): no command between
results (each hand begins by itself), the retained ``state/scores`` after every result shows the
next hand's dealer, round, honba and riichi sticks (M 3-13, M 4-8), refusals change nothing, and
the final standings (``game_ended`` ``data.standings.seats[]``) equal the rulebook's (M 6-2)
as computed in sensorless_hanchan.py. Then the game goes to review tools: `jantaku log export
--format mjai|tenhou6` opens in riichienv (a libriichi-family mjai reader)."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import threading
from pathlib import Path
from typing import Any

import paho.mqtt.client as paho
import pytest
from sensorless_hanchan import (
    NAMES,
    STEPS,
    Model,
    RealTable,
    Step,
    daemon_kit,
    expected,
    jantaku,
    real_table,
    retained,
)

from hil.kit import until_sync

WINDS = ["E", "S", "W", "N"]


class Events:
    """Every event of the table as a subscriber outside sees it."""

    def __init__(self, port: int, table: str) -> None:
        self.items: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self.ready = threading.Event()
        self.client = paho.Client(paho.CallbackAPIVersion.VERSION2)
        self.client.on_connect = lambda c, *_: (c.subscribe(f"jantaku/v1/{table}/events", 1),
                                                 self.ready.set())
        self.client.on_message = self._on
        self.client.connect("127.0.0.1", port, 10)
        self.client.loop_start()
        assert self.ready.wait(10)

    def _on(self, c: Any, u: Any, m: Any) -> None:
        with self.lock:
            self.items.append(json.loads(m.payload))

    def of(self, kind: str) -> list[dict[str, Any]]:
        with self.lock:
            return [e for e in self.items if e["type"] == kind]

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


def referee(t: RealTable, name: str, args: dict[str, Any]
            ) -> tuple[int, dict[str, Any] | None, str]:
    env = {**os.environ, "JANTAKU_REFEREE_PASSWORD": daemon_kit.REFEREE_PASSWORD}
    r = subprocess.run(
        [jantaku(), "referee", "--table", t.table, "--port", str(t.broker.port), "--user",
         "alice", "--iterations", "1000", "--timeout", "20", name, "--args", json.dumps(args)],
        capture_output=True, text=True, timeout=60, env=env)
    reply = json.loads(r.stdout) if r.stdout.strip().startswith("{") else None
    return r.returncode, reply, r.stderr


def scores_state(t: RealTable) -> dict[str, Any]:
    return retained(t.broker.port, f"jantaku/v1/{t.table}/state/scores")


def check_next_hand(t: RealTable, m: Model) -> None:
    """state/scores shows the hand the game flow starts next (M 3-13, M 4-8). (It is republished
    only when a number changes: a chombo's replay leaves it as it was.)"""
    def want(s: dict[str, Any]) -> bool:
        ok = (s.get("scores") == m.scores and s.get("honba") == m.honba
              and s.get("deposits") == m.deposits)
        if not m.over:
            ok = ok and s.get("dealer") == m.dealer and s.get("round_wind") == WINDS[m.hand // 4]
        return bool(ok)

    until_sync(lambda: want(scores_state(t)), 20, f"state/scores as {m} ({scores_state(t)})")


def play(t: RealTable, step: Step, m: Model) -> None:
    args = dict(step.args)
    if step.name == "set_scores":
        now = scores_state(t)["scores"]
        args = {"scores": [a + b for a, b in zip(now, args.pop("delta"), strict=True)]}
    args["reason"] = "recorded by the referee"
    rc, reply, err = referee(t, step.name, args)
    assert rc == 0 and reply is not None and reply["status"] == "ok", (step, reply, err)
    if step.undone:
        rc, reply, err = referee(t, "undo", {"reason": "entered wrongly"})
        assert rc == 0 and reply is not None and reply["status"] == "ok", (reply, err)
    else:
        m.apply(step)
    check_next_hand(t, m)


def test_a_hanchan_through_jantaku_referee_on_a_sensorless_table(tmp_path: Path) -> None:
    with real_table(tmp_path, web=False) as t:
        until_sync(lambda: scores_state(t).get("table") == t.table, 20, "the daemon online")
        events = Events(t.broker.port, t.table)
        try:
            rc, reply, err = referee(t, "new_game", {"ruleset": "mleague", "first_dealer": 0,
                                                     "names": NAMES})
            assert rc == 0 and reply and reply["status"] == "ok", (reply, err)
            m = Model()
            check_next_hand(t, m)
            # the first hand began by itself: no start button, no command
            until_sync(lambda: len(events.of("hand_started")) == 1, 20, "hand 1 started")

            # refused in plain terms, nothing changes: M.League has no abortive draws (M 3-2-3)
            before = scores_state(t)
            rc, reply, _ = referee(t, "manual_result", {"kind": "abortive",
                                                        "abort": "four_winds", "reason": "x"})
            assert rc == 1 and reply is not None and reply["status"] == "error"
            assert any(v["code"] == "abortive_not_in_ruleset" for v in reply["violations"])
            # a winner who dealt in to himself; a noten riichi at the draw (M 7-4-1)
            for bad in ({"kind": "ron", "wins": [{"winner": 1, "loser": 1, "han": 1, "fu": 30}]},
                        {"kind": "exhaustive", "riichi": [2], "tenpai": [0]}):
                rc, reply, _ = referee(t, "manual_result", {**bad, "reason": "x"})
                assert rc == 1 and reply is not None and reply["status"] == "error", reply
            assert scores_state(t)["scores"] == before["scores"]

            for step in STEPS:
                play(t, step, m)
            assert m.over
            until_sync(lambda: len(events.of("game_ended")) == 1, 20, "game_ended")
            ended = events.of("game_ended")[0]["data"]
            # the ruleset's flow ended it after South 4 (M 1-1); ranks and pt as M 6-2 says
            want = expected().standings()
            got = [{k: s[k] for k in ("seat", "points", "rank", "total_pt")}
                   for s in ended["standings"]["seats"]]
            assert got == want, (got, want)
            assert want[1]["rank"] == 1 and want[2]["rank"] == 4
            # 11 hands played (the chombo's hand replayed), plus the undone result; no hand
            # begins after the end
            assert len(events.of("hand_ended")) == 12
            assert len(events.of("hand_started")) == 12

            # a result after the end is refused
            rc, reply, _ = referee(t, "manual_result", {"kind": "exhaustive", "tenpai": [],
                                                        "reason": "x"})
            assert rc == 1
        finally:
            events.close()
        export_and_read(t, want)


def export_and_read(t: RealTable, want: list[dict[str, Any]]) -> None:
    """`jantaku log export --format` for review tools: a libriichi-family reader opens it."""
    riichienv = pytest.importorskip("riichienv")
    out = t.db.parent / "game1.mjson"
    r = subprocess.run([jantaku(), "log", "export", "--db", str(t.db), "--game", "1",
                        "--format", "mjai", "--out", str(out)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "results only" in r.stderr  # a sensorless game: the note says what it holds
    replay = riichienv.MjaiReplay.from_jsonl(str(out))
    kyokus = list(replay.take_kyokus())
    assert len(kyokus) == 11  # the undone result is not a hand
    assert next(list(k.scores) for k in kyokus) == [25000] * 4
    for a, b in itertools.pairwise(kyokus):
        if list(a.end_scores) != list(b.scores):
            # only the referee's correction moves points between hands
            assert [y - x for x, y in zip(a.end_scores, b.scores, strict=True)] == [
                1000, -1000, 0, 0]
    assert list(kyokus[-1].end_scores) == [s["points"] for s in want]
    r = subprocess.run([jantaku(), "log", "export", "--db", str(t.db), "--game", "1",
                        "--format", "tenhou6"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    record = json.loads(r.stdout)
    assert len(record["log"]) == 11 and record["name"] == NAMES
    assert record["sc"][0::2] == [s["points"] for s in want]
    assert record["sc"][1::2] == [s["total_pt"] for s in want]
    r = subprocess.run([jantaku(), "log", "verify", "--db", str(t.db)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
