"""Issue 15 item 6: a fuzzer against the running ``jantaku run`` process and a real broker.

3,000 generated and mutated commands in CI (10^6 with ``JANTAKU_SLOW=1``): signed commands built
from the command schema, JSON and byte mutations of them, the three killer payloads and their
relatives, retained copies and response-topic abuse. The oracle, from the outside:

* the daemon stays up and answers a probe at the end;
* every message is accounted for: a coded reply (on ``reply/...``), or a log line saying why
  there is none (no valid reply address; a retained copy ignored);
* the event log holds exactly the inputs of the ok replies: no refused command left a trace, and
  the retained ``state`` ends at the log's last event (``seq`` moved only for accepted ones).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

import daemon_kit
import hostile_kit
import pytest
from hostile_kit import Wire
from test_hostile_commands import killer_payloads

from daemon import auth, schema
from daemon.config import COMMANDS
from daemon.topics import Topics

sys.path.insert(0, str(daemon_kit.REPO / "bench"))

import fuzz

from hil.kit import bounded

pytestmark = pytest.mark.slow  # bounded (3,000) unless JANTAKU_SLOW=1
N = bounded(3_000, 1_000_000)
SEED = int(os.environ.get("JANTAKU_SEED", "15"))
WINDOW = 200  # publishes in flight


class Generator:
    """Messages for one table: ``(topic, payload, retain, response topic)``."""

    def __init__(self, table: str, rng: random.Random) -> None:
        self.topics = Topics(table)
        self.rng = rng
        self.defs = schema.load("command")["$defs"]
        self.killers = killer_payloads(table)
        self.reply = self.topics.reply("fz")
        # response topics the broker passes on (one with a wildcard, a control character or a
        # non-character makes Mosquitto drop the publisher: those go on connections of their
        # own, see REJECTED_BY_BROKER)
        self.bad_topics = [self.topics.events, self.topics.state, f"{self.topics.base}/cmd/undo",
                           f"{self.topics.base}/reply/a/b", "jantaku/v2/x/reply/fz", "/",
                           f"{self.topics.base}/reply/", "x" * 60000]

    def command(self) -> tuple[str, dict[str, Any]]:
        rng = self.rng
        name = rng.choice(list(COMMANDS)) if rng.random() < 0.97 else rng.choice(["x", "Ü", ""])
        topic = self.topics.cmd(name) if name else f"{self.topics.base}/cmd/"
        args_def = self.defs.get(f"args_{name}", {"type": "object"})
        payload: dict[str, Any] = {
            "schema": "jantaku/command/1",
            "id": f"f{rng.randrange(10**12)}",
            "user": rng.choice(["alice", "alice", "alice", "bob", "mallory"]),
            "ts": time.time() + rng.choice([0.0, 0.0, 1.5, -500.0]),
            "args": fuzz.schema_value(rng, args_def, self.defs),
        }
        key = hostile_kit.ALICE if payload["user"] != "bob" else auth.derive_key(
            "bob", daemon_kit.OPERATOR_PASSWORD, 1000)
        return topic, auth.sign(key, topic, payload)

    def message(self) -> tuple[str, bytes, bool, str]:
        rng = self.rng
        r = rng.random()
        if r < 0.02:
            topic, raw = rng.choice(self.killers)
            return topic, raw, False, self.reply
        topic, body = self.command()
        obj: Any = body
        if r < 0.25:
            obj = fuzz.mutate_json(rng, body)
        raw = json.dumps(obj).encode() if not isinstance(obj, bytes) else obj
        if 0.25 <= r < 0.32:
            # (an empty payload is how a retained message is cleared: not a command)
            raw = fuzz.mutate_bytes(rng, raw) or b"{"
        retain = rng.random() < 0.02
        rt = self.reply if rng.random() > 0.03 else rng.choice(self.bad_topics)
        return topic, raw, retain, rt


#: the command gate's bounds lifted (docs/mqtt.md "Commands under a flood"): this test is about
#: the checks, each message answered or counted, not about a flood (tests/daemon/
#: test_command_flood.py is)
UNBOUNDED = ("[mqtt.commands]\nper_user_per_second = 10000.0\nper_user_burst = 1000000\n"
             "replies_per_second = 1000000.0\nreplies_burst = 1000000\nqueue = 1000000\n")

REJECTED_BY_BROKER = ["{base}/reply/#", "{base}/reply/a\u0001b", "{base}/reply/\ufffe",
                      "{base}/reply/a\u0000b", "#"]


async def test_fuzz_commands_against_the_running_daemon(tmp_path: Path) -> None:
    broker = daemon_kit.Broker(tmp_path / "broker")
    broker.conf = (f"listener {broker.port} 127.0.0.1\nallow_anonymous true\n"
                   "max_queued_messages 0\nmax_inflight_messages 0\n")
    broker.start()
    rng = random.Random(SEED)
    sent = retained = 0
    t0 = time.perf_counter()
    try:
        with hostile_kit.daemon(tmp_path, broker.port, extra_mqtt=UNBOUNDED) as d:
            gen = Generator(d.table, rng)
            wire = Wire(broker.port, [f"{Topics(d.table).base}/reply/#",
                                      Topics(d.table).health])
            async with wire.run():
                status = Wire(broker.port, [Topics(d.table).status])
                async with status.run():
                    await hostile_kit.wait_up(status, d)
                pending: list[Any] = []
                for i in range(N):
                    topic, raw, retain, rt = gen.message()
                    sent += 1
                    retained += retain
                    pending.append(wire.publish(topic, raw, retain=retain, response_topic=rt,
                                                correlation=str(i).encode()))
                    if len(pending) >= WINDOW:
                        await asyncio.gather(*pending)
                        pending = []
                await asyncio.gather(*pending)
                for fmt in REJECTED_BY_BROKER:
                    topic, raw, retain, _ = gen.message()
                    rt = fmt.format(base=Topics(d.table).base)
                    if await hostile_kit.publish_once(broker.port, topic, raw,
                                                      response_topic=rt):
                        sent += 1
                probe = await hostile_kit.ask(wire, d.table, "pause", {"reason": "alive?"},
                                              client="probe", timeout=300)
                assert probe["status"] == "error", probe
                assert d.alive()
                # everything answered or counted (no reply address, a retained copy): wait
                # until the daemon has worked through it (health: every second)
                def counted() -> dict[str, Any]:
                    health = [m for m in wire.got if str(m.topic).endswith("/health")]
                    body: dict[str, Any] = json.loads(health[-1].payload)  # type: ignore[arg-type]
                    commands: dict[str, Any] = body["commands"]
                    return commands

                def accounted() -> int:
                    c = counted()
                    return (len(wire.replies(d.table)) - 1 + c["unanswered"]
                            + c["retained_seen"] + sum(c["intake"]["shed"].values()))

                deadline = time.monotonic() + 120
                while accounted() < sent and time.monotonic() < deadline:
                    await asyncio.sleep(0.5)
                replies = wire.replies(d.table)
            assert d.alive()
        seconds = time.perf_counter() - t0
        assert accounted() == sent, (accounted(), sent)
        assert counted()["retained_seen"] == retained
        # the gate's bounds were lifted: every message went through the full checks
        assert counted()["intake"]["shed"] == {}, counted()
        # the probe, and the empty retained publishes that cleared the retained copies
        assert sent + 1 <= counted()["intake"]["received"] <= sent + 1 + retained
        codes: dict[str, int] = {}
        for r in replies:
            assert schema.errors("reply", r) == [], r
            key = r["status"] if r["status"] == "ok" else r["error"]["code"]
            codes[key] = codes.get(key, 0) + 1
        ok = [r for r in replies if r["status"] == "ok" and not r.get("repeated")]
        records = d.records()
        assert sorted(r["input_seq"] for r in ok) == [rec.seq for rec in records], \
            "the log holds an input no ok reply names (a refused command was logged)"
        assert len(codes) >= 8, codes  # the fuzzer reaches the parser's many refusals
        assert codes.get("ok", 0) >= 10, codes  # ... and gets valid commands through
        print(f"fuzz: {sent} messages ({retained} retained) in {seconds:.1f} s "
              f"({sent / seconds:.0f}/s), {len(ok)} executed; replies by code {codes}")
    finally:
        broker.stop()
