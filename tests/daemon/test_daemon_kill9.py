"""kill -9 at random moments: the restarted table has exactly the state of its logged inputs.

A real subprocess (tests/daemon/kill9_child.py) plays a scripted game into a real SQLite log and is
SIGKILLed at a random moment, again and again, each run continuing the game where the log ends.
After each kill the log is recovered here and checked against a reference fold of the script:

* no acknowledged input is lost (the log holds at least every input the child reported applied);
* the recovered state equals the reference state after exactly the logged inputs;
* the outbox holds events 1..n without a gap or a duplicate, equal to the reference events.

Bounded in CI (``KILLS``); ``JANTAKU_SLOW=1`` runs many more.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import daemon_kit
import pytest

from daemon.eventlog import EventLog
from daemon.table import TableCore
from hil.kit import SLOW, commit_one

HANDS = 60 if SLOW else 6
KILLS = 200 if SLOW else 12
CHILD = Path(__file__).with_name("kill9_child.py")


def _acked_line(parts: list[str]) -> bool:
    """An ``A n`` / ``R n`` line of the child; a kill can cut the last one short."""
    return len(parts) >= 2 and parts[0] in ("A", "R") and parts[1].isdigit()


def reference(
    tmp: Path, script: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[int], list[Any]]:
    """Snapshot and event count after each prefix of the script, and every event's data."""
    log = EventLog(tmp / "reference.sqlite", "kill9")
    core = TableCore(log, daemon_kit.engine(), "kill9", checkpoint_every=0)
    snaps, counts, events = [core.view()], [0], []
    for body in script:
        applied = commit_one(core, "input", "table", body, time.monotonic_ns(), time.time_ns(), "b")
        snaps.append(core.view())
        counts.append(core.state.event_seq)
        events.extend((e["seq"], e["input_seq"], e["type"], e["data"]) for e in applied.events)
    log.close()
    return snaps, counts, events


#: per database: the records folded from nothing by _fresh_fold, the state and events they made
_FOLDED: dict[Path, tuple[list[Any], Any, list[Any]]] = {}


def _fresh_fold(db: Path, records: list[Any]) -> list[Any]:
    """The events a fold from nothing of ``records`` makes, as ``(seq, type, body)``. A kill
    cannot take back a committed record, so between two checks a log only grows: the fold of
    the records folded last time (compared record by record) is continued, not redone (a
    run of hundreds of kills folded the same log prefix hundreds of times)."""
    done, state, expected = _FOLDED.get(db, ([], None, []))
    if records[: len(done)] != done:
        done, state, expected = [], None, []
    fresh = TableCore(EventLog(":memory:", "kill9"), daemon_kit.engine(), "kill9")
    state = fresh.state if state is None else state
    expected = list(expected)
    for record in records[len(done):]:
        state, bodies = fresh._fold(state, record)
        expected.extend((record.seq, b["type"], b) for b in bodies)
    _FOLDED[db] = (records, state, expected)
    return expected


def check(db: Path, acked: int, snaps: list[Any], counts: list[int], events: list[Any]) -> int:
    log = EventLog(db, "kill9")
    try:
        core = TableCore(log, daemon_kit.engine(), "kill9", checkpoint_every=7)
        rec = core.recover()
        n = core.state.input_seq
        assert rec.mismatch is None, rec.mismatch
        assert n >= acked, f"input {acked} was acknowledged but the log ends at {n}"
        assert n <= acked + 1
        assert log.last_seq() == n
        assert core.view() == snaps[n]
        # The clocks' events depend on the logged times (which differ from the reference run's):
        # the events must equal a fresh fold, from nothing, of the logged inputs with their times.
        expected = _fresh_fold(db, list(log.records()))
        total = len(expected)
        assert core.state.event_seq == total
        assert log.applied() == (n, total)
        rows = log.outbox(limit=10**6)
        assert [r.seq for r in rows] == list(range(1, total + 1))
        got = []
        for r in rows:
            body = json.loads(r.payload)
            got.append((body["input_seq"], body["type"], body["data"]))
        assert got == expected
        # and the rules engine's own events are those of the uninterrupted reference run
        assert [g for g in got if not g[1].startswith("clock_")] == [
            (e[1], e[2], e[3]) for e in events[: counts[n]] if not e[2].startswith("clock_")
        ]
        return n
    finally:
        log.close()


@pytest.mark.slow
def test_kill9_at_random_points_rebuilds_exact_state(tmp_path: Path) -> None:
    rng = random.Random(int(os.environ.get("JANTAKU_SEED", "5")))
    script = daemon_kit.game_inputs(HANDS, seed=rng.randrange(1000))
    script_file = tmp_path / "script.json"
    script_file.write_text(json.dumps(script))
    snaps, counts, events = reference(tmp_path, script)
    total = len(snaps) - 1
    db = tmp_path / "table.sqlite"
    acked = 0
    kills = 0
    for _ in range(KILLS):
        proc = subprocess.Popen(
            [sys.executable, str(CHILD), str(db), str(script_file), "7"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        if rng.random() < 0.2:
            # during start-up or recovery
            time.sleep(rng.uniform(0.0, 0.3))
        else:
            # after a random number of inputs, then a random fraction of the next one
            target = acked + rng.randint(1, 8)
            assert proc.stdout is not None
            while raw := proc.stdout.readline():
                parts = raw.decode().split()
                if _acked_line(parts):
                    acked = max(acked, int(parts[1]))
                reached = _acked_line(parts) and parts[0] == "A" and int(parts[1]) >= target
                if reached or parts == ["DONE"]:
                    break
            time.sleep(rng.uniform(0.0, 0.002))
        proc.send_signal(signal.SIGKILL)
        assert proc.stdout is not None
        out = proc.stdout.read()  # the buffered reader: lines readline() read ahead are in it
        proc.wait()
        kills += proc.returncode == -signal.SIGKILL
        for line in out.decode().splitlines():
            parts = line.split()
            if _acked_line(parts):
                acked = max(acked, int(parts[1]))
        n = check(db, acked, snaps, counts, events)
        if n == total:
            break
    print(f"{kills} kills, {total} inputs")
    assert kills >= min(KILLS, 3)
    # finish the game without a kill: it ends exactly like the uninterrupted reference
    done = subprocess.run(
        [sys.executable, str(CHILD), str(db), str(script_file), "7"],
        capture_output=True,
        check=True,
    )
    assert b"DONE" in done.stdout
    assert check(db, total, snaps, counts, events) == total
