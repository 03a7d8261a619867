"""The referee console: a touch web app served by the daemon at ``/console/`` (docs/console.md).

Every action a referee takes in the console becomes **one** signed referee command that goes
through exactly the MQTT command path, in process: the console signs the command with the logged-in
user's configured key (the key the password derives, daemon/auth.py) and hands it to
:meth:`daemon.service.Service.handle_command`, which checks it (schema, user, HMAC, clock skew,
role, args), logs one input with ``source = "referee:<user>"`` and returns the reply the console
shows. Nothing here changes the table by any other route.

HTTP API (JSON; the session cookie on every call, the ``X-CSRF-Token`` header on every POST):

* ``POST /console/api/login`` ``{user, password}`` -> ``{user, role, csrf, ...}``;
  ``POST /console/api/logout``; ``GET /console/api/session``
* ``GET /console/api/state``: the table (snapshot, clocks, recent inputs, referee log)
* ``POST /console/api/preview`` ``{name, args, tiles?}``: what the command would do (dry run)
* ``POST /console/api/command`` ``{name, args, tiles?, cid, expect_digest?}``: do it (refused if
  it would no longer do what the preview with that digest showed)
* ``POST /console/api/seat-draw`` ``{players: [{name, id}] x4}``: a seeded random seating
* ``GET /console/api/standings.json`` / ``standings.csv``: final standings for a tournament system
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import re
import secrets
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Final

from aiohttp import web

from daemon import auth, bounded_json
from daemon import clocks as dc
from daemon import commands as dcmd
from daemon.mqtt import Incoming
from daemon.port import TablePort
from daemon.table import iso
from daemon.topics import SCHEMA_COMMAND
from daemon.web.console_actions import (
    ConsoleError,
    command_input,
    dry_run,
    seat_draw,
    seat_name,
    standings_csv,
    standings_rows,
    value_picked,
)
from daemon.web.console_auth import (
    Clock,
    ConsoleSettings,
    LoginRefused,
    Session,
    SessionStore,
    verify_password,
)
from daemon.web.console_history import HandHistory
from daemon.web.console_words import plain
from rules.ruleset import BUILTIN

log = logging.getLogger("jantaku.console")

STATIC: Final = Path(__file__).parent / "static" / "console"
COOKIE: Final = "jantaku_console"
CSRF_HEADER: Final = "X-CSRF-Token"
CID = re.compile(r"^[A-Za-z0-9_-]{8,40}$")
RECENT_INPUTS: Final = 14
SECURITY_HEADERS: Final = {
    "Content-Security-Policy": (
        "default-src 'self'; img-src 'self'; style-src 'self'; script-src 'self'; "
        "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
    ),
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
CONSOLE_KEY: web.AppKey[Console] = web.AppKey("console")


class Console:
    """The console of one table: the service it commands, its sessions and its settings."""

    def __init__(
        self,
        service: TablePort,
        settings: ConsoleSettings | None = None,
        *,
        clock: Clock = time.monotonic,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self.service = service
        self.settings = settings or ConsoleSettings()
        self.sessions = SessionStore(self.settings, clock)
        self.wall = wall
        self._verify = asyncio.Semaphore(1)  # one PBKDF2 at a time: a login flood cannot stall
        self.history = HandHistory()
        self._history_lock = asyncio.Lock()

    @property
    def referee(self) -> Any:
        return self.service.config.referee

    # ------------------------------------------------------------------ commands
    async def submit(
        self, session: Session, name: str, args: dict[str, Any], cid: str
    ) -> dict[str, Any]:
        """Sign ``name``/``args`` as the session's user and run it through the command path."""
        user = self.referee.user(session.user)
        if user is None:  # removed from the config since the login
            self.sessions.drop_user(session.user)
            raise ConsoleError("unknown_user", f"no referee user {session.user!r} on this table")
        _, key = auth.parse_key(user.key.reveal())
        topic = self.service.topics.cmd(name)
        payload = {
            "schema": SCHEMA_COMMAND,
            "id": cid,
            "user": user.name,
            "ts": round(self.wall(), 3),
            "client": f"console-{user.name}"[:64],
            "args": args,
        }
        signed = auth.sign(key, topic, payload)
        incoming = Incoming(topic, json.dumps(signed).encode(), None, None, ())
        reply = await self.service.handle_command(incoming)
        assert reply is not None  # a client is named, so there is always a reply
        body: dict[str, Any] = json.loads(reply.payload)
        return body

    # ------------------------------------------------------------------ views
    def rulesets(self) -> list[str]:
        """The builtin rulesets and the table's own (a venue's TOML path): never a path typed
        into a browser."""
        own = self.service.config.table.ruleset
        return [*BUILTIN, *([] if own in BUILTIN else [own])]

    def allowed(self, session: Session) -> list[str]:
        return list(self.referee.roles.get(session.role, ()))

    async def hand_history(self) -> list[dict[str, Any]]:
        """The current game's hands (console_history.py), fed what the log gained."""
        svc = self.service
        async with self._history_lock:
            game = svc.core.state.game
            after = self.history.position(game)
            if game > 0:
                recs = await svc.db(lambda: list(svc.eventlog.records(after=after, game=game)))
                self.history.feed(recs)
            rs = getattr(svc.core.state.table, "ruleset", None)
            stick = rs.riichi.deposit if rs is not None else 0
            return self.history.rows(stick) if game > 0 else []

    def ruleset_info(self) -> dict[str, Any] | None:
        """What the forms need to know of the game's ruleset (which draws, pao, riichi)."""
        rs = getattr(self.service.core.state.table, "ruleset", None)
        if rs is None:
            return None
        return {
            "name": rs.name,
            "family": rs.meta.family,
            "riichi": rs.riichi.enabled,
            "abortive": list(rs.draws.abortive),
            "multiple_ron": rs.calls.multiple_ron,
            "pao": list(rs.pao.yaku),
            "noten_payment": rs.draws.noten_payment,
        }

    async def state(self, session: Session) -> dict[str, Any]:
        svc = self.service
        history = await self.hand_history()
        cs = svc.core.state
        snap = svc.core.snapshot()
        last = cs.input_seq
        recent = await svc.db(
            lambda: [r for r in svc.eventlog.records(after=max(0, last - RECENT_INPUTS))]
        )
        table = cs.table
        ref_log = [
            {"action": r.action, "by": r.by, "seq": r.seq}
            for r in getattr(table, "referee_log", ())
        ]
        return {
            "table": svc.table_id,
            "user": session.user,
            "role": session.role,
            "allowed": self.allowed(session),
            "expires_in": round(self.sessions.expires_in(session)),
            "input_seq": cs.input_seq,
            "event_seq": cs.event_seq,
            "game": cs.game or None,
            "snapshot": snap,
            "clocks": dc.view_json(cs.clocks, time.monotonic_ns()),
            "recent": [
                {
                    "seq": r.seq,
                    "ts": iso(r.wall_ns),
                    "source": r.source,
                    "kind": r.kind,
                    "body": r.body,
                }
                for r in reversed(recent)
            ],
            "referee_log": ref_log,
            "rulesets": self.rulesets(),
            "default_ruleset": svc.config.table.ruleset,
            "sensorless": svc.sensorless,
            "ruleset_info": self.ruleset_info(),
            "history": history,
        }

    # ------------------------------------------------------------------ requests
    def prepare(self, session: Session, body: dict[str, Any]) -> tuple[str, dict[str, Any], Any]:
        """``(name, args, valuation)``: the command a console request stands for (a picked hand
        valued, seat names with ids joined)."""
        name = body.get("name")
        args = body.get("args", {})
        if not isinstance(name, str) or not isinstance(args, dict):
            raise ConsoleError("bad_request", "expected {name: string, args: object}")
        valuation = None
        tiles = body.get("tiles")
        table = self.service.core.state.table
        if name == "manual_result" and tiles is not None:
            args, valuation = value_picked(table, args, tiles)
        if name == "new_game":
            args = dict(args)
            ids = body.get("player_ids")
            names = args.get("names")
            if ids is not None:
                if not (isinstance(ids, list) and isinstance(names, list) and len(ids) == 4
                        and len(names) == 4 and all(isinstance(x, str) for x in ids + names)):
                    raise ConsoleError("bad_args", "player_ids: four strings beside four names")
                args["names"] = [seat_name(n, i) for n, i in zip(names, ids, strict=True)]
            # the command path's own defaults, shown in the preview (daemon/commands.py)
            args = dcmd.executed_args(name, args, sensorless=self.service.sensorless)
            if args.get("ruleset") not in self.rulesets():
                raise ConsoleError(
                    "bad_args", f"ruleset {args.get('ruleset')!r}: one of {self.rulesets()}"
                )
        return name, args, valuation

    def preview(self, session: Session, body: dict[str, Any]) -> dict[str, Any]:
        name, args, valuation = self.prepare(session, body)
        if name not in self.allowed(session):
            raise ConsoleError("forbidden", f"role {session.role!r} may not {name}")
        inp = command_input(name, args, session.user, session.role)
        out: dict[str, Any] = {
            "name": name,
            "args": args,
            "input_seq": self.service.core.state.input_seq,
        }
        if valuation is not None:
            out["valuation"] = valuation
        if inp is not None:
            out.update(dry_run(self.service.engine, self.service.core.state.table, inp))
        out["digest"] = consequence_digest(out)
        return out


