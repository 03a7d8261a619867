"""Venue load: N real table daemons on one private Mosquitto, each playing a simulated game.

    .venv/bin/python bench/venue.py [--quick] [--tables 1,10,50,100] [--hands 2] [--rate 5] [--json]

Each table is its own process running the real daemon -- ``jantaku run --config FILE`` (config
validation, JSON logging, signals, :class:`daemon.service.Service`, its own SQLite event log,
its own MQTT connection). The game comes from ``hil.simulator.GameSimulator`` (four bots through
the real reducer, seeded per table) and enters the daemon through its own input path: a driver
(:class:`ScriptTable`, added to the drivers the config names) calls ``Service.put`` for each input,
exactly as the table link and sensor drivers do, awaiting each one as a table does (the HIL
runner / ``jantaku demo --headless`` had not landed when this was written). Inputs are paced at
``--rate`` per second per table (a real table makes about one per second).

One subscriber (aiomqtt, QoS 1, ``jantaku/v1/+/events``) takes every event and stamps its arrival.
Afterwards each table's log is opened read-only: the subscriber must have received events
``1..event_seq`` of every table exactly once (zero loss, zero duplicates by ``seq``), and every
outbox must be empty. Latency = arrival wall time - the event's ``ts`` (the wall time the daemon
stamped on the input when it was put; ``ts`` has millisecond resolution, truncated, so figures
are high by up to 1 ms). CPU and RSS of the broker and of the daemons come from psutil when it is
installed, else from /proc.

``--quick`` runs N = 1 and 10 with one hand per table.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"


# --------------------------------------------------------------------------- the child: a daemon
class ScriptTable:
    """A driver that plays a recorded input stream into the daemon's input queue (``sink.put``),
    one input at a time, each awaited (logged and applied) before the next, at ``rate`` per s.

    It waits for ``go`` (a file) so that all tables of a run start together, and writes ``done``
    (the number of inputs fed) when the stream is over; then it idles like a quiet table."""

    def __init__(self, script: list[dict[str, Any]], rate: float, go: Path, done: Path) -> None:
        self.name = "script"
        self.script = script
        self.rate = rate
        self.go = go
        self.done = done
        self.fed = 0

    async def run(self, sink: Any) -> None:
        ready = getattr(sink, "ready", None)
        if ready is not None:
            await ready.wait()
        while not self.go.exists():
            await asyncio.sleep(0.02)
        # continue after the table inputs the log holds (a restarted daemon resumes its game;
        # the log also holds the daemon's own records -- restart markers -- which are skipped)
        start = 0
        if hasattr(sink, "db") and hasattr(sink, "eventlog"):
            log = sink.eventlog
            start = await sink.db(lambda: sum(1 for r in log.records() if r.kind == "input"))
        period = 1.0 / self.rate if self.rate > 0 else 0.0
        t0 = time.monotonic()
        for i, body in enumerate(self.script[start:]):
            if period:
                delay = t0 + i * period - time.monotonic()
                if delay > 0:
                    await asyncio.sleep(delay)
            await sink.put("input", "table", body)
            self.fed += 1
        self.done.write_text(str(start + self.fed))
        await asyncio.Event().wait()

    async def show(self, snapshot: dict[str, Any], events: Sequence[dict[str, Any]]) -> None:
        return None

    def health(self) -> dict[str, Any]:
        return {"kind": "script", "status": "up", "fed": self.fed}


def child(argv: list[str]) -> int:
    """``venue.py --child CONFIG SCRIPT RATE GO DONE``: ``jantaku run --config CONFIG`` with the
    script driver added."""
    config, script_path, rate, go, done = argv
    script = json.loads(Path(script_path).read_text())
    import daemon.devices
    from daemon.cli import main

    real_build = daemon.devices.build_drivers

    def build(cfg: Any, *, pin_factory: Any = None) -> list[Any]:
        drivers: list[Any] = list(real_build(cfg, pin_factory=pin_factory))
        drivers.append(ScriptTable(script, float(rate), Path(go), Path(done)))
        return drivers

    daemon.devices.build_drivers = build  # type: ignore[assignment]
    return main(["run", "--config", config])


# --------------------------------------------------------------------------- the parent
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_port(port: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), 0.2):
                return
        except OSError:
            time.sleep(0.02)
    raise TimeoutError(f"nothing listens on 127.0.0.1:{port}")


def game_script(seed: int, hands: int, ruleset: str = "mleague") -> list[dict[str, Any]]:
    from hil.simulator import GameSimulator
    from rules.inputs import input_to_json

    return [input_to_json(s.input) for s in GameSimulator(ruleset, seed, hands=hands).steps()]


def table_config(table: str, db: Path, port: int) -> str:
    return f"""config_version = 1

