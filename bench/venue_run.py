"""One venue run for bench/venue.py: N real table daemons on a venue Mosquitto, a subscriber, and
optionally a fault -- the venue broker restarted, or its bridge to a central broker cut.

Everything is real: each table is a ``jantaku run --config`` process (``venue.py --child``) with
its own SQLite log and MQTT connection; the brokers are ``mosquitto`` processes with persistence
on (a restarted broker keeps the subscriber's session and the retained messages, as a venue's
does); the bridge is the shipped ``systemd/mosquitto/jantaku-bridge.conf`` with only its address
and TLS/credential lines replaced (the test brokers are plain, anonymous, on 127.0.0.1), cut by a
TCP proxy (:mod:`hil.netfault`). The subscriber is persistent (MQTT 3.1.1, clean session off)
and reconnects by itself; QoS 1 may deliver a message twice around a reconnect, so events are
deduplicated by ``(table, seq)`` and the redeliveries counted.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import venue_kit

from hil.kit import die_with_parent, free_port, reap
from hil.netfault import TcpProxy

VENUE_SCRIPT = Path(__file__).with_name("venue.py")
BRIDGE_CONF = venue_kit.REPO / "systemd" / "mosquitto" / "jantaku-bridge.conf"
#: the venue name the shipped bridge file prefixes every topic with
VENUE = "osaka"
#: the events of a game's and a hand's set-up (bench/venue.py SETUP: one burst per hand)
SETUP_EVENTS = frozenset({"game_started", "hand_started", "wall_known", "dice_rolled",
                          "break_checked", "wall_fallback", "dora_revealed", "deal_done"})
#: lines of the shipped bridge file that name the real centre (TLS, account): not on loopback
CENTRE_ONLY = ("bridge_cafile", "bridge_tls_version", "remote_username", "remote_password")


@dataclass(frozen=True)
class Plan:
    tables: int
    hands: int = 1
    pace: str = "play"  # "play" (the speed of a real game) or "rate" (inputs/s per table)
    rate: float = 5.0
    fault: str = "none"  # "none", "broker-restart", "bridge-outage"
    fault_at_s: float = 5.0  # into the play
    outage_s: float = 30.0
    isolate: bool = False
    start: str = "together"  # "together" (every table at "go") or "spread" (bench/venue.py)
    start_seed: int = 1


def bridge_conf(central_port: int) -> str:
    """The shipped bridge file, pointed at ``127.0.0.1:central_port`` without TLS."""
    out = []
    for line in BRIDGE_CONF.read_text().splitlines():
        word = line.split(" ", 1)[0]
        if word == "address":
            line = f"address 127.0.0.1:{central_port}"
        elif word in CENTRE_ONLY:
            continue
        out.append(line)
    return "\n".join(out) + "\n"


class Mosquitto:
    """A private broker with persistence in ``work``; ``stop`` + ``start`` is a restart."""

    def __init__(self, work: Path, name: str, extra: str = "") -> None:
        self.work = work
        self.name = name
        self.port = free_port()
        self.conf = work / f"{name}.conf"
        user = "user root\n" if os.getuid() == 0 else ""
        self.conf.write_text(
            f"{user}listener {self.port} 127.0.0.1\nallow_anonymous true\n"
            f"persistence true\npersistence_location {work}/{name}-db/\n"
            "autosave_interval 3600\nmax_queued_messages 0\nmax_inflight_messages 0\n"
            f"set_tcp_nodelay true\n{extra}"
        )
        (work / f"{name}-db").mkdir(parents=True, exist_ok=True)
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [venue_kit.MOSQUITTO, "-c", str(self.conf)],
            stdout=open(self.work / f"{self.name}.log", "ab"),  # noqa: SIM115
            stderr=subprocess.STDOUT, preexec_fn=die_with_parent,
        )
        venue_kit.wait_port(self.port)

    def stop(self) -> None:
        if self.proc is None:
            return
        reap(self.proc, 10)  # SIGTERM first: it saves the persistence file
        self.proc = None


@dataclass
class Received:
    first: dict[str, list[int]] = field(default_factory=dict)  # first arrivals, in order
    seen: set[tuple[str, int]] = field(default_factory=set)
    redelivered: int = 0
    latency_ms: list[float] = field(default_factory=list)
    #: the same split: events of a hand's set-up burst, and the others (the play)
    setup_ms: list[float] = field(default_factory=list)
    play_ms: list[float] = field(default_factory=list)
    connects: int = 0

    def count(self, table: str) -> int:
        return len(self.first.get(table, []))


async def subscribe(port: int, topic: str, got: Received, ready: asyncio.Event) -> None:
    """Take every event on ``topic`` for as long as it runs, reconnecting with the same
    persistent session after any broker or network fault."""
    import aiomqtt

    ident = f"venue-sub-{os.getpid()}"
    while True:
        try:
            async with aiomqtt.Client(
                "127.0.0.1", port, identifier=ident, clean_session=False,
                protocol=aiomqtt.ProtocolVersion.V311, keepalive=5, timeout=5,
                max_queued_incoming_messages=0,
            ) as client:
                got.connects += 1
                await client.subscribe(topic, qos=1)
                ready.set()
                async for m in client.messages:
                    _take(got, bytes(m.payload))  # type: ignore[arg-type,unused-ignore]
        except aiomqtt.MqttError:
            await asyncio.sleep(0.2)


def _take(got: Received, payload: bytes) -> None:
    now = time.time()
    body = json.loads(payload)
    key = (str(body["table"]), int(body["seq"]))
    if key in got.seen:
        got.redelivered += 1
        return
    got.seen.add(key)
    got.first.setdefault(key[0], []).append(key[1])
    ts = datetime.fromisoformat(body["ts"].replace("Z", "+00:00")).timestamp()
    ms = (now - ts) * 1000
    got.latency_ms.append(ms)
    (got.setup_ms if body.get("type") in SETUP_EVENTS else got.play_ms).append(ms)


def logged(work: Path, tables: list[str]) -> dict[str, tuple[int, int]]:
    """Each table's (events numbered, outbox depth), read from its log (read-only, WAL)."""
    from daemon.eventlog import EventLog

    out = {}
    for t in tables:
        el = EventLog(work / f"{t}.sqlite", t, readonly=True)
        try:
            out[t] = (el.applied()[1], el.outbox_depth())
        finally:
            el.close()
    return out


