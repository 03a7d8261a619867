"""The console's login, logout and session API (docs/console.md): a password checked within the
rate limit (console_auth.py) and the derivation slots (login_gate.py), and the session cookie it
sets."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from aiohttp import web

from daemon.log_sample import SampledLog
from daemon.web.console import Console
from daemon.web.console_actions import ConsoleError
from daemon.web.console_auth import LoginRefused, Session, verify_password
from daemon.web.console_http import (
    COOKIE,
    authorised,
    console_of,
    error_reply,
    json_reply,
    read_body,
    same_origin,
)

log = logging.getLogger("jantaku.console")
#: failed and refused logins: a few lines a window, then a count (a login flood)
_refusals = SampledLog(log, "console login refusals")


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


async def login(request: web.Request) -> web.StreamResponse:
    console = console_of(request)
    if not same_origin(request):
        return error_reply(403, "csrf", "request from another origin refused")
    try:
        body = await read_body(request)
    except ConsoleError as exc:
        return error_reply(400, exc.code, str(exc))
    name, password = body.get("user"), body.get("password")
    if not isinstance(name, str) or not isinstance(password, str) or not name or not password:
        return error_reply(400, "bad_request", "give a user name and a password")
    if len(name) > 64 or len(password) > 1024:
        return error_reply(400, "bad_request", "user name or password too long")
    keys = (f"ip:{request.remote}", f"user:{name}")
    # refused before anything is derived: the failed-login limit, then the derivation slots
    try:
        console.sessions.check_allowed(keys)
        async with console.login_gate.slot(str(request.remote)):
            console.sessions.check_allowed(keys)  # failures may have come in while it waited
            user = console.referee.user(name)
            ok = await asyncio.get_running_loop().run_in_executor(
                None, verify_password, user, name, password
            )
    except LoginRefused as exc:
        wait = int(exc.retry_after or 1) + 1
        _refusals.warning("rate_limited", "console login refused (rate limit)",
                          extra={"fields": {"user": name, "remote": request.remote}})
        return error_reply(429, "rate_limited", str(exc), {"Retry-After": str(wait)})
    if not ok or user is None:
        console.sessions.failed(keys)
        _refusals.warning("bad_login", "console login failed",
                          extra={"fields": {"user": name, "remote": request.remote}})
        return error_reply(401, "bad_login", "wrong user name or password")
    console.sessions.succeeded(keys)
    session = console.sessions.create(user.name, user.role)
    log.info("console login", extra={"fields": {"user": user.name, "remote": request.remote}})
    resp = json_reply(_login_info(console, session))
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


async def logout(request: web.Request) -> web.StreamResponse:
    got = authorised(request, post=True)
    if isinstance(got, web.Response):
        return got
    console_of(request).sessions.drop(got.sid)
    resp = json_reply({"status": "ok"})
    resp.del_cookie(COOKIE, path="/console/")
    return resp


async def session_info(request: web.Request) -> web.StreamResponse:
    got = authorised(request, post=False, touch=True)  # a page (re)load
    if isinstance(got, web.Response):
        return got
    return json_reply(_login_info(console_of(request), got))

