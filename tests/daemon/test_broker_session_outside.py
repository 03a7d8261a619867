"""The daemon's own MQTT client (daemon/mqtt_session.py) seen from outside: the real `jantaku run`
process on a real Mosquitto, read by aiomqtt (a client independent of ours), MQTT 5 and 3.1.1.

* availability: ``online`` retained once connected; SIGKILL makes the broker publish the will,
  byte for byte ``{"schema":"jantaku/status/1","state":"offline","table":...}``, QoS 1, retained;
  a clean stop publishes ``offline`` with ``since`` and disconnects, so the will never follows;
* delivery: every event arrives at QoS 1 on ``events`` and ``private/events``, in seq order, and
  the outbox is empty at the end (an event leaves it only on its PUBACK)."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import aiomqtt
import daemon_kit
import pytest

from daemon import auth
from daemon.cli.referee import build_command, send
from daemon.eventlog import EventLog
from daemon.mqtt import status_payload
from daemon.topics import Topics

ALICE = auth.derive_key("alice", daemon_kit.REFEREE_PASSWORD, 1000)
NEW_GAME = {"ruleset": "mleague", "first_dealer": 0, "names": ["a", "b", "c", "d"]}


def _start(cfg: Path, log: Path, loop: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, str(daemon_kit.RUN_DAEMON), "run", "--config",
                             str(cfg), "--loop", loop], stdout=subprocess.DEVNULL,
                            stderr=open(log, "ab"))


async def _command(port: int, table: str, name: str, args: dict[str, Any], cid: str,
                   protocol: str) -> Any:
    """A referee command and its reply (3.1.1: to ``reply/<client>``, named in the payload)."""
    topic, payload = build_command(table, name, "alice", ALICE, args, cid=cid,
                                   client=f"ref-{table}")
    for _ in range(40):  # the daemon may still be connecting
        reply = await send("127.0.0.1", port, table, topic, payload, timeout=1.0,
                           protocol=protocol)
        if reply is not None:
            return reply
    return None


async def _retained_status(port: int, topic: str) -> aiomqtt.Message:
    async with aiomqtt.Client("127.0.0.1", port) as reader:
        await reader.subscribe(topic, qos=1)
        async with asyncio.timeout(10):
            async for m in reader.messages:
                return m
    raise AssertionError("no retained status")


def _status(m: aiomqtt.Message) -> dict[str, Any]:
    body = json.loads(m.payload)  # type: ignore[arg-type]
    assert isinstance(body, dict)
    return body


# the daemon's default loop (uvloop) with both protocols, and asyncio's own loop (--loop asyncio)
@pytest.mark.parametrize(("protocol", "loop"), [("5", "uvloop"), ("3.1.1", "uvloop"),
                                                ("5", "asyncio")])
async def test_will_availability_and_acknowledged_delivery_of_jantaku_run(
    tmp_path: Path, broker: daemon_kit.Broker, protocol: str, loop: str
) -> None:
    table = daemon_kit.unique_table("ow")
    db, cfg, log = tmp_path / "t.sqlite", tmp_path / "t.toml", tmp_path / "daemon.log"
    cfg.write_text(daemon_kit.config_text(table=table, db=db, port=broker.port,
                                          protocol=protocol))
    topics = Topics(table)
    will = status_payload("offline", table)
    async with daemon_kit.Collector(broker.port, [topics.status, topics.events,
                                                  topics.private_events]) as sub:
        with daemon_kit.running(_start(cfg, log, loop)) as proc:
            reply = await _command(broker.port, table, "new_game", NEW_GAME, "g1", protocol)
            assert reply is not None and reply["status"] == "ok", reply
            assert _status(await _retained_status(broker.port, topics.status))["state"] == \
                "online"
            proc.send_signal(signal.SIGKILL)
            proc.wait(10)
            await sub.wait_for(lambda: any(m.payload == will for m in sub.messages), 10)
            got = await _retained_status(broker.port, topics.status)
            assert (got.payload, got.qos, got.retain) == (will, 1, True)
        with daemon_kit.running(_start(cfg, log, loop)) as proc:
            for n in range(1, 6):
                reply = await _command(broker.port, table, "penalty",
                                       {"seat": n % 4, "points": -100 * n, "reason": "x"},
                                       f"p{n}", protocol)
                assert reply is not None and reply["status"] == "ok", reply
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(20) == 0
        gone = await _retained_status(broker.port, topics.status)
        await asyncio.sleep(1.5)  # a will would come now: the session ended without DISCONNECT
        after = await _retained_status(broker.port, topics.status)
        for m in (gone, after):
            assert _status(m)["state"] == "offline" and "since" in _status(m), m.payload
        assert after.payload == gone.payload and after.payload != will
        elog = EventLog(db, table)
        try:
            _, total = elog.applied()
            assert elog.outbox_depth() == 0  # every event acknowledged by a PUBACK
        finally:
            elog.close()
        for suffix in ("/events", "/private/events"):
            await sub.wait_for(lambda s=suffix: len({p["seq"] for p in sub.payloads(s)})
                               >= total, 20)
            seqs = list(dict.fromkeys(p["seq"] for p in sub.payloads(suffix)))
            assert seqs == list(range(1, total + 1))
        started = [json.loads(row) for row in log.read_text().splitlines()
                   if '"event": "starting"' in row]
        assert [s["event_loop"] for s in started] == [loop, loop]  # two starts, on that loop
        events = [m for m in sub.messages if str(m.topic) in (topics.events,
                                                               topics.private_events)]
        assert events and {m.qos for m in events} == {1} and not any(m.retain for m in events)
