"""Issue 15 items 1-2, from the outside: hostile messages on ``cmd/+`` of a running ``jantaku run``
(a real process, a private Mosquitto). No message ends the daemon; a retained command is never
executed; replies go only to ``reply/<one plain level>``; bounded JSON; a refused command
changes nothing, ``seq`` included."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import daemon_kit
import hostile_kit
import pytest
from hostile_kit import NEW_GAME, Wire, ask, signed

from daemon import schema
from daemon.topics import Topics


def _deep(levels: int) -> str:
    return "[" * levels + "]" * levels


def killer_payloads(table: str) -> list[tuple[str, bytes]]:
    """The three payloads that each ended the daemon, and their relatives (issue 15 "Why")."""
    cmd = Topics(table).cmd
    topic, good = signed(table, "pause", {"reason": "x"})
    body = json.loads(good)
    return [
        (cmd("pause"), _deep(990).encode()),  # RecursionError in peek/parse
        (cmd("pause"), ('{"args":' + _deep(1000) + "}").encode()),
        (cmd("pause"), ('{"client":' + _deep(1000) + "}").encode()),
        (cmd("set_scores"), b'{"user":"\\ud800","id":"a","client":"c1"}'),  # lone surrogate
        (cmd("set_scores"), b'{"id":"\\ud800","client":"c1"}'),
        (cmd("pause"), json.dumps({**body, "reason": "\ud800"}).encode("utf-8", "surrogatepass")),
        (cmd("pause"), b'{"client":"x/#"}'),  # wildcard reply topic
        (cmd("pause"), b'{"client":"a\\u0000b"}'),  # NUL: a topic the broker rejects
        (cmd("pause"), b'{"client":"a\\u0007b","id":"i\\n"}'),
        (cmd("pause"), b'{"client":"ok\\n"}'),
        (cmd("pause"), json.dumps({**body, "ts": "NaN"}).replace('"NaN"', "NaN").encode()),
        (cmd("pause"), json.dumps({**body, "ts": 0}).replace(": 0", ": 1e400").encode()),
        (cmd("pause"), b"x" * (65 * 1024)),
        (cmd("pause"), b"\xff\xfe{}"),
        (topic, json.dumps({**body, "client": "c1", "id": "big", "args": {"reason": "r" * 70000}})
         .encode()),
    ]


@pytest.fixture
def broker(tmp_path: Path) -> daemon_kit.Broker:
    b = daemon_kit.Broker(tmp_path / "broker").start()
    yield b  # type: ignore[misc]
    b.stop()


async def test_killer_payloads_do_not_end_the_daemon(
    tmp_path: Path, broker: daemon_kit.Broker
) -> None:
    with hostile_kit.daemon(tmp_path, broker.port) as d:
        wire = Wire(broker.port, [f"jantaku/v1/{d.table}/#"])
        async with wire.run():
            await hostile_kit.wait_up(wire, d)
            for retain in (False, True):
                for topic, payload in killer_payloads(d.table):
                    await wire.publish(topic, payload, retain=retain)
                    # a wildcard v5 response topic, and a valid one (to read the refusal)
                    await hostile_kit.publish_once(broker.port, topic, payload,
                                                   response_topic=f"jantaku/v1/{d.table}/#")
                    await wire.publish(topic, payload, response_topic=Topics(d.table).reply("k"))
                reply = await ask(wire, d.table, "pause", {"reason": "alive?"})
                assert d.alive()
                # no hand is played: pause is refused, with a code, and nothing is logged
                assert reply["status"] == "error" and reply["error"]["code"] == "not_applicable"
            assert d.inputs() == 0
            # every reply is schema-valid and echoes no hostile value
            for r in wire.replies(d.table):
                assert schema.errors("reply", r) == [], r
                assert r["id"] is None or (r["id"].isascii() and r["id"].isprintable())
            codes = {r["error"]["code"] for r in wire.replies(d.table) if r["status"] == "error"}
            assert {"bad_json", "too_deep", "too_large", "bad_schema"} <= codes, codes
            reply = await ask(wire, d.table, "new_game", NEW_GAME)
            assert reply["status"] == "ok"
        assert d.alive()
        # the retained copies were logged, never executed, and cleared (anonymous broker)
        assert d.messages("retained command on")
        assert d.inputs() == 1
        assert not [r for r in d.lines() if r.get("level") == "error" and "task" in r["msg"]]
        async with Wire(broker.port, [f"jantaku/v1/{d.table}/cmd/#"]).run() as late:
            await late.wait_for(lambda: True)
            assert not [m for m in late.got if m.retain and m.payload], "retained cmd not cleared"


#: response topics that once received replies (issue 15): the daemon's own topics, another
#: table's commands, the root, another version, wildcards, a 60,000-character topic
ABUSE = [
    "{base}/events", "{base}/status", "{base}/state", "{base}/state/scores", "{base}/health",
    "{base}/cmd/undo", "jantaku/v1/other/cmd/undo", "/", "//", "jantaku/v2/{table}/reply/x",
    "{base}/reply/#", "{base}/reply/+", "{base}/reply/a/b", "{base}/reply/", "{base}/private/x",
    "{base}/reply/a\u0000b", "{base}/reply/a\u0001b", "{base}/reply/\ufffe", "x" * 60000,
]


async def test_replies_go_only_to_reply_topics(tmp_path: Path, broker: daemon_kit.Broker) -> None:
    with hostile_kit.daemon(tmp_path, broker.port) as d:
        base = Topics(d.table).base
        wire = Wire(broker.port, ["#"])
        async with wire.run():
            await hostile_kit.wait_up(wire, d)
            before = len(wire.got)
            taken = 0
            for i, fmt in enumerate(ABUSE):
                rt = fmt.format(base=base, table=d.table)
                # a valid command: refused for its response topic, so not executed
                topic, payload = signed(d.table, "new_game", NEW_GAME, cid=f"abuse{i}")
                taken += await hostile_kit.publish_once(broker.port, topic, payload,
                                                        response_topic=rt, correlation=b"c")
            reply = await ask(wire, d.table, "pause", {"reason": "alive?"})
            assert reply["error"]["code"] == "not_applicable"
            # a valid client in the payload gets the refusal, not the bad topic
            topic, payload = signed(d.table, "new_game", NEW_GAME, cid="abuse-c", client="ok-1")
            await wire.publish(topic, payload, response_topic=f"{base}/events")
            await wire.wait_for(lambda: any(r.get("id") == "abuse-c"
                                            for r in wire.replies(d.table)))
            own = {f"{base}/{t}" for t in ("events", "private/events", "state", "private/state",
                                           "state/scores", "state/timers", "state/links",
                                           "health", "status")}
            own.add(f"{base}/private/backfill/request/{d.table}")  # its probe (docs/mqtt.md)
            # a stray: any topic the daemon does not own, or a reply on one that is not reply/
            stray = [
                str(m.topic)[:80] for m in wire.got[before:]
                if not str(m.topic).startswith(f"{base}/reply/")
                and not str(m.topic).startswith(f"{base}/cmd/")  # our own publishes
                and (str(m.topic) not in own or b"jantaku/reply/1" in bytes(m.payload))  # type: ignore[arg-type]
            ]
            assert stray == [], stray
            # the only publish the daemon made on a cmd topic: none (ours are the commands)
            ours = {f"{base}/cmd/new_game", f"{base}/cmd/pause"}
            assert {str(m.topic) for m in wire.got if "/cmd/" in str(m.topic)} <= ours
            refused = [r for r in wire.replies(d.table) if r.get("id") == "abuse-c"]
            assert refused[0]["error"]["code"] == "bad_reply_topic"
        assert d.inputs() == 0, "a command with a refused response topic was executed"
        # each one the broker passed on was refused with a log line
        assert taken >= len(ABUSE) // 2
        assert len(d.messages("no valid reply address")) == taken
        assert d.alive()


async def test_refused_commands_change_nothing_seq_included(
    tmp_path: Path, broker: daemon_kit.Broker
) -> None:
    """A refused command is not logged: not by the checks (schema, strict integers, NaN), not
    by the rules engine (set_scores before any game: "no_game", rejected)."""
    with hostile_kit.daemon(tmp_path, broker.port) as d:
        wire = Wire(broker.port, [f"jantaku/v1/{d.table}/#"])
        async with wire.run():
            await hostile_kit.wait_up(wire, d)
            r = await ask(wire, d.table, "set_scores",
                          {"scores": [25000] * 4, "reason": "before any game"})
            assert r["status"] == "error" and r["error"]["code"] == "not_applicable", r
            assert r["violations"][0]["code"] == "no_game"
            assert d.inputs() == 0
            assert (await ask(wire, d.table, "new_game", NEW_GAME))["status"] == "ok"
            # the retained state is rate-limited (mqtt.state_interval): the one after new_game
            await wire.wait_for(lambda: _states(wire) and _state(wire)["input_seq"] == 1)
            state_before = _state(wire)
            r = await ask(wire, d.table, "dead_hand", {"seat": 1.0, "reason": "float seat"})
            assert r["error"]["code"] == "bad_args" and "seat: expected integer" in \
                r["error"]["message"], r
            r = await ask(wire, d.table, "penalty", {"seat": True, "points": -1000, "reason": "b"})
            assert r["error"]["code"] == "bad_args", r
            r = await ask(wire, d.table, "swap_seats", {"a": 0, "b": 0, "reason": "same seat"})
            assert r["status"] == "error", r
            assert d.inputs() == 1
            await asyncio.sleep(1.5)  # longer than mqtt.state_interval: a change would show
            assert _state(wire)["seq"] == state_before["seq"] > 0
            assert _state(wire)["input_seq"] == 1
        assert d.alive()


def _states(wire: Wire) -> list[Any]:
    return [m for m in wire.got if str(m.topic).endswith("/state") and "/private/" not in
            str(m.topic)]


def _state(wire: Wire) -> dict[str, object]:
    body: dict[str, object] = json.loads(_states(wire)[-1].payload)
    return body
