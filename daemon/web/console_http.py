"""The console's HTTP plumbing (docs/console.md): JSON replies, the security headers, the request
body within the MQTT commands' bounds and the session check (cookie, CSRF token, Origin) every API
handler starts with (console_routes.py, console_login.py)."""

from __future__ import annotations

import json
import secrets
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Final

from aiohttp import web

from daemon import bounded_json
from daemon.web.console import Console
from daemon.web.console_actions import ConsoleError
from daemon.web.console_auth import Session

STATIC: Final = Path(__file__).parent / "static" / "console"
COOKIE: Final = "jantaku_console"
CSRF_HEADER: Final = "X-CSRF-Token"
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


def json_reply(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
    return web.json_response(
        data, status=status, headers=headers, dumps=lambda o: json.dumps(o, ensure_ascii=False)
    )


def error_reply(
    status: int, code: str, message: str, headers: dict[str, str] | None = None
) -> web.Response:
    return json_reply({"status": "error", "error": {"code": code, "message": message}}, status,
                      headers)


@web.middleware
async def security_headers(request: web.Request, handler: Handler) -> web.StreamResponse:
    try:
        resp = await handler(request)
    except web.HTTPException as exc:
        resp = exc
    for k, v in SECURITY_HEADERS.items():
        resp.headers.setdefault(k, v)
    if isinstance(resp, web.HTTPException) and resp.status >= 400:
        raise resp
    return resp


def console_of(request: web.Request) -> Console:
    return request.config_dict[CONSOLE_KEY]


def _session(request: web.Request, touch: bool) -> Session | None:
    return console_of(request).sessions.get(request.cookies.get(COOKIE), touch=touch)


def same_origin(request: web.Request) -> bool:
    """A browser's POST carries Origin; it must be this server (CSRF defence in depth)."""
    origin = request.headers.get("Origin")
    if origin is None:
        return True
    return origin == f"{request.scheme}://{request.host}"


async def read_body(request: web.Request) -> dict[str, Any]:
    if request.content_type != "application/json":
        raise ConsoleError("bad_request", "expected Content-Type: application/json")
    # the MQTT commands' bounds (daemon/bounded_json.py: 64 KiB, depth 32, no NaN, valid
    # strings): a console body is a command too
    raw = await request.content.read(bounded_json.MAX_BYTES + 1)
    try:
        data = bounded_json.load(raw)
    except bounded_json.JsonRefused as exc:
        reason = "the request body is not JSON" if exc.code == "bad_json" else str(exc)
        raise ConsoleError("bad_request", f"{reason} ({exc})") from None
    if not isinstance(data, dict):
        raise ConsoleError("bad_request", "the request body must be a JSON object")
    return data


def authorised(
    request: web.Request, *, post: bool, touch: bool | None = None
) -> Session | web.Response:
    """The request's live session (CSRF-checked for a POST), or the refusal to send. Only what
    a referee does restarts the idle timer (``touch``, default: POSTs): the page's own stream
    does not, so a console left open logs out after ``idle_timeout``."""
    session = _session(request, False)
    if session is None:
        return error_reply(
            401, "login_required", "not logged in, or the login expired: log in again"
        )
    if post:
        if not same_origin(request):
            return error_reply(403, "csrf", "request from another origin refused")
        token = request.headers.get(CSRF_HEADER, "")
        if not secrets.compare_digest(token.encode(), session.csrf.encode()):
            return error_reply(403, "csrf", "missing or wrong CSRF token: reload the console")
    if post if touch is None else touch:
        session = _session(request, True) or session
    return session

