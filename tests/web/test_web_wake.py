"""The overlay's views are built when an applied input moved the table (the service's ``changed``
event), not on a timer: an idle table builds none, and a new event reaches a browser's
server-sent event stream (``/api/stream``, real HTTP) as soon as it is applied. Real service,
real broker, real SQLite; the builds are counted at ``daemon.web.runtime.overlay_view``."""

from __future__ import annotations

import asyncio
import json
import sys
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import aiohttp
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "daemon"))

import daemon_kit
from test_web_runtime import _config

from daemon import clocks as dc
from daemon.service import Service
from daemon.tracking.records import KIND_INPUT
from daemon.web import runtime
from daemon.web.hub import Pulse, ViewHub
from hil.kit import free_port
from hil.simulator import GameSimulator
from rules.inputs import input_to_json
from rules.timers.state import Phase, new_hand


async def _next_view(lines: aiohttp.StreamReader) -> dict[str, Any]:
    """The next ``view`` event of an SSE stream."""
    event = None
    async for raw in lines:
        line = raw.decode().rstrip("\n")
        if line.startswith("event: "):
            event = line[len("event: "):]
        elif line.startswith("data: ") and event == "view":
            view: dict[str, Any] = json.loads(line[len("data: "):])
            return view
    raise AssertionError("the stream ended")


async def test_an_idle_table_builds_no_view_and_an_event_is_streamed_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    builds: list[int] = []
    real = runtime.overlay_view

    def counted(*args: Any, **kwargs: Any) -> dict[str, Any]:
        builds.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(runtime, "overlay_view", counted)
    port = free_port()
    service = Service(_config(tmp_path, port), daemon_kit.engine(), drivers=[],
                      mqtt_backoff=(0.05, 0.5))
    task = asyncio.create_task(service.run())
    base = f"http://127.0.0.1:{port}"
    steps = [s.input for s in GameSimulator("mleague", seed=3, hands=1).steps()][:6]
    try:
        await asyncio.wait_for(service.ready.wait(), 15)
        async with aiohttp.ClientSession() as http:
            async with asyncio.timeout(10):
                while not await _serving(http, base):
                    await asyncio.sleep(0.05)
            async with http.get(f"{base}/api/stream") as stream:
                first = await asyncio.wait_for(_next_view(stream.content), 10)
                assert first["seq"] == service.core.state.event_seq
                idle = len(builds)
                await asyncio.sleep(1.5)  # the old publisher built 7 views meanwhile
                assert len(builds) == idle, "an idle table builds no view"
                for inp in steps:
                    await service.submit(KIND_INPUT, "test", input_to_json(inp))
                    want = service.core.state.event_seq
                    view = await asyncio.wait_for(_next_view(stream.content), 5)
                    while view["seq"] < want:  # two commits may share one build
                        view = await asyncio.wait_for(_next_view(stream.content), 5)
                    assert view["seq"] == want
                assert len(builds) - idle <= len(steps), "one build per commit at most"
                again = len(builds)
                await asyncio.sleep(1.0)
                assert len(builds) == again
    finally:
        service.stop()
        await asyncio.wait_for(task, 20)


async def _serving(http: aiohttp.ClientSession, base: str) -> bool:
    try:
        async with http.get(f"{base}/api/view") as r:
            return r.status == 200
    except aiohttp.ClientConnectionError:
        return False


class _Stop(Exception):
    """Ends the feed once it waits without a timeout (it would sleep until the next commit)."""


async def test_the_overlay_ticks_while_a_wmc_clock_runs_and_stops_when_it_stops(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A running clock's view changes with time alone: the feed builds one every tick while it
    runs, and goes back to sleeping (no timeout, no build) once it is paused. The ticks are the
    test's own (``_woken`` replaced: each call is one tick passing), not the wall clock's."""
    rules = dc.timer_rules("wmc")
    assert rules is not None
    running = replace(new_hand(rules), phase=Phase.PLAYING)
    service = SimpleNamespace(changed=asyncio.Event(), core=SimpleNamespace(
        state=SimpleNamespace(clocks=dc.Clocks(rules, running))))
    builds: list[int] = []

    def view(*args: Any, **kwargs: Any) -> dict[str, Any]:
        builds.append(1)
        return {"build": len(builds)}

    waits: list[float | None] = []
    ticks = 5

    async def tick(changed: asyncio.Event, timeout: float | None) -> bool:
        waits.append(timeout)
        if timeout is None:
            raise _Stop
        if len(waits) == ticks:  # the referee pauses the clocks during the last tick
            paused = replace(running, paused_since=1)
            service.core.state = SimpleNamespace(clocks=dc.Clocks(rules, paused))
        return False  # the tick passed, no commit

    monkeypatch.setattr(runtime, "current_view", view)
    monkeypatch.setattr(runtime, "_woken", tick)
    hub, moved = ViewHub({}), Pulse()
    with pytest.raises(_Stop):
        await runtime._feed(service, "t", hub, None, None, moved)  # type: ignore[arg-type]
    assert waits == [runtime.CLOCK_TICK_S] * ticks + [None]
    # the first view, then one a tick while the clock ran; none once it stopped
    assert len(builds) == 1 + (ticks - 1)
    assert hub.view == {"build": ticks} and hub.version == ticks  # each build pushed
    assert moved.generation == 0  # a tick is no commit: the console's streams tick on their own
