"""The daemon's web front end at run time: the overlay and the referee console on one server, fed
from the service's table state.

The publisher presents the table's view model as the overlay view (``daemon/web/view.py``)
when a group commit moved the table's state (the service's ``changed`` event wakes it), and
every ``CLOCK_TICK_S`` while a clock runs, so WMC clocks tick on the overlay without an event;
otherwise it sleeps: an idle table builds no view. Each wake-up by ``changed`` is passed on to
the referee console's state streams (``Console.moved``: daemon/web/console_stream.py). The view
is complete each time: the hub drops identical ones. With a spectator delay, the delayed feed is
released when its next view is due.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import ssl
import time
from typing import TYPE_CHECKING, Any

from daemon import clocks as dc
from daemon.web.delay import DelayLine
from daemon.web.hub import Pulse, ViewHub
from daemon.web.server import serve
from daemon.web.view import overlay_view

if TYPE_CHECKING:
    from daemon.config import WebConfig
    from daemon.port import TablePort
    from daemon.web.console import Console
    from daemon.web.listener import WebStats

log = logging.getLogger("jantaku.web")
CLOCK_TICK_S = 0.2


def current_view(service: TablePort, table: str, *, hands: bool = False) -> dict[str, Any]:
    state = service.core.state
    clocks = dc.view_json(state.clocks, time.monotonic_ns())
    # the view model built once for the applied input (TableCore caches it per state)
    return overlay_view(service.core.view(), table=table, clocks=clocks, seq=state.event_seq,
                        hands=hands)


def _ssl_context(cfg: WebConfig) -> ssl.SSLContext | None:
    if cfg.tls_cert is None or cfg.tls_key is None:
        return None
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.load_cert_chain(str(cfg.tls_cert), str(cfg.tls_key))
    return ctx


async def run_web(service: TablePort, cfg: WebConfig, table: str, *,
                  stats: WebStats | None = None, sockets: list[socket.socket] | None = None,
                  ) -> None:
    """Serve the overlay and the console until cancelled (``stats``, ``sockets``: see
    :func:`daemon.web.server.serve`)."""
    from daemon.web.console import Console
    from daemon.web.console_auth import ConsoleSettings

    settings = ConsoleSettings(
        idle_timeout=cfg.session_idle_seconds,
        absolute_timeout=cfg.session_absolute_seconds,
        max_failures=cfg.max_login_failures,
        lockout=cfg.lockout_seconds,
        secure_cookie=cfg.tls_cert is not None,
    )
    hub = ViewHub(current_view(service, table))
    console = Console(service, settings)
    spectator: ViewHub | None = None
    delay: DelayLine | None = None
    if cfg.spectator_delay_seconds > 0:
        # Hands go on air only behind the broadcast delay; until the first delayed view is
        # due the spectator feed shows the table as it was at start, without hands.
        spectator = ViewHub(current_view(service, table))
        delay = DelayLine(cfg.spectator_delay_seconds)
    tables: ViewHub | None = None
    board_task: asyncio.Task[None] | None = None
    if cfg.scoreboard:
        from daemon.web.scoreboard import SCHEMA, follow

        tables = ViewHub({"schema": SCHEMA, "tables": []})
        board_task = asyncio.create_task(
            follow(service.config.mqtt, tables, cfg.scoreboard_tables,
                   f"jantaku-{table}-scoreboard"),
            name="scoreboard",
        )
    try:
        await _serve(service, cfg, table, hub, console, spectator, delay, tables,
                     stats=stats, sockets=sockets)
    finally:
        if board_task is not None:
            board_task.cancel()


async def _serve(service: TablePort, cfg: WebConfig, table: str, hub: ViewHub, console: Console,
                 spectator: ViewHub | None, delay: DelayLine | None,
                 tables: ViewHub | None, **listening: Any) -> None:
    async with serve(hub, cfg.host, cfg.port, console=console, ssl_context=_ssl_context(cfg),
                     spectator=spectator, tables=tables, limits=cfg.limits,
                     **listening) as port:
        scheme = "https" if cfg.tls_cert is not None else "http"
        log.info("web server up", extra={"fields": {
            "overlay": f"{scheme}://{cfg.host}:{port}/overlay/",
            "console": f"{scheme}://{cfg.host}:{port}/console/",
        }})
        await _feed(service, table, hub, spectator, delay, console.moved)


async def _feed(service: TablePort, table: str, hub: ViewHub, spectator: ViewHub | None,
                delay: DelayLine | None, moved: Pulse) -> None:
    """Views built when the state moved (or a clock ticks), never on an idle table. The feed is
    ``service.changed``'s one consumer (it clears it); ``moved`` passes each wake-up on to the
    console's streams (daemon/web/console_stream.py), which a second clearer would starve."""
    rebuild = True
    while True:
        if rebuild:
            service.changed.clear()  # before the build: a commit during it wakes us again
            await hub.publish(current_view(service, table))
            if delay is not None:
                delay.put(time.monotonic_ns(), current_view(service, table, hands=True))
        wait_s: float | None = CLOCK_TICK_S if _ticking(service) else None
        if spectator is not None and delay is not None:
            now = time.monotonic_ns()
            due = delay.due(now)
            if due is not None:
                await spectator.publish(due)
            next_ns = delay.next_due_ns()
            if next_ns is not None:
                left = max(0.0, (next_ns - now) / 1e9)
                wait_s = left if wait_s is None else min(wait_s, left)
        woken = await _woken(service.changed, wait_s)
        if woken:
            moved.fire()
        rebuild = woken or _ticking(service)


def _ticking(service: TablePort) -> bool:
    return dc.running(service.core.state.clocks)


async def _woken(changed: asyncio.Event, timeout: float | None) -> bool:
    """Whether ``changed`` was set (False: ``timeout`` seconds passed first)."""
    try:
        async with asyncio.timeout(timeout):
            await changed.wait()
    except TimeoutError:
        return False
    return True
