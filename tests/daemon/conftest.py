"""Fixtures of the daemon tests: private Mosquitto brokers and running services."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import daemon_kit
import pytest

from daemon.config import Config, parse_config
from daemon.service import Service


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[daemon_kit.Broker]:
    """A private anonymous Mosquitto with persistence (sessions survive a restart)."""
    work = tmp_path / "broker"
    b = daemon_kit.Broker(work)
    b.conf = (
        f"listener {b.port} 127.0.0.1\nallow_anonymous true\n"
        f"persistence true\npersistence_location {work}/\n"
    )
    b.start()
    yield b
    b.stop()


@pytest.fixture
def make_config(tmp_path: Path) -> Callable[..., Config]:
    def make(port: int, table: str | None = None, **kw: Any) -> Config:
        table = table or daemon_kit.unique_table()
        db = tmp_path / f"{table}.sqlite"
        return parse_config(daemon_kit.config_text(table=table, db=db, port=port, **kw))

    return make


@contextlib.asynccontextmanager
async def running_service(config: Config, **kw: Any) -> AsyncIterator[Service]:
    service = Service(config, daemon_kit.engine(), mqtt_backoff=(0.05, 0.5), **kw)
    task = asyncio.create_task(service.run())
    try:
        await asyncio.wait_for(service.ready.wait(), 15)
        yield service
    finally:
        service.stop()
        await asyncio.wait_for(task, 20)
