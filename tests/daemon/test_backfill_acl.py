"""Issue 29 item 1 through the shipped broker config (TLS table, passwords, the shipped ACLs):
who may ask a table for past events, and what each one gets. A read-only tool gets the public
stream (the projection published on ``events``), a referee the full one; a read-only tool can
neither ask for the private stream nor ask (or read the answer) in another account's name; the
anonymous overlay listener may ask for the public stream. Bad requests get a precise refusal.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path
from typing import Any

import aiomqtt
import daemon_kit
import outside
from conftest import running_service
from test_daemon_broker_security import (
    PASSWORDS,
    TABLE,
    Venue,
    _fresh_table,
    _publish_code,
    venue,
)

from daemon import auth, schema
from daemon.cli.referee import build_command, send
from daemon.disclosure import public_event
from daemon.topics import Topics

__all__ = ["venue"]  # the shipped broker, as a fixture of this module too


def _follow(venue: Venue, tmp_path: Path, user: str, *args: str) -> list[dict[str, Any]]:
    pw = tmp_path / f"{user}.pass"
    pw.write_text(PASSWORDS[user] + "\n")
    res = subprocess.run(
        [outside.jantaku(), "follow", "--table", TABLE, "--mqtt-port", str(venue.local_port),
         "--username", user, "--password-file", str(pw), "--idle-exit", "20", *args],
        capture_output=True, text=True, timeout=60,
    )
    assert res.returncode == 0, res.stderr
    return [json.loads(line) for line in res.stdout.splitlines()]


async def _ask(port: int, user: str | None, topic: str, reply: str, payload: bytes,
               **kw: Any) -> dict[str, Any]:
    auth_kw = {} if user is None else {"username": user, "password": PASSWORDS[user]}
    async with aiomqtt.Client("127.0.0.1", port, protocol=aiomqtt.ProtocolVersion.V5,
                              **auth_kw, **kw) as client:
        await client.subscribe(reply, qos=1)
        await client.publish(topic, payload, qos=1)
        async with asyncio.timeout(10):
            async for m in client.messages:
                assert isinstance(m.payload, bytes)
                body: dict[str, Any] = json.loads(m.payload)
                return body
    raise AssertionError("no answer")


async def test_backfill_gives_each_account_what_its_acl_gives(venue: Venue,
                                                              tmp_path: Path) -> None:
    own = Topics(TABLE)
    async with running_service(await _fresh_table(venue, tmp_path)) as service:
        key = auth.derive_key("alice", daemon_kit.REFEREE_PASSWORD, 1000)
        args = {"ruleset": "mleague", "first_dealer": 0, "names": ["a", "b", "c", "d"]}
        topic, payload = build_command(TABLE, "new_game", "alice", key, args)
        reply = await send("localhost", venue.tls_port, TABLE, topic, payload,
                           username="referee.alice", password=PASSWORDS["referee.alice"],
                           tls=venue.tls())
        assert reply is not None and reply["status"] == "ok", reply
        last = service.core.state.event_seq
        assert last >= 2
        until = ("--until-seq", str(last))
        public = await asyncio.to_thread(_follow, venue, tmp_path, "tool.archive", *until)
        full = await asyncio.to_thread(_follow, venue, tmp_path, "referee.alice", "--private",
                                       *until)
        # the anonymous overlay listener: the public stream, in its client id's name
        overlay = await _ask(
            venue.ws_port, None, own.backfill_request("ov1", private=False),
            own.backfill_reply("ov1", private=False),
            b'{"schema": "jantaku/backfill-request/1", "id": "o", "from_seq": 1}',
            transport="websockets", identifier="ov1",
        )
        bad = await _ask(
            venue.local_port, "tool.archive", own.backfill_request("tool.archive", private=False),
            own.backfill_reply("tool.archive", private=False),
            b'{"schema": "jantaku/backfill-request/1", "id": "b", "from_seq": 0}',
        )
    assert [e["seq"] for e in full] == list(range(1, last + 1))
    assert public == [public_event(e) for e in full]
    assert overlay["status"] == "ok" and overlay["events"] == public[:len(overlay["events"])]
    assert schema.errors("backfill", overlay) == []
    assert bad["status"] == "error" and bad["error"]["code"] == "bad_request", bad
    assert "from_seq" in bad["error"]["message"] and schema.errors("backfill", bad) == []


async def test_the_acl_keeps_the_private_stream_to_its_readers(venue: Venue) -> None:
    local, own = venue.local_port, Topics(TABLE)
    # a read-only tool may ask for the public stream in its own name only, never the private
    assert await _publish_code(local, "tool.archive",
                               own.backfill_request("tool.archive", private=False)) < 0x80
    assert await _publish_code(local, "tool.archive",
                               own.backfill_request("referee.alice", private=False)) >= 0x80
    assert await _publish_code(local, "tool.archive",
                               own.backfill_request("tool.archive", private=True)) >= 0x80
    # the private readers may ask for the full stream, in their own name
    assert await _publish_code(local, "referee.alice",
                               own.backfill_request("referee.alice", private=True)) < 0x80
    assert await _publish_code(local, "broadcast.delay",
                               own.backfill_request("broadcast.delay", private=True)) < 0x80
    assert await _publish_code(local, "referee.alice",
                               own.backfill_request("broadcast.delay", private=True)) >= 0x80
    # only the table answers, under its own tree
    assert await _publish_code(local, TABLE, own.backfill_reply("x", private=False)) < 0x80
    assert await _publish_code(local, TABLE, own.backfill_reply("x", private=True)) < 0x80
    assert await _publish_code(local, "tsec2", own.backfill_reply("x", private=False)) >= 0x80
    assert await _publish_code(local, "tool.archive",
                               own.backfill_reply("tool.archive", private=False)) >= 0x80