async def retained_states(port: int, tables: list[str], timeout: float) -> set[str]:
    """The tables whose retained ``state`` and ``status: online`` a fresh client gets."""
    import aiomqtt

    state: set[str] = set()
    online: set[str] = set()
    with contextlib.suppress(asyncio.TimeoutError, aiomqtt.MqttError):
        async with aiomqtt.Client("127.0.0.1", port, timeout=5) as client:
            await client.subscribe("jantaku/v1/+/state", qos=1)
            await client.subscribe("jantaku/v1/+/status", qos=1)

            async def take() -> None:
                async for m in client.messages:
                    body = json.loads(bytes(m.payload))  # type: ignore[arg-type,unused-ignore]
                    if str(m.topic).endswith("/state"):
                        state.add(body["table"])
                    elif body.get("state") == "online":
                        online.add(body["table"])
                    if state >= set(tables) and online >= set(tables):
                        return

            await asyncio.wait_for(take(), timeout)
    return state & online


def spawn_tables(
    plan: Plan, work: Path, port: int, procs: list[subprocess.Popen[bytes]]
) -> tuple[list[str], int, list[float]]:
    """Start the tables' daemons into ``procs`` (the caller's: each is stopped even if a later
    one fails to start)."""
    tables = [f"v{plan.tables:03d}-{i:03d}" for i in range(plan.tables)]
    inputs = 0
    scripts: dict[int, list[list[Any]]] = {}
    for i in range(len(tables)):
        seed = i % 8  # a handful of distinct games, reused: simulation is not what is measured
        if seed not in scripts:
            scripts[seed] = venue_kit.game_script(seed + 1, plan.hands, plan.pace, plan.rate)
            (work / f"game-{seed}.json").write_text(json.dumps(scripts[seed]))
    offsets = venue_kit.start_offsets(
        [venue_kit.hand_seconds(scripts[i % 8]) for i in range(len(tables))],
        plan.start, plan.start_seed)
    (work / "offsets.json").write_text(json.dumps(dict(zip(tables, offsets, strict=True))))
    for i, table in enumerate(tables):
        seed = i % 8
        inputs += len(scripts[seed])
        cfg = work / f"{table}.toml"
        cfg.write_text(venue_kit.table_config(table, work / f"{table}.sqlite", port))
        procs.append(subprocess.Popen(
            [sys.executable, str(VENUE_SCRIPT), "--child", str(cfg),
             str(work / f"game-{seed}.json"), str(work / "go"), str(work / f"{table}.done"),
             str(offsets[i])],
            stdout=subprocess.DEVNULL,
            stderr=open(work / f"{table}.log", "wb"),  # noqa: SIM115
            preexec_fn=_isolated_child if plan.isolate else die_with_parent,
        ))
    return tables, inputs, offsets


