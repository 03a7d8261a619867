"""Referee commands over MQTT (the machine's Mosquitto on 127.0.0.1:1883): signed, authorised,
schema-checked, one input each; anything wrong gets an error reply and changes nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import daemon_kit
import pytest
from conftest import running_service

import daemon.referee_desk
import daemon.table
from daemon import auth, schema
from daemon.cli.referee import build_command, send
from daemon.config import Config
from daemon.group_writer import body_text
from daemon.service import Service
from hil.kit import reaped_async
from rules import inputs as ri
from rules.inputs import input_to_compact_json

PORT = 1883
ITER = 1000  # daemon_kit.config_text's key iterations (fast tests)
ALICE = auth.derive_key("alice", daemon_kit.REFEREE_PASSWORD, ITER)
BOB = auth.derive_key("bob", daemon_kit.OPERATOR_PASSWORD, ITER)
NEW_GAME = {"ruleset": "mleague", "first_dealer": 0, "names": ["Ai", "Bo", "Cy", "Di"]}


async def _cmd(
    service: Service,
    name: str,
    args: dict[str, Any],
    *,
    user: str = "alice",
    key: bytes = ALICE,
    protocol: str = "5",
    **kw: Any,
) -> dict[str, Any]:
    topic, payload = build_command(service.table_id, name, user, key, args, **kw)
    reply = await send("127.0.0.1", PORT, service.table_id, topic, payload, protocol=protocol)
    assert reply is not None, f"no reply to {name}"
    assert schema.errors("reply", reply) == [], reply
    return reply


async def _raw(service: Service, name: str, payload: dict[str, Any]) -> dict[str, Any]:
    topic = service.topics.cmd(name)
    reply = await send("127.0.0.1", PORT, service.table_id, topic, payload)
    assert reply is not None
    assert schema.errors("reply", reply) == [], reply
    return reply


def _inputs(service: Service) -> int:
    return service.eventlog.last_seq()


@pytest.fixture
def config(make_config: Callable[..., Config]) -> Config:
    return make_config(PORT)


async def test_new_game_and_corrections_are_one_input_each(config: Config) -> None:
    async with running_service(config) as service:
        reply = await _cmd(service, "new_game", NEW_GAME)
        assert reply["status"] == "ok", reply
        assert reply["input_seq"] == 1
        snap = service.core.view()
        assert [s["name"] for s in snap["seats"]] == NEW_GAME["names"]
        start = [s["score"] for s in snap["seats"]]
        scores = [30000, 20000, 26000, 24000]
        reply = await _cmd(service, "set_scores", {"scores": scores, "reason": "miscount"})
        assert reply["status"] == "ok", reply
        assert reply["input_seq"] == 2
        assert [s["score"] for s in service.core.view()["seats"]] == scores
        assert reply["events"]  # the events it produced, by seq
        reply = await _cmd(service, "swap_seats", {"a": 0, "b": 2, "reason": "wrong seats"})
        assert reply["status"] == "ok", reply
        snap = service.core.view()
        assert [s["name"] for s in snap["seats"]] == ["Cy", "Bo", "Ai", "Di"]
        assert [s["score"] for s in snap["seats"]] == [26000, 20000, 30000, 24000]
        reply = await _cmd(service, "undo", {"reason": "swap was right"})
        assert reply["status"] == "ok", reply
        assert [s["name"] for s in service.core.view()["seats"]] == NEW_GAME["names"]
        reply = await _cmd(service, "penalty", {"seat": 1, "points": -8000, "reason": "x"})
        assert reply["status"] == "ok", reply
        assert service.core.view()["seats"][1]["score"] == 12000
        assert start != scores
        # the log holds exactly these inputs, by the referee
        records = list(service.eventlog.records())
        assert [r.source for r in records] == ["referee:alice"] * 5
        assert [r.body["type"] for r in records] == ["game_start"] + ["referee"] * 4


async def test_refused_commands_change_nothing(config: Config) -> None:
    async with running_service(config) as service:
        assert (await _cmd(service, "new_game", NEW_GAME))["status"] == "ok"
        before = (_inputs(service), service.core.view())
        good = {"scores": [1, 2, 3, 4], "reason": "r"}

        # an operator may start games but not correct scores
        reply = await _cmd(service, "set_scores", good, user="bob", key=BOB)
        assert reply["error"]["code"] == "forbidden"
        # a wrong key (a wrong password)
        wrong = auth.derive_key("alice", "not the password", ITER)
        assert (await _cmd(service, "set_scores", good, key=wrong))["error"]["code"] == (
            "bad_signature"
        )
        # an unknown user
        reply = await _cmd(service, "set_scores", good, user="mallory", key=wrong)
        assert reply["error"]["code"] == "unknown_user"
        # a captured command replayed an hour later
        reply = await _cmd(service, "set_scores", good, ts=time.time() - 3600)
        assert reply["error"]["code"] == "stale"
        # signed for another command: the topic is inside the MAC
        _, payload = build_command(service.table_id, "pause", "alice", ALICE, {})
        reply = await _raw(service, "set_scores", payload)
        assert reply["error"]["code"] in ("bad_signature", "bad_args")
        # args that do not fit the command's schema
        reply = await _cmd(service, "set_scores", {"scores": [1, 2, 3], "reason": "r"})
        assert reply["error"]["code"] == "bad_args"
        # an envelope that does not fit
        reply = await _raw(service, "set_scores", {"id": "x1", "user": "alice"})
        assert reply["error"]["code"] == "bad_schema"
        # a tampered payload
        _, payload = build_command(service.table_id, "set_scores", "alice", ALICE, good)
        payload["args"]["scores"] = [99999, 0, 0, 0]
        assert (await _raw(service, "set_scores", payload))["error"]["code"] == "bad_signature"
        # pause with no hand being played
        assert (await _cmd(service, "pause", {}))["error"]["code"] == "not_applicable"
        assert (_inputs(service), service.core.view()) == before


async def test_a_command_input_is_read_once_and_logged_as_sent(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The desk reads a command's input (checking its arguments) and the typed input goes on to
    the reducer: the core does not read it again; the log keeps the command's own JSON."""
    decoded: list[str] = []

    def counted(where: str) -> Callable[[dict[str, Any]], ri.Input]:
        def read(body: dict[str, Any]) -> ri.Input:
            decoded.append(where)
            return ri.input_from_json(body)
        return read

    monkeypatch.setattr(daemon.referee_desk, "input_from_json", counted("desk"))
    monkeypatch.setattr(daemon.table, "input_from_json", counted("core"))
    async with running_service(config) as service:
        assert (await _cmd(service, "new_game", NEW_GAME))["status"] == "ok"
        args = {"seat": 1, "points": -8000, "reason": "x"}
        assert (await _cmd(service, "penalty", args))["status"] == "ok"
        assert decoded == ["desk", "desk"]
        assert service.core.view()["seats"][1]["score"] == 17000
        # the command's body as the desk made it, not the input's compact form (which adds
        # the default ``confirm_wins``): the log's bytes are unchanged
        start = next(service.eventlog.records()).body
        assert {k: start[k] for k in NEW_GAME} == NEW_GAME and "confirm_wins" not in start
        assert body_text(start) != body_text(input_to_compact_json(ri.input_from_json(start)))


