"""The command gate (daemon/command_gate.py): each message's verdict in the order of the issue's
cheap checks (size, user, freshness, signature), the per-user buckets, repeats that cannot
starve a user's new commands, the reply budget, the sampled log; and the gate agrees with the
desk's full checks (daemon/commands.py) on every refusal's code."""

from __future__ import annotations

import json
import logging
import time
from typing import Any

import daemon_kit
import pytest

from daemon import auth
from daemon import commands as dcmd
from daemon.cli.referee import build_command
from daemon.command_gate import CommandGate, GateLimits, Verdict
from daemon.config import parse_config
from daemon.errors import CommandError

TABLE = "tg1"
ALICE = auth.derive_key("alice", daemon_kit.REFEREE_PASSWORD, 1000)
BOB = auth.derive_key("bob", daemon_kit.OPERATOR_PASSWORD, 1000)
ARGS = {"reason": "x"}


class Clock:
    def __init__(self) -> None:
        self.wall, self.mono = time.time(), 1000.0


@pytest.fixture
def referee() -> Any:
    cfg = parse_config(daemon_kit.config_text(table=TABLE, db=daemon_kit.REPO / "x.sqlite",
                                              port=1883))
    return cfg.referee


def gate(referee: Any, clock: Clock, **limits: Any) -> CommandGate:
    return CommandGate(f"jantaku/v1/{TABLE}", referee, limits=GateLimits(**limits),
                       wall=lambda: clock.wall, mono=lambda: clock.mono)


def cmd(name: str = "pause", *, key: bytes = ALICE, user: str = "alice", cid: str | None = None,
        ts: float | None = None, **extra: Any) -> tuple[bytes, bytes]:
    topic, payload = build_command(TABLE, name, user, key, ARGS, cid=cid, ts=ts)
    payload.update(extra)
    return topic.encode(), json.dumps(payload).encode()


def verdict(g: CommandGate, topic: bytes, payload: bytes, retain: bool = False,
            size: int | None = None) -> tuple[Verdict, str]:
    return g.screen(topic, payload, retain, len(payload) if size is None else size)


def bad_messages(clock: Clock) -> dict[str, list[tuple[bytes, bytes]]]:
    """Messages each check refuses, by the code it refuses them with."""
    topic, good = cmd()
    body = json.loads(good)
    forged = {**body, "auth": {"hmac": "0" * 64}}
    return {
        "bad_json": [(topic, b"{"), (topic, b"\xff\xfe{}"), (topic, b"[" * 5000),
                     (topic, json.dumps({**body, "args": {"r": "\ud800"}}).encode()),
                     (topic, json.dumps(forged).replace(f'"ts": {body["ts"]}', '"ts": NaN')
                      .encode()),
                     (topic, json.dumps(forged).replace(f'"ts": {body["ts"]}', '"ts": 1e400')
                      .encode())],
        "bad_schema": [(topic, b"[]"), (topic, b"3"),
                       (topic, json.dumps({k: v for k, v in body.items() if k != "user"})
                        .encode()),
                       (topic, json.dumps({**body, "ts": True}).encode()),
                       (topic, json.dumps({**body, "ts": "now"}).encode()),
                       (topic, json.dumps({k: v for k, v in body.items() if k != "auth"})
                        .encode()),
                       (topic, json.dumps({**body, "auth": {"hmac": 7}}).encode())],
        "unknown_user": [(topic, json.dumps({**forged, "user": "mallory"}).encode())],
        "stale": [(topic, json.dumps({**forged, "ts": clock.wall - 3600}).encode()),
                  (topic, json.dumps({**forged, "ts": clock.wall + 3600}).encode())],
        "bad_signature": [(topic, json.dumps(forged).encode()),
                          # signed for another command: the topic is inside the MAC
                          (topic.replace(b"/pause", b"/undo"), good),
                          (topic, json.dumps({**body, "args": {"reason": "y"}}).encode())],
    }


