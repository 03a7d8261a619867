"""The overlay web server: the view at once, every newer view over SSE, resync on reconnect."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import aiohttp

from daemon.web.hub import ViewHub
from daemon.web.server import serve


async def _read_events(resp: aiohttp.ClientResponse, n: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    buf = ""
    while len(out) < n:
        chunk = await asyncio.wait_for(resp.content.readany(), 5)
        assert chunk, "stream closed early"
        buf += chunk.decode()
        while "\n\n" in buf:
            block, buf = buf.split("\n\n", 1)
            data = [line[6:] for line in block.splitlines() if line.startswith("data: ")]
            if data:
                out.append(json.loads("".join(data)))
    return out


async def test_view_and_stream_follow_the_hub() -> None:
    hub = ViewHub({"status": "waiting", "seats": [], "seq": 0})
    async with serve(hub, "127.0.0.1", 0) as port, aiohttp.ClientSession() as http:
        base = f"http://127.0.0.1:{port}"
        async with http.get(f"{base}/api/view") as r:
            assert r.status == 200
            assert (await r.json())["status"] == "waiting"
        async with http.get(f"{base}/api/stream") as stream:
            assert stream.headers["Content-Type"].startswith("text/event-stream")
            first = await _read_events(stream, 1)
            assert first[0]["seq"] == 0
            await hub.publish({"status": "playing", "seats": [], "seq": 1})
            await hub.publish({"status": "playing", "seats": [], "seq": 2})
            got = await _read_events(stream, 1)
            # Views are complete: a subscriber may skip versions but always lands on a newer one.
            assert got[0]["seq"] in (1, 2)
            if got[0]["seq"] == 1:
                assert (await _read_events(stream, 1))[0]["seq"] == 2
        # A reconnecting page gets the latest view in its first message.
        async with http.get(f"{base}/api/stream") as again:
            assert (await _read_events(again, 1))[0]["seq"] == 2


async def test_static_overlay_and_tiles_are_served_offline() -> None:
    hub = ViewHub()
    async with serve(hub, "127.0.0.1", 0) as port, aiohttp.ClientSession() as http:
        base = f"http://127.0.0.1:{port}"
        async with http.get(f"{base}/overlay/") as r:
            html = await r.text()
            assert r.status == 200 and "overlay.js" in html
            # No external fonts, scripts or CDNs: venues are often offline.
            assert "http://" not in html and "https://" not in html
        paths = ("/overlay/overlay.js", "/overlay/overlay.css", "/tiles/5z.svg", "/tiles/0p.svg")
        for path in paths:
            async with http.get(base + path) as r:
                assert r.status == 200, path
                body = await r.text()
                assert "https://" not in body.replace("https://github.com/FluffyStuff", "")


async def test_identical_view_is_not_republished() -> None:
    hub = ViewHub({"a": 1})
    await hub.publish({"a": 1})
    assert hub.version == 0
    await hub.publish({"a": 2})
    assert hub.version == 1
