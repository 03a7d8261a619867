"""The console's live state (docs/console.md "Live state"): ``GET /console/api/stream``, Server-Sent
Events behind the same session check as ``/console/api/state``.

Each ``state`` event carries the JSON ``/api/state`` answers, built for the stream's session: one
on connect, then one whenever the table moved or the session was touched (its logout time moved),
at most one each ``PUSH_GAP_S``. The web feed (daemon/web/runtime.py) fires ``Console.moved``
after each group commit; a stream woken by it builds a state only if :meth:`Console.mark` or the
session's last use changed, and otherwise once a second only while a WMC clock runs. An idle
table therefore builds and encodes nothing: the stream only checks, once a second, that its client
is still there and its login still valid, and sends a keep-alive comment every ``KEEPALIVE_S``
for proxies. When the login ends (expiry, logout) the stream sends ``logout`` and ends; the
browser's EventSource then reconnects and gets the 401 that ``/api/state`` would.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, Final

from aiohttp import web

from daemon import clocks as dc
from daemon.web.console import Console
from daemon.web.console_http import SECURITY_HEADERS, authorised, console_of
from daemon.web.listener import DEFAULT_LIMITS, GONE_CHECK_S, LIMITS_KEY, quiet_tick

#: the console's open streams, ended when the server shuts down (each waits for ever otherwise)
STREAMS_KEY: web.AppKey[set[asyncio.Task[object]]] = web.AppKey("console_streams")
#: the least time between two states of one stream (commits in between: one state after it)
PUSH_GAP_S: Final = 0.25
#: a stream over ``max_sse_clients`` is told (SSE ``retry:``) to come back this much later
BUSY_RETRY_MS: Final = 5000
HEADERS: Final = {
    **SECURITY_HEADERS,
    "Content-Type": "text/event-stream",
    "X-Accel-Buffering": "no",  # a proxy must pass each event on at once
}


def _event(name: str, data: Any) -> bytes:
    # the encoding of console_http.json_reply: the same JSON text as /api/state (one line)
    return f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n".encode()


async def state_stream(request: web.Request) -> web.StreamResponse:
    """The session's state at once, then each time the table moved (module docstring)."""
    got = authorised(request, post=False)
    if isinstance(got, web.Response):
        return got
    streams = request.config_dict[STREAMS_KEY]
    if len(streams) >= request.config_dict.get(LIMITS_KEY, DEFAULT_LIMITS).max_sse_clients:
        # an EventSource comes back by itself after ``retry``
        return web.Response(
            body=f"retry: {BUSY_RETRY_MS}\n".encode() + _event("busy", {"retry_ms": BUSY_RETRY_MS}),
            headers={**HEADERS, "Retry-After": str(BUSY_RETRY_MS // 1000)},
        )
    resp = web.StreamResponse(headers=HEADERS)
    await resp.prepare(request)
    await resp.write(b"retry: 1000\n\n")
    task = asyncio.current_task()
    if task is not None:
        streams.add(task)
    try:
        await _push(request, resp, console_of(request), got.sid)
    except ConnectionResetError:
        pass  # the client left (a cancel, the server shutting down, goes on up to aiohttp)
    finally:
        streams.discard(task)
    return resp


async def _push(request: web.Request, resp: web.StreamResponse, console: Console,
                sid: str) -> None:
    """Write states until the client leaves or its login ends."""
    sent: tuple[object, ...] | None = None
    quiet = 0.0
    while True:
        session = console.sessions.get(sid, touch=False)  # a stream does not keep a login alive
        if session is None:
            await resp.write(_event("logout", {"status": "error", "error": {
                "code": "login_required",
                "message": "not logged in, or the login expired: log in again"}}))
            return
        generation = console.moved.generation  # before the build: a commit during it wakes us
        # the table moved, or the session was touched (a preview, a download: its logout time
        # moved, and the page shows it)
        mark = (console.mark(), session.last_seen)
        if mark != sent or dc.running(console.service.core.state.clocks):
            sent = mark
            await resp.write(_event("state", await console.state(session)))
            quiet = 0.0
            # a burst of commits is one more state, not one each: each build reads the log on
            # its thread, where a queue of reads would send the table's commits there too
            await asyncio.sleep(PUSH_GAP_S)
        if await console.moved.wait(generation, GONE_CHECK_S):
            continue
        left = await quiet_tick(request, resp, quiet)
        if left is None:
            return
        quiet = left


async def end_streams(app: web.Application) -> None:
    streams = app[STREAMS_KEY]
    for task in tuple(streams):
        task.cancel()