#: what a preview promises (not the event numbers, which move with any input)
CONSEQUENCE: Final = (
    "name", "args", "deltas", "scores_after", "names_after", "deposits_after", "honba_after",
    "settlement", "next", "standings",
)


def consequence_digest(preview: dict[str, Any]) -> str:
    """A digest of what a preview says will happen: the confirm is refused when the same
    command would now do something else (the table moved on in between)."""
    what = {k: preview.get(k) for k in CONSEQUENCE}
    text = json.dumps(what, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


# --------------------------------------------------------------------------- HTTP plumbing
def _json(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
    return web.json_response(
        data, status=status, headers=headers, dumps=lambda o: json.dumps(o, ensure_ascii=False)
    )


def _error(
    status: int, code: str, message: str, headers: dict[str, str] | None = None
) -> web.Response:
    return _json({"status": "error", "error": {"code": code, "message": message}}, status,
                 headers)


@web.middleware
async def _headers(request: web.Request, handler: Handler) -> web.StreamResponse:
    try:
        resp = await handler(request)
    except web.HTTPException as exc:
        resp = exc
    for k, v in SECURITY_HEADERS.items():
        resp.headers.setdefault(k, v)
    if isinstance(resp, web.HTTPException) and resp.status >= 400:
        raise resp
    return resp


def _console(request: web.Request) -> Console:
    return request.config_dict[CONSOLE_KEY]


def _session(request: web.Request, touch: bool) -> Session | None:
    return _console(request).sessions.get(request.cookies.get(COOKIE), touch=touch)


def _same_origin(request: web.Request) -> bool:
    """A browser's POST carries Origin; it must be this server (CSRF defence in depth)."""
    origin = request.headers.get("Origin")
    if origin is None:
        return True
    return origin == f"{request.scheme}://{request.host}"


async def _body(request: web.Request) -> dict[str, Any]:
    if request.content_type != "application/json":
        raise ConsoleError("bad_request", "expected Content-Type: application/json")
    # the MQTT commands' bounds (daemon/bounded_json.py: 64 KiB, depth 32, no NaN, valid
    # strings): a console body is a command too (issue 15)
    raw = await request.content.read(bounded_json.MAX_BYTES + 1)
    try:
        data = bounded_json.load(raw)
    except bounded_json.JsonRefused as exc:
        reason = "the request body is not JSON" if exc.code == "bad_json" else str(exc)
        raise ConsoleError("bad_request", f"{reason} ({exc})") from None
    if not isinstance(data, dict):
        raise ConsoleError("bad_request", "the request body must be a JSON object")
    return data


def _authorised(
    request: web.Request, *, post: bool, touch: bool | None = None
) -> Session | web.Response:
    """The request's live session (CSRF-checked for a POST), or the refusal to send. Only what
    a referee does restarts the idle timer (``touch``, default: POSTs): the page's own polling
    does not, so a console left open logs out after ``idle_timeout``."""
    session = _session(request, False)
    if session is None:
        return _error(401, "login_required", "not logged in, or the login expired: log in again")
    if post:
        if not _same_origin(request):
            return _error(403, "csrf", "request from another origin refused")
        token = request.headers.get(CSRF_HEADER, "")
        if not secrets.compare_digest(token.encode(), session.csrf.encode()):
            return _error(403, "csrf", "missing or wrong CSRF token: reload the console")
    if post if touch is None else touch:
        session = _session(request, True) or session
    return session


def _login_info(console: Console, session: Session) -> dict[str, Any]:
    return {
        "status": "ok",
        "user": session.user,
        "role": session.role,
        "csrf": session.csrf,
        "allowed": console.allowed(session),
        "expires_in": round(console.sessions.expires_in(session)),
        "table": console.service.table_id,
    }


# --------------------------------------------------------------------------- handlers
async def _index(request: web.Request) -> web.StreamResponse:
    return web.FileResponse(STATIC / "index.html")


async def _login(request: web.Request) -> web.StreamResponse:
    console = _console(request)
    if not _same_origin(request):
        return _error(403, "csrf", "request from another origin refused")
    try:
        body = await _body(request)
    except ConsoleError as exc:
        return _error(400, exc.code, str(exc))
    name, password = body.get("user"), body.get("password")
    if not isinstance(name, str) or not isinstance(password, str) or not name or not password:
        return _error(400, "bad_request", "give a user name and a password")
    if len(name) > 64 or len(password) > 1024:
        return _error(400, "bad_request", "user name or password too long")
    keys = (f"ip:{request.remote}", f"user:{name}")
    async with console._verify:
        try:
            console.sessions.check_allowed(keys)
        except LoginRefused as exc:
            wait = int(exc.retry_after or 1) + 1
            log.warning("console login refused (rate limit)",
                        extra={"fields": {"user": name, "remote": request.remote}})
            return _error(429, "rate_limited", str(exc), {"Retry-After": str(wait)})
        user = console.referee.user(name)
        ok = await asyncio.get_running_loop().run_in_executor(
            None, verify_password, user, name, password
        )
        if not ok or user is None:
            console.sessions.failed(keys)
            log.warning("console login failed",
                        extra={"fields": {"user": name, "remote": request.remote}})
            return _error(401, "bad_login", "wrong user name or password")
        console.sessions.succeeded(keys)
    session = console.sessions.create(user.name, user.role)
    log.info("console login", extra={"fields": {"user": user.name, "remote": request.remote}})
    resp = _json(_login_info(console, session))
    resp.set_cookie(
        COOKIE,
        session.sid,
        path="/console/",
        httponly=True,
        samesite="Strict",
        secure=console.settings.secure_cookie or request.secure,
        max_age=int(console.settings.absolute_timeout),
    )
    return resp


async def _logout(request: web.Request) -> web.StreamResponse:
    got = _authorised(request, post=True)
    if isinstance(got, web.Response):
        return got
    _console(request).sessions.drop(got.sid)
    resp = _json({"status": "ok"})
    resp.del_cookie(COOKIE, path="/console/")
    return resp


async def _session_info(request: web.Request) -> web.StreamResponse:
    got = _authorised(request, post=False, touch=True)  # a page (re)load
    if isinstance(got, web.Response):
        return got
    return _json(_login_info(_console(request), got))


async def _state(request: web.Request) -> web.StreamResponse:
    got = _authorised(request, post=False)
    if isinstance(got, web.Response):
        return got
    return _json(await _console(request).state(got))


async def _preview(request: web.Request) -> web.StreamResponse:
    got = _authorised(request, post=True)
    if isinstance(got, web.Response):
        return got
    try:
        body = await _body(request)
        return _json({"status": "ok", **_console(request).preview(got, body)})
    except ConsoleError as exc:
        return _error(422, exc.code, str(exc))


async def _command(request: web.Request) -> web.StreamResponse:
    got = _authorised(request, post=True)
    if isinstance(got, web.Response):
        return got
    console = _console(request)
    try:
        body = await _body(request)
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
        return _error(422, exc.code, str(exc))
    try:
        reply = await console.submit(got, name, args, f"c-{cid}")
    except ConsoleError as exc:
        return _error(422, exc.code, str(exc))
    if valuation is not None:
        reply["valuation"] = valuation
    refused = [v for v in reply.get("violations", ()) if v.get("sanction") == "rejected"]
    if reply.get("status") != "ok" and refused and isinstance(reply.get("error"), dict):
        reply["error"] = {**reply["error"], "message": plain(refused[0])}
    return _json(reply, 200 if reply.get("status") == "ok" else 422)


async def _seat_draw(request: web.Request) -> web.StreamResponse:
    got = _authorised(request, post=True)
    if isinstance(got, web.Response):
        return got
    try:
        body = await _body(request)
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
        return _error(422, exc.code, str(exc))
    log.info("console seat draw", extra={"fields": {"user": got.user, "draw": draw}})
    return _json({"status": "ok", **draw})


async def _standings(request: web.Request) -> web.StreamResponse:
    got = _authorised(request, post=False)
    if isinstance(got, web.Response):
        return got
    console = _console(request)
    console.sessions.get(got.sid)  # a download is the referee's doing
    svc = console.service
    try:
        data = standings_rows(svc.core.state.table, svc.table_id)
    except ConsoleError as exc:
        return _error(404, exc.code, str(exc))
    fname = f"jantaku-{svc.table_id}-game{data['game']}-standings"
    if request.match_info["fmt"] == "csv":
        return web.Response(
            text=standings_csv(data),
            content_type="text/csv",
            charset="utf-8",
            headers={"Content-Disposition": f'attachment; filename="{fname}.csv"'},
        )
    return _json(data, headers={"Content-Disposition": f'inline; filename="{fname}.json"'})


def console_app(console: Console) -> web.Application:
    """The console as an aiohttp sub-application (``app.add_subapp("/console/", ...)``)."""
    app = web.Application(middlewares=[_headers], client_max_size=64 * 1024)
    app[CONSOLE_KEY] = console
    app.router.add_get("/", _index)
    app.router.add_static("/static/", STATIC)
    app.router.add_post("/api/login", _login)
    app.router.add_post("/api/logout", _logout)
    app.router.add_get("/api/session", _session_info)
    app.router.add_get("/api/state", _state)
    app.router.add_post("/api/preview", _preview)
    app.router.add_post("/api/command", _command)
    app.router.add_post("/api/seat-draw", _seat_draw)
    app.router.add_get(r"/api/standings.{fmt:(json|csv)}", _standings)
    return app
