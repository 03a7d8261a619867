"""daemon/log_gate.py: a group commit runs inline only when that keeps the log's order and the
disk has been quick; otherwise, and for every other use of the log, on the database thread."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from daemon.log_gate import LogGate


def _where() -> str:
    return threading.current_thread().name


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


async def test_a_quick_call_runs_inline_when_the_thread_is_idle() -> None:
    gate = LogGate("t1")
    try:
        assert await gate.quick(_where) == threading.current_thread().name
        assert (await gate.run(_where)).startswith("jantaku-db")
        assert (gate.inline, gate.threaded) == (1, 0)
    finally:
        gate.shutdown()


async def test_a_quick_call_waits_behind_what_the_thread_was_given_first() -> None:
    """Order is the log's: a commit never overtakes a read (or a delete) handed out before it."""
    gate = LogGate("t1")
    order: list[str] = []

    def slow_read() -> None:
        time.sleep(0.1)
        order.append("read")

    def commit() -> str:
        order.append("commit")
        return _where()

    try:
        read = asyncio.ensure_future(gate.run(slow_read))
        await asyncio.sleep(0.01)  # the read is on the thread now
        where = await gate.quick(commit)
        await read
        assert order == ["read", "commit"]
        assert where.startswith("jantaku-db")
        assert gate.threaded == 1
    finally:
        gate.shutdown()


async def test_a_slow_disk_moves_commits_to_the_thread_for_a_while(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A commit that stalls (an SD card's pause) must not freeze the loop again: the next ones
    run on the thread for ``thread_for_s``, then inline again."""
    clock = _Clock()
    gate = LogGate("t1", slow_s=0.05, thread_for_s=60.0, mono=clock)

    def stalled() -> str:
        clock.now += 0.2
        return _where()

    try:
        assert await gate.quick(stalled) == threading.current_thread().name
        assert gate.slow == 1
        slow = [r for r in caplog.records if getattr(r, "fields", {}).get("event")
                == "event_log_slow"]
        assert slow and slow[0].fields["table"] == "t1"  # type: ignore[attr-defined]
        clock.now += 30
        assert (await gate.quick(_where)).startswith("jantaku-db")
        clock.now += 31  # 60 s after the stall
        assert await gate.quick(_where) == threading.current_thread().name
    finally:
        gate.shutdown()


async def test_a_failed_commit_sends_the_retries_to_the_thread() -> None:
    """A full disk: the error reaches the intake (which keeps the group and retries) and the
    retries run on the thread, so a disk that then hangs cannot freeze the loop."""
    clock = _Clock()
    gate = LogGate("t1", mono=clock)

    def full() -> None:
        raise OSError(28, "No space left on device")

    try:
        with pytest.raises(OSError, match="No space"):
            await gate.quick(full)
        assert (await gate.quick(_where)).startswith("jantaku-db")
        assert gate.slow == 1
    finally:
        gate.shutdown()


async def test_a_connection_held_elsewhere_sends_the_commit_to_the_thread() -> None:
    """A write wedged on the connection (tests/daemon/test_daemon_systemd.py holds its lock): the
    commit waits on the thread, not on the loop, so health and the watchdog logic go on."""
    held = threading.Event()
    held.set()
    gate = LogGate("t1", in_use=held.is_set)
    try:
        assert (await gate.quick(_where)).startswith("jantaku-db")
        held.clear()
        assert await gate.quick(_where) == threading.current_thread().name
    finally:
        gate.shutdown()
