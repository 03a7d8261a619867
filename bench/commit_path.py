"""The commit path's instructions per input (docs/performance.md, "Issue 30 item 8: the commit
path"): a dice input with its link position through the intake's inline path (the driver's own
task: ``Intake.submit`` → ``TableCore.submit_group`` → the event log's group commit, fsync'ed, and
the mark), in process, on a real SQLite file.

    valgrind --tool=callgrind --callgrind-out-file=/tmp/a.out .venv/bin/python \
        bench/commit_path.py 400
    valgrind --tool=callgrind --callgrind-out-file=/tmp/b.out .venv/bin/python \
        bench/commit_path.py 0

(the difference of the two ``Collected`` totals over 400: the instructions per input, without
the interpreter's start; they do not move with the machine's load). Without valgrind it prints
the wall time per input (the fsync's, mostly: not a figure to compare).

``--dir``: where the log lives (default: a temporary directory under /var/tmp, a real disk).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from daemon.engine import load_engine  # noqa: E402
from daemon.eventlog import EventLog  # noqa: E402
from daemon.intake import Intake  # noqa: E402
from daemon.log_values import LinkPosition  # noqa: E402
from daemon.table import TableCore  # noqa: E402
from daemon.tracking.records import KIND_INPUT  # noqa: E402
from drivers.link.reports import RxPosition  # noqa: E402
from rules.inputs import DiceRolled  # noqa: E402
from rules.seats import Seat  # noqa: E402


async def _inline(fn: Callable[[Any], Any], items: Any) -> Any:
    return fn(items)


async def submit(core: TableCore, n: int) -> int:
    """``n`` dice inputs, each committed by its submitter's task; returns how many went inline."""
    intake = Intake(core, _inline, "bench")
    task = asyncio.create_task(intake.run())
    await asyncio.sleep(0)  # the intake's task is running: the next submit is inline
    for i in range(n):
        inp = DiceRolled(seat=Seat(i % 4), dice=(1 + i % 6, 1 + (i // 6) % 6))
        await intake.submit(KIND_INPUT, "table", inp, time.monotonic_ns(),
                            link=LinkPosition("table", RxPosition(7, i + 1)))
    task.cancel()
    return intake.inline


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("inputs", type=int, nargs="?", default=400)
    parser.add_argument("--dir", type=Path, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.dir or "/var/tmp") as tmp:
        log = EventLog(Path(tmp) / "commit.sqlite", "bench")
        core = TableCore(log, load_engine(), "bench", checkpoint_every=0)
        t0 = time.perf_counter()
        inline = asyncio.run(submit(core, args.inputs))
        took = time.perf_counter() - t0
        log.close()
    assert inline == args.inputs, (inline, args.inputs)
    print(f"{args.inputs} inputs, {core.state.event_seq} events,"
          f" {took / max(1, args.inputs) * 1e6:.0f} µs per input (wall)")


if __name__ == "__main__":
    main()
