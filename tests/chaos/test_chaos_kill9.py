"""kill -9 of the daemon at many random points of a game (extends tests/daemon/test_daemon_kill9).

Two levels, both real processes killed with SIGKILL:

* the log + core (``tests/daemon/kill9_child.py``, the existing harness: recover, then play the
  scripted game on), run in a *forked* child so that a kill costs milliseconds, not an
  interpreter start: 200+ kills in CI, 1,000+ with JANTAKU_SLOW=1. After each kill the log is
  checked with the existing ``check`` (state = reference state of exactly the logged inputs; no
  acknowledged input lost; outbox 1..n without gap or duplicate, equal to the reference);
* the whole daemon (``jantaku run --config`` fed by the venue bench's script driver, publishing
  to a private Mosquitto), killed at random moments and restarted: a subscriber gets every event
  once after dedupe, in order, equal to the fault-free run, and each restart logs its recovery.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import chaos_kit
import daemon_kit
import kill9_child
import pytest
import test_daemon_kill9 as harness

from hil.kit import SLOW, reap, reaped_fork

logdir = chaos_kit.logdir  # the fixture: event logs on tmpfs

REPO = Path(__file__).resolve().parents[2]
FORK_KILLS = 1000 if SLOW else 200
DAEMON_KILLS = 30 if SLOW else 3


def _fork_child(db: Path, script_file: Path, every: int) -> tuple[int, int]:
    """Start kill9_child.main() in a forked process; returns (pid, read end of its stdout)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: the harness's own main, printing into the pipe
        try:
            os.close(r)
            sys.stdout = os.fdopen(w, "w", buffering=1)
            sys.argv = ["kill9_child", str(db), str(script_file), str(every)]
            kill9_child.main()
        finally:
            os._exit(0)
    os.close(w)
    return pid, r


def _acked(text: str) -> tuple[int, bool]:
    acked, done = 0, False
    for line in text.splitlines():
        parts = line.split()
        if parts and parts[0] in ("A", "R"):
            acked = max(acked, int(parts[1]))
        done = done or parts == ["DONE"]
    return acked, done


@pytest.mark.slow
def test_kill9_forked_core_at_hundreds_of_points(logdir: Path, tmp_path: Path) -> None:
    rng = random.Random(int(os.environ.get("JANTAKU_SEED", "9")))
    kills = games = 0
    while kills < FORK_KILLS:
        games += 1
        work = logdir / f"game{games}"
        work.mkdir()
        body = daemon_kit.game_inputs(4, seed=rng.randrange(10_000))
        script_file = work / "script.json"
        script_file.write_text(json.dumps(body))
        snaps, counts, events = harness.reference(work, body)
        total = len(snaps) - 1
        db = work / "table.sqlite"
        acked = 0
        while kills < FORK_KILLS:
            pid, fd = _fork_child(db, script_file, 7)
            with reaped_fork(pid), os.fdopen(fd, "r") as reader:
                if rng.random() < 0.15:
                    time.sleep(rng.uniform(0.0, 0.02))  # during recovery
                else:
                    target = acked + rng.randint(1, 6)
                    while line := reader.readline():
                        a, done = _acked(line)
                        acked = max(acked, a)
                        if acked >= target or done:
                            break
                    time.sleep(rng.uniform(0.0, 0.002))  # inside the next input
                os.kill(pid, signal.SIGKILL)
                _, status = os.waitpid(pid, 0)
                rest = reader.read()
            acked = max(acked, _acked(rest)[0])
            kills += os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
            n = harness.check(db, acked, snaps, counts, events)
            if n == total:
                break
        # the game played to its end: it ends exactly like the uninterrupted reference
        pid, fd = _fork_child(db, script_file, 7)
        with reaped_fork(pid), os.fdopen(fd, "r") as reader:
            out = reader.read()
            os.waitpid(pid, 0)
        assert "DONE" in out
        assert harness.check(db, total, snaps, counts, events) == total
    print(f"{kills} kills over {games} games")
    assert kills >= FORK_KILLS


def _daemon(config: Path, script: Path, go: Path, done: Path, log: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, str(REPO / "bench" / "venue.py"), "--child", str(config), str(script),
         str(go), str(done)],
        stdout=subprocess.DEVNULL,
        stderr=open(log, "ab"),
    )


@pytest.mark.slow
@pytest.mark.asyncio
async def test_kill9_whole_daemon_during_play(logdir: Path, tmp_path: Path) -> None:
    rng = random.Random(int(os.environ.get("JANTAKU_SEED", "4")))
    broker = daemon_kit.Broker(tmp_path / "broker").start()
    table = daemon_kit.unique_table("k9")
    db = logdir / f"{table}.sqlite"
    config = tmp_path / "table.toml"
    config.write_text(daemon_kit.config_text(table=table, db=db, port=broker.port))
    body = chaos_kit.script(hands=3, seed=2)
    script = tmp_path / "script.json"
    # the venue driver plays a timed stream ([[at_seconds, input], ...]): 40 inputs a second
    script.write_text(json.dumps([[i / 40, b] for i, b in enumerate(body)]))
    go, done, log = tmp_path / "go", tmp_path / "done", tmp_path / "daemon.log"
    go.write_text("go")
    started: list[subprocess.Popen[bytes]] = []
    try:
        async with chaos_kit.event_collector(broker.port, table) as collector:
            kills = 0
            while True:
                proc = _daemon(config, script, go, done, log)
                started.append(proc)
                if kills >= DAEMON_KILLS:
                    break
                # a random moment: at start-up, recovery, or anywhere in the play
                await asyncio.sleep(rng.uniform(0.5, 4.0))
                proc.send_signal(signal.SIGKILL)
                proc.wait()
                kills += 1
                if done.exists():
                    done.unlink()
            deadline = time.monotonic() + 90
            while not done.exists():
                assert proc.poll() is None, log.read_text()[-2000:]
                assert time.monotonic() < deadline, "the daemon did not finish the game"
                await asyncio.sleep(0.1)
            ref = chaos_kit.reference(db, table, logdir)
            await collector.wait_for(
                lambda: {e["seq"] for e in collector.payloads("/events")}
                >= set(range(1, ref.last_seq + 1)),
                30,
            )
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(20) == 0
        got, dups = chaos_kit.delivered(collector)
        # restart markers are logged inputs of their own kind: compare the table inputs
        chaos_kit.assert_consistent(got, ref, body)
        recovered = [json.loads(x) for x in log.read_text().splitlines()
                     if "event log recovered" in x]
        # a kill may land before the log is even opened (interpreter start-up); every start that
        # got that far said what it recovered, the last one included
        assert recovered, "no start logged its recovery"
        print(f"{kills} daemon kills, {ref.last_seq} events, {dups} duplicates dropped")
    finally:
        for p in started:  # the last one, when a check failed before its SIGTERM
            reap(p, grace_s=0)
        broker.stop()


