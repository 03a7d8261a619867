"""The daemon's web server: the broadcast overlay and its live view stream.

Why the daemon serves the overlay itself (docs/overlay.md): it needs no broker, no websockets
listener and nothing on the internet; a broker restart cannot blank the stream; and a page that
(re)connects gets the complete current view in its first message. Venues that prefer the broker can
subscribe to the retained ``jantaku/v1/<table>/state`` topic over MQTT websockets instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from collections.abc import AsyncIterator
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from aiohttp import web

from daemon.web.hub import ViewHub

if TYPE_CHECKING:
    from daemon.web.console import Console

STATIC = Path(str(resources.files("daemon") / "web" / "static"))
HUB_KEY: web.AppKey[ViewHub] = web.AppKey("hub", ViewHub)
#: the delayed spectator feed (hands shown), only when the venue configures a broadcast delay
SPECTATOR_KEY: web.AppKey[ViewHub] = web.AppKey("spectator", ViewHub)
#: the multi-table scoreboard (daemon/web/scoreboard.py), only when configured
TABLES_KEY: web.AppKey[ViewHub] = web.AppKey("tables", ViewHub)
#: the open SSE streams, ended at shutdown (a stream otherwise waits on the hub for ever)
STREAMS_KEY: web.AppKey[set[asyncio.Task[object]]] = web.AppKey("streams")
KEEPALIVE_S = 15.0


async def _index(request: web.Request) -> web.StreamResponse:
    raise web.HTTPFound("/overlay/")


async def _overlay_index(request: web.Request) -> web.StreamResponse:
    return web.FileResponse(STATIC / "overlay" / "index.html")


def _hub(request: web.Request) -> ViewHub:
    feed = request.match_info.get("feed")
    key = SPECTATOR_KEY if feed == "spectator/" else TABLES_KEY if feed == "tables/" else HUB_KEY
    return request.app[key]


async def _view(request: web.Request) -> web.Response:
    hub = _hub(request)
    return web.Response(
        text=hub.text,
        content_type="application/json",
        headers={"Cache-Control": "no-store", "X-View-Version": str(hub.version)},
    )


async def _stream(request: web.Request) -> web.StreamResponse:
    """Server-Sent Events: the current view at once, then every newer one."""
    hub = _hub(request)
    resp = web.StreamResponse(
        headers={
            "Content-Type": "text/event-stream",
            "Cache-Control": "no-store",
            "X-Accel-Buffering": "no",
        }
    )
    await resp.prepare(request)
    version, text = hub.version, hub.text
    await resp.write(f"retry: 1000\nid: {version}\nevent: view\ndata: {text}\n\n".encode())
    streams = request.app[STREAMS_KEY]
    task = asyncio.current_task()
    if task is not None:
        streams.add(task)
    try:
        while True:
            newer = await hub.wait_newer(version, KEEPALIVE_S)
            if newer is None:
                await resp.write(b": keepalive\n\n")
                continue
            version, text = newer
            await resp.write(f"id: {version}\nevent: view\ndata: {text}\n\n".encode())
    except (ConnectionResetError, asyncio.CancelledError):
        pass
    finally:
        streams.discard(task)
    return resp


async def _end_streams(app: web.Application) -> None:
    streams = app[STREAMS_KEY]
    for task in tuple(streams):
        task.cancel()


def make_app(
    hub: ViewHub, console: Console | None = None, spectator: ViewHub | None = None,
    tables: ViewHub | None = None,
) -> web.Application:
    """The overlay routes; with ``console``, the referee console under ``/console/`` too; with
    ``spectator``, the delayed feed with hands under ``/api/spectator/``; with ``tables``, the
    multi-table scoreboard under ``/api/tables/``."""
    app = web.Application()
    app[HUB_KEY] = hub
    app[STREAMS_KEY] = set()
    app.on_shutdown.append(_end_streams)
    app.router.add_get("/", _index)
    app.router.add_get("/overlay/", _overlay_index)
    app.router.add_static("/overlay/", STATIC / "overlay")
    app.router.add_static("/tiles/", STATIC / "tiles")
    app.router.add_get("/api/view", _view)
    app.router.add_get("/api/stream", _stream)
    if spectator is not None:
        app[SPECTATOR_KEY] = spectator
        app.router.add_get("/api/{feed:spectator/}view", _view)
        app.router.add_get("/api/{feed:spectator/}stream", _stream)
    if tables is not None:
        app[TABLES_KEY] = tables
        app.router.add_get("/api/{feed:tables/}view", _view)
        app.router.add_get("/api/{feed:tables/}stream", _stream)
    if console is not None:
        from daemon.web.console_routes import console_app

        app.add_subapp("/console/", console_app(console))
    return app


@contextlib.asynccontextmanager
async def serve(
    hub: ViewHub,
    host: str,
    port: int,
    *,
    console: Console | None = None,
    ssl_context: ssl.SSLContext | None = None,
    spectator: ViewHub | None = None,
    tables: ViewHub | None = None,
) -> AsyncIterator[int]:
    """Run the web server; yields the bound port (``port=0`` picks a free one). ``console``: also
    serve the referee console; ``ssl_context``: serve HTTPS (the venue's certificate);
    ``spectator``: the delayed feed with hands."""
    runner = web.AppRunner(make_app(hub, console, spectator, tables), handle_signals=False,
                           shutdown_timeout=1.0)
    await runner.setup()
    site = web.TCPSite(runner, host, port, ssl_context=ssl_context)
    await site.start()
    bound = port
    for address in runner.addresses:
        if isinstance(address, tuple) and len(address) >= 2:
            bound = int(address[1])
            break
    try:
        yield bound
    finally:
        await runner.cleanup()
