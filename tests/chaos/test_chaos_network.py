"""The network between the daemon and the broker fails during play (an in-process TCP proxy the
test controls): connections reset (RST), dropped (FIN, new ones refused), or black-holed (open
but silent both ways, caught by the MQTT keepalive). The table plays on; after the network comes
back every event reaches a subscriber once after dedupe by ``seq``, in order, equal to the
fault-free run, and health/logs say the connection was lost."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import chaos_kit
import daemon_kit
import pytest

from hil.kit import SLOW

logdir = chaos_kit.logdir  # the fixture: event logs on tmpfs

CUTS = 3 if SLOW else 1


@pytest.mark.asyncio
@pytest.mark.parametrize("mode", ["reset", "drop", "blackhole"])
async def test_network_cut_during_play(
    logdir: Path, mode: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="jantaku.mqtt")
    broker = daemon_kit.Broker(tmp_path / "broker").start()
    table = daemon_kit.unique_table("nw")
    bodies = chaos_kit.script(hands=1, seed=5)
    try:
        async with chaos_kit.TcpProxy(broker.port) as proxy:
            # keepalive 5 s (the config's minimum): a black hole is noticed within ~1.5 x that
            config = chaos_kit.make_config(logdir, proxy.port, table)
            config = _keepalive(config, 5)
            collector = chaos_kit.event_collector(broker.port, table)  # straight to the broker
            async with collector, chaos_kit.running(config) as service:
                done = 0
                step = len(bodies) // (CUTS + 2)
                for _ in range(CUTS):
                    await chaos_kit.feed(service, bodies[done : done + step])
                    done += step
                    connects = service.link.connects
                    proxy.cut(mode)
                    more = done + 20
                    await chaos_kit.feed(service, bodies[done:more])  # the table plays on
                    done = more
                    await collector.wait_for(lambda: not service.link.connected, 20)
                    await asyncio.sleep(0.3)
                    proxy.heal()
                    await collector.wait_for(lambda c=connects: service.link.connects > c, 20)
                await chaos_kit.feed(service, bodies[done:])
                last = service.core.state.event_seq
                await collector.wait_for(
                    lambda: {e["seq"] for e in collector.payloads("/events")}
                    >= set(range(1, last + 1)),
                    30,
                )
                health = service.health()
                snapshot = service.core.view()
        ref = chaos_kit.reference(config.eventlog.path, table, logdir)
        got, dups = chaos_kit.delivered(collector)
        chaos_kit.assert_consistent(got, ref, bodies)
        assert snapshot == ref.view
        assert health["broker"]["connects"] == CUTS + 1
        assert health["broker"]["connected"] is True
        assert any("broker connection lost" in r.getMessage() for r in caplog.records)
        print(f"{mode}: {ref.last_seq} events, {dups} duplicates dropped, {CUTS} cuts")
    finally:
        broker.stop()


def _keepalive(config: chaos_kit.Config, seconds: int) -> chaos_kit.Config:
    from dataclasses import replace

    return replace(config, mqtt=replace(config.mqtt, keepalive=seconds))
