"""The performance report: every benchmark of the project, each figure beside a reference measured
in the same run on the same machine, as one Markdown table.

    .venv/bin/python bench/report.py [--quick] [--out FILE] [--json]

``--quick`` (under 5 minutes): short forms of every bench (venue N = 1 and 10, fewer frames,
presses, hands). The full form runs each bench at its default size (venue N = 1, 10, 50, 100 at
the speed of play, each table starting at its own moment within one hand, as at a venue; beside it
the worst case, N = 100 with every table starting at once: ``--start together``).

References (all measured here, now):

* daemon event latency (input put -> subscriber) | the raw aiomqtt QoS 1 trip (one client
  publishes, another receives) through a private Mosquitto;
* table-link frame time on the wire at the configured baud (computed) | the software round trip
  over a pty (bench/link.py);
* WMC timer error (bench/timers.py) | the event loop's own wake-up lateness (``call_later``);
* record replay hands/s (import + replay) | ``riichienv`` (Rust, PyPI) replaying the *same* games
  exported as mjai (``MjaiReplay``: parse + step every event), when it is installed;
* daemon RSS and idle CPU | a bare Python with aiomqtt imported, and Mosquitto itself;
* daemon start -> ``online`` | the interpreter start with aiomqtt imported.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
BENCH = REPO / "bench"
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(BENCH))

import venue_kit  # noqa: E402  (bench/venue_kit.py: broker, config and usage helpers)
from daemon_latency import p99_goal_ms  # noqa: E402  (bench/daemon_latency.py)
from replay import RATIO_GOAL, versus_riichienv, versus_riichienv_process  # noqa: E402

from hil.kit import die_with_parent, free_port, reaped  # noqa: E402

PY = sys.executable


def run_json(script: str, *args: str, timeout: float = 1800) -> dict[str, Any] | str:
    """A bench script's ``--json`` object, or the reason it could not run."""
    try:
        res = subprocess.run(
            [PY, str(BENCH / script), *args, "--json"],
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=REPO,
        )
    except subprocess.TimeoutExpired:
        return f"timed out after {timeout:.0f} s"
    lines = [x for x in res.stdout.splitlines() if x.startswith("{")]
    if res.returncode not in (0, 1) or not lines:
        tail = (res.stderr or res.stdout).strip().splitlines()[-1:] or ["no output"]
        return f"failed (exit {res.returncode}): {tail[0][:200]}"
    body: dict[str, Any] = json.loads(lines[-1])
    return body


