"""The event log's filesystem fills up during play (a 16 MB tmpfs, mounted here as root; 2 MB is
less than the WAL alone: SQLite checkpoints it at 1,000 pages = 4 MB, ~20 KB per input).

The daemon must not apply what it could not log: the input that hit ENOSPC is refused to its
driver, the daemon reports the failure (``health.problem``, an error log line) and ends with status
1 (systemd restarts it: systemd/jantaku.service ``Restart=always``). The log stays consistent;
once space is back the restarted daemon recovers it and the game goes on: every event reaches the
subscriber once after dedupe, in order, equal to the fault-free run.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import chaos_kit
import daemon_kit
import pytest

from daemon.service import Service


@contextlib.contextmanager
def small_tmpfs(path: Path, size: str = "16m") -> Iterator[Path]:
    path.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    res = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)], capture_output=True
    )
    if res.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {res.stderr.decode().strip()}")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)


def fill(disk: Path) -> Path:
    """Fill the filesystem to the last byte."""
    filler = disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        for size in (65536, 4096, 1):
            with contextlib.suppress(OSError):
                while True:
                    os.write(fd, b"\0" * size)
    finally:
        os.close(fd)
    return filler


def _said(records: list[logging.LogRecord], text: str) -> bool:
    for r in records:
        if r.levelno < logging.ERROR:
            continue
        exc = logging.Formatter().formatException(r.exc_info) if r.exc_info else ""
        if text in r.getMessage() + exc:
            return True
    return False


@pytest.mark.asyncio
async def test_disk_full_is_reported_and_recovered(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="jantaku")
    broker = daemon_kit.Broker(tmp_path / "broker").start()
    table = daemon_kit.unique_table("df")
    bodies = chaos_kit.script(hands=2, seed=8)
    try:
        with small_tmpfs(tmp_path / "disk") as disk:
            db = disk / "table.sqlite"
            config = chaos_kit.make_config(tmp_path, broker.port, table, db=db)
            async with chaos_kit.event_collector(broker.port, table) as collector:
                service = Service(config, daemon_kit.engine(), mqtt_backoff=(0.05, 0.5))
                task = asyncio.create_task(service.run())
                await asyncio.wait_for(service.ready.wait(), 15)
                half = len(bodies) // 3
                await chaos_kit.feed(service, bodies[:half])
                filler = fill(disk)
                refused: BaseException | None = None
                for body in bodies[half:]:
                    if task.done():
                        break
                    try:
                        await asyncio.wait_for(service.submit("input", "table", body), 10)
                    except Exception as exc:  # the driver learns its input was not taken
                        refused = exc
                        break
                # the log could not be written (an input, or the outbox after a PUBACK): the
                # daemon says why, feeds no watchdog, and ends (systemd restarts it)
                status = await asyncio.wait_for(task, 20)
                assert status == 1
                assert _said(caplog.records, "database or disk is full")
                assert service.healthy()[0] is False
                if refused is not None and not isinstance(refused, TimeoutError):
                    assert "full" in str(refused), refused
                # space comes back; the restarted daemon recovers the log and plays on
                sizes = {p.name: p.stat().st_size for p in disk.iterdir()}
                print("at ENOSPC:", sizes)
                filler.unlink()
                async with chaos_kit.running(config) as again:
                    logged = sum(
                        1 for r in again.eventlog.records() if r.kind == "input"
                    )
                    assert logged >= half
                    await chaos_kit.feed(again, bodies[logged:])
                    last = again.core.state.event_seq
                    await collector.wait_for(
                        lambda: {e["seq"] for e in collector.payloads("/events")}
                        >= set(range(1, last + 1)),
                        30,
                    )
                    snapshot = again.core.snapshot()
                    assert again.health()["healthy"] is True
            ref = chaos_kit.reference(db, table, tmp_path)
        got, dups = chaos_kit.delivered(collector)
        chaos_kit.assert_consistent(got, ref, bodies)
        assert snapshot == ref.snapshot
        print(f"refused: {refused!r}; {ref.last_seq} events, {dups} duplicates dropped")
    finally:
        broker.stop()
