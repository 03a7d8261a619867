"""The multi-table scoreboard: several tables followed at once from the venue broker.

Every table daemon keeps its retained ``jantaku/v1/<table>/state/scores`` and ``status`` on the
venue broker. With ``[web] scoreboard = true`` this daemon also subscribes to those of every table
(or of ``scoreboard_tables``) and serves them as one board at ``/api/tables/view`` and
``/api/tables/stream``, which ``/overlay/?layout=tables`` renders: a row per table with names,
scores, round and honba, a table that went offline greyed. Nothing but retained public topics is
read, so the board needs no credentials beyond a read-only account.

:func:`board` is pure (the latest payload of each topic in, the board out); :func:`follow` is the
imperative part (the subscription, with a reconnect loop).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from daemon.config import MqttConfig
from daemon.errors import BrokerError
from daemon.mqtt import tls_context
from daemon.mqtt_session import MqttSession
from daemon.mqtt_wire import Connect
from daemon.schema import errors
from daemon.topics import ROOT
from daemon.web.hub import ViewHub

log = logging.getLogger("jantaku.web.scoreboard")
SCHEMA = "jantaku.scoreboard.v1"


def board(latest: Mapping[str, Mapping[str, Any]], tables: tuple[str, ...] = ()) -> dict[str, Any]:
    """``latest``: topic -> the last valid payload. Rows in ``tables`` order (when given), else
    by table id."""
    rows: dict[str, dict[str, Any]] = {}
    for topic, body in latest.items():
        parts = topic.split("/")
        if len(parts) < 3 or (tables and parts[2] not in tables):
            continue
        row = rows.setdefault(parts[2], {"table": parts[2], "online": None, "names": None,
                                         "scores": None, "dealer": None, "round_wind": None,
                                         "hand_in_round": None, "honba": None,
                                         "deposits": None, "game": None, "hand": None})
        if topic.endswith("/status"):
            row["online"] = body.get("state") == "online"
        else:
            for key in ("names", "scores", "dealer", "round_wind", "hand_in_round", "honba",
                        "deposits", "game", "hand"):
                row[key] = body.get(key)
    order = list(tables) if tables else sorted(rows)
    return {"schema": SCHEMA, "tables": [rows[t] for t in order if t in rows]}


def accept(topic: str, payload: bytes) -> dict[str, Any] | None:
    """A scores or status payload that validates against its schema, else ``None`` (a board
    shows only what a table daemon really published)."""
    try:
        body = json.loads(payload)
    except ValueError:
        return None
    name = "status" if topic.endswith("/status") else "scores"
    if not isinstance(body, dict) or errors(name, body):
        return None
    return body


async def follow(cfg: MqttConfig, hub: ViewHub, tables: tuple[str, ...], client_id: str) -> None:
    """Keep ``hub`` showing the board, for ever (reconnecting with backoff), on the daemon's own
    MQTT client (daemon/mqtt_session.py; 3.1.1, a clean session, as aiomqtt's default was)."""
    latest: dict[str, dict[str, Any]] = {}
    changed = asyncio.Event()

    def take(topic: bytes, payload: bytes, retain: bool, props: bytes | None,
             size: int) -> None:
        name = topic.decode("utf-8", "replace")
        body = accept(name, payload)  # b"" for one too long to buffer: refused
        if body is not None:
            latest[name] = body
            changed.set()

    spec = Connect(cfg.host, cfg.port, client_id, v5=False, username=cfg.username,
                   password=None if cfg.password is None else cfg.password.reveal(),
                   keepalive=cfg.keepalive, timeout=cfg.connect_timeout, tls=tls_context(cfg))
    delay = 0.2
    while True:
        try:
            async with MqttSession(spec, take) as session:
                await session.subscribe([(f"{ROOT}/+/{suffix}", 1)
                                         for suffix in ("state/scores", "status")])
                delay = 0.2
                await _show(session, changed, lambda: hub.publish(board(latest, tables)))
        except BrokerError as exc:
            log.warning("scoreboard: broker connection lost: %s", exc)
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.sleep(delay)
        delay = min(delay * 2, 5.0)


async def _show(session: MqttSession, changed: asyncio.Event,
                publish: Callable[[], Awaitable[None]]) -> None:
    """The board published after each change (changes that come while it is published are
    shown together), until the connection ends (raised)."""
    closed = asyncio.ensure_future(session.wait_closed())
    try:
        while True:
            woke = asyncio.ensure_future(changed.wait())
            await asyncio.wait((woke, closed), return_when=asyncio.FIRST_COMPLETED)
            woke.cancel()
            if closed.done():
                closed.result()  # raises: why the connection ended
                return
            changed.clear()
            await publish()
    finally:
        closed.cancel()
