"""Issue 15 items 2-4 on the shipped broker config (systemd/mosquitto/, as in
test_daemon_broker_security): no account takes over another's session by client id; only the
referee and broadcast-delay accounts read ``private/#``; a retained command the table may not
clear is never executed and ``health`` tells the operator what to do."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import aiomqtt
import daemon_kit
from conftest import running_service
from test_daemon_broker_security import PASSWORDS, TABLE, Venue, _fresh_table, venue

from daemon import auth
from daemon.cli.referee import build_command, send
from daemon.topics import Topics

__all__ = ["venue"]  # the module-scoped broker fixture
KEY = auth.derive_key("alice", daemon_kit.REFEREE_PASSWORD, 1000)
NEW_GAME = {"ruleset": "mleague", "first_dealer": 0, "names": ["a", "b", "c", "d"]}


def _login(venue: Venue, user: str, **kw: Any) -> aiomqtt.Client:
    return aiomqtt.Client("127.0.0.1", venue.local_port, username=user, password=PASSWORDS[user],
                          protocol=aiomqtt.ProtocolVersion.V5, **kw)


async def _referee(venue: Venue, name: str, args: dict[str, Any], **kw: Any) -> Any:
    topic, payload = build_command(TABLE, name, "alice", KEY, args, client="referee.alice")
    return await send("127.0.0.1", venue.local_port, TABLE, topic, payload,
                      username="referee.alice", password=PASSWORDS["referee.alice"],
                      client_id="referee.alice", **kw)


async def test_no_client_id_takeover_with_two_accounts(venue: Venue, tmp_path: Path) -> None:
    """A read-only account connecting with the table's client id (and with its username as
    the id) does not end the table's session: the broker makes every client id the username."""
    config = await _fresh_table(venue, tmp_path)
    async with running_service(config) as service:
        assert service.link.connected and service.link.connects == 1
        for ident in (config.client_id, TABLE):
            async with _login(venue, "tool.archive", identifier=ident) as intruder:
                await intruder.subscribe(Topics(TABLE).status, qos=1)
                await asyncio.sleep(1.0)
            assert service.link.connected, f"the table was kicked by client id {ident!r}"
        reply = await _referee(venue, "new_game", NEW_GAME)
        assert reply is not None and reply["status"] == "ok", reply
        assert service.link.connects == 1


async def _collect(client: aiomqtt.Client, filt: str, seconds: float) -> list[aiomqtt.Message]:
    await client.subscribe(filt, qos=1)
    got: list[aiomqtt.Message] = []
    try:
        async with asyncio.timeout(seconds):
            async for m in client.messages:
                got.append(m)
    except TimeoutError:
        pass
    return got


async def test_private_topics_only_for_referee_and_broadcast_delay(
    venue: Venue, tmp_path: Path
) -> None:
    config = await _fresh_table(venue, tmp_path)
    base = Topics(TABLE).base
    async with running_service(config) as service:
        reply = await _referee(venue, "new_game", {**NEW_GAME, "names": ["p", "q", "r", "s"]})
        assert reply is not None and reply["status"] == "ok", reply
        await asyncio.sleep(0.5)
        assert service.link.published >= 1
        readers: dict[str, list[aiomqtt.Message]] = {}
        for user in ("referee.alice", "broadcast.delay", "tool.archive"):
            async with _login(venue, user) as c:
                readers[user] = await _collect(c, f"{base}/private/#", 1.5)
        async with aiomqtt.Client("127.0.0.1", venue.ws_port, transport="websockets",
                                  protocol=aiomqtt.ProtocolVersion.V5) as overlay:
            readers["overlay"] = await _collect(overlay, f"{base}/#", 1.5)
    assert any(str(m.topic) == f"{base}/private/state" for m in readers["referee.alice"])
    assert any(str(m.topic) == f"{base}/private/state" for m in readers["broadcast.delay"])
    assert readers["tool.archive"] == []
    assert [str(m.topic) for m in readers["overlay"] if "/private/" in str(m.topic)] == []
    assert any(str(m.topic) == f"{base}/state" for m in readers["overlay"])


async def test_retained_command_not_cleared_by_acl_is_reported(
    venue: Venue, tmp_path: Path
) -> None:
    """A referee account publishes a command retained: the table never executes it, cannot
    clear it (the ACL: tables do not write cmd/#), and says so in health."""
    topics = Topics(TABLE)
    topic, payload = build_command(TABLE, "new_game", "alice", KEY, NEW_GAME, cid="retained-1",
                                   client="referee.alice")
    async with _login(venue, "referee.alice") as ref:
        await ref.publish(topic, json.dumps(payload).encode(), qos=1, retain=True)
    config = await _fresh_table(venue, tmp_path)
    try:
        async with running_service(config) as service:
            deadline = asyncio.get_running_loop().time() + 10
            while not service.commands.health().get("operator_action"):
                assert asyncio.get_running_loop().time() < deadline, service.commands.health()
                await asyncio.sleep(0.05)
            health = service.health()
            assert service.eventlog.last_seq() == 0, "a retained command was executed"
            assert health["commands"]["retained_not_cleared"] == [topic]
            assert "mosquitto_pub -r -n" in health["commands"]["operator_action"]
            assert health["commands"]["retained_seen"] == 1
            del topics
    finally:
        async with _login(venue, "referee.alice") as ref:
            await ref.publish(topic, b"", qos=1, retain=True)
