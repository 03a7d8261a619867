"""The event log's filesystem fills up during play (a 16 MB tmpfs, mounted here as root; 2 MB is
less than the WAL alone: SQLite checkpoints it at 1,000 pages = 4 MB, ~20 KB per input).

The daemon must not apply what it could not log, and must not stop either (a restart would not
bring space back, and under systemd's start limit the table would stay down): the inputs that hit
ENOSPC are held, not applied and not answered, the daemon reports the fault (``health.problem``,
``health.eventlog``, an error log line) and retries; once space is back it resumes by itself and
the game goes on: every event reaches the subscriber once after dedupe, in order, equal to the
fault-free run. (The same against the real ``jantaku run`` and a table controller on a pty:
tests/daemon/test_input_path_disk_full.py.)
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import chaos_kit
import daemon_kit
import disk_kit
import pytest

from daemon.service import Service


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
        with disk_kit.small_tmpfs(tmp_path / "disk") as disk:
            db = disk / "table.sqlite"
            config = chaos_kit.make_config(tmp_path, broker.port, table, db=db)
            async with chaos_kit.event_collector(broker.port, table) as collector:
                service = Service(config, daemon_kit.engine(), mqtt_backoff=(0.05, 0.5))
                task = asyncio.create_task(service.run())
                await asyncio.wait_for(service.ready.wait(), 15)
                half = len(bodies) // 3
                await chaos_kit.feed(service, bodies[:half])
                filler = disk_kit.fill(disk)
                rest = [
                    asyncio.create_task(service.submit("input", "table", body))
                    for body in bodies[half:]
                ]
                await daemon_kit.until(lambda: service.intake.fault is not None)
                await asyncio.sleep(1.0)  # retries
                # nothing applied, nothing answered, still running, and it says why
                assert not task.done()
                assert not any(t.done() for t in rest[1:])
                assert _said(caplog.records, "database or disk is full")
                assert service.healthy()[0] is False
                assert service.health()["eventlog"]["writable"] is False
                sizes = {p.name: p.stat().st_size for p in disk.iterdir()}
                print("at ENOSPC:", sizes)
                filler.unlink()  # space comes back: it resumes by itself
                await asyncio.wait_for(asyncio.gather(*rest), 60)
                last = service.core.state.event_seq
                await collector.wait_for(
                    lambda: {e["seq"] for e in collector.payloads("/events")}
                    >= set(range(1, last + 1)),
                    30,
                )
                snapshot = service.core.view()
                assert service.health()["healthy"] is True
                service.stop()
                assert await asyncio.wait_for(task, 30) == 0
            ref = chaos_kit.reference(db, table, tmp_path)
        got, dups = chaos_kit.delivered(collector)
        chaos_kit.assert_consistent(got, ref, bodies)
        assert snapshot == ref.view
        print(f"{ref.last_seq} events, {dups} duplicates dropped")
    finally:
        broker.stop()
