"""The daemon's web server: the broadcast overlay and its live view stream.

Why the daemon serves the overlay itself (docs/overlay.md): it needs no broker, no websockets
listener and nothing on the internet; a broker restart cannot blank the stream; and a page that
(re)connects gets the complete current view in its first message. Venues that prefer the broker can
subscribe to the retained ``jantaku/v1/<table>/state`` topic over MQTT websockets instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import ssl
from collections.abc import AsyncIterator
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from aiohttp import web

from daemon.config.values import WebLimits
from daemon.web.hub import ViewHub
from daemon.web.listener import (
    DEFAULT_LIMITS,
    GONE_CHECK_S,
    LIMITS_KEY,
    Gate,
    Listener,
    WebStats,
    bind,
    budget_aiohttp_logs,
    quiet_tick,
)

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
#: the tally of the web limits (daemon/web/listener.py, which holds ``LIMITS_KEY`` too)
STATS_KEY: web.AppKey[WebStats] = web.AppKey("web_stats", WebStats)
#: an SSE client over ``max_sse_clients`` is told (SSE ``retry:``) to come back this much later
SSE_BUSY_RETRY_MS = 5000


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
    streams = request.app[STREAMS_KEY]
    stats = request.app.get(STATS_KEY)
    limits = request.app.get(LIMITS_KEY, DEFAULT_LIMITS)
    if len(streams) >= limits.max_sse_clients:
        return await _busy(request, stats)
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
    task = asyncio.current_task()
    if task is not None:
        streams.add(task)
    if stats is not None:
        stats.sse_open = len(streams)
    try:
        quiet = 0.0
        while True:
            newer = await hub.wait_newer(version, GONE_CHECK_S)
            if newer is None:
                left = await quiet_tick(request, resp, quiet)
                if left is None:
                    break
                quiet = left
                continue
            quiet = 0.0
            version, text = newer
            await resp.write(f"id: {version}\nevent: view\ndata: {text}\n\n".encode())
    except ConnectionResetError:
        pass  # the client left (a cancel, the server shutting down, goes on up to aiohttp)
    finally:
        streams.discard(task)
        if stats is not None:
            stats.sse_open = len(streams)
    return resp


async def _busy(request: web.Request, stats: WebStats | None) -> web.StreamResponse:
    """Over ``max_sse_clients``: a stream that only says when to come back and ends; an
    EventSource reconnects by itself after ``retry`` (the overlay needs no code for it), and
    the event names why (``busy``) for other clients."""
    if stats is not None:
        stats.sse_refused += 1
    return web.Response(
        text=f"retry: {SSE_BUSY_RETRY_MS}\nevent: busy\ndata: {{\"retry_ms\": "
             f"{SSE_BUSY_RETRY_MS}}}\n\n",
        headers={"Content-Type": "text/event-stream", "Cache-Control": "no-store",
                 "Retry-After": str(SSE_BUSY_RETRY_MS // 1000)},
    )


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
    limits: WebLimits = DEFAULT_LIMITS,
    stats: WebStats | None = None,
    sockets: list[socket.socket] | None = None,
) -> AsyncIterator[int]:
    """Run the web server; yields the bound port (``port=0`` picks a free one). ``console``: also
    serve the referee console; ``ssl_context``: serve HTTPS (the venue's certificate);
    ``spectator``: the delayed feed with hands; ``limits``: the connection caps and timeouts
    (daemon/web/listener.py), counted in ``stats``; ``sockets``: listening sockets bound
    already (``jantaku run`` binds them before READY: daemon/preflight.py), left open at the
    end; without them ``host``:``port`` is bound here and closed at the end."""
    stats = WebStats() if stats is None else stats
    budget_aiohttp_logs()
    app = make_app(hub, console, spectator, tables)
    app[LIMITS_KEY] = limits
    app[STATS_KEY] = stats
    runner = web.AppRunner(app, handle_signals=False, shutdown_timeout=1.0,
                           keepalive_timeout=limits.keepalive_timeout_seconds)
    await runner.setup()
    owned = sockets is None
    listening = bind(host, port) if sockets is None else sockets
    server = runner.server
    assert server is not None
    listener = Listener(listening, server, Gate(limits, stats), ssl_context)
    accepting = asyncio.create_task(listener.run(), name="web-listener")
    stats.serving = True
    try:
        yield int(listening[0].getsockname()[1])
    finally:
        stats.serving = False
        accepting.cancel()
        await asyncio.gather(accepting, return_exceptions=True)
        await runner.cleanup()
        if owned:
            for sock in listening:
                sock.close()