def test_each_check_refuses_with_its_code_and_a_good_command_passes(referee: Any) -> None:
    clock = Clock()
    g = gate(referee, clock)
    for code, messages in bad_messages(clock).items():
        for topic, payload in messages:
            assert verdict(g, topic, payload) == (Verdict.ANSWER, code), (code, payload[:80])
    topic, good = cmd()
    assert verdict(g, b"jantaku/v1/other/cmd/pause", good) == (Verdict.DROP, "not_a_command")
    assert verdict(g, topic, b"", size=70_000) == (Verdict.ANSWER, "too_large")
    assert verdict(g, topic, good) == (Verdict.ADMIT, "")
    assert verdict(g, topic, good, retain=True) == (Verdict.RETAINED, "")
    assert verdict(g, topic, b"", retain=True) == (Verdict.EMPTY, "")
    assert verdict(g, topic, b"") == (Verdict.EMPTY, "")


def test_the_gate_and_the_full_checks_agree_on_every_code(referee: Any) -> None:
    """A message the gate refuses is answered by the desk's full checks (daemon/commands.py):
    they must name the same first failure, so the count in health and the reply agree."""
    clock = Clock()
    for code, messages in bad_messages(clock).items():
        for topic, payload in messages:
            with pytest.raises(CommandError) as exc:
                dcmd.parse(topic.decode().rsplit("/", 1)[1], topic.decode(), payload, referee,
                           clock.wall)
            full = exc.value.code
            # bounded_json names deep nesting too_deep where json.loads overflows (bad_json)
            assert full == code or (code, full) == ("bad_json", "too_deep"), (code, full, payload)


def test_each_user_has_a_bucket_and_one_users_flood_leaves_another_alone(referee: Any) -> None:
    clock = Clock()
    g = gate(referee, clock, per_user_per_s=2.0, per_user_burst=5)
    for i in range(5):
        assert verdict(g, *cmd(cid=f"a{i}"))[0] is Verdict.ADMIT
    assert verdict(g, *cmd(cid="a5")) == (Verdict.ANSWER, "rate_limited")
    # bob, signed with his own key, is not affected by alice's bucket
    assert verdict(g, *cmd(user="bob", key=BOB, cid="b0"))[0] is Verdict.ADMIT
    clock.mono += 1.0  # two tokens back
    assert verdict(g, *cmd(cid="a6"))[0] is Verdict.ADMIT
    assert verdict(g, *cmd(cid="a7"))[0] is Verdict.ADMIT
    assert verdict(g, *cmd(cid="a8")) == (Verdict.ANSWER, "rate_limited")
    assert g.stats.refused["rate_limited"] == 2


def test_replays_of_a_signed_command_cannot_starve_its_users_new_commands(referee: Any) -> None:
    """A captured valid command replayed 10,000 times: a few repeats go to the desk (a retry
    gets its first reply again), the rest are shed; the user's new commands still pass."""
    clock = Clock()
    g = gate(referee, clock, repeats_per_s=1.0, repeats_burst=3)
    captured = cmd(cid="cap")
    assert verdict(g, *captured)[0] is Verdict.ADMIT
    got = [verdict(g, *captured) for _ in range(10_000)]
    assert got.count((Verdict.ADMIT, "")) == 3
    assert got.count((Verdict.DROP, "repeated")) == 10_000 - 3
    assert g.stats.shed["repeated"] == 10_000 - 3
    assert verdict(g, *cmd(cid="new"))[0] is Verdict.ADMIT


def test_refusals_are_answered_within_a_budget_and_logged_a_few_lines_a_window(
    referee: Any, caplog: pytest.LogCaptureFixture
) -> None:
    clock = Clock()
    g = gate(referee, clock, replies_per_s=10.0, replies_burst=20)
    forged = cmd(auth={"hmac": "1" * 64})
    caplog.set_level(logging.WARNING, "jantaku.commands")
    got = [verdict(g, *forged) for _ in range(1000)]
    assert got.count((Verdict.ANSWER, "bad_signature")) == 20
    assert g.stats.shed["reply_budget"] == 980
    clock.mono += 1.0
    got = [verdict(g, *forged) for _ in range(100)]
    assert got.count((Verdict.ANSWER, "bad_signature")) == 10
    assert g.stats.refused["bad_signature"] == 1100 and g.stats.answered == 30
    assert len(caplog.records) == 5  # the window's burst: the rest counted
    clock.mono += 20.0
    g.log.tick()
    assert "1095 refused commands not logged" in caplog.records[-1].getMessage()