[table]
id = "{table}"
ruleset = "mleague"

[eventlog]
path = "{db}"
checkpoint_every = 500

[mqtt]
host = "127.0.0.1"
port = {port}
protocol = "5"
keepalive = 30
health_interval = 10.0

[devices.table]
kind = "none"

[logging]
level = "warning"
"""


def _normal_priority() -> None:
    os.setpriority(os.PRIO_PROCESS, 0, 0)


class Usage:
    """CPU seconds and RSS of a process, from psutil if installed, else /proc."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        psutil = _psutil()
        self._ps: Any = None if psutil is None else psutil.Process(pid)

    def cpu_s(self) -> float:
        try:
            if self._ps is not None:
                t = self._ps.cpu_times()
                return float(t.user + t.system)
            fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except Exception:
            return 0.0

    def rss_mb(self) -> float:
        try:
            if self._ps is not None:
                return float(self._ps.memory_info().rss) / 2**20
            for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        except Exception:
            pass
        return 0.0


def _psutil() -> Any:
    try:
        return importlib.import_module("psutil")  # optional (dev dependency)
    except ImportError:
        return None


def usage_source() -> str:
    psutil = _psutil()
    return "/proc" if psutil is None else f"psutil {psutil.__version__}"


@dataclass
class Received:
    seqs: dict[str, list[int]] = field(default_factory=dict)
    latency_ms: list[float] = field(default_factory=list)
    first_ns: int | None = None
    last_ns: int | None = None


async def subscribe(port: int, received: Received, subscribed: asyncio.Event) -> None:
    import aiomqtt

    async with aiomqtt.Client(
        "127.0.0.1", port, identifier=f"venue-sub-{os.getpid()}", max_queued_incoming_messages=0
    ) as client:
        await client.subscribe("jantaku/v1/+/events", qos=1)
        subscribed.set()
        async for m in client.messages:
            now = time.time_ns()
            body = json.loads(bytes(m.payload))  # type: ignore[arg-type,unused-ignore]
            received.seqs.setdefault(body["table"], []).append(int(body["seq"]))
            ts = datetime.fromisoformat(body["ts"].replace("Z", "+00:00")).timestamp()
            received.latency_ms.append((now / 1e9 - ts) * 1000)
            received.first_ns = received.first_ns or now
            received.last_ns = now


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, round(p / 100 * (len(s) - 1)))]