# --------------------------------------------------------------------------- references
@contextlib.contextmanager
def mosquitto(work: Path) -> Iterator[tuple[int, int]]:
    """A private Mosquitto: (port, pid)."""
    port = free_port()
    conf = work / "mosquitto.conf"
    user = "user root\n" if os.getuid() == 0 else ""
    conf.write_text(f"{user}listener {port} 127.0.0.1\nallow_anonymous true\n"
                    "persistence false\nset_tcp_nodelay true\n")
    proc = subprocess.Popen([venue_kit.MOSQUITTO, "-c", str(conf)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, preexec_fn=die_with_parent)
    with reaped(proc, 5):
        venue_kit.wait_port(port)
        yield port, proc.pid


async def mqtt_round_trip(port: int, n: int) -> dict[str, float]:
    """QoS 1 publish by one client -> delivered to another client's subscription, one at a time
    (the daemon -> overlay path without the daemon). Two clients: one client publishing to its
    own subscription at QoS 1 waits ~40 ms on delayed ACKs (Nagle), which is not our path."""
    import aiomqtt

    lat: list[float] = []
    pid = os.getpid()
    async with (
        aiomqtt.Client("127.0.0.1", port, identifier=f"rt-sub-{pid}") as sub,
        aiomqtt.Client("127.0.0.1", port, identifier=f"rt-pub-{pid}") as pub,
    ):
        await sub.subscribe("bench/rt", qos=1)
        messages = sub.messages.__aiter__()
        for i in range(n + 50):
            t0 = time.perf_counter()
            await pub.publish("bench/rt", str(i).encode(), qos=1)
            await messages.__anext__()
            if i >= 50:
                lat.append((time.perf_counter() - t0) * 1000)
    lat.sort()
    return {"p50_ms": statistics.median(lat), "p99_ms": lat[int(len(lat) * 0.99) - 1]}


async def loop_lateness(n: int, interval: float = 0.025) -> dict[str, float]:
    """How late the event loop wakes a ``call_later`` (the floor under any asyncio timer)."""
    loop = asyncio.get_running_loop()
    late: list[float] = []
    for _ in range(n):
        fut: asyncio.Future[float] = loop.create_future()
        due = loop.time() + interval
        loop.call_later(interval, _resolve, fut, loop)
        late.append((await fut - due) * 1000)
    late.sort()
    return {"p50_ms": statistics.median(late), "p99_ms": late[int(len(late) * 0.99) - 1]}


def _resolve(fut: asyncio.Future[float], loop: asyncio.AbstractEventLoop) -> None:
    fut.set_result(loop.time())


def bare_python(seconds: float) -> dict[str, float]:
    """RSS and start time of an interpreter that imports aiomqtt (the daemon's floor)."""
    t0 = time.perf_counter()
    subprocess.run([PY, "-c", "import aiomqtt, sqlite3"], check=True, timeout=60)
    start = time.perf_counter() - t0
    proc = subprocess.Popen([PY, "-c", "import aiomqtt, sqlite3, time; time.sleep(60)"])
    try:
        time.sleep(min(seconds, 2.0))
        rss = venue_kit.Usage(proc.pid).rss_mb()
    finally:
        proc.kill()
        proc.wait()
    return {"start_s": start, "rss_mb": rss}


def idle_daemon(work: Path, port: int, broker_pid: int, seconds: float) -> dict[str, float]:
    """``jantaku run``: spawn -> retained ``online``; then CPU and RSS while idle."""
    table = "idle"
    cfg = work / "idle.toml"
    cfg.write_text(venue_kit.table_config(table, work / "idle.sqlite", port))
    t0 = time.perf_counter()
    jantaku = [PY, "-c", "import sys; from daemon.cli import main; sys.exit(main())"]
    proc = subprocess.Popen([*jantaku, "run", "--config", str(cfg)], cwd=REPO,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            preexec_fn=die_with_parent)
    with reaped(proc, 20):
        asyncio.run(venue_kit.wait_online(port, [table], timeout=60))
        ready = time.perf_counter() - t0
        time.sleep(1.0)
        usage, broker = venue_kit.Usage(proc.pid), venue_kit.Usage(broker_pid)
        c0, b0, w0 = usage.cpu_s(), broker.cpu_s(), time.perf_counter()
        time.sleep(seconds)
        wall = time.perf_counter() - w0
        return {
            "ready_s": ready,
            "idle_cpu_pct": 100 * (usage.cpu_s() - c0) / wall,
            "rss_mb": usage.rss_mb(),
            "broker_idle_cpu_pct": 100 * (broker.cpu_s() - b0) / wall,
            "broker_rss_mb": broker.rss_mb(),
        }


# --------------------------------------------------------------------------- the report
def fmt(v: Any, unit: str = "", digits: int = 1) -> str:
    if isinstance(v, str):
        return v
    if v is None:
        return "n/a"
    if isinstance(v, float) and abs(v) >= 1000:
        return f"{v:,.0f}{unit}"
    return f"{v:,.{digits}f}{unit}"


def get(obj: dict[str, Any] | str, *keys: str) -> Any:
    cur: Any = obj
    for k in keys:
        if not isinstance(cur, dict) or k not in cur:
            return obj if isinstance(obj, str) else None
        cur = cur[k]
    return cur


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--quick", action="store_true", help="short forms (under 5 minutes)")
    parser.add_argument("--out", help="also write the Markdown table to this file")
    parser.add_argument("--json", action="store_true", help="print one JSON object of it all")
    args = parser.parse_args(argv)
    q = args.quick
    t_start = time.perf_counter()
    res: dict[str, Any] = {}
    work = Path(tempfile.mkdtemp(prefix="jantaku-report-"))
    try:
        with mosquitto(work) as (port, broker_pid):
            say("reference: raw aiomqtt round trip ...")
            res["mqtt_rt"] = asyncio.run(mqtt_round_trip(port, 300 if q else 2000))
            say("reference: event loop lateness ...")
            res["loop"] = asyncio.run(loop_lateness(100 if q else 400))
            say("reference: bare python ...")
            res["bare"] = bare_python(2.0)
            say("daemon: start to online, idle CPU, RSS ...")
            res["idle"] = idle_daemon(work, port, broker_pid, 5.0 if q else 30.0)
        say("bench/venue.py ...")
        # quick: the stress form (5 inputs/s a table, every table at once); full: the speed of
        # play, N = 1..100, each table starting at its own moment within one hand (a venue) ...
        res["venue"] = run_json("venue.py", *(["--quick", "--pace", "rate"] if q else []))
        if not q:
            # ... and beside it the worst case: all 100 tables start their hands at one instant
            say("bench/venue.py --start together --tables 100 ...")
            res["venue_together"] = run_json("venue.py", "--tables", "100", "--start", "together")
        say("bench/venue.py --fault broker-restart, bridge-outage ...")
        res["venue_restart"] = run_json(
            "venue.py", "--fault", "broker-restart", "--tables", "10" if q else "100",
            *(["--pace", "rate", "--fault-at", "3"] if q else []))
        res["venue_bridge"] = run_json(
            "venue.py", "--fault", "bridge-outage", "--tables", "10", "--pace", "rate",
            "--rate", "4", "--fault-at", "4", *(["--outage", "10"] if q else []))
        say("bench/link.py ...")
        res["link"] = run_json("link.py", *(["--frames", "1000", "--replugs", "5"] if q else []))
        say("bench/input_path.py ...")
        res["input_path"] = run_json(
            "input_path.py", *(["--inputs", "500", "--burst", "200"] if q else [])
        )
        say("bench/timers.py ...")
        res["timers"] = run_json("timers.py", *(["--presses", "100"] if q else []))
        say("bench/replay.py ...")
        res["replay"] = run_json("replay.py", "--rounds", "1" if q else "3", "--no-riichienv")
        say("replay against riichienv ...")
        # best of 3 rounds even in the quick form (a second): both engines warm, as in play --
        # the first round in a fresh process fills our hand-shape caches (docs/performance.md)
        res["riichienv"] = versus_riichienv(3 if q else 5)
        say("jantaku replay DIR against a riichienv process ...")
        res["riichienv_process"] = versus_riichienv_process(3, 4 if q else 16)
        say("bench/scoring.py ...")
        res["scoring"] = run_json(
            "scoring.py", *(["--hands", "500", "--rulesets", "mleague"] if q else [])
        )
        say("bench/zung_jung.py ...")
        res["zung_jung"] = run_json("zung_jung.py", *(["--hands", "3000"] if q else []))
        if shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which(
            "google-chrome"
        ):
            say("bench/overlay_latency.py ...")
            res["overlay"] = run_json(
                "overlay_latency.py", *(["--events", "300"] if q else []), timeout=600
            )
        else:
            res["overlay"] = "no Chromium on this machine"
        say("bench/demo_stream.py ...")
        res["demo_stream"] = run_json("demo_stream.py", timeout=900)
        if (BENCH / "daemon_latency.py").exists():
            say("bench/daemon_latency.py ...")
            res["daemon_latency"] = run_json(
                "daemon_latency.py", *(["--events", "2000"] if q else []), timeout=900
            )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    res["seconds"] = round(time.perf_counter() - t_start, 1)
    table = markdown(res, q)
    if args.out:
        Path(args.out).write_text(table)
    if args.json:
        print(json.dumps(res))
    else:
        print(table)
    return 0


def markdown(r: dict[str, Any], quick: bool) -> str:
    rows: list[tuple[str, str, str, str]] = []

    def row(what: str, value: str, ref_what: str, ref: str) -> None:
        rows.append((what, value, ref_what, ref))

    rt = r["mqtt_rt"]
    runs = get(r["venue"], "runs")
    worst = get(r.get("venue_together", {}), "runs")
    if isinstance(runs, list):
        for v in runs + (worst if isinstance(worst, list) else []):
            start = v.get("start", "together")
            how = (f"{v['pace']}, tables started within {v.get('start_offset_max_s', 0):.0f} s"
                   if start == "spread" else f"{v['pace']}, every table started at once")
            row(
                f"venue N={v['tables']} ({how}): event latency p50 / p99 (input put →"
                " subscriber); load average start → end",
                f"{v['latency_p50_ms']:.1f} / {v['latency_p99_ms']:.1f} ms;"
                f" {v.get('loadavg_start')} → {v.get('loadavg_end')}",
                "raw aiomqtt QoS 1 publish → subscriber p50 / p99",
                f"{rt['p50_ms']:.2f} / {rt['p99_ms']:.2f} ms",
            )
            row(
                f"venue N={v['tables']}: events/s, lost, duplicates, outbox left",
                f"{v['events_per_s']:,.0f} ev/s; {v['lost']} lost, {v['duplicates']} dup,"
                f" {v['outbox_left']} left",
                "broker CPU / RSS",
                f"{v['broker_cpu_pct']:.1f} % / {v['broker_rss_mb']:.1f} MB",
            )
            row(
                f"venue N={v['tables']}: daemon CPU (mean per table) / RSS (mean, max)",
                f"{v['daemon_cpu_pct_mean']:.2f} % / {v['daemon_rss_mb_mean']:.1f},"
                f" {v['daemon_rss_mb_max']:.1f} MB",
                "all daemons online after spawn",
                f"{v['all_ready_s']:.1f} s",
            )
    else:
        row("venue", str(r["venue"]), "", "")
    for key in ("venue_restart", "venue_bridge"):
        fr = get(r.get(key, {}), "runs")
        if not isinstance(fr, list):
            continue
        for v in fr:
            if v.get("fault") == "broker-restart":
                row(f"venue N={v['tables']}: broker down {v['outage_s']:.0f} s, then outboxes"
                    " drained / retained state back",
                    f"{v['drained_s']:.1f} / {v['retained_restored_s']:.1f} s;"
                    f" {v['lost']} lost, {v['out_of_order_tables']} out of order",
                    "goal", "≤ 10 s, 0 lost")
            else:
                row(f"venue N={v['tables']}: bridge to a central broker cut {v['outage_s']:.0f} s",
                    f"{v['held_during_outage']} events held, caught up"
                    f" {v['bridge_caught_up_s']:.1f} s after; {v['lost']} lost,"
                    f" {v['out_of_order_tables']} tables out of order",
                    "goal", "0 lost, order kept per table")
    idle, bare = r["idle"], r["bare"]
    row("daemon start → `online` (spawn to retained status)", f"{idle['ready_s']:.2f} s",
        "python start + `import aiomqtt`", f"{bare['start_s']:.2f} s")
    row("daemon RSS (idle, after start)", f"{idle['rss_mb']:.1f} MB",
        "python + aiomqtt imported / Mosquitto", f"{bare['rss_mb']:.1f} MB / "
        f"{idle['broker_rss_mb']:.1f} MB")
    row("daemon idle CPU", f"{idle['idle_cpu_pct']:.2f} %", "Mosquitto idle CPU",
        f"{idle['broker_idle_cpu_pct']:.2f} %")
    link = r["link"]
    if isinstance(link, dict):
        row(f"table-link frame on the wire at {link['baud']:,} baud (honba_display + ack)",
            f"{link['frame_ms']:.3f} + {link['ack_ms']:.3f} ms",
            "software round trip over a pty p50 / p99",
            f"{link['pty_round_trip_p50_ms']:.3f} / {link['pty_round_trip_p99_ms']:.3f} ms")
        row("table-link decoder", f"{link['decoder_frames_per_s']:,.0f} frames/s",
            "replug → connected p50 / max",
            f"{link['replug_p50_ms']:.0f} / {link['replug_max_ms']:.0f} ms")
    else:
        row("table link", link, "", "")
    ip = r.get("input_path")
    if isinstance(ip, dict):
        row("event log, group commit (256 / 64 / 16 per transaction, FULL fsync)",
            f"{ip['inputs_per_s_group_256']:,.0f} / {ip['inputs_per_s_group_64']:,.0f} / "
            f"{ip['inputs_per_s_group_16']:,.0f} inputs/s",
            "one commit per input, same file system", f"{ip['inputs_per_s_group_1']:,.0f} inputs/s")
        row(f"table event → ACK after commit p50 / p99; burst of {ip['burst']} events/s",
            f"{ip['ack_p50_ms']:.2f} / {ip['ack_p99_ms']:.2f} ms; "
            f"{ip['burst_events_per_s']:,.0f} ev/s",
            "command round trip over the same pty, no log, p50 / p99",
            f"{ip['command_rtt_p50_ms']:.2f} / {ip['command_rtt_p99_ms']:.2f} ms")
    elif ip is not None:
        row("input path", str(ip), "", "")
    timers, loop = r["timers"], r["loop"]
    if isinstance(timers, dict):
        for phase in ("idle", "loaded"):
            t = timers.get(phase)
            if t:
                row(f"WMC timer error |charged − true| p50 / p99, {phase}",
                    f"{t['error_p50_ms']:.3f} / {t['error_p99_ms']:.3f} ms ({t['lost']} lost)",
                    "event loop wake-up lateness p50 / p99",
                    f"{loop['p50_ms']:.3f} / {loop['p99_ms']:.3f} ms")
    else:
        row("timers", timers, "", "")
    rv = r["riichienv"]
    rp = r["replay"]
    if isinstance(rv, dict) and "ours_hands_per_s" in rv:
        row(f"record replay, same {rv['games']} games / {rv['hands']} hands as mjai"
            " (import + replay)", f"{rv['ours_hands_per_s']:,.0f} hands/s",
            f"riichienv {rv['riichienv']} `MjaiReplay` (parse + step)",
            f"{rv['riichienv_hands_per_s']:,.0f} hands/s (ratio {rv['ratio']:.2f})")
    else:
        row("record replay vs riichienv", "—", "riichienv", str(get(rv, "riichienv")))
    rpp = r.get("riichienv_process")
    if isinstance(rpp, dict) and "ratio" in rpp:
        verdict = "met" if rpp["ratio"] >= RATIO_GOAL else "NOT met"
        row(f"`jantaku replay DIR`, whole process, {rpp['files']} files / {rpp['hands']:,} hands"
            " (the same games, repeated): CPU (wall)",
            f"{rpp['ours_cpu_s']:.2f} s ({rpp['ours_wall_s']:.2f} s); ratio {rpp['ratio']:.2f}"
            f" (goal ≥ 0.5: {verdict})",
            f"a Python process replaying the folder with riichienv {rv.get('riichienv', '')}"
            if isinstance(rv, dict) else "riichienv process",
            f"{rpp['riichienv_cpu_s']:.2f} s ({rpp['riichienv_wall_s']:.2f} s)")
    if isinstance(rp, dict):
        row("record replay (bench/replay.py): reducer inputs/s; hands/s with verify",
            f"{rp['inputs/s (reducer)']:,.0f} inputs/s; "
            f"{rp['hands/s (import+replay+verify)']:,.0f} hands/s",
            "records not verified", f"{rp['mismatched']} of {rp['records']}")
    sc = r["scoring"]
    if isinstance(sc, dict):
        for name, s in sc.items():
            if isinstance(s, dict):
                row(f"riichi scoring ({name})", f"{s['scored_hands_per_s']:,.0f} hands/s",
                    "p99 per hand", f"{s['score_p99_us']:,.0f} µs")
    zj = r["zung_jung"]
    if isinstance(zj, dict):
        row("Zung Jung scoring", f"{zj['hands_per_s']:,.0f} hands/s",
            "worst case (11122233344455m)", f"{zj['worst_us']:,.0f} µs/hand")
    ov = r["overlay"]
    if isinstance(ov, dict):
        row("overlay latency (event applied → DOM) p50 / p99",
            f"{ov['p50_ms']:.1f} / {ov['p99_ms']:.1f} ms",
            "raw aiomqtt QoS 1 publish → subscriber p50", f"{rt['p50_ms']:.2f} ms")
    else:
        row("overlay latency", str(ov), "", "")
    ds = r.get("demo_stream")
    if isinstance(ds, dict):
        row("`jantaku demo` (speed 20): retained `state` messages/s; shortest / p5 gap between"
            " two as received",
            f"{ds['states_per_s']:.2f}/s; {ds['state_gap_min_ms']:.0f} /"
            f" {ds['state_gap_p5_ms']:.0f} ms",
            "ceiling 1 / `mqtt.state_interval`; the interval; inputs/s driving it",
            f"{ds['state_ceiling_per_s']:.1f}/s; {ds['state_interval_ms']:.0f} ms;"
            f" {ds['inputs_per_s']:.1f} inputs/s")
        dov = ds.get("overlay")
        if isinstance(dov, dict):
            row("`jantaku demo`: overlay page behind the daemon's `/api/view` (events p50 / max);"
                " until it shows the served seq p50 / p99",
                f"{dov['lag_events_p50']} / {dov['lag_events_max']} events;"
                f" {dov['catch_up_p50_ms']:.0f} / {dov['catch_up_p99_ms']:.0f} ms",
                "mean time between two events of the game", f"{ds['event_gap_mean_ms']:.0f} ms")
    elif ds is not None:
        row("bench/demo_stream.py", str(ds), "", "")
    dl = r.get("daemon_latency")
    if isinstance(dl, dict):
        goal = p99_goal_ms(dl["raw"]["p99_ms"])
        verdict = "met" if dl["daemon"]["p99_ms"] <= goal else "NOT met"
        row("table frame (emulator pty) → daemon → MQTT subscriber p50 / p99 "
            f"({dl['daemon']['n']:,} events; goal p99 ≤ 2 × raw p99 + 1 ms)",
            f"{dl['daemon']['p50_ms']:.2f} / {dl['daemon']['p99_ms']:.2f} ms"
            f" (goal {goal:.2f} ms: {verdict})",
            "raw aiomqtt QoS 1 publish → subscriber p50 / p99 (same bench)",
            f"{dl['raw']['p50_ms']:.2f} / {dl['raw']['p99_ms']:.2f} ms")
        row("`jantaku run` start → READY / RSS / idle CPU",
            f"{dl['ready_ms']:.0f} ms / {dl['rss_mib']:.1f} MiB / {dl['idle_cpu_pct']:.2f} %",
            "", "")
    elif dl is not None:
        row("bench/daemon_latency.py", str(dl), "", "")
    head = (
        f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} on {platform.node()}:"
        f" {os.cpu_count()} CPUs, Python {platform.python_version()},"
        f" {platform.system()} {platform.release()}; {'quick' if quick else 'full'} form,"
        f" {r['seconds']} s; usage from {venue_kit.usage_source()}.\n\n"
        "| figure | value | reference (same run) | reference value |\n|---|---|---|---|\n"
    )
    body = "\n".join(f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows)
    return head + body + "\n"


if __name__ == "__main__":
    sys.exit(main())
