"""The console's pushed state (docs/console.md "Live state"): ``GET /console/api/stream`` refuses
a client without a login as ``/api/state`` does, sends the whole state at once, builds nothing on
an idle table, pushes exactly one state for an applied input, ends at logout and gives its task
back when the client leaves. Real service, real broker, real SQLite, real HTTP; the builds are
counted at ``Console.state``. From the outside too: the real ``jantaku run`` process pushes a
state after a console command."""

from __future__ import annotations

import asyncio
import json
import secrets
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "daemon"))

import daemon_kit
import hostile_kit
from test_web_runtime import _config

from daemon.service import Service
from daemon.tracking.records import KIND_INPUT
from daemon.web import console_stream
from daemon.web.console import Console
from hil.kit import free_port, until
from hil.simulator import GameSimulator
from rules.inputs import input_to_json

Event = tuple[str, dict[str, Any]]


async def next_event(lines: aiohttp.StreamReader) -> Event:
    """The next named event of an SSE stream (comments and ``retry:`` skipped)."""
    event = None
    async for raw in lines:
        line = raw.decode().rstrip("\n")
        if line.startswith("event: "):
            event = line[len("event: "):]
        elif line.startswith("data: ") and event is not None:
            data: dict[str, Any] = json.loads(line[len("data: "):])
            return event, data
    raise AssertionError("the stream ended")


async def login(http: aiohttp.ClientSession, base: str) -> str:
    """Log alice in (the cookie stays in ``http``); her CSRF token."""
    for _ in range(100):  # the port may be bound before the app answers
        try:
            async with http.post(f"{base}/console/api/login", json={
                "user": "alice", "password": daemon_kit.REFEREE_PASSWORD,
            }) as r:
                assert r.status == 200
                csrf: str = (await r.json())["csrf"]
                return csrf
        except aiohttp.ClientConnectionError:
            await asyncio.sleep(0.1)
    raise AssertionError("the console did not answer")


def _counting(monkeypatch: pytest.MonkeyPatch) -> tuple[list[int], list[int]]:
    """(states built, streams open), counted at ``Console.state`` and the stream's loop."""
    builds: list[int] = []
    open_: list[int] = [0]
    state, push = Console.state, console_stream._push

    async def counted(self: Console, *args: Any) -> dict[str, Any]:
        builds.append(1)
        return await state(self, *args)

    async def pushing(*args: Any) -> None:
        open_[0] += 1
        try:
            await push(*args)
        finally:
            open_[0] -= 1

    monkeypatch.setattr(Console, "state", counted)
    monkeypatch.setattr(console_stream, "_push", pushing)
    return builds, open_


async def _with_service(tmp_path: Path, body: Callable[[Service, str], Awaitable[None]]) -> None:
    port = free_port()
    service = Service(_config(tmp_path, port), daemon_kit.engine(), drivers=[],
                      mqtt_backoff=(0.05, 0.5))
    task = asyncio.create_task(service.run())
    try:
        await asyncio.wait_for(service.ready.wait(), 15)
        await body(service, f"http://127.0.0.1:{port}")
    finally:
        service.stop()
        await asyncio.wait_for(task, 20)


async def test_an_idle_table_builds_no_console_state_and_an_input_pushes_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    builds, open_ = _counting(monkeypatch)
    step = next(iter(GameSimulator("mleague", seed=3, hands=1).steps())).input

    async def body(service: Service, base: str) -> None:
        jar = aiohttp.CookieJar(unsafe=True)
        async with aiohttp.ClientSession(cookie_jar=jar) as http:
            csrf = await login(http, base)
            async with http.get(f"{base}/console/api/stream") as stream:
                assert stream.status == 200
                assert stream.headers["Content-Type"] == "text/event-stream"
                assert "default-src 'self'" in stream.headers["Content-Security-Policy"]
                name, first = await asyncio.wait_for(next_event(stream.content), 10)
                assert name == "state" and first["user"] == "alice"
                assert first["input_seq"] == service.core.state.input_seq
                async with http.get(f"{base}/console/api/state") as r:
                    assert set(await r.json()) == set(first)  # the same keys as /api/state
                idle = len(builds)
                quiet = asyncio.create_task(next_event(stream.content))
                await asyncio.sleep(3.0)  # polling built two states meanwhile
                assert len(builds) == idle and not quiet.done(), "an idle table builds none"
                await service.submit(KIND_INPUT, "test", input_to_json(step))
                name, pushed = await asyncio.wait_for(quiet, 5)
                assert name == "state"
                assert pushed["input_seq"] == service.core.state.input_seq > first["input_seq"]
                assert len(builds) == idle + 1
                again = asyncio.create_task(next_event(stream.content))
                await asyncio.sleep(2.0)
                assert len(builds) == idle + 1 and not again.done(), "exactly one push"
                # the login ends (here: logout): the stream says so and ends
                async with http.post(f"{base}/console/api/logout", json={},
                                     headers={"X-CSRF-Token": csrf}) as r:
                    assert r.status == 200
                name, gone = await asyncio.wait_for(again, 5)
                assert name == "logout" and gone["error"]["code"] == "login_required"
            await until(lambda: open_[0] == 0, 10, "the stream closed")

    await _with_service(tmp_path, body)


