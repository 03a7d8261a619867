"""Helpers of the console tests (no tests here): a real table daemon (Service, real reducer,
SQLite event log, Mosquitto on 127.0.0.1:1883) with the web server and the console, in the test's
event loop or in a thread of its own (for the browser test), and an MQTT event collector."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
import threading
import time
from collections.abc import AsyncIterator, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import aiomqtt

from daemon.config import parse_config
from daemon.engine import load_engine
from daemon.service import Service
from daemon.web.console import Console
from daemon.web.console_auth import ConsoleSettings
from daemon.web.hub import ViewHub
from daemon.web.server import serve
from hil.kit import daemon_config

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "daemon"))
from daemon_kit import (
    OPERATOR_PASSWORD as OPERATOR_PASSWORD,
)
from daemon_kit import (
    REFEREE_PASSWORD as REFEREE_PASSWORD,
)
from daemon_kit import (
    referee_users,
)

T = TypeVar("T")
BROKER_PORT = int(os.environ.get("JANTAKU_TEST_BROKER_PORT", "1883"))


def unique_table() -> str:
    return f"c{os.getpid() % 10000}-{time.monotonic_ns() % 10**9}"


def config_text(table: str, db: Path, iterations: int = 1000) -> str:
    return daemon_config(table, db, BROKER_PORT, sections={
        "mqtt": {"keepalive": 10, "health_interval": 5.0},
        "referee": referee_users(iterations),
    })


@dataclass
class SkewClock:
    """The console's monotonic clock, moved forward by a test to expire logins (time as input)."""

    offset: float = 0.0

    def __call__(self) -> float:
        return time.monotonic() + self.offset


@dataclass
class Table:
    service: Service
    console: Console
    clock: SkewClock
    base: str
    table: str
    events: list[dict[str, Any]] = field(default_factory=list)

    async def table_input(self, body: dict[str, Any]) -> None:
        """An input as the table's own driver sends it (the start button, say)."""
        await self.service.submit("input", "table", body)

    def inputs(self) -> list[Any]:
        return list(self.service.eventlog.records())

    def snapshot(self) -> dict[str, Any]:
        return self.service.core.view()

    def scores(self) -> list[int]:
        return [s["score"] for s in self.snapshot()["seats"]]


async def _collect(table: str, out: list[dict[str, Any]], ready: asyncio.Event) -> None:
    while True:
        try:
            async with aiomqtt.Client("127.0.0.1", BROKER_PORT) as client:
                await client.subscribe(f"jantaku/v1/{table}/events", qos=1)
                ready.set()
                async for m in client.messages:
                    if isinstance(m.payload, bytes):
                        out.append(json.loads(m.payload))
        except aiomqtt.MqttError:
            await asyncio.sleep(0.1)


@contextlib.asynccontextmanager
async def running_table(
    tmp: Path, settings: ConsoleSettings | None = None
) -> AsyncIterator[Table]:
    table = unique_table()
    config = parse_config(config_text(table, tmp / f"{table}.sqlite"))
    service = Service(config, load_engine(), mqtt_backoff=(0.05, 0.5))
    clock = SkewClock()
    console = Console(service, settings, clock=clock)
    events: list[dict[str, Any]] = []
    ready = asyncio.Event()
    collector = asyncio.create_task(_collect(table, events, ready))
    await asyncio.wait_for(ready.wait(), 10)
    task = asyncio.create_task(service.run())
    try:
        await asyncio.wait_for(service.ready.wait(), 15)
        async with serve(ViewHub(), "127.0.0.1", 0, console=console) as port:
            yield Table(service, console, clock, f"http://127.0.0.1:{port}", table, events)
    finally:
        service.stop()
        await asyncio.wait_for(task, 20)
        collector.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await collector


class TableThread:
    """:func:`running_table` in a thread with its own event loop (for blocking selenium)."""

    def __init__(self, tmp: Path, settings: ConsoleSettings | None = None) -> None:
        self.tmp, self.settings = tmp, settings
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._stop: asyncio.Event | None = None
        self._done: Any = None
        self.table: Table | None = None

    def __enter__(self) -> Table:
        self._thread.start()
        started = threading.Event()

        async def main() -> None:
            self._stop = asyncio.Event()
            async with running_table(self.tmp, self.settings) as t:
                self.table = t
                started.set()
                await self._stop.wait()

        self._done = asyncio.run_coroutine_threadsafe(main(), self.loop)
        if not started.wait(30):
            self._done.result(1)
            raise TimeoutError("the table did not start")
        assert self.table is not None
        return self.table

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = 20) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def __exit__(self, *exc: object) -> None:
        assert self._stop is not None
        self.loop.call_soon_threadsafe(self._stop.set)
        self._done.result(30)

        async def drain() -> None:  # nothing may be left to be collected on another thread
            rest = [x for x in asyncio.all_tasks() if x is not asyncio.current_task()]
            for task in rest:
                task.cancel()
            await asyncio.gather(*rest, return_exceptions=True)
            await asyncio.get_running_loop().shutdown_asyncgens()

        asyncio.run_coroutine_threadsafe(drain(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(10)
        self.loop.close()

