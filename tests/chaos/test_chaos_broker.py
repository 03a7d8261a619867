"""The broker is killed (SIGKILL) during play, mid-stream, and restarted: the table plays on, its
outbox keeps every event, and a consumer that fills its gaps from the table (``jantaku follow``'s
:class:`~daemon.cli.follow.Follower`, docs/mqtt.md "Backfill") gets every event exactly once, in
order, equal to the fault-free run; health says what happened.

The broker runs the shipped persistence settings (systemd/mosquitto/jantaku.conf:
``autosave_on_changes``, ``autosave_interval``, the queue bounds; read from the file). An event
the broker acknowledged but had not saved when it was SIGKILLed may be gone from the broker
(Mosquitto does not fsync per message): a plain persistent subscriber beside the follower
measures that window (printed), and the follower's output is the one that must be exact.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import logging
import signal
from pathlib import Path

import chaos_kit
import daemon_kit
import pytest

from daemon.cli.follow import Follower, Options
from hil.kit import SLOW

logdir = chaos_kit.logdir  # the fixture: event logs on tmpfs

KILLS = 3 if SLOW else 1


@pytest.mark.asyncio
async def test_broker_killed_and_restarted_during_play(
    logdir: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="jantaku.mqtt")
    work = tmp_path / "broker"
    broker = daemon_kit.Broker(work)
    broker.conf = (f"listener {broker.port} 127.0.0.1\nallow_anonymous true\n"
                   + chaos_kit.shipped_broker_settings(work))
    broker.start()
    table = daemon_kit.unique_table("bk")
    config = chaos_kit.make_config(logdir, broker.port, table)
    bodies = chaos_kit.script(hands=3, seed=11)
    cuts = [len(bodies) * (k + 1) // (KILLS + 2) for k in range(KILLS)]
    try:
        collector = chaos_kit.event_collector(
            broker.port, table, identifier=f"sub-{table}", clean_session=False
        )
        out = io.StringIO()
        follower = Follower(Options(table, "127.0.0.1", broker.port, None, None, True, 1, None,
                                    None), out=out)
        async with collector, chaos_kit.running(config) as service:
            following = asyncio.create_task(follower.run())
            done = 0
            for cut in cuts:
                # the kill lands mid-stream: events in flight, queued, unsaved
                await chaos_kit.feed(service, bodies[done:cut])
                done = cut
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
            await collector.wait_for(lambda: follower.next > last, 60)
            await collector.wait_for(lambda: service.eventlog.outbox_depth() == 0, 10)
            health = service.health()
            snapshot = service.core.view()
            following.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await following
        ref = chaos_kit.reference(config.eventlog.path, table, logdir)
        got = [json.loads(line) for line in out.getvalue().splitlines()]
        chaos_kit.assert_consistent(got, ref, bodies)
        plain, dups = chaos_kit.delivered(collector)
        lost = sorted(set(range(1, last + 1)) - {e["seq"] for e in plain})
        assert snapshot == ref.view
        # the operator was told: reconnects counted, the lost connection logged
        assert health["broker"]["connects"] == KILLS + 1
        assert health["outbox_depth"] == 0
        assert any("broker connection lost" in r.getMessage() for r in caplog.records)
        print(f"{ref.last_seq} events, {KILLS} broker kills: the follower printed each once;"
              f" a plain persistent subscriber missed {len(lost)} and got {dups} duplicates")
    finally:
        broker.stop()
