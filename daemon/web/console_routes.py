"""The referee console's HTTP API (docs/console.md), as an aiohttp sub-application.

HTTP API (JSON; the session cookie on every call, the ``X-CSRF-Token`` header on every POST):

* ``POST /console/api/login`` ``{user, password}`` -> ``{user, role, csrf, ...}``;
  ``POST /console/api/logout``; ``GET /console/api/session`` (console_login.py)
* ``GET /console/api/state``: the table (snapshot, clocks, recent inputs, referee log)
* ``GET /console/api/stream``: the same state as Server-Sent Events, pushed when the table moves
  (console_stream.py)
* ``POST /console/api/preview`` ``{name, args, tiles?}``: what the command would do (dry run)
* ``POST /console/api/command`` ``{name, args, tiles?, cid, expect_digest?}``: do it (refused if
  it would no longer do what the preview with that digest showed)
* ``POST /console/api/seat-draw`` ``{players: [{name, id}] x4}``: a seeded random seating
* ``GET /console/api/standings.json`` / ``standings.csv``: final standings for a tournament system
"""

from __future__ import annotations

import logging
import re
import secrets

from aiohttp import web

from daemon.web.console import Console
from daemon.web.console_actions import (
    ConsoleError,
    seat_draw,
    seat_name,
    standings_csv,
    standings_rows,
)
from daemon.web.console_http import (
    CONSOLE_KEY,
    STATIC,
    authorised,
    console_of,
    error_reply,
    json_reply,
    read_body,
    security_headers,
)
from daemon.web.console_login import login, logout, session_info
from daemon.web.console_stream import STREAMS_KEY, end_streams, state_stream
from daemon.web.console_words import plain

log = logging.getLogger("jantaku.console")

CID = re.compile(r"^[A-Za-z0-9_-]{8,40}$")


async def _index(request: web.Request) -> web.StreamResponse:
    return web.FileResponse(STATIC / "index.html")


async def _state(request: web.Request) -> web.StreamResponse:
    got = authorised(request, post=False)
    if isinstance(got, web.Response):
        return got
    return json_reply(await console_of(request).state(got))


async def _preview(request: web.Request) -> web.StreamResponse:
    got = authorised(request, post=True)
    if isinstance(got, web.Response):
        return got
    try:
        body = await read_body(request)
        return json_reply({"status": "ok", **console_of(request).preview(got, body)})
    except ConsoleError as exc:
        return error_reply(422, exc.code, str(exc))


async def _command(request: web.Request) -> web.StreamResponse:
    got = authorised(request, post=True)
    if isinstance(got, web.Response):
        return got
    console = console_of(request)
    try:
        body = await read_body(request)
        cid = body.get("cid")
        if not isinstance(cid, str) or not CID.match(cid):
            raise ConsoleError("bad_request", "cid: 8..40 of A-Z a-z 0-9 _ - (one per action)")
        name, args, valuation = console.prepare(got, body)
        svc = console.service
        done = await svc.db(svc.eventlog.command_reply, got.user, f"c-{cid}")
        expect = body.get("expect_digest")
        if done is None and expect is not None:
            # the same command on the table as it is now: does it still do what was previewed?
            now = console.preview(got, body)
            if now["digest"] != expect:
                raise ConsoleError(
                    "stale_preview",
                    "the table changed since the preview and the command would now do"
                    " something else: check the preview again",
                )
    except ConsoleError as exc:
        return error_reply(422, exc.code, str(exc))
    try:
        reply = await console.submit(got, name, args, f"c-{cid}")
    except ConsoleError as exc:
        return error_reply(422, exc.code, str(exc))
    if valuation is not None:
        reply["valuation"] = valuation
    refused = [v for v in reply.get("violations", ()) if v.get("sanction") == "rejected"]
    if reply.get("status") != "ok" and refused and isinstance(reply.get("error"), dict):
        reply["error"] = {**reply["error"], "message": plain(refused[0])}
    return json_reply(reply, 200 if reply.get("status") == "ok" else 422)


async def _seat_draw(request: web.Request) -> web.StreamResponse:
    got = authorised(request, post=True)
    if isinstance(got, web.Response):
        return got
    try:
        body = await read_body(request)
        players = body.get("players")
        if not isinstance(players, list) or len(players) != 4 or not all(
            isinstance(p, dict)
            and isinstance(p.get("name"), str)
            and isinstance(p.get("id", ""), str)
            and len(p["name"]) <= 40
            for p in players
        ):
            raise ConsoleError("bad_args", "players: four {name, id} (names up to 40 characters)")
        clean = [{"name": p["name"].strip(), "id": str(p.get("id", "")).strip()} for p in players]
        for p in clean:
            seat_name(p["name"], p["id"])  # validates the id
        draw = seat_draw(clean, secrets.randbits(48))
    except ConsoleError as exc:
        return error_reply(422, exc.code, str(exc))
    log.info("console seat draw", extra={"fields": {"user": got.user, "draw": draw}})
    return json_reply({"status": "ok", **draw})


async def _standings(request: web.Request) -> web.StreamResponse:
    got = authorised(request, post=False)
    if isinstance(got, web.Response):
        return got
    console = console_of(request)
    console.sessions.get(got.sid)  # a download is the referee's doing
    svc = console.service
    try:
        data = standings_rows(svc.core.state.table, svc.table_id)
    except ConsoleError as exc:
        return error_reply(404, exc.code, str(exc))
    fname = f"jantaku-{svc.table_id}-game{data['game']}-standings"
    if request.match_info["fmt"] == "csv":
        return web.Response(
            text=standings_csv(data),
            content_type="text/csv",
            charset="utf-8",
            headers={"Content-Disposition": f'attachment; filename="{fname}.csv"'},
        )
    return json_reply(data, headers={"Content-Disposition": f'inline; filename="{fname}.json"'})


def console_app(console: Console) -> web.Application:
    """The console as an aiohttp sub-application (``app.add_subapp("/console/", ...)``)."""
    app = web.Application(middlewares=[security_headers], client_max_size=64 * 1024)
    app[CONSOLE_KEY] = console
    app[STREAMS_KEY] = set()
    app.on_shutdown.append(end_streams)
    app.router.add_get("/", _index)
    app.router.add_static("/static/", STATIC)
    app.router.add_post("/api/login", login)
    app.router.add_post("/api/logout", logout)
    app.router.add_get("/api/session", session_info)
    app.router.add_get("/api/state", _state)
    app.router.add_get("/api/stream", state_stream)
    app.router.add_post("/api/preview", _preview)
    app.router.add_post("/api/command", _command)
    app.router.add_post("/api/seat-draw", _seat_draw)
    app.router.add_get(r"/api/standings.{fmt:(json|csv)}", _standings)
    return app
