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
from collections.abc import Mapping
from typing import Any

import aiomqtt

from daemon.config import MqttConfig
from daemon.mqtt import tls_context
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
    """Keep ``hub`` showing the board, for ever (reconnecting with backoff)."""
    latest: dict[str, dict[str, Any]] = {}
    delay = 0.2
    while True:
        try:
            async with aiomqtt.Client(
                cfg.host, cfg.port, identifier=client_id, username=cfg.username,
                password=None if cfg.password is None else cfg.password.reveal(),
                tls_context=tls_context(cfg), keepalive=cfg.keepalive,
            ) as client:
                for suffix in ("state/scores", "status"):
                    await client.subscribe(f"{ROOT}/+/{suffix}", qos=1)
                delay = 0.2
                async for message in client.messages:
                    topic = str(message.topic)
                    raw = message.payload if isinstance(message.payload, bytes) else b""
                    body = accept(topic, raw)
                    if body is None:
                        continue
                    latest[topic] = body
                    await hub.publish(board(latest, tables))
        except aiomqtt.MqttError as exc:
            log.warning("scoreboard: broker connection lost: %s", exc)
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.sleep(delay)
        delay = min(delay * 2, 5.0)
