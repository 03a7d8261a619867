"""The three speed goals of the input path, run several times in a row, each beside its reference
measured in the same run on the same machine:

* table frame → subscriber p99 ≤ 2 × the raw aiomqtt QoS 1 round trip's p99 + 1 ms
  (bench/daemon_latency.py: its daemon, its broker, its raw reference);
* the daemon's CPU per input ≤ 0.4 ms (the same run: /proc's user + system time over the frames);
* ``jantaku replay DIR`` as a whole process ≥ ½ of riichienv's whole-process replay of the same
  files, CPU time, best of ``--rounds`` (bench/replay.py :func:`versus_riichienv_process`).

    .venv/bin/python bench/speed_goals.py [--runs 3] [--events 10000] [--rounds 3] [--json]

Prints one row per run and whether every goal held in every run ("three runs in a row"); exits 1
when any did not. The figures move with the machine's load: run it on a quiet machine, and quote
the table, not a single run.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
BENCH = REPO / "bench"
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(BENCH))

from daemon_latency import p99_goal_ms  # noqa: E402  (bench/daemon_latency.py)
from replay import RATIO_GOAL, versus_riichienv_process  # noqa: E402  (bench/replay.py)

#: issue 30 item 8's CPU goal: the daemon's CPU time per input
CPU_PER_INPUT_MS = 0.4


def latency_run(events: int, host: str, port: int) -> dict[str, Any]:
    """One bench/daemon_latency.py run's figures (its ``--json`` object)."""
    res = subprocess.run(
        [sys.executable, str(BENCH / "daemon_latency.py"), "--json", "--events", str(events),
         "--idle", "0.5", "--host", host, "--port", str(port)],
        capture_output=True, text=True, timeout=900, cwd=REPO, check=False)
    if res.returncode != 0:
        raise SystemExit(f"bench/daemon_latency.py failed ({res.returncode}):\n{res.stderr}")
    figures: dict[str, Any] = json.loads(res.stdout.splitlines()[-1])
    return figures


def one_run(args: argparse.Namespace) -> dict[str, Any]:
    """Every goal's figure and verdict, measured once; each verdict is taken on the figure as
    printed, so that a reader checking the table agrees with it."""
    lat = latency_run(args.events, args.host, args.port)
    rep = versus_riichienv_process(args.rounds, args.copies)
    if "ratio" not in rep:
        raise SystemExit(f"the replay reference could not run: {rep}")
    p99_goal = round(p99_goal_ms(lat["raw"]["p99_ms"]), 3)
    ratio = round(rep["ratio"], 3)
    return {
        "raw_p99_ms": lat["raw"]["p99_ms"],
        "p99_ms": lat["daemon"]["p99_ms"],
        "p99_goal_ms": p99_goal,
        "p99_met": lat["daemon"]["p99_ms"] <= p99_goal,
        "cpu_per_input_ms": lat["cpu_per_input_ms"],
        "cpu_met": lat["cpu_per_input_ms"] <= CPU_PER_INPUT_MS,
        "replay_ratio": ratio,
        "replay_met": ratio >= RATIO_GOAL,
        "loadavg": [round(x, 2) for x in os.getloadavg()],
        "log_slow": lat["log_slow"],
    }


def _yes(ok: bool) -> str:
    return "met" if ok else "NOT met"


def table(runs: list[dict[str, Any]]) -> str:
    head = ("| run | daemon p99 (goal: 2 × raw p99 + 1 ms) | CPU per input (goal ≤ 0.4 ms) "
            "| replay ratio (goal ≥ 0.5) | load (1 min) |\n|---|---|---|---|---|")
    rows = [
        f"| {i} | {r['p99_ms']:.3f} ≤ {r['p99_goal_ms']:.3f} ms: {_yes(r['p99_met'])} "
        f"| {r['cpu_per_input_ms']:.3f} ms: {_yes(r['cpu_met'])} "
        f"| {r['replay_ratio']:.3f}: {_yes(r['replay_met'])} | {r['loadavg'][0]:.2f} |"
        for i, r in enumerate(runs, 1)]
    return "\n".join([head, *rows])


def held(runs: list[dict[str, Any]]) -> bool:
    return all(r["p99_met"] and r["cpu_met"] and r["replay_met"] for r in runs)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3, help="replay: best of ROUNDS")
    parser.add_argument("--copies", type=int, default=16, help="replay: each game COPIES times")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=1883)
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    args = parser.parse_args()
    runs = []
    for i in range(args.runs):
        runs.append(one_run(args))
        print(f"run {i + 1} of {args.runs}: {runs[-1]}", file=sys.stderr, flush=True)
    ok = held(runs)
    if args.json:
        print(json.dumps({"runs": runs, "held": ok}))
    else:
        print(table(runs))
        print(f"every goal in every one of {len(runs)} runs in a row: {'yes' if ok else 'no'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