def run_one(
    n: int, hands: int, rate: float, work: Path, log: Any, isolate: bool = False
) -> dict[str, Any]:
    from daemon.eventlog import EventLog

    work.mkdir(parents=True, exist_ok=True)
    port = free_port()
    conf = work / "mosquitto.conf"
    user = "user root\n" if os.getuid() == 0 else ""
    conf.write_text(
        f"{user}listener {port} 127.0.0.1\nallow_anonymous true\npersistence false\n"
        "max_queued_messages 0\nmax_inflight_messages 0\nset_tcp_nodelay true\n"
    )
    broker = subprocess.Popen(
        [MOSQUITTO, "-c", str(conf)],
        stdout=open(work / "mosquitto.log", "wb"),  # noqa: SIM115
        stderr=subprocess.STDOUT,
    )
    procs: list[subprocess.Popen[bytes]] = []
    try:
        wait_port(port)
        go = work / "go"
        tables = [f"v{n:03d}-{i:03d}" for i in range(n)]
        inputs_total = 0
        scripts: dict[int, list[dict[str, Any]]] = {}
        for i, table in enumerate(tables):
            # a handful of distinct games, reused round-robin: simulation is not what is measured
            seed = i % 8
            if seed not in scripts:
                scripts[seed] = game_script(seed + 1, hands)
            script_path = work / f"game-{seed}.json"
            if not script_path.exists():
                script_path.write_text(json.dumps(scripts[seed]))
            inputs_total += len(scripts[seed])
            cfg = work / f"{table}.toml"
            cfg.write_text(table_config(table, work / f"{table}.sqlite", port))
            procs.append(
                subprocess.Popen(
                    [sys.executable, __file__, "--child", str(cfg), str(script_path), str(rate),
                     str(go), str(work / f"{table}.done")],
                    stdout=subprocess.DEVNULL,
                    stderr=open(work / f"{table}.log", "wb"),  # noqa: SIM115
                    preexec_fn=_normal_priority if isolate else None,
                )
            )
        if isolate:  # the broker and the subscriber as if on machines of their own (root only);
            # after the daemons are spawned, which must not inherit the priority
            os.setpriority(os.PRIO_PROCESS, broker.pid, -10)
            os.setpriority(os.PRIO_PROCESS, 0, -10)
        t_start = time.monotonic()
        # READY: each daemon's retained status goes "online" once connected
        asyncio.run(_wait_online(port, tables, timeout=60 + n * 2.0))
        t_ready = time.monotonic() - t_start
        received = Received()
        usage_b = Usage(broker.pid)
        usage_d = [Usage(p.pid) for p in procs]
        result = asyncio.run(
            _play(port, n, go, work, tables, received, usage_b, usage_d, timeout=120 + n * 5.0)
        )
        # verify against every table's own log
        lost = dup = undelivered = 0
        events_total = 0
        for table in tables:
            el = EventLog(work / f"{table}.sqlite", table, readonly=True)
            try:
                _, event_seq = el.applied()
                depth = el.outbox_depth()
            finally:
                el.close()
            events_total += event_seq
            got = received.seqs.get(table, [])
            lost += len(set(range(1, event_seq + 1)) - set(got))
            dup += len(got) - len(set(got))
            undelivered += depth
            if sorted(set(got)) != got:
                result["out_of_order_tables"] = result.get("out_of_order_tables", 0) + 1
        span = ((received.last_ns or 0) - (received.first_ns or 0)) / 1e9
        out = {
            "tables": n,
            "hands_per_table": hands,
            "rate_per_table": rate,
            "inputs": inputs_total,
            "events": events_total,
            "received": sum(len(v) for v in received.seqs.values()),
            "lost": lost,
            "duplicates": dup,
            "outbox_left": undelivered,
            "out_of_order_tables": result.get("out_of_order_tables", 0),
            "all_ready_s": round(t_ready, 2),
            "play_s": round(result["play_s"], 2),
            "events_per_s": round(events_total / result["play_s"], 1) if result["play_s"] else 0,
            "delivery_span_s": round(span, 2),
            "latency_p50_ms": round(pct(received.latency_ms, 50), 2),
            "latency_p99_ms": round(pct(received.latency_ms, 99), 2),
            "latency_max_ms": round(max(received.latency_ms, default=float("nan")), 2),
            "broker_cpu_pct": round(result["broker_cpu_pct"], 1),
            "broker_rss_mb": round(usage_b.rss_mb(), 1),
            "daemon_cpu_pct_mean": round(result["daemon_cpu_pct_mean"], 2),
            "daemon_cpu_pct_total": round(result["daemon_cpu_pct_total"], 1),
            "daemon_rss_mb_mean": round(sum(u.rss_mb() for u in usage_d) / n, 1),
            "daemon_rss_mb_max": round(max(u.rss_mb() for u in usage_d), 1),
            "verified": lost == 0 and dup == 0 and undelivered == 0,
        }
        return out
    finally:
        for p in procs:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in procs:
            try:
                p.wait(20)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        broker.terminate()
        try:
            broker.wait(5)
        except subprocess.TimeoutExpired:
            broker.kill()
            broker.wait()


async def _wait_online(port: int, tables: list[str], timeout: float) -> None:
    import aiomqtt

    want = set(tables)
    online: set[str] = set()
    deadline = time.monotonic() + timeout
    async with aiomqtt.Client("127.0.0.1", port) as client:
        await client.subscribe("jantaku/v1/+/status", qos=1)

        async def watch() -> None:
            async for m in client.messages:
                body = json.loads(bytes(m.payload))  # type: ignore[arg-type,unused-ignore]
                if body.get("state") == "online":
                    online.add(body["table"])
                    if online >= want:
                        return

        await asyncio.wait_for(watch(), max(1.0, deadline - time.monotonic()))


