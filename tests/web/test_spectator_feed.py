"""The spectator feed: the players' hands only behind the broadcast delay, never live."""

from __future__ import annotations

import aiohttp
import pytest

from daemon.config import parse_config
from daemon.errors import ConfigError
from daemon.web.delay import DelayLine
from daemon.web.hub import ViewHub
from daemon.web.server import serve

S = 1_000_000_000


def test_nothing_leaves_the_delay_line_early() -> None:
    line = DelayLine(30.0)
    line.put(0, {"seq": 1})
    line.put(1 * S, {"seq": 2})
    line.put(2 * S, {"seq": 2})  # unchanged: not queued twice
    assert len(line) == 2
    assert line.due(29 * S) is None
    assert line.due(30 * S) == {"seq": 1}
    assert line.due(45 * S) == {"seq": 2}
    assert line.due(100 * S) is None
    with pytest.raises(ValueError):
        DelayLine(0)


def test_a_due_backlog_releases_only_the_newest() -> None:
    line = DelayLine(10.0)
    for i in range(5):
        line.put(i * S, {"seq": i})
    assert line.due(20 * S) == {"seq": 4}
    assert len(line) == 0


async def test_spectator_routes_serve_their_own_hub() -> None:
    live = ViewHub({"seq": 7, "seats": [{"hand": None}]})
    spectator = ViewHub({"seq": 3, "seats": [{"hand": ["1m", "2m"]}]})
    async with serve(live, "127.0.0.1", 0, spectator=spectator) as port, \
            aiohttp.ClientSession() as http:
        base = f"http://127.0.0.1:{port}"
        async with http.get(f"{base}/api/view") as r:
            assert (await r.json())["seats"][0]["hand"] is None
        async with http.get(f"{base}/api/spectator/view") as r:
            body = await r.json()
            assert body["seq"] == 3 and body["seats"][0]["hand"] == ["1m", "2m"]
        async with http.get(f"{base}/api/spectator/stream") as r:
            assert r.headers["Content-Type"].startswith("text/event-stream")
            chunk = await r.content.readany()
            assert b'"hand":["1m","2m"]' in chunk


async def test_no_spectator_feed_unless_configured() -> None:
    async with (
        serve(ViewHub(), "127.0.0.1", 0) as port,
        aiohttp.ClientSession() as http,
        http.get(f"http://127.0.0.1:{port}/api/spectator/view") as r,
    ):
        assert r.status == 404


def test_config_refuses_a_delay_too_short_to_be_safe(tmp_path: object) -> None:
    base = """
config_version = 1
[table]
id = "t1"
ruleset = "mleague"
[eventlog]
path = "/tmp/x.sqlite"
[mqtt]
host = "127.0.0.1"
[devices.table]
kind = "none"
[web]
spectator_delay_seconds = {}
"""
    assert parse_config(base.format(60)).web.spectator_delay_seconds == 60.0  # type: ignore[union-attr]
    assert parse_config(base.format(0)).web.spectator_delay_seconds == 0.0  # type: ignore[union-attr]
    with pytest.raises(ConfigError, match="spectator_delay_seconds"):
        parse_config(base.format(2))
