"""The broker is killed (SIGKILL) during play and restarted: the table plays on, its outbox keeps
every event, and a subscriber with a persistent session gets every event after the restart --
once after dedupe by ``seq``, in order, equal to the fault-free run; health says what happened.

What is *not* claimed: an event the broker acknowledged but had not yet delivered when it was
SIGKILLed is gone (Mosquitto does not fsync per message). The test therefore kills the broker
once the subscriber has everything published so far; docs/scaling.md says what a venue does about
it (persistence, a clustered broker).
"""

from __future__ import annotations

import asyncio
import logging
import signal
from pathlib import Path

import chaos_kit
import daemon_kit
import pytest

logdir = chaos_kit.logdir  # the fixture: event logs on tmpfs

KILLS = 3 if chaos_kit.SLOW else 1


@pytest.mark.asyncio
async def test_broker_killed_and_restarted_during_play(
    logdir: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="jantaku.mqtt")
    work = tmp_path / "broker"
    broker = daemon_kit.Broker(work)
    broker.conf = (
        f"listener {broker.port} 127.0.0.1\nallow_anonymous true\n"
        f"persistence true\npersistence_location {work}/\nautosave_interval 1\n"
    )
    broker.start()
    table = daemon_kit.unique_table("bk")
    config = chaos_kit.make_config(logdir, broker.port, table)
    bodies = chaos_kit.script(hands=3, seed=11)
    cuts = [len(bodies) * (k + 1) // (KILLS + 2) for k in range(KILLS)]
    try:
        collector = chaos_kit.event_collector(
            broker.port, table, identifier=f"sub-{table}", clean_session=False
        )
        async with collector, chaos_kit.running(config) as service:
            await asyncio.sleep(1.5)  # the broker autosaved the subscriber's session
            done = 0
            for cut in cuts:
                await chaos_kit.feed(service, bodies[done:cut])
                done = cut
                n = service.core.state.event_seq
                await collector.wait_for(lambda n=n: len(collector.payloads("/events")) >= n)
                assert broker.proc is not None
                broker.proc.send_signal(signal.SIGKILL)
                broker.proc.wait()
                # play goes on with the broker gone: the events wait in the outbox
                more = min(len(bodies), done + 15)
                await chaos_kit.feed(service, bodies[done:more])
                done = more
                await collector.wait_for(lambda: not service.link.connected, 10)
                assert service.eventlog.outbox_depth() > 0
                assert service.health()["broker"]["connected"] is False
                broker.start()
            await chaos_kit.feed(service, bodies[done:])
            last = service.core.state.event_seq
            await collector.wait_for(
                lambda: {e["seq"] for e in collector.payloads("/events")}
                >= set(range(1, last + 1)),
                30,
            )
            await collector.wait_for(lambda: service.eventlog.outbox_depth() == 0, 10)
            health = service.health()
            snapshot = service.core.snapshot()
        ref = chaos_kit.reference(config.eventlog.path, table, logdir)
        got, dups = chaos_kit.delivered(collector)
        chaos_kit.assert_consistent(got, ref, bodies)
        assert snapshot == ref.snapshot
        # the operator was told: reconnects counted, the lost connection logged
        assert health["broker"]["connects"] == KILLS + 1
        assert health["outbox_depth"] == 0
        assert any("broker connection lost" in r.getMessage() for r in caplog.records)
        print(f"{ref.last_seq} events, {dups} duplicates dropped by seq, {KILLS} broker kills")
    finally:
        broker.stop()
