"""A referee command's round trip on loopback: publish (MQTT v5, response topic) -> the daemon
checks, logs (fsync) and applies it -> the reply arrives. With TCP_NODELAY on both sockets (the
daemon's and the client's, as shipped) and, as the reference in the same run, without it.

    .venv/bin/python bench/referee_rtt.py [--n 200]

Needs ``mosquitto`` on PATH (a private one on a free port).
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
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import aiomqtt
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from daemon import auth, mqtt
from daemon.cli.referee import build_command
from daemon.config import parse_config
from daemon.engine import load_engine
from daemon.service import Service
from daemon.topics import Topics
from hil.kit import daemon_config, die_with_parent, free_port, reaped

PASSWORD = "bench password"
NODELAY = ((socket.IPPROTO_TCP, socket.TCP_NODELAY, 1),)


def _config(work: Path, port: int, table: str) -> str:
    return daemon_config(table, work / (table + ".sqlite"), port, sections={"referee": {"users": [
        {"name": "alice", "role": "referee", "key": auth.format_key("alice", PASSWORD, 1000)}]}})


async def _run(work: Path, port: int, n: int, nodelay: bool, logged: bool) -> list[float]:
    mqtt.SOCKET_OPTIONS = NODELAY if nodelay else ()
    table = f"rtt{'n' if nodelay else 'd'}{'l' if logged else 'r'}{os.getpid() % 1000}"
    service = Service(parse_config(_config(work, port, table)), load_engine())
    task = asyncio.create_task(service.run())
    await asyncio.wait_for(service.ready.wait(), 20)
    key = auth.derive_key("alice", PASSWORD, 1000)
    reply_topic = Topics(table).reply("bench")
    out: list[float] = []
    try:
        async with aiomqtt.Client("127.0.0.1", port, identifier="bench",
                                  protocol=aiomqtt.ProtocolVersion.V5,
                                  socket_options=NODELAY if nodelay else ()) as client:
            await client.subscribe(reply_topic, qos=1)
            new_game = {"ruleset": "mleague", "first_dealer": 0, "names": ["a", "b", "c", "d"]}
            for i in range(n + 1):
                name, args = ("new_game", new_game) if i == 0 else (
                    ("penalty", {"seat": i % 4, "points": -100, "reason": "bench"}) if logged
                    else ("resume", {"reason": "bench"}))  # refused at once: nothing logged
                topic, payload = build_command(table, name, "alice", key, args, cid=f"c{i}")
                props = Properties(PacketTypes.PUBLISH)  # type: ignore[no-untyped-call]
                props.ResponseTopic = reply_topic
                t0 = time.perf_counter()
                await client.publish(topic, json.dumps(payload).encode(), qos=1,
                                     properties=props)
                async for m in client.messages:
                    body = json.loads(m.payload)
                    if body.get("id") == f"c{i}":
                        assert body["status"] == ("ok" if logged or i == 0 else "error"), body
                        break
                if i:
                    out.append((time.perf_counter() - t0) * 1000)
    finally:
        service.stop()
        await asyncio.wait_for(task, 20)
    return out


def _p(xs: list[float], q: float) -> float:
    return sorted(xs)[min(len(xs) - 1, int(q * len(xs)))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=200)
    args = ap.parse_args()
    exe = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        conf = work / "m.conf"
        # set_tcp_nodelay: as the shipped systemd/mosquitto/jantaku.conf (the broker's own
        # sockets: Nagle there adds the same ~40 ms)
        conf.write_text(f"set_tcp_nodelay true\nlistener {port} 127.0.0.1\n"
                        "allow_anonymous true\n" + ("user root\n" if os.getuid() == 0 else ""))
        broker = subprocess.Popen([exe, "-c", str(conf)], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL, preexec_fn=die_with_parent)
        with reaped(broker, 5):
            time.sleep(0.5)
            runs = {(nd, lg): asyncio.run(_run(work, port, args.n, nd, lg))
                    for lg in (False, True) for nd in (True, False)}
    print(f"referee command round trip on loopback, {args.n} commands each:")
    for (nd, lg), xs in runs.items():
        what = "logged (fsync)" if lg else "refused, not logged"
        how = "TCP_NODELAY (shipped)" if nd else "without TCP_NODELAY (reference)"
        print(f"  {what:20} {how:32} p50 {statistics.median(xs):6.2f} ms,"
              f" p99 {_p(xs, .99):6.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