def _isolated_child() -> None:
    venue_kit.normal_priority()
    die_with_parent()


def stop_all(procs: list[Any], brokers: list[Mosquitto]) -> None:
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    for p in procs:
        try:
            p.wait(20)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    for b in brokers:
        b.stop()


def run_one(plan: Plan, work: Path) -> dict[str, Any]:
    work.mkdir(parents=True, exist_ok=True)
    return asyncio.run(_run(plan, work))


async def _run(plan: Plan, work: Path) -> dict[str, Any]:
    brokers: list[Mosquitto] = []
    procs: list[Any] = []
    async with contextlib.AsyncExitStack() as stack:
        # every broker and table started is stopped however this ends (the lists fill below)
        stack.callback(stop_all, procs, brokers)
        central: Mosquitto | None = None
        proxy: TcpProxy | None = None
        if plan.fault == "bridge-outage":
            central = Mosquitto(work, "central")
            brokers.append(central)
            central.start()
            proxy = await stack.enter_async_context(TcpProxy(central.port))
        extra = bridge_conf(proxy.port) if proxy is not None else ""
        site = Mosquitto(work, "venue", extra)
        brokers.insert(0, site)
        site.start()
        tables, inputs, offsets = spawn_tables(plan, work, site.port, procs)
        if plan.isolate:
            for b in brokers:
                assert b.proc is not None
                os.setpriority(os.PRIO_PROCESS, b.proc.pid, -10)
            os.setpriority(os.PRIO_PROCESS, 0, -10)
        t_spawn = time.monotonic()
        await venue_kit.wait_online(site.port, tables, timeout=60 + plan.tables * 2.0)
        result: dict[str, Any] = {
            "all_ready_s": round(time.monotonic() - t_spawn, 2),
            # the tables' own starts after "go" (0 for all: --start together)
            "start_offset_max_s": round(max(offsets, default=0.0), 1),
        }
        got = Received()
        ready = asyncio.Event()
        sub_port, topic = (site.port, "jantaku/v1/+/events")
        if central is not None:
            sub_port, topic = (central.port, f"venue/{VENUE}/jantaku/v1/+/events")
        sub = asyncio.create_task(subscribe(sub_port, topic, got, ready))
        await asyncio.wait_for(ready.wait(), 20)
        # the machine's load beside the figures (other jobs distort absolute latencies)
        result["loadavg_start"] = round(os.getloadavg()[0], 2)
        result |= await _play(plan, work, tables, procs, site, proxy, got)
        result["loadavg_end"] = round(os.getloadavg()[0], 2)
        sub.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await sub
        out = result | _verify(plan, work, tables, inputs, got)
        out["events_per_s"] = round(out["events"] / out["play_s"], 1) if out["play_s"] else 0
        return out


async def _play(
    plan: Plan, work: Path, tables: list[str], procs: list[Any], site: Mosquitto,
    proxy: TcpProxy | None, got: Received,
) -> dict[str, Any]:
    usage_d = [venue_kit.Usage(p.pid) for p in procs]
    assert site.proc is not None
    usage_b = venue_kit.Usage(site.proc.pid)
    cpu0 = [u.cpu_s() for u in usage_d]
    cpu_b0 = usage_b.cpu_s()
    t0 = time.monotonic()
    (work / "go").write_text("go")
    out: dict[str, Any] = {}
    fault = asyncio.create_task(_fault(plan, work, tables, site, proxy, got, out))
    deadline = t0 + 600 + plan.tables * 5.0
    while not all((work / f"{t}.done").exists() for t in tables):
        if time.monotonic() > deadline:
            raise TimeoutError("the tables did not finish their games in time")
        await asyncio.sleep(0.1)
    play_s = time.monotonic() - t0
    await fault
    # then until the subscriber holds every event the logs numbered (or 20 quiet seconds)
    want = logged(work, tables)
    until = time.monotonic() + 20.0
    while time.monotonic() < until and not all(got.count(t) >= want[t][0] for t in tables):
        await asyncio.sleep(0.05)
    # and until the outboxes are empty: a daemon deletes what the broker acknowledged 50 ms
    # later, all of that time at once (daemon/outbox.py DELETE_AFTER)
    while time.monotonic() < until and any(depth for _, depth in logged(work, tables).values()):
        await asyncio.sleep(0.1)
    wall = time.monotonic() - t0
    cpu = [u.cpu_s() - c for u, c in zip(usage_d, cpu0, strict=True)]
    restarted = plan.fault == "broker-restart"  # the first broker's figures end with it
    return out | {
        "play_s": round(play_s, 2),
        "broker_cpu_pct": None if restarted else round(100 * (usage_b.cpu_s() - cpu_b0) / wall, 1),
        "broker_rss_mb": None if restarted else round(usage_b.rss_mb(), 1),
        "daemon_cpu_pct_mean": round(100 * sum(cpu) / len(cpu) / wall, 2),
        "daemon_cpu_pct_total": round(100 * sum(cpu) / wall, 1),
        "daemon_rss_mb_mean": round(sum(u.rss_mb() for u in usage_d) / len(usage_d), 1),
        "daemon_rss_mb_max": round(max(u.rss_mb() for u in usage_d), 1),
    }