async def test_rules_engine_refusal_is_an_error_reply_with_the_violation(config: Config) -> None:
    async with running_service(config) as service:
        reply = await _cmd(service, "confirm_win", {})
        assert reply["status"] == "error"
        assert reply["error"]["code"] == "not_applicable"
        assert reply["violations"][0]["code"] in ("no_game", "referee_bad_args")
        assert reply["violations"][0]["sanction"] == "rejected"


async def test_repeated_command_id_is_not_executed_twice(config: Config) -> None:
    async with running_service(config) as service:
        assert (await _cmd(service, "new_game", NEW_GAME))["status"] == "ok"
        args = {"seat": 2, "points": -1000, "reason": "late"}
        first = await _cmd(service, "penalty", args, cid="pen-1")
        n = _inputs(service)
        again = await _cmd(service, "penalty", args, cid="pen-1")
        assert again["repeated"] is True
        assert again["input_seq"] == first["input_seq"]
        assert _inputs(service) == n
        assert service.core.view()["seats"][2]["score"] == first_score(service) == 24000


def first_score(service: Service) -> int:
    score: int = service.core.view()["seats"][2]["score"]
    return score


async def test_v311_client_gets_its_reply_on_reply_client(config: Config) -> None:
    async with running_service(config) as service:
        reply = await _cmd(service, "new_game", NEW_GAME, protocol="3.1.1", client="ref-v311")
        assert reply["status"] == "ok"


async def test_jantaku_referee_cli(config: Config, tmp_path: Any) -> None:
    async with running_service(config) as service:
        pw = tmp_path / "pw"
        pw.write_text(daemon_kit.REFEREE_PASSWORD + "\n")
        base = [
            sys.executable,
            str(daemon_kit.RUN_DAEMON),
            "referee",
            "--table",
            service.table_id,
            "--port",
            str(PORT),
            "--user",
            "alice",
            "--password-file",
            str(pw),
            "--iterations",
            str(ITER),
        ]
        env = {**os.environ, "PYTHONPATH": str(daemon_kit.REPO)}
        import asyncio

        proc = await asyncio.create_subprocess_exec(
            *base,
            "--args",
            json.dumps(NEW_GAME),
            "new_game",
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        async with reaped_async(proc):  # gone on a timeout or failure too
            out, err = await asyncio.wait_for(proc.communicate(), 60)
        assert proc.returncode == 0, err.decode()
        assert json.loads(out)["status"] == "ok"
        proc = await asyncio.create_subprocess_exec(
            *base,
            "set_scores",
            "scores=[1,2,3]",
            "reason=typo",
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        async with reaped_async(proc):
            out, err = await asyncio.wait_for(proc.communicate(), 60)
        assert proc.returncode == 1
        assert json.loads(out)["error"]["code"] == "bad_args"
        assert _inputs(service) == 1


async def test_time_limit_command_ends_the_game_with_the_hand_mu_24_2(config: Config) -> None:
    """μ §24(2): the game ends with the hand during which the session's time limit is reached;
    the referee says when (``time_limit``). Refused, changing nothing, where the ruleset has no
    time limit (M.League)."""
    async with running_service(config) as service:
        assert (await _cmd(service, "new_game", NEW_GAME))["status"] == "ok"
        before = _inputs(service)
        reply = await _cmd(service, "time_limit", {"reason": "session over"})
        assert reply["status"] == "error" and reply["error"]["code"] == "not_applicable", reply
        assert _inputs(service) == before
        assert (await _cmd(service, "end_game", {"reason": "wrong ruleset"}))["status"] == "ok"
        mu = {**NEW_GAME, "ruleset": "mu"}
        assert (await _cmd(service, "new_game", mu))["status"] == "ok"
        reply = await _cmd(service, "time_limit", {"reason": "session over"})
        assert reply["status"] == "ok", reply
        assert not service.core.state.table.game_over  # the hand in play is still played
        reply = await _cmd(service, "manual_result",
                           {"kind": "exhaustive", "tenpai": [0], "reason": "draw"})
        assert reply["status"] == "ok", reply
        # a dealer's tenpai renchan notwithstanding, that hand was the last
        assert service.core.state.table.game_over
        assert service.core.state.table.progress.end_reason == "time_limit"
