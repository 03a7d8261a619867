"""Does a backfill starve live play? Input latency with and without requesters hammering the table.

    .venv/bin/python bench/backfill_pacing.py [--hands 4] [--askers 4]

A real daemon (daemon.service.Service, in this process) on a private Mosquitto, its log on /tmp:
the inputs of a seeded game are submitted one after the other and each one's latency (queued →
logged, fsynced, applied) is measured, first with nobody asking for past events, then with
``--askers`` clients each asking for the whole log again and again (from seq 1, 1,000 events a
request), with the daemon's memory of recent events turned off so that every answer is folded
again from the log: the worst case. Prints p50 / p99 / max of each run and how many events the
backfill sent meanwhile. Wall-clock figures on this machine: compare the two lines.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import deque
from pathlib import Path
from typing import Any

import aiomqtt

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from daemon.config import parse_config  # noqa: E402
from daemon.engine import load_engine  # noqa: E402
from daemon.service import Service  # noqa: E402
from daemon.topics import Topics  # noqa: E402
from daemon.tracking.records import KIND_INPUT  # noqa: E402
from hil.kit import daemon_config, die_with_parent, free_port, reap, reaped  # noqa: E402

MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"


def _broker(work: Path) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    conf = work / "mosquitto.conf"
    user = "user root\n" if os.getuid() == 0 else ""
    conf.write_text(f"{user}listener {port} 127.0.0.1\nallow_anonymous true\n")
    proc = subprocess.Popen([MOSQUITTO, "-c", str(conf)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, preexec_fn=die_with_parent)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return proc, port
        except OSError:
            time.sleep(0.05)
    reap(proc, 5)  # not left running when its port never opens
    raise TimeoutError("mosquitto did not start")


def _game(hands: int) -> list[dict[str, Any]]:
    from hil.players import Table  # the bench's own game (like the tests' legal game)
    from rules.inputs import input_to_json

    table = Table("mleague", 7)
    table.play_game(max_hands=hands)
    return [input_to_json(i) for i in table.inputs]


def _config(table: str, db: Path, port: int) -> str:
    return daemon_config(table, db, port, sections={"logging": {"level": "warning"}})


async def _asker(port: int, topics: Topics, name: str, stop: asyncio.Event,
                 got: list[int]) -> None:
    async with aiomqtt.Client("127.0.0.1", port, identifier=name) as client:
        await client.subscribe(topics.backfill_reply(name, private=True), qos=1)
        n = 0
        while not stop.is_set():
            n += 1
            body = {"schema": "jantaku/backfill-request/1", "id": f"{name}-{n}", "from_seq": 1}
            await client.publish(topics.backfill_request(name, private=True),
                                 json.dumps(body).encode(), qos=1)
            try:
                async with asyncio.timeout(30):
                    async for m in client.messages:
                        reply = json.loads(m.payload)
                        got[0] += len(reply.get("events", []))
                        if reply.get("final") or reply.get("status") == "error":
                            break
            except TimeoutError:
                continue


async def _run(port: int, work: Path, hands: int, askers: int) -> tuple[list[float], int]:
    table = f"bp{askers}-{os.getpid()}"
    config = parse_config(_config(table, work / f"{table}.sqlite", port))
    service = Service(config, load_engine())
    # no event kept in memory: every answer folded again from the log (the worst case)
    service.backfill._recent = deque(maxlen=0)
    task = asyncio.create_task(service.run())
    await asyncio.wait_for(service.ready.wait(), 15)
    bodies = _game(hands)
    half = len(bodies) // 2
    for body in bodies[:half]:  # a log to fold again
        await service.submit(KIND_INPUT, "table", body)
    stop, got = asyncio.Event(), [0]
    tasks = [asyncio.create_task(_asker(port, service.topics, f"ask{k}", stop, got))
             for k in range(askers)]
    await asyncio.sleep(1.0 if askers else 0)
    lat = []
    for body in bodies[half:]:
        t0 = time.perf_counter()
        await service.submit(KIND_INPUT, "table", body)
        lat.append((time.perf_counter() - t0) * 1000)
    stop.set()
    for t in tasks:
        t.cancel()
    service.stop()
    await asyncio.wait_for(task, 30)
    return lat, got[0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hands", type=int, default=4)
    ap.add_argument("--askers", type=int, default=4)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        broker, port = _broker(Path(tmp))
        with reaped(broker):
            for askers in (0, a.askers):
                lat, sent = asyncio.run(_run(port, Path(tmp), a.hands, askers))
                q = statistics.quantiles(lat, n=100)
                print(json.dumps({"askers": askers, "inputs": len(lat),
                                  "p50_ms": round(q[49], 2), "p99_ms": round(q[98], 2),
                                  "max_ms": round(max(lat), 2), "backfilled_events": sent}))


if __name__ == "__main__":
    main()
