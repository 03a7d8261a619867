"""The event log's filesystem fills up during a burst of table events (a 16 MB tmpfs mounted here;
the real ``jantaku run``; the table controller of tests/daemon/link_peer.py on a pty).

From the outside: the daemon stays up (no exit, no restart), withholds the acknowledgement of what
it could not log (the controller retransmits), says so in ``health`` (retained, on the broker), in
``jantaku status`` and in its JSON log; when space is freed it resumes by itself and logs every
event once, in order: 0 acknowledged events lost.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path
from typing import Any

import daemon_kit
import disk_kit
import link_peer
import outside

from daemon.topics import Topics


def _health(sub: daemon_kit.Collector) -> dict[str, Any] | None:
    bodies = sub.payloads("/health")
    return bodies[-1] if bodies else None


async def test_disk_full_during_a_burst_loses_nothing_and_stops_nothing(
    tmp_path: Path, broker: daemon_kit.Broker
) -> None:
    peer, tty = link_peer.LinkPeer.on_pty()
    table = daemon_kit.unique_table("df")
    topics = Topics(table)
    cfg = tmp_path / "table.toml"
    daemon = outside.Daemon(cfg, tmp_path / "daemon.log")
    events = [link_peer.Event.fault(code) for code in range(1, 2001)]
    try:
        with disk_kit.small_tmpfs(tmp_path / "disk") as disk:
            db = disk / "table.sqlite"
            cfg.write_text(outside.serial_config(table=table, db=db, port=broker.port, tty=tty))
            async with daemon_kit.Collector(broker.port, [topics.health]) as sub:
                daemon.start()
                await peer.wait(lambda: peer.connected, 60)
                peer.send(events[:300])
                await peer.wait(lambda: len(peer.acked) >= 100, 60)
                filler = disk_kit.fill(disk)
                peer.send(events[300:])
                # the log refuses writes: acknowledgements stop, the daemon stays up and says so
                await sub.wait_for(lambda: (_health(sub) or {}).get("eventlog", {})
                                   .get("writable") is False, 60)
                stalled = len(peer.acked)
                await asyncio.sleep(3.0)  # several retries, link losses and retransmissions
                assert daemon.alive and daemon.starts == 1
                assert len(peer.acked) <= stalled + 1  # at most the one logged as space ran out
                health = _health(sub)
                assert health is not None and health["healthy"] is False
                assert "full" in health["eventlog"]["error"], health
                assert "event log not writable" in health["problem"]
                status = subprocess.run([outside.jantaku(), "status", "--config", str(cfg)],
                                        capture_output=True, text=True, timeout=60)
                assert "NOT WRITABLE" in status.stdout, status.stdout + status.stderr
                assert status.returncode == 1
                logged = outside.table_events(db)
                assert logged == outside.expected(events[: len(logged)])
                assert len(logged) >= len(peer.acked)  # nothing acknowledged is missing
                # the failed commit sent the retries to the database thread (daemon/log_gate.py):
                # a disk that then hangs cannot stop the loop
                lines = daemon.log.read_text().splitlines()
                slow = [r for r in (json.loads(x) for x in lines if x.startswith("{"))
                        if r.get("event") == "event_log_slow"]
                assert slow and slow[0]["table"] == table and "failed" in slow[0]["why"], slow
                # space comes back: the daemon resumes by itself
                filler.unlink()
                await peer.wait(lambda: peer.pending == 0, 120)
                await sub.wait_for(lambda: (_health(sub) or {}).get("eventlog", {})
                                   .get("writable") is True, 30)
                assert daemon.alive and daemon.starts == 1
                assert daemon.terminate() == 0
                assert outside.table_events(db) == outside.expected(events)
    finally:
        if daemon.alive:
            daemon.kill9()
        await peer.close()
    assert peer.acked == events and peer.rejected == []
    lines = [json.loads(x) for x in (tmp_path / "daemon.log").read_text().splitlines()
             if x.startswith("{")]
    said = [json.loads(x["msg"]) for x in lines
            if x.get("logger") == "jantaku.intake" and x["msg"].startswith("{")]
    assert any(s["event"] == "event_log_unwritable" and "full" in s["error"] for s in said)
    assert said[-1]["event"] == "event_log_writable"
    assert all(s["table"] == table for s in said)