async def test_no_login_gets_the_state_endpoints_refusal_and_a_leaving_client_ends_its_stream(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    _, open_ = _counting(monkeypatch)

    async def body(service: Service, base: str) -> None:
        jar = aiohttp.CookieJar(unsafe=True)
        async with aiohttp.ClientSession(cookie_jar=jar) as http:
            await login(http, base)
            http.cookie_jar.clear()
            async with http.get(f"{base}/console/api/state") as r:
                refusal = r.status, await r.json()
            async with http.get(f"{base}/console/api/stream") as r:
                assert (r.status, await r.json()) == refusal
            assert refusal[0] == 401
            await login(http, base)
            async with http.get(f"{base}/console/api/stream") as stream:
                assert (await next_event(stream.content))[0] == "state"
                assert open_[0] == 1
        # the client went away: its stream ends (no task left waiting on the table)
        await until(lambda: open_[0] == 0, 10, "the stream closed")

    await _with_service(tmp_path, body)


async def test_jantaku_run_pushes_the_console_a_state_after_a_command(tmp_path: Path) -> None:
    port = daemon_kit.free_port()
    broker = daemon_kit.Broker(tmp_path / "broker").start()
    table = daemon_kit.unique_table("cstream")
    cfg = tmp_path / "t.toml"
    cfg.write_text(daemon_kit.config_text(table=table, db=tmp_path / "t.sqlite", port=broker.port)
                   + f'\n[web]\nhost = "127.0.0.1"\nport = {port}\n')
    d = hostile_kit.Daemon(cfg, tmp_path / "d.log", table, tmp_path / "t.sqlite").start()
    base = f"http://127.0.0.1:{port}"
    try:
        daemon_kit.wait_port(port, 30)
        async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
            csrf = await login(http, base)
            async with http.get(f"{base}/console/api/stream") as stream:
                name, first = await asyncio.wait_for(next_event(stream.content), 10)
                assert name == "state" and first["snapshot"]["seats"][0]["name"] != "Ai"
                async with http.post(f"{base}/console/api/command", headers={
                    "X-CSRF-Token": csrf}, json={
                    "name": "new_game", "args": hostile_kit.NEW_GAME,
                    "cid": secrets.token_hex(8)}) as r:
                    assert r.status == 200, await r.text()
                # no request from here on: the state comes by itself
                name, pushed = await asyncio.wait_for(next_event(stream.content), 10)
                assert name == "state" and pushed["input_seq"] > first["input_seq"]
                assert [s["name"] for s in pushed["snapshot"]["seats"]] == ["Ai", "Bo", "Cy", "Di"]
        assert d.alive()
    finally:
        d.stop()
        broker.stop()


async def test_a_touched_session_gets_its_new_logout_time_pushed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A preview moves the login's idle timer but not the table: the page's "logs out in N min"
    must move too, so the stream pushes one state (polling refreshed it every 1.5 s)."""
    builds, _ = _counting(monkeypatch)

    async def body(service: Service, base: str) -> None:
        jar = aiohttp.CookieJar(unsafe=True)
        async with aiohttp.ClientSession(cookie_jar=jar) as http:
            csrf = await login(http, base)
            async with http.get(f"{base}/console/api/stream") as stream:
                _, first = await asyncio.wait_for(next_event(stream.content), 10)
                seen = len(builds)
                pushed = asyncio.create_task(next_event(stream.content))
                async with http.post(f"{base}/console/api/preview", json={
                    "name": "new_game",
                    "args": {"ruleset": "mleague", "first_dealer": 0,
                             "names": ["A", "B", "C", "D"]},
                }, headers={"X-CSRF-Token": csrf}) as r:
                    assert r.status == 200, await r.text()
                name, state = await asyncio.wait_for(pushed, 10)
                assert name == "state" and state["input_seq"] == first["input_seq"]
                assert "expires_in" in state
                # one state for the touch (and the preview's own build), no more
                assert len(builds) <= seen + 2

    await _with_service(tmp_path, body)
