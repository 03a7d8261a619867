"""The broker's retained state as a second high-water mark (issue 29, item 4; daemon/broker_seq.py,
docs/daemon.md "The broker ahead of the log"), from outside: the real ``jantaku run`` and a real
Mosquitto with persistence.

A table plays and publishes; its log and mark are then lost (a replaced SD card: the table starts
afresh, as a new table must), and it starts while its broker is away. When the broker comes back
remembering events the new log never reached, the daemon publishes none of its own (their seqs
would be reused), says so in ``health``, its JSON log and the console, and keeps playing and
answering commands; ``jantaku log accept --config`` clears the broker's memory of the table and
the held events go out.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import daemon_kit
from hostile_kit import Daemon
from test_input_path_kill9 import ALICE
from test_log_integrity import _cli

from daemon.cli.referee import build_command, send
from daemon.log_mark import mark_path
from daemon.topics import Topics


async def _command(port: int, table: str, name: str, args: dict[str, Any], cid: str) -> None:
    topic, payload = build_command(table, name, "alice", ALICE, args, cid=cid)
    for _ in range(60):
        reply = await send("127.0.0.1", port, table, topic, payload, timeout=1.0)
        if reply is not None:
            assert reply.get("status") == "ok", reply
            return
    raise AssertionError(f"{name} was never answered")


GAME = {"ruleset": "mleague", "first_dealer": 0, "names": ["a", "b", "c", "d"]}


def _seqs(sub: daemon_kit.Collector, table: str) -> list[int]:
    return [int(p["seq"]) for p in sub.payloads(f"{table}/events")]


async def test_a_log_behind_its_broker_holds_its_events_until_accepted(tmp_path: Path) -> None:
    broker = daemon_kit.Broker(tmp_path / "broker")
    store = tmp_path / "broker" / "store"
    store.mkdir(parents=True)
    broker.conf = f"persistence true\npersistence_location {store}/\n"
    broker.start()
    table, db = daemon_kit.unique_table("ba"), tmp_path / "t.sqlite"
    config = tmp_path / "t.toml"
    config.write_text(daemon_kit.config_text(table=table, db=db, port=broker.port))
    topics = Topics(table)
    first = Daemon(config, tmp_path / "first.log", table, db).start()
    try:
        await _command(broker.port, table, "new_game", GAME, "g1")
        for i in range(3):
            await _command(broker.port, table, "penalty",
                           {"seat": i, "points": -100, "reason": f"p{i}"}, f"p{i}")
    finally:
        assert first.stop() == 0
    before = json.loads(_cli("status", "--db", str(db), "--json").stdout)["log"]["event_seq"]
    assert before >= 4
    broker.stop()  # it saves its retained state: the table's state names event `before`
    for suffix in ("", "-wal", "-shm"):  # the SD card replaced: no log, no mark
        db.with_name(db.name + suffix).unlink(missing_ok=True)
    mark_path(db).unlink()
    daemon = Daemon(config, tmp_path / "daemon.log", table, db).start()
    try:
        # a table starts while its broker is away
        await daemon_kit.until(lambda: any("ready" in str(r.get("msg")) for r in daemon.lines()),
                               30)
        broker.start()
        async with daemon_kit.Collector(broker.port, [topics.events, topics.health]) as sub:
            await daemon_kit.until(
                lambda: any(r.get("event") == "broker_ahead" for r in daemon.lines()), 30)
            [ahead] = [r for r in daemon.lines() if r.get("event") == "broker_ahead"]
            assert ahead["level"] == "error" and ahead["broker_seq"] == before, ahead
            assert ahead["log_seq"] == 0 and "jantaku log accept --config" in ahead["msg"]
            # the table plays on and answers; its events are logged, not published
            await _command(broker.port, table, "new_game", GAME, "g2")
            await daemon_kit.until(lambda: any(
                f"remembers event {before}" in str(h.get("problem"))
                for h in sub.payloads(topics.health)), 30)
            health = sub.payloads(topics.health)[-1]
            assert health["healthy"] is False and health["broker"]["held"] == health["problem"]
            await asyncio.sleep(1.0)
            assert _seqs(sub, table) == []
            # the operator accepts: the broker forgets, the held events go out from seq 1
            out = _cli("log", "accept", "--config", str(config))
            assert out.returncode == 0, out.stderr
            assert f"named event {before}" in out.stdout and "cleared" in out.stdout, out.stdout
            await daemon_kit.until(lambda: _seqs(sub, table)[:1] == [1], 30)
            deadline = time.monotonic() + 30
            while not sub.payloads(topics.health)[-1]["healthy"]:
                assert time.monotonic() < deadline, sub.payloads(topics.health)[-1]
                await asyncio.sleep(0.2)
            assert any(r.get("event") == "broker_ahead_cleared" for r in daemon.lines())
        assert daemon.alive()
    finally:
        assert daemon.stop() == 0
        broker.stop()
    # nothing to accept a second time
    out = _cli("log", "accept", "--config", str(config))
    assert out.returncode == 0 and "broker" in out.stdout and "not reachable" in out.stdout
