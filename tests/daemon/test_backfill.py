"""Issue 29 item 1, the table's side (daemon/backfill.py) through a real broker: a long range
comes back bounded (1,000 events a request) in chunks of at most 100, each the envelope published
on ``private/events`` (or its public projection), the schema's shape; a second request from the
same requester while one is answered is ``busy``; bad requests get a precise refusal and the
daemon answers the next good one; a retained request is never answered.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import aiomqtt
import daemon_kit
from conftest import running_service

from daemon import schema
from daemon.backfill import CHUNK, MAX_RANGE
from daemon.config import Config
from daemon.disclosure import public_event
from daemon.topics import SCHEMA_BACKFILL_REQUEST, Topics
from daemon.tracking.records import KIND_INPUT


def _req(rid: str, first: int, until: int | None = None) -> bytes:
    body: dict[str, Any] = {"schema": SCHEMA_BACKFILL_REQUEST, "id": rid, "from_seq": first}
    if until is not None:
        body["until_seq"] = until
    return json.dumps(body).encode()


class Asker:
    """One requester: its reply topics subscribed, every answer collected by ``id``."""

    def __init__(self, client: aiomqtt.Client, topics: Topics, name: str) -> None:
        self.client, self.topics, self.name = client, topics, name
        self.answers: dict[str | None, list[dict[str, Any]]] = {}

    async def start(self) -> None:
        for private in (False, True):
            await self.client.subscribe(self.topics.backfill_reply(self.name, private=private),
                                        qos=1)

    async def read(self) -> None:
        async for m in self.client.messages:
            assert isinstance(m.payload, bytes)
            body = json.loads(m.payload)
            body["_private"] = "/private/" in str(m.topic)
            self.answers.setdefault(body.get("id"), []).append(body)

    async def ask(self, payload: bytes, *, private: bool = False, retain: bool = False) -> None:
        topic = self.topics.backfill_request(self.name, private=private)
        await self.client.publish(topic, payload, qos=1, retain=retain)

    def done(self, rid: str) -> bool:
        got = self.answers.get(rid, [])
        return any(b.get("final") or b.get("status") == "error" for b in got)

    def events(self, rid: str) -> list[dict[str, Any]]:
        return [e for b in self.answers[rid] for e in b.get("events", [])]


async def test_ranges_are_bounded_chunked_and_the_envelopes_published(
    broker: daemon_kit.Broker, make_config: Callable[..., Config]
) -> None:
    config = make_config(broker.port)
    topics = Topics(config.table.id)
    bodies = daemon_kit.game_inputs(6, seed=5)
    async with (
        daemon_kit.Collector(broker.port, [topics.private_events]) as sub,
        running_service(config) as service,
        aiomqtt.Client("127.0.0.1", broker.port, identifier="asker1") as client,
    ):
        asker = Asker(client, topics, "asker1")
        await asker.start()
        reader = asyncio.create_task(asker.read())
        for body in bodies:
            await service.submit(KIND_INPUT, "table", body)
        last = service.core.state.event_seq
        assert last > MAX_RANGE + CHUNK, last
        await sub.wait_for(lambda: len(sub.payloads("/private/events")) >= last, 30)
        published = {e["seq"]: e for e in sub.payloads("/private/events")}
        await asker.ask(_req("a", 1), private=True)  # no until_seq: bounded at 1,000
        await sub.wait_for(lambda: asker.done("a"), 30)
        await asker.ask(_req("b", MAX_RANGE + 1))  # the rest, public
        await sub.wait_for(lambda: asker.done("b"), 30)
        # one answer at a time per requester
        await asker.ask(_req("c", 1, 900), private=True)
        await asker.ask(_req("d", 1, 5), private=True)
        await sub.wait_for(lambda: asker.done("c") and asker.done("d"), 30)
        reader.cancel()
    first, rest = asker.answers["a"], asker.answers["b"]
    for chunk in first + rest:
        assert schema.errors("backfill", {k: v for k, v in chunk.items() if k != "_private"}) \
            == [], chunk
        assert len(chunk["events"]) <= CHUNK
        assert chunk["last_seq"] == last
    assert [c["chunk"] for c in first] == list(range(len(first)))
    assert first[-1]["final"] and first[-1]["events"] == [] and first[0]["until_seq"] == MAX_RANGE
    assert all(c["_private"] for c in first) and not any(c["_private"] for c in rest)
    assert asker.events("a") == [published[s] for s in range(1, MAX_RANGE + 1)]
    assert asker.events("b") == [public_event(published[s]) for s in range(MAX_RANGE + 1, last + 1)]
    assert rest[0]["until_seq"] == last
    busy = asker.answers["d"][0]
    assert busy["status"] == "error" and busy["error"]["code"] == "busy", busy
    assert asker.events("c") == [published[s] for s in range(1, 901)]


async def test_bad_and_retained_requests(
    broker: daemon_kit.Broker, make_config: Callable[..., Config]
) -> None:
    config = make_config(broker.port)
    topics = Topics(config.table.id)
    async with aiomqtt.Client("127.0.0.1", broker.port, identifier="asker2") as client:
        asker = Asker(client, topics, "asker2")
        await asker.start()
        reader = asyncio.create_task(asker.read())
        # retained before the table connects: it comes to the table with its retain flag
        await asker.ask(_req("retained", 1), retain=True)
        async with running_service(config) as service:
            await service.submit(KIND_INPUT, "table", daemon_kit.game_inputs(1, seed=2)[0])
            await _bad_then_good(asker)
        reader.cancel()
    errors = {b.get("id"): b["error"] for bs in asker.answers.values() for b in bs
              if b["status"] == "error"}
    assert errors[None]["code"] == "bad_request"
    assert "from_seq" in errors["x"]["message"]
    assert "until_seq" in errors["y"]["message"]
    assert "schema" in errors["z"]["message"]
    assert "retained" not in asker.answers  # a retained request is never answered
    assert asker.events("good")[0]["seq"] == 1
    assert sum(service.backfill.stats.refused.values()) == 5


async def _bad_then_good(asker: Asker) -> None:
    for payload in (b"not json", b'{"schema": "jantaku/backfill-request/1", "id": "x"}',
                    _req("y", 5, 2), b'{"schema": "other", "id": "z", "from_seq": 1}', b"[1]"):
        await asker.ask(payload)
    await asker.ask(_req("good", 1))
    await daemon_kit.until(lambda: asker.done("good"), 20)
    await asker.ask(b"", retain=True)  # clear the retained copy
