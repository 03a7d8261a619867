"""Every process a bench starts is gone when it returns, and when it is killed: the `jantaku run`
that ``bench/daemon_latency.py`` starts was once found alive minutes after the bench printed its
figures, holding the caller's stdout open so that a script reading ``--json`` hung.

The bench runs as a real process with a marker in its environment; the daemon inherits it, so
``/proc/*/environ`` finds every process the bench left."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench" / "daemon_latency.py"


def _marked(mark: str) -> list[int]:
    found = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit() or int(d.name) == os.getpid():
            continue
        try:
            env = (d / "environ").read_bytes()
        except OSError:
            continue
        if f"JANTAKU_TEST_MARK={mark}".encode() in env.split(b"\0"):
            found.append(int(d.name))
    return found


def _daemon_of(mark: str, bench: int) -> int | None:
    for pid in _marked(mark):
        if pid != bench and b"run" in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0"):
            return pid
    return None


def _start(mark: str, events: int, idle: float = 10.0) -> subprocess.Popen[bytes]:
    env = {**os.environ, "JANTAKU_TEST_MARK": mark}
    return subprocess.Popen([sys.executable, str(BENCH), "--json", "--events", str(events),
                             "--idle", str(idle)],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=ROOT)


def test_the_bench_leaves_no_process_and_closes_its_stdout() -> None:
    mark = uuid.uuid4().hex
    bench = _start(mark, 50, idle=1.0)  # every phase, the idle measure shortened
    out, _ = bench.communicate(timeout=180)  # EOF on stdout: no child holds it open
    assert bench.returncode == 0
    figures = json.loads(out.splitlines()[-1])
    assert figures["daemon"]["n"] == 50
    assert _marked(mark) == []


def test_a_killed_bench_takes_its_daemon_with_it() -> None:
    mark = uuid.uuid4().hex
    bench = _start(mark, 3000)  # the daemon phase outlasts the kill (3,000 frames, 10 s idle)
    try:
        deadline = time.monotonic() + 120
        while (daemon := _daemon_of(mark, bench.pid)) is None:
            assert bench.poll() is None and time.monotonic() < deadline, "no daemon started"
            time.sleep(0.1)
        time.sleep(1.0)
        bench.send_signal(signal.SIGKILL)
        bench.wait(10)
        deadline = time.monotonic() + 20
        while Path(f"/proc/{daemon}").exists() and _marked(mark):
            assert time.monotonic() < deadline, f"the daemon {daemon} outlived the bench"
            time.sleep(0.1)
    finally:
        for pid in _marked(mark):
            os.kill(pid, signal.SIGKILL)


def test_the_speed_goals_bench_prints_a_row_per_run_and_leaves_no_process() -> None:
    """bench/speed_goals.py (issue 30 item 8's "three runs in a row"), in its smallest form: one row
    per run with each goal's figure beside its reference and verdict, the exit status the verdict
    over every run, and no process left behind. The figures themselves are not asserted: a test is
    no place to time anything."""
    mark = uuid.uuid4().hex
    env = {**os.environ, "JANTAKU_TEST_MARK": mark}
    res = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "speed_goals.py"), "--json", "--runs", "2",
         "--events", "50", "--rounds", "1", "--copies", "1"],
        capture_output=True, text=True, timeout=300, env=env, cwd=ROOT, check=False)
    assert res.returncode in (0, 1), res.stderr
    report = json.loads(res.stdout.splitlines()[-1])
    assert len(report["runs"]) == 2
    for run in report["runs"]:
        assert run["p99_goal_ms"] == round(2 * run["raw_p99_ms"] + 1.0, 3)
        assert run["p99_met"] == (run["p99_ms"] <= run["p99_goal_ms"])
        assert run["cpu_met"] == (run["cpu_per_input_ms"] <= 0.4)
        assert run["replay_met"] == (run["replay_ratio"] >= 0.5)
    every = all(r["p99_met"] and r["cpu_met"] and r["replay_met"] for r in report["runs"])
    assert report["held"] == every and res.returncode == (0 if every else 1)
    assert _marked(mark) == []
