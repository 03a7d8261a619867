"""Issue 27 item 5: who may write what, each account of the shipped ACL
(systemd/mosquitto/jantaku.acl) on a real Mosquitto with the shipped jantaku.conf (the venue fixture
of test_daemon_broker_security: password file made with ``mosquitto_passwd``).

Only a table's own account writes its table's tree; referee accounts write only ``cmd/``; tool and
broadcast accounts write nothing under ``jantaku/v1/``. Without the deny line that starts each
non-table block, the ``pattern write jantaku/v1/%u/...`` lines let any account publish a retained
``state`` under its own name, a fake table that overlays and scoreboards would show."""

from __future__ import annotations

import asyncio
import os
import re
import time

import aiomqtt
import daemon_kit
import pytest
from test_daemon_broker_security import PASSWORDS, SHIPPED, TABLE, Venue, venue

from daemon.mqtt_session import MqttSession
from daemon.mqtt_wire import Connect

__all__ = ["venue"]  # the module-scoped broker fixture
OTHER = "tsec2"
NON_TABLES = ("referee.alice", "broadcast.delay", "tool.archive", "cmd.t01")


def _trees(user: str) -> dict[str, str]:
    """Every kind of topic under ``jantaku/v1/``: a table's tree (its own, another's) and the
    tree named after ``user`` itself (a fake table)."""
    out = {}
    for label, table in (("own", user), ("table", TABLE), ("other", OTHER)):
        base = f"jantaku/v1/{table}"
        for leaf in ("events", "status", "state", "state/timers", "health", "reply/x",
                     "private/events", "private/state", "cmd/new_game"):
            out[f"{label}:{leaf}"] = f"{base}/{leaf}"
    return out


def _allowed(user: str, topic: str) -> bool:
    """Whether the issue allows ``user`` to publish to ``topic`` (``jantaku/v1/<table>/...``)."""
    table, leaf = topic.split("/", 3)[2:]
    if "." not in user:  # a table: its own tree, never its commands
        return table == user and not leaf.startswith("cmd/")
    if user.startswith("referee."):  # a real table's commands, nothing else
        return table != user and leaf.startswith("cmd/")
    return False  # tools and broadcast accounts: nothing


async def _codes(port: int, user: str, topics: dict[str, str]) -> dict[str, int]:
    """The v5 PUBACK reason code of a retained QoS 1 publish to each topic (>= 0x80: refused)."""
    async with MqttSession(_spec(port, user)) as client:
        futures = {k: client.publish(t, b"", qos=1, retain=True) for k, t in topics.items()}
        return {k: await asyncio.wait_for(f, 10) for k, f in futures.items()}


def _spec(port: int, user: str) -> Connect:
    """The daemon's own broker client, as ``user`` (its PUBACKs carry v5 reason codes)."""
    return Connect("127.0.0.1", port, f"acl-{user}-{os.getpid()}-{time.monotonic_ns()}", v5=True,
                   username=user, password=PASSWORDS[user])


@pytest.mark.parametrize("user", [TABLE, *NON_TABLES])
async def test_each_account_writes_only_what_it_may(venue: Venue, user: str) -> None:
    topics = _trees(user)
    codes = await _codes(venue.local_port, user, topics)
    wrong = {k: hex(c) for k, c in codes.items() if (c < 0x80) != _allowed(user, topics[k])}
    assert not wrong, f"{user}: allowed/refused against the issue's rules: {wrong}"


async def test_no_account_plants_a_fake_table(venue: Venue) -> None:
    """A retained ``state`` published by each non-table account under its own name never reaches
    a subscriber of ``jantaku/v1/+/state`` (the multi-table scoreboard's filter)."""
    for user in NON_TABLES:
        async with MqttSession(_spec(venue.local_port, user)) as client:
            code = await asyncio.wait_for(client.publish(
                f"jantaku/v1/{user}/state", b'{"fake":true}', qos=1, retain=True), 10)
            assert code >= 0x80, (user, hex(code))
    seen: list[str] = []
    async with aiomqtt.Client(
        "127.0.0.1", venue.local_port, username="tool.archive",
        password=PASSWORDS["tool.archive"], protocol=aiomqtt.ProtocolVersion.V5,
    ) as reader:
        await reader.subscribe("jantaku/v1/+/state", qos=1)
        try:
            async with asyncio.timeout(1.0):
                async for m in reader.messages:
                    seen.append(str(m.topic))
        except TimeoutError:
            pass
    assert not [t for t in seen if t.split("/")[2] in NON_TABLES], seen


async def test_a_command_account_reads_its_tables_commands_and_nothing_else(venue: Venue) -> None:
    """``cmd.t01`` (the connection on which table t01 reads its commands and its backfill
    requests, docs/mqtt.md "Commands under a flood" and "Backfill") gets t01's commands and
    backfill requests and nothing of another table or of any other topic."""
    got: list[str] = []
    async with aiomqtt.Client("127.0.0.1", venue.local_port, identifier="cmd.t01",
                              username="cmd.t01", password=PASSWORDS["cmd.t01"],
                              protocol=aiomqtt.ProtocolVersion.V5) as reader:
        for flt in ("jantaku/v1/+/cmd/#", "jantaku/v1/#"):
            await reader.subscribe(flt, qos=0)
        async with MqttSession(_spec(venue.local_port, "referee.alice")) as ref:
            for table in ("t01", TABLE, OTHER):
                await asyncio.wait_for(ref.publish(f"jantaku/v1/{table}/cmd/pause", b"{}"), 10)
                await asyncio.wait_for(ref.publish(
                    f"jantaku/v1/{table}/private/backfill/request/referee.alice", b"{}"), 10)
        async with MqttSession(_spec(venue.local_port, "tool.archive")) as tool:
            for table in ("t01", OTHER):
                await asyncio.wait_for(tool.publish(
                    f"jantaku/v1/{table}/backfill/request/tool.archive", b"{}"), 10)
        async with MqttSession(_spec(venue.local_port, "t01")) as table01:
            await asyncio.wait_for(table01.publish("jantaku/v1/t01/events", b"{}"), 10)
        try:
            async with asyncio.timeout(1.5):
                async for m in reader.messages:
                    got.append(str(m.topic))
        except TimeoutError:
            pass
    assert set(got) == {"jantaku/v1/t01/cmd/pause",  # once per matching filter
                        "jantaku/v1/t01/private/backfill/request/referee.alice",
                        "jantaku/v1/t01/backfill/request/tool.archive"}, got


def test_every_non_table_block_starts_with_its_deny_line() -> None:
    """The rule the file's header states, for every account an operator adds: a ``user`` block
    (a name with a '.') whose first line is not ``topic deny jantaku/v1/<name>/#`` is an account
    that can publish a fake table."""
    text = (SHIPPED / "jantaku.acl").read_text()
    blocks = re.findall(r"^user (\S+)\n([^\n]*)", text, flags=re.M)
    assert {name for name, _ in blocks} >= set(NON_TABLES)
    for name, first in blocks:
        assert "." in name, f"user {name}: not a table account needs a '.' in its name"
        assert first == f"topic deny jantaku/v1/{name}/#", (name, first)
    assert daemon_kit.MOSQUITTO_PASSWD  # the fixture's password file is made with it
