"""Venue load: N real table daemons on one private Mosquitto, each playing a simulated game.

    .venv/bin/python bench/venue.py [--quick] [--tables 1,10,50,100] [--hands 1]
        [--pace play|rate] [--rate 5] [--start spread|together] [--start-seed 1]
        [--fault none|broker-restart|bridge-outage] [--fault-at S] [--outage S] [--isolate]
        [--json]

Each table is its own process running the real daemon -- ``jantaku run --config FILE`` (config
validation, JSON logging, signals, :class:`daemon.service.Service`, its own SQLite event log,
its own MQTT connection). The game comes from ``hil.simulator.GameSimulator`` (four bots through
the real reducer, seeded per table) and enters the daemon through its own input path: a driver
(:class:`ScriptTable`, added to the drivers the config names) calls ``Service.submit`` for each
input, exactly as the table link does (logged and applied before the next).

``--pace play`` (the default) feeds each table at the speed of play: every input at the moment
the simulator's players took it (human-like thinking, about 0.7 inputs/s over a hand), each
hand's set-up (hand start, wall, dice, break, indicator, deal) as one burst, as a table sends it.
``--pace rate`` feeds ``--rate`` inputs per second evenly (a stress form: 5/s is seven times a
live table). No public game record carries per-action times, so the pacing is the simulator's
documented timing model (docs/scaling.md).

``--start spread`` (the default with ``--pace play``) starts each table at its own moment, as a
venue's tables start: each when its players are seated and its referee presses start. Table
``i`` waits a seeded offset (``--start-seed``), uniform over ``[0, D)`` where ``D`` is the length
of one hand of its own game (the first hand's ``hand_start`` to the next one's, or to the game's
last input: 66-172 s for the games the bench uses, at the simulator's pace), so that once every
table plays, the hand starts -- the set-up bursts -- fall anywhere in a hand, as at a venue.
``--start together`` (the default with ``--pace rate``, the stress form) starts every table at
the same instant: the worst case of a tournament's synchronised start, all set-up bursts at once.

``--fault broker-restart`` stops the venue broker ``--outage`` seconds (default 5) at
``--fault-at`` seconds into the play and measures how long after its restart every outbox is
empty and a fresh client gets every table's retained state; ``--fault bridge-outage`` puts a
central broker behind the shipped bridge configuration and cuts the bridge for ``--outage``
seconds (default 30), the subscriber at the centre (bench/venue_run.py).

One persistent subscriber (QoS 1) takes every event and stamps its arrival. Afterwards each
table's log is opened read-only: the subscriber must have received events ``1..event_seq`` of
every table (zero loss after dedupe by ``seq``; redeliveries are counted), in order, and every
outbox must be empty. Latency = arrival wall time - the event's ``ts`` (the wall time the daemon
stamped on the input; millisecond resolution, truncated, so figures are high by up to 1 ms).
CPU and RSS of the daemons come from psutil when it is installed, else from /proc.

``--quick`` runs N = 1 and 10 with one hand per table.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from venue_kit import usage_source  # noqa: E402


# --------------------------------------------------------------------------- the child: a daemon
class ScriptTable:
    """A driver that plays a timed input stream (``[[at_seconds, input], ...]``) into the daemon
    (``sink.submit``), one input at a time, each awaited (logged and applied) before the next.

    It waits for ``go`` (a file) so that all tables of a run share one clock, then ``offset``
    seconds more (its own start: ``--start spread``), and writes ``done`` (the number of inputs
    fed) when the stream is over; then it idles like a quiet table."""

    def __init__(
        self, script: list[list[Any]], go: Path, done: Path, offset: float = 0.0
    ) -> None:
        self.name = "script"
        self.script = script  # [[at_seconds, input_json], ...]
        self.go = go
        self.done = done
        self.offset = offset
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
        # a restarted daemon resumes at once; a fresh one waits for its table's own start
        t0 = time.monotonic() + (self.offset if start == 0 else 0.0)
        base = self.script[start][0] if start < len(self.script) else 0.0
        i = start
        while i < len(self.script):
            at = self.script[i][0]
            j = i + 1
            while j < len(self.script) and self.script[j][0] == at:
                j += 1
            delay = t0 + (at - base) - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            # inputs due at the same moment (a hand's set-up burst) arrive together, in order,
            # as the table's controller and sensors deliver them: the intake commits them as
            # one group; each is awaited (logged and applied) before the next moment
            if j - i == 1 or not hasattr(sink, "put"):
                for _, body in self.script[i:j]:
                    await sink.submit("input", "table", body)
            else:
                for fut in [sink.put("input", "table", body) for _, body in self.script[i:j]]:
                    await fut
            self.fed += j - i
            i = j
        self.done.write_text(str(start + self.fed))
        await asyncio.Event().wait()

    async def show(self, board: dict[str, Any], events: Sequence[dict[str, Any]]) -> None:
        return None

    def health(self) -> dict[str, Any]:
        return {"kind": "script", "status": "up", "fed": self.fed}


def child(argv: list[str]) -> int:
    """``venue.py --child CONFIG SCRIPT GO DONE [OFFSET]``: ``jantaku run --config CONFIG`` with
    the script driver added, its table starting ``OFFSET`` seconds after ``GO``."""
    config, script_path, go, done = argv[:4]
    offset = float(argv[4]) if len(argv) > 4 else 0.0
    script = json.loads(Path(script_path).read_text())
    import daemon.devices
    from daemon.cli import main

    real_build = daemon.devices.build_drivers

    def build(cfg: Any, *, pin_factory: Any = None) -> list[Any]:
        drivers: list[Any] = list(real_build(cfg, pin_factory=pin_factory))
        drivers.append(ScriptTable(script, Path(go), Path(done), offset))
        return drivers

    daemon.devices.build_drivers = build  # type: ignore[assignment]
    return main(["run", "--config", config])


def main(argv: list[str] | None = None) -> int:
    args_in = sys.argv[1:] if argv is None else argv
    if args_in and args_in[0] == "--child":
        return child(args_in[1:])
    import venue_run

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--quick", action="store_true", help="N = 1 and 10, one hand each")
    parser.add_argument("--tables", default=None, help="comma-separated N (default 1,10,50,100)")
    parser.add_argument("--hands", type=int, default=1, help="hands per table (default 1)")
    parser.add_argument("--pace", choices=("play", "rate"), default="play",
                        help="play: the speed of a real game (default); rate: --rate inputs/s")
    parser.add_argument("--rate", type=float, default=5.0, help="inputs/s per table (--pace rate)")
    parser.add_argument("--start", choices=("spread", "together"), default=None,
                        help="spread: each table starts at its own moment within one hand"
                             " (default with --pace play); together: all at once (the worst"
                             " case; default with --pace rate)")
    parser.add_argument("--start-seed", type=int, default=1, help="seed of the start offsets")
    parser.add_argument("--fault", choices=("none", "broker-restart", "bridge-outage"),
                        default="none", help="restart the venue broker, or cut its bridge")
    parser.add_argument("--fault-at", type=float, default=20.0, help="seconds into the play")
    parser.add_argument("--outage", type=float, default=None,
                        help="seconds the broker is down / the bridge is cut (default 5 / 30)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    parser.add_argument(
        "--isolate",
        action="store_true",
        help="run the broker and the subscriber at nice -10 (root), as on machines of their own",
    )
    args = parser.parse_args(args_in)
    sizes = [int(x) for x in (args.tables or ("1,10" if args.quick else "1,10,50,100")).split(",")]
    outage = args.outage if args.outage is not None else (
        30.0 if args.fault == "bridge-outage" else 5.0)
    work = Path(tempfile.mkdtemp(prefix="jantaku-venue-"))
    start = args.start or ("spread" if args.pace == "play" else "together")
    results = []
    try:
        for n in sizes:
            plan = venue_run.Plan(
                tables=n, hands=args.hands, pace=args.pace, rate=args.rate, fault=args.fault,
                fault_at_s=args.fault_at, outage_s=outage, isolate=args.isolate,
                start=start, start_seed=args.start_seed,
            )
            r = venue_run.run_one(plan, work / f"n{n}")
            r["isolated"] = args.isolate
            results.append(r)
            if not args.json:
                print(_line(r), flush=True)
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
              f" zero loss, order kept, outboxes empty: {summary['verified']}")
    return 0 if summary["verified"] else 1


def _line(r: dict[str, Any]) -> str:
    fault = ""
    if r.get("fault") == "broker-restart":
        fault = (f"; broker down {r['outage_s']} s: outboxes drained {r['drained_s']} s after"
                 f" restart, {r['retained_restored']} retained states in"
                 f" {r['retained_restored_s']} s")
    elif r.get("fault") == "bridge-outage":
        fault = (f"; bridge cut {r['outage_s']} s ({r['held_during_outage']} events held):"
                 f" caught up {r['bridge_caught_up_s']} s after")
    return (
        f"N={r['tables']:>3} ({r['pace']}, start {r['start']}, within {r['start_offset_max_s']} s):"
        f" {r['events']} events ({r['inputs']} inputs) in"
        f" {r['play_s']} s; latency p50 {r['latency_p50_ms']} ms p99 {r['latency_p99_ms']} ms"
        f" max {r['latency_max_ms']} ms (set-up bursts p99 {r['setup_latency_p99_ms']} ms, the"
        f" play p99 {r['play_latency_p99_ms']} ms); lost {r['lost']} redelivered {r['redelivered']}"
        f" out of order {r['out_of_order_tables']} outbox {r['outbox_left']}; daemon"
        f" {r['daemon_cpu_pct_mean']}% CPU (all {r['daemon_cpu_pct_total']}%) RSS"
        f" {r['daemon_rss_mb_mean']} MB (max {r['daemon_rss_mb_max']}); all online in"
        f" {r['all_ready_s']} s{fault}; load average {r['loadavg_start']} → {r['loadavg_end']}"
    )


if __name__ == "__main__":
    sys.exit(main())
