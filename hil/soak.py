"""Soak: whole games through the HIL path, one after another, every ruleset in turn.

    python -m hil.soak --games 12            # a bounded run
    python -m hil.soak --hours 8 --out soak.jsonl

Each game is a fresh seed, played as fast as the stack allows through the emulated sensor table
into the production daemon (one daemon, one event log for the whole soak, as a venue table runs a
day). An anomaly is anything but a clean game: the daemon's events differing from the simulator's,
a rules violation, a rejected read, a reader fault, a crash. One JSON line per game, then a
report: games and hands per hour, inputs per second, anomalies. Exit 1 if any anomaly.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from hil.runner.session import HilSession

RULESETS = ("mleague", "wmc", "saikouisen", "mu", "tenhou", "saikouisen-classic")


async def soak(*, games: int | None, hours: float | None, seed: int, workdir: Path,
               rulesets: tuple[str, ...] = RULESETS, emit: Any = print) -> dict[str, Any]:
    t0 = time.monotonic()
    deadline = None if hours is None else t0 + hours * 3600
    played = hands = steps = 0
    anomalies: list[dict[str, Any]] = []
    sessions: dict[str, HilSession] = {}
    try:
        while (games is None or played < games) and (deadline is None or
                                                      time.monotonic() < deadline):
            ruleset = rulesets[played % len(rulesets)]
            session = sessions.get(ruleset)
            if session is None:
                session = HilSession(ruleset, workdir=workdir / ruleset, table_id=f"soak-{ruleset}")
                await session.__aenter__()
                sessions[ruleset] = session
            game_seed = seed + played
            try:
                res = await session.play(game_seed, None)
            except Exception as exc:
                anomalies.append({"ruleset": ruleset, "seed": game_seed, "crash": repr(exc)})
                emit(json.dumps(anomalies[-1]))
                await session.__aexit__(None, None, None)
                del sessions[ruleset]
                played += 1
                continue
            played += 1
            hands += res.hands
            steps += res.steps
            line = res.summary()
            emit(json.dumps({"game": played, **line}, ensure_ascii=False))
            if not res.equal or res.violations or res.rejections or res.reader_faults:
                anomalies.append({"ruleset": ruleset, "seed": game_seed,
                                  "difference": res.difference,
                                  "violations": [v.get("code") for v in res.violations],
                                  "rejections": res.rejection_reasons,
                                  "reader_faults": res.reader_faults})
    finally:
        for session in sessions.values():
            await session.__aexit__(None, None, None)
    elapsed = time.monotonic() - t0
    per_hour = 3600 / elapsed if elapsed > 0 else 0.0
    return {
        "report": "soak", "games": played, "hands": hands, "steps": steps,
        "seconds": round(elapsed, 1),
        "games_per_hour": round(played * per_hour, 1),
        "hands_per_hour": round(hands * per_hour, 1),
        "steps_per_second": round(steps / elapsed, 1) if elapsed > 0 else 0.0,
        "anomalies": anomalies,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hil.soak", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, help="stop after N games")
    parser.add_argument("--hours", type=float, help="stop after H hours")
    parser.add_argument("--seed", type=int, default=1000)
    parser.add_argument("--ruleset", action="append", help="only these rulesets (repeatable)")
    parser.add_argument("--out", type=Path, help="also append the JSON lines to this file")
    args = parser.parse_args(argv)
    if args.games is None and args.hours is None:
        parser.error("give --games N or --hours H")
    logging.disable(logging.WARNING)  # the per-game lines are the output
    out = None if args.out is None else open(args.out, "a", encoding="utf-8")  # noqa: SIM115

    def emit(line: str) -> None:
        print(line, flush=True)
        if out is not None:
            out.write(line + "\n")
            out.flush()

    work = Path(tempfile.mkdtemp(prefix="jantaku-soak-"))
    try:
        report = asyncio.run(soak(games=args.games, hours=args.hours, seed=args.seed,
                                  workdir=work,
                                  rulesets=tuple(args.ruleset) if args.ruleset else RULESETS,
                                  emit=emit))
    finally:
        shutil.rmtree(work, ignore_errors=True)
        if out is not None:
            out.close()
    emit(json.dumps(report, ensure_ascii=False))
    return 1 if report["anomalies"] else 0


if __name__ == "__main__":
    sys.exit(main())