async def _fault(
    plan: Plan, work: Path, tables: list[str], site: Mosquitto, proxy: TcpProxy | None,
    got: Received, out: dict[str, Any],
) -> None:
    if plan.fault == "none":
        return
    await asyncio.sleep(plan.fault_at_s)
    if plan.fault == "broker-restart":
        site.stop()
        await asyncio.sleep(plan.outage_s)
        site.start()
        up = time.monotonic()
        # every outbox empty (in one sweep of the logs), every retained state back
        while any(depth for _, depth in logged(work, tables).values()):
            await asyncio.sleep(0.1)
        out["drained_s"] = round(time.monotonic() - up, 2)
        back = await retained_states(site.port, tables, timeout=30)
        out["retained_restored_s"] = round(time.monotonic() - up, 2)
        out["retained_restored"] = len(back)
    elif plan.fault == "bridge-outage":
        assert proxy is not None
        proxy.cut("drop")
        # what had crossed the link before the cut may still be on its way from the central
        # broker to the subscriber: counted from a moment later, nothing must arrive
        settle = min(1.0, plan.outage_s / 4)
        await asyncio.sleep(settle)
        at_cut = sum(got.count(t) for t in tables)
        await asyncio.sleep(plan.outage_s - settle)
        out["received_during_outage"] = sum(got.count(t) for t in tables) - at_cut
        want = logged(work, tables)  # what the tables had numbered when the link came back
        out["held_during_outage"] = sum(want[t][0] for t in tables) - sum(
            got.count(t) for t in tables)
        proxy.heal()
        healed = time.monotonic()
        while not all(got.count(t) >= want[t][0] for t in tables):
            if time.monotonic() - healed > 120:
                break
            await asyncio.sleep(0.05)
        out["bridge_caught_up_s"] = round(time.monotonic() - healed, 2)
    out["fault"] = plan.fault
    out["outage_s"] = plan.outage_s


def _verify(
    plan: Plan, work: Path, tables: list[str], inputs: int, got: Received
) -> dict[str, Any]:
    final = logged(work, tables)
    lost = out_of_order = 0
    events = 0
    breaks: list[list[Any]] = []  # where a table's order broke: [table, seq, the one after]
    for t in tables:
        n, _ = final[t]
        events += n
        seqs = got.first.get(t, [])
        lost += len(set(range(1, n + 1)) - set(seqs))
        out_of_order += seqs != sorted(seqs)
        breaks += [[t, a, b] for a, b in itertools.pairwise(seqs) if b < a][:3]
    left = sum(depth for _, depth in final.values())
    return {
        "tables": plan.tables, "hands_per_table": plan.hands, "pace": plan.pace,
        "start": plan.start, "start_seed": plan.start_seed if plan.start == "spread" else None,
        "rate_per_table": plan.rate if plan.pace == "rate" else None,
        "inputs": inputs, "events": events, "received": len(got.seen),
        "lost": lost, "redelivered": got.redelivered,
        "duplicates": 0,  # after dedupe by seq, by construction; redelivered counts the raw ones
        "out_of_order_tables": out_of_order,
        "order_breaks": breaks[:10],
        "outbox_left": left, "subscriber_connects": got.connects,
        "latency_p50_ms": round(venue_kit.pct(got.latency_ms, 50), 2),
        "latency_p99_ms": round(venue_kit.pct(got.latency_ms, 99), 2),
        "latency_max_ms": round(max(got.latency_ms, default=float("nan")), 2),
        "setup_events": len(got.setup_ms),
        "setup_latency_p50_ms": round(venue_kit.pct(got.setup_ms, 50), 2),
        "setup_latency_p99_ms": round(venue_kit.pct(got.setup_ms, 99), 2),
        "play_latency_p50_ms": round(venue_kit.pct(got.play_ms, 50), 2),
        "play_latency_p99_ms": round(venue_kit.pct(got.play_ms, 99), 2),
        "verified": lost == 0 and out_of_order == 0 and left == 0,
    }