async def _play(
    port: int,
    n: int,
    go: Path,
    work: Path,
    tables: list[str],
    received: Received,
    usage_b: Usage,
    usage_d: list[Usage],
    timeout: float,
) -> dict[str, Any]:
    subscribed = asyncio.Event()
    sub = asyncio.create_task(subscribe(port, received, subscribed))
    await asyncio.wait_for(subscribed.wait(), 10)
    cpu_b0 = usage_b.cpu_s()
    cpu_d0 = [u.cpu_s() for u in usage_d]
    t0 = time.monotonic()
    go.write_text("go")
    deadline = t0 + timeout
    while not all((work / f"{t}.done").exists() for t in tables):
        if time.monotonic() > deadline:
            raise TimeoutError("the tables did not finish their games in time")
        await asyncio.sleep(0.05)
    play_s = time.monotonic() - t0
    # then wait until the subscriber holds every event the logs numbered (or a quiet second)
    from daemon.eventlog import EventLog

    want = {}
    for t in tables:
        el = EventLog(work / f"{t}.sqlite", t, readonly=True)
        want[t] = el.applied()[1]
        el.close()
    quiet_until = time.monotonic() + 10.0
    while time.monotonic() < quiet_until:
        if all(len(set(received.seqs.get(t, []))) >= want[t] for t in tables):
            break
        await asyncio.sleep(0.05)
    wall = time.monotonic() - t0
    cpu_b = usage_b.cpu_s() - cpu_b0
    cpu_d = [u.cpu_s() - c for u, c in zip(usage_d, cpu_d0, strict=True)]
    sub.cancel()
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await sub
    return {
        "play_s": play_s,
        "broker_cpu_pct": 100 * cpu_b / wall,
        "daemon_cpu_pct_mean": 100 * sum(cpu_d) / len(cpu_d) / wall,
        "daemon_cpu_pct_total": 100 * sum(cpu_d) / wall,
    }


def main(argv: list[str] | None = None) -> int:
    args_in = sys.argv[1:] if argv is None else argv
    if args_in and args_in[0] == "--child":
        return child(args_in[1:])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--quick", action="store_true", help="N = 1 and 10, one hand each")
    parser.add_argument("--tables", default=None, help="comma-separated N (default 1,10,50,100)")
    parser.add_argument("--hands", type=int, default=None, help="hands per table (default 2)")
    parser.add_argument("--rate", type=float, default=5.0, help="inputs/s per table")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    parser.add_argument(
        "--isolate",
        action="store_true",
        help="run the broker and the subscriber at nice -10 (root), as on machines of their own",
    )
    args = parser.parse_args(args_in)
    sizes = [int(x) for x in (args.tables or ("1,10" if args.quick else "1,10,50,100")).split(",")]
    hands = args.hands or (1 if args.quick else 2)
    work = Path(tempfile.mkdtemp(prefix="jantaku-venue-"))
    results = []
    try:
        for n in sizes:
            r = run_one(n, hands, args.rate, work / f"n{n}", sys.stderr, args.isolate)
            r["isolated"] = args.isolate
            results.append(r)
            if not args.json:
                print(
                    f"N={n:>3}: {r['events']} events ({r['inputs']} inputs) in {r['play_s']} s"
                    f" = {r['events_per_s']} events/s; latency p50 {r['latency_p50_ms']} ms"
                    f" p99 {r['latency_p99_ms']} ms max {r['latency_max_ms']} ms;"
                    f" lost {r['lost']} dup {r['duplicates']} outbox {r['outbox_left']};"
                    f" broker {r['broker_cpu_pct']}% CPU {r['broker_rss_mb']} MB;"
                    f" daemon {r['daemon_cpu_pct_mean']}% CPU (all {r['daemon_cpu_pct_total']}%)"
                    f" RSS {r['daemon_rss_mb_mean']} MB (max {r['daemon_rss_mb_max']});"
                    f" all online in {r['all_ready_s']} s",
                    flush=True,
                )
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    summary = {
        "bench": "venue",
        "cpus": os.cpu_count(),
        "usage_source": usage_source(),
        "runs": results,
        "verified": all(r["verified"] for r in results),
    }
    if args.json:
        print(json.dumps(summary))
    else:
        print(f"usage from {summary['usage_source']}, {summary['cpus']} CPUs;"
              f" zero loss/duplicates verified: {summary['verified']}")
    return 0 if summary["verified"] else 1


if __name__ == "__main__":
    sys.exit(main())
