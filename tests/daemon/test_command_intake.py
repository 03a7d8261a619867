"""The command intake (daemon/command_intake.py) between a reader and the desk: the queue is
bounded (the excess shed and counted, never held), a retained flood clears each topic once in a
while, and nothing a message holds ends the reader."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import daemon_kit

from daemon import auth
from daemon.cli.referee import build_command
from daemon.command_gate import GateLimits
from daemon.command_intake import CommandIntake
from daemon.config import parse_config
from daemon.mqtt import Incoming, Reply
from daemon.topics import Topics

TABLE = "ti1"
ALICE = auth.derive_key("alice", daemon_kit.REFEREE_PASSWORD, 1000)


class Sink:
    def __init__(self) -> None:
        self.replies: list[Reply] = []
        self.cleared: list[str] = []

    def send_reply(self, reply: Reply) -> bool:
        self.replies.append(reply)
        return True

    def clear_retained(self, topic: str, done: Callable[[bool], None]) -> bool:
        self.cleared.append(topic)
        done(False)  # the shipped ACL: a table may not write cmd/#
        return True


def intake(on_command: Any, sink: Sink, **limits: Any) -> CommandIntake:
    # shared: no connection of its own (the tests feed it as the main connection would)
    cfg = parse_config(daemon_kit.config_text(
        table=TABLE, db=daemon_kit.REPO / "x.sqlite", port=1883,
        extra_mqtt='[mqtt.commands]\nconnection = "shared"\n'))
    return CommandIntake(cfg.mqtt, cfg.client_id, Topics(TABLE), cfg.referee, on_command, sink,
                         limits=GateLimits(**limits))


def signed(cid: str) -> tuple[bytes, bytes]:
    topic, payload = build_command(TABLE, "pause", "alice", ALICE, {"reason": "x"}, cid=cid)
    return topic.encode(), json.dumps(payload).encode()


async def test_the_queue_to_the_desk_is_bounded_and_sheds_the_excess() -> None:
    release = asyncio.Event()
    seen: list[Incoming] = []

    async def slow_desk(incoming: Incoming) -> Reply | None:
        seen.append(incoming)
        await release.wait()
        return Reply("jantaku/v1/ti1/reply/x", b"{}")

    sink = Sink()
    it = intake(slow_desk, sink, queue=4, per_user_burst=50, replies_burst=50)
    task = asyncio.create_task(it.run())
    await asyncio.sleep(0)
    for i in range(30):
        topic, payload = signed(f"c{i}")
        it.feed(topic, payload, False, None, len(payload))
    await asyncio.sleep(0.05)
    health = it.health()["intake"]
    # four queued (one of them now at the desk), the rest shed: nothing else held
    assert len(seen) == 1 and health["queued"] == 3, health
    assert health["shed"] == {"queue_full": 26} and health["admitted"] == 4, health
    release.set()
    await daemon_kit.until(lambda: len(sink.replies) == 4, 5)
    task.cancel()
    assert health["connection"] == "shared" and "connected" not in health


async def test_a_retained_flood_clears_each_topic_once_in_a_while_and_is_reported() -> None:
    sink = Sink()
    it = intake(lambda incoming: None, sink)
    topic, payload = signed("r1")
    for _ in range(10_000):
        it.feed(topic, payload, True, None, len(payload))
    for i in range(200):  # a flood of retained topics: the first 64 are named
        it.feed(topic + str(i).encode(), payload, True, None, len(payload))
    health = it.health()
    assert health["retained_seen"] == 10_200
    assert sink.cleared.count(topic.decode()) == 1
    assert len(sink.cleared) == 64
    assert health["retained_not_cleared"][:1] and "mosquitto_pub -r -n" in \
        health["operator_action"]


def test_nothing_a_message_holds_ends_the_reader() -> None:
    sink = Sink()
    it = intake(lambda incoming: None, sink)

    def broken(*args: Any) -> Any:
        raise TypeError("a bug in the gate")

    it.gate.screen = broken  # type: ignore[method-assign]
    it.feed(b"jantaku/v1/ti1/cmd/pause", b"{}", False, None, 2)
    assert it.health()["handler_errors"] == 1
