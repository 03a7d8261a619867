"""The daemon on a real Mosquitto: every event in order, retained state, availability, outages."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import aiomqtt
import daemon_kit
import pytest
from conftest import running_service

from daemon import schema
from daemon.config import Config
from daemon.disclosure import public_view
from daemon.topics import Topics


def _first_seen_order(payloads: list[dict[str, Any]]) -> list[int]:
    seen: set[int] = set()
    order = []
    for p in payloads:
        if p["seq"] not in seen:
            seen.add(p["seq"])
            order.append(p["seq"])
    return order


async def _play(service: Any, bodies: list[dict[str, Any]]) -> None:
    for body in bodies:
        await service.submit("input", "table", body)


async def test_events_in_order_schema_valid_and_late_subscriber_complete(
    broker: daemon_kit.Broker, make_config: Callable[..., Config]
) -> None:
    config = make_config(broker.port)
    topics = Topics(config.table.id)
    script = daemon_kit.game_inputs(2)
    async with (
        daemon_kit.Collector(broker.port, [topics.events]) as sub,
        running_service(config) as service,
    ):
        await _play(service, script)
        total = service.core.state.event_seq
        assert total >= len(script)
        await sub.wait_for(lambda: len(sub.payloads("/events")) >= total)
        events = sub.payloads("/events")
        assert [e["seq"] for e in events] == list(range(1, total + 1))
        for e in events:
            assert schema.errors("event", e) == [], e
            assert e["table"] == config.table.id
            assert e["id"] == f"{config.table.id}:{e['seq']}"
        assert all(m.qos == 1 and not m.retain for m in sub.messages)
        await asyncio.sleep(0.3)  # let the retained state of the last input go out
        # a late subscriber is complete at once: retained state, scores, status
        async with daemon_kit.Collector(broker.port, [f"{topics.base}/#"]) as late:
            await late.wait_for(
                lambda: all(
                    late.payloads(s) for s in ("/state", "/status", "/state/scores")
                )
            )
            state = late.payloads("/state")[-1]
            assert schema.errors("state", state) == []
            assert state["seq"] == total
            assert state["input_seq"] == len(script)
            # the public state is the projection of the snapshot; the full one is private
            full = json.loads(json.dumps(service.core.view()))
            assert state["state"] == public_view(full)
            assert late.payloads("/private/state")[-1]["state"] == full
            status = late.payloads("/status")[-1]
            assert schema.errors("status", status) == []
            assert status["state"] == "online"
            scores = late.payloads("/state/scores")[-1]
            assert schema.errors("scores", scores) == []
            # what a late subscriber gets first on each retained topic is the retained copy (a
            # health or state publication after it arrives live, not retained: MQTT 3.3.1.3).
            # Only topics the daemon retains count: `#` also hears the live-only ones (events,
            # and the table's own backfill probe, sent on the second after the command
            # connection subscribes, which a fast game can finish before: docs/mqtt.md)
            first: dict[str, bool] = {}
            retained_topics: set[str] = set()
            for m in late.messages:
                first.setdefault(str(m.topic), m.retain)
                if m.retain:
                    retained_topics.add(str(m.topic))
            for suffix in ("/state", "/private/state", "/status", "/state/scores"):
                assert f"{topics.base}{suffix}" in retained_topics, suffix
            live_first = [t for t in retained_topics if not first[t]]
            assert live_first == [], f"first seen live, not retained: {live_first}"
            await late.wait_for(
                lambda: any(h["broker"]["connected"] for h in late.payloads("/health"))
            )
            health = late.payloads("/health")[-1]
            assert schema.errors("health", health) == []
            assert health["broker"]["connected"] is True
    # a clean stop says offline (retained)
    async with daemon_kit.Collector(broker.port, [topics.status]) as after:
        await after.wait_for(lambda: after.payloads("/status"))
        assert after.payloads("/status")[-1]["state"] == "offline"


async def test_table_plays_on_through_a_broker_outage(
    broker: daemon_kit.Broker, make_config: Callable[..., Config]
) -> None:
    config = make_config(broker.port)
    topics = Topics(config.table.id)
    script = daemon_kit.game_inputs(3)
    third = len(script) // 3
    # a persistent subscriber: the broker keeps its session (and queue) across the restart
    sub_kw: dict[str, Any] = {"identifier": f"sub-{config.table.id}", "clean_session": False}
    async with (
        daemon_kit.Collector(broker.port, [topics.events], **sub_kw) as sub,
        running_service(config) as service,
    ):
        await _play(service, script[:third])
        first = service.core.state.event_seq
        await sub.wait_for(lambda: len(sub.payloads("/events")) >= first)
        broker.stop()
        # the table keeps playing: every input is logged and applied without a broker
        await _play(service, script[third : 2 * third])
        assert service.core.state.input_seq == 2 * third
        depth = await service.db(service.eventlog.outbox_depth)
        assert depth >= service.core.state.event_seq - first > 0
        await asyncio.sleep(0.5)
        assert not service.link.connected
        broker.start()
        await _play(service, script[2 * third :])
        total = service.core.state.event_seq
        await sub.wait_for(lambda: len({p["seq"] for p in sub.payloads("/events")}) >= total)
        order = _first_seen_order(sub.payloads("/events"))
        assert order == list(range(1, total + 1))
        await _wait_empty(service)
        assert service.link.connects >= 2


async def _wait_empty(service: Any) -> None:
    for _ in range(200):
        if await service.db(service.eventlog.outbox_depth) == 0:
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the outbox did not drain")


async def test_outbox_survives_restart_without_broker(
    broker: daemon_kit.Broker, make_config: Callable[..., Config]
) -> None:
    """Events produced while the broker is down, by a daemon that then stops, go out in order
    from the next daemon run."""
    config = make_config(broker.port)
    topics = Topics(config.table.id)
    script = daemon_kit.game_inputs(1)
    broker.stop()
    async with running_service(config, ready_timeout=0.5) as service:
        await _play(service, script)
        total = service.core.state.event_seq
    broker.start()
    async with (
        daemon_kit.Collector(broker.port, [topics.events]) as sub,
        running_service(config) as service,
    ):
        await sub.wait_for(lambda: len(sub.payloads("/events")) >= total)
        assert _first_seen_order(sub.payloads("/events"))[:total] == list(range(1, total + 1))
        # seq goes on by exactly one across the restart
        await service.submit("input", "table", {"type": "hand_start"})
        await sub.wait_for(lambda: max(p["seq"] for p in sub.payloads("/events")) > total)
        assert _first_seen_order(sub.payloads("/events"))[total] == total + 1


async def test_v311_daemon_and_last_will(
    broker: daemon_kit.Broker, make_config: Callable[..., Config]
) -> None:
    """MQTT 3.1.1 works too; a daemon that vanishes is announced offline by its Last Will."""
    import subprocess
    import sys

    config = make_config(broker.port, protocol="3.1.1")
    cfg_path = config.eventlog.path.with_suffix(".toml")
    cfg_path.write_text(
        daemon_kit.config_text(
            table=config.table.id, db=config.eventlog.path, port=broker.port, protocol="3.1.1"
        )
    )
    topics = Topics(config.table.id)
    async with daemon_kit.Collector(broker.port, [topics.status]) as sub:
        proc = subprocess.Popen(
            [sys.executable, str(daemon_kit.RUN_DAEMON), "run", "--config", str(cfg_path)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        with daemon_kit.running(proc):
            try:
                await sub.wait_for(
                    lambda: any(p["state"] == "online" for p in sub.payloads("/status")), 30
                )
            except TimeoutError:
                proc.kill()
                raise AssertionError(proc.communicate()[1].decode()[-3000:]) from None
            n = len(sub.payloads("/status"))
            proc.kill()  # SIGKILL: no goodbye; the broker sends the will
            proc.wait()
            await sub.wait_for(lambda: len(sub.payloads("/status")) > n)
            assert sub.payloads("/status")[-1]["state"] == "offline"
        async with aiomqtt.Client("127.0.0.1", broker.port) as client:
            await client.subscribe(topics.status)
            async with asyncio.timeout(5):
                async for m in client.messages:
                    assert m.retain
                    assert json.loads(m.payload)["state"] == "offline"  # type: ignore[arg-type]
                    break


async def test_no_writer_is_left_behind_once_the_events_are_written(
    broker: daemon_kit.Broker, make_config: Callable[..., Config]
) -> None:
    """The outbox writes each window itself (daemon/mqtt_session.py ``MqttSession.publish_now``); a
    socket writer left registered after the write would fire on the writable socket forever:
    the loop spinning at 100 % CPU while the table is idle."""
    import selectors
    import time

    config = make_config(broker.port)
    topics = Topics(config.table.id)
    script = daemon_kit.game_inputs(1)[:12]
    async with (
        daemon_kit.Collector(broker.port, [topics.events]) as sub,
        running_service(config) as service,
    ):
        await _play(service, script)
        total = service.core.state.event_seq
        await sub.wait_for(lambda: len(sub.payloads("/events")) >= total)
        await asyncio.sleep(0.2)
        selector = getattr(asyncio.get_running_loop(), "_selector")  # noqa: B009 (private)
        writers = [k for k in selector.get_map().values() if k.events & selectors.EVENT_WRITE]
        assert writers == []
        cpu0 = time.process_time()
        await asyncio.sleep(1.0)
        assert time.process_time() - cpu0 < 0.3, "the idle loop spins"


async def test_a_window_of_events_is_written_without_a_socket_writer(
    broker: daemon_kit.Broker, make_config: Callable[..., Config],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The outbox writes each window in the step that publishes it
    (daemon/mqtt_session.py ``MqttSession.publish_now``): the transport sends it at once, and no
    socket writer is added to the loop for it (a loop wake-up and two epoll changes per input)
    while the socket takes the bytes, and the events are on the broker. The daemon's socket is
    read by the selector already: a writer for it is a change of its events to include
    EVENT_WRITE."""
    import selectors

    config = make_config(broker.port)
    topics = Topics(config.table.id)
    script = daemon_kit.game_inputs(1)[:12]
    selector = getattr(asyncio.get_running_loop(), "_selector")  # noqa: B009 (private)
    writes: list[int] = []
    real_modify = selector.modify

    def modify(fd: Any, events: int, data: Any = None) -> Any:
        if events & selectors.EVENT_WRITE:
            writes.append(fd if isinstance(fd, int) else fd.fileno())
        return real_modify(fd, events, data)

    monkeypatch.setattr(selector, "modify", modify)
    async with (
        daemon_kit.Collector(broker.port, [topics.events]) as sub,
        running_service(config) as service,
    ):
        await daemon_kit.until(lambda: service.link.session is not None, 10)
        assert service.link.session is not None
        ours = service.link.session.fileno()
        assert ours >= 0
        writes.clear()  # the connect's own writes are not the outbox's
        for body in script:
            await service.submit("input", "table", body)
            await daemon_kit.until(
                lambda: service.link.published >= service.core.state.event_seq, 10)
        total = service.core.state.event_seq
        assert total >= len(script)
        await sub.wait_for(lambda: len(sub.payloads("/events")) >= total)
        assert ours not in writes
