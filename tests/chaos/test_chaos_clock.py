"""The wall clock jumps during play (NTP step, a wrong RTC fixed by hand) -- back an hour, then
forward two days -- while the monotonic clock runs on. The daemon takes its wall clock as a
parameter (``Service(wall_ns=...)``): the test gives it a jumping one.

Wall time only stamps the events (``ts``): the seq order, the state and the WMC clocks must not
move. The reference folds the same logged inputs with the *wall stamps replaced* (monotonic-
derived), and state and clocks must be equal -- a clock that used wall time would differ. The
operator learns of a wrong table clock from what it stamps (``health.ts`` against ``uptime_s``)
and from the referee path: a command signed by an honest console is refused as ``stale``, with
the skew in the message.
"""

from __future__ import annotations

import time
from pathlib import Path

import chaos_kit
import daemon_kit
import pytest

from daemon.auth import derive_key, sign
from daemon.engine import Engine
from daemon.eventlog import EventLog
from daemon.mqtt import Incoming
from daemon.table import TableCore
from hil.kit import commit_one

logdir = chaos_kit.logdir  # the fixture: event logs on tmpfs

HOUR = 3600 * 10**9


@pytest.mark.asyncio
async def test_wall_clock_jumps_change_nothing_but_stamps(logdir: Path, tmp_path: Path) -> None:
    broker = daemon_kit.Broker(tmp_path / "broker").start()
    table = daemon_kit.unique_table("cj")
    config = chaos_kit.make_config(logdir, broker.port, table)
    bodies = chaos_kit.script(hands=2, seed=21)
    offset = [0]

    def wall_ns() -> int:
        return time.time_ns() + offset[0]

    try:
        collector = chaos_kit.event_collector(broker.port, table)
        async with collector, chaos_kit.running(config, wall_ns=wall_ns) as service:
            third = len(bodies) // 3
            await chaos_kit.feed(service, bodies[:third])
            before = service.health()
            offset[0] = -HOUR  # back an hour
            await chaos_kit.feed(service, bodies[third : 2 * third])
            after = service.health()
            reply = await service.handle_command(_pause(table, config.mqtt.port))
            offset[0] = 48 * HOUR  # forward two days
            await chaos_kit.feed(service, bodies[2 * third :])
            last = service.core.state.event_seq
            await collector.wait_for(
                lambda: {e["seq"] for e in collector.payloads("/events")}
                >= set(range(1, last + 1)),
                30,
            )
            snapshot, clocks = service.core.view(), service.core.state.clocks
        ref = chaos_kit.reference(config.eventlog.path, table, logdir)
        got, dups = chaos_kit.delivered(collector)
        chaos_kit.assert_consistent(got, ref, bodies)
        assert snapshot == ref.view
        # the stamps did jump (back, then forward), the order did not
        stamps = [e["ts"] for e in got]
        assert stamps != sorted(stamps)
        assert [e["seq"] for e in got] == list(range(1, last + 1))
        # state and clocks do not depend on the wall clock at all
        steady = _fold_with_steady_wall(config.eventlog.path, table, logdir)
        steady_snapshot, steady_clocks = steady
        assert snapshot == steady_snapshot
        assert clocks == steady_clocks
        # what the operator sees: the health stamp went back an hour while uptime went on
        assert after["uptime_s"] >= before["uptime_s"]
        assert after["ts"] < before["ts"]
        assert reply is not None
        body = __import__("json").loads(reply.payload)
        assert body["status"] == "error" and body["error"]["code"] == "stale", body
        assert "clock" in body["error"]["message"]
        print(f"{ref.last_seq} events, {dups} duplicates dropped; command: {body['error']}")
    finally:
        broker.stop()


def _pause(table: str, port: int) -> Incoming:
    """A pause signed now by an honest console (its clock is right; the table's is not)."""
    import json

    topic = f"jantaku/v1/{table}/cmd/pause"
    key = derive_key("alice", daemon_kit.REFEREE_PASSWORD, 1000)
    payload = {"schema": "jantaku/command/1", "id": "p1", "user": "alice", "ts": time.time(),
               "client": "console", "args": {"reason": "clock check"}}
    return Incoming(topic, json.dumps(sign(key, topic, payload)).encode(), None, None, ())


def _fold_with_steady_wall(db: Path, table: str, work: Path) -> tuple[object, object]:
    src = EventLog(db, table, readonly=True)
    out = EventLog(work / "steady.sqlite", table)
    engine: Engine = daemon_kit.engine()
    core = TableCore(out, engine, table, checkpoint_every=0)
    try:
        for rec in src.records():
            commit_one(core, rec.kind, rec.source, rec.body, rec.mono_ns,
                       1_700_000_000 * 10**9 + rec.mono_ns, rec.boot)
        return core.view(), core.state.clocks
    finally:
        src.close()
        out.close()


