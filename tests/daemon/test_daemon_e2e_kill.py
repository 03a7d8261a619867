"""End to end: `jantaku run` SIGKILLed while referee commands stream in over MQTT, restarted, again
and again. Nothing acknowledged is lost, every event reaches a subscriber in order (after dropping
duplicates by seq), and the log replays to the published events."""

from __future__ import annotations

import asyncio
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import daemon_kit
import pytest

from daemon import auth
from daemon.cli.referee import build_command, send
from daemon.eventlog import EventLog
from daemon.topics import Topics
from hil.kit import bounded, reap

ALICE = auth.derive_key("alice", daemon_kit.REFEREE_PASSWORD, 1000)
RESTARTS = bounded(2, 12)


def _start(cfg: Path, log: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, str(daemon_kit.RUN_DAEMON), "run", "--config", str(cfg)],
        stdout=subprocess.DEVNULL,
        stderr=open(log, "ab"),
    )


async def _command(port: int, table: str, name: str, args: dict[str, Any], cid: str) -> Any:
    topic, payload = build_command(table, name, "alice", ALICE, args, cid=cid)
    try:
        return await send("127.0.0.1", port, table, topic, payload, timeout=1.0)
    except Exception:  # the daemon is being killed: no reply
        return None


@pytest.mark.slow
async def test_kill9_of_the_daemon_under_load(tmp_path: Path, broker: daemon_kit.Broker) -> None:
    rng = random.Random(11)
    table = daemon_kit.unique_table("e")
    db = tmp_path / "e.sqlite"
    cfg = tmp_path / "e.toml"
    cfg.write_text(daemon_kit.config_text(table=table, db=db, port=broker.port))
    topics = Topics(table)
    sub_kw: dict[str, Any] = {"identifier": f"sub-{table}", "clean_session": False}
    acked: dict[str, int] = {}  # command id -> points, for every ok reply
    async with daemon_kit.Collector(broker.port, [topics.events], **sub_kw) as sub:
        proc = _start(cfg, tmp_path / "daemon.log")
        try:
            new_game = {"ruleset": "mleague", "first_dealer": 0, "names": ["a", "b", "c", "d"]}
            for _ in range(40):
                reply = await _command(broker.port, table, "new_game", new_game, "g1")
                if reply is not None:
                    break
            assert reply is not None and reply["status"] == "ok", reply
            n = 0
            for _restart in range(RESTARTS):
                kill_after = rng.randint(3, 12)
                sent = 0
                while sent < kill_after:
                    n += 1
                    cid = f"p{n}"
                    points = -rng.randint(1, 9) * 100
                    args = {"seat": n % 4, "points": points, "reason": "load"}
                    task = asyncio.create_task(
                        _command(broker.port, table, "penalty", args, cid)
                    )
                    sent += 1
                    if sent == kill_after:
                        await asyncio.sleep(rng.uniform(0.0, 0.05))
                        proc.kill()  # SIGKILL, maybe while this command is being logged
                        proc.wait()
                    result = await task
                    if result is not None and result["status"] == "ok":
                        acked[cid] = points
                proc = _start(cfg, tmp_path / "daemon.log")
            # a last command after the last restart proves the daemon is up again
            for _ in range(40):
                reply = await _command(broker.port, table, "penalty",
                                       {"seat": 0, "points": -100, "reason": "end"}, "last")
                if reply is not None:
                    break
            assert reply is not None and reply["status"] == "ok", reply
            acked["last"] = -100
        finally:
            reap(proc, 20)  # SIGTERM, SIGKILL if it is still there after 20 s
        log = EventLog(db, table)
        try:
            records = list(log.records())
            _, total = log.applied()
            assert log.outbox_depth() == 0
        finally:
            log.close()
        # every acknowledged command is in the log (exactly once)
        logged = [r for r in records if r.body.get("type") == "referee"]
        ids = [r.body["args"]["reason"] for r in logged]
        assert len(logged) >= len(acked) and ids.count("end") == 1
        await sub.wait_for(lambda: len({p["seq"] for p in sub.payloads("/events")}) >= total, 30)
        seen: list[int] = []
        for p in sub.payloads("/events"):
            if p["seq"] not in seen:
                seen.append(p["seq"])
        assert seen == list(range(1, total + 1))
    verify = subprocess.run(
        [sys.executable, str(daemon_kit.RUN_DAEMON), "log", "verify", "--db", str(db)],
        capture_output=True, text=True, timeout=120,
    )
    assert verify.returncode == 0, verify.stdout + verify.stderr
