"""What the emulated-chip tests share: a board (hil/rp2040_board.py: the real MicroPython rp2
build running the real firmware in rp2040js) whose USB CDC port the real ``jantaku run`` opens,
a private Mosquitto, the daemon's health and log read from the outside, the table's signals
played on the board's pins (docs/firmware.md "Wiring").

The emulated chip runs ~3x slower than a Pico here (its idle waits are skipped, its busy time is
not: docs/firmware.md "On the emulated chip"), so the daemon's link timings are stretched by
``SCALE`` (``devices.table.timing_scale``). Each test boots a board once and runs a whole
scenario on it: a boot and a daemon start are the expensive parts.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "daemon"))

import daemon_kit
import outside

from daemon import auth
from daemon.cli.referee import build_command, send
from daemon.eventlog import EventLog
from daemon.topics import Topics
from hil.kit import until as kit_until
from hil.rp2040_board import MODULES, Rp2040Board

needs_rp2040js = pytest.mark.skipif(not (MODULES / "node_modules" / "rp2040js").is_dir(),
                                    reason="rp2040js not installed (bin/ensure-services)")

#: the daemon's link timings x SCALE: the board's heartbeats (250 ms of its time, ~0.75 s here)
#: stay well inside the host's link timeout (6 s), the host's (1.5 s) inside the board's (1 s of
#: its time, ~3 s here)
SCALE = 6
FIRMWARE = "jantaku-ctl 1.0.0 rp2040"

# the documented wiring (docs/firmware.md "Wiring"): inputs are optocoupler outputs, active low
START, RELAY, WALL, SEATS, BUZZER, DIE_A, DIE_B = 2, 3, 4, (5, 6, 7, 8), 22, (9, 10, 11), \
    (12, 13, 14)
HONBA_DIO, SCORE_DIOS = 17, (18, 19, 20, 21)
STATUS_LED = 25  # the Pico's own LED: steady while the host is connected, blinking while not


@dataclass(frozen=True, slots=True)
class Row:
    """One record of the event log, as ``jantaku log export`` would show it."""

    kind: str
    source: str
    body: dict[str, Any]

    @property
    def type(self) -> str:
        return str(self.body.get("type"))


def rows(db: Path) -> list[Row]:
    if not db.exists():
        return []
    log = EventLog(db, "", readonly=True)
    try:
        return [Row(r.kind, r.source, dict(r.body)) for r in log.records()]
    finally:
        log.close()


@dataclass
class Chip:
    """A board on the emulated chip, a broker and (started by the test) ``jantaku run``."""

    tmp: Path
    board: Rp2040Board
    broker: daemon_kit.Broker
    table: str
    daemon: outside.Daemon
    sub: daemon_kit.Collector
    web_port: int | None = None
    logs: list[Path] = field(default_factory=list)

    @property
    def db(self) -> Path:
        return self.tmp / "table.sqlite"

    def rows(self) -> list[Row]:
        return rows(self.db)

    def types(self, source: str = "table") -> list[str]:
        return [r.type for r in self.rows() if r.source == source]

    def health(self) -> dict[str, Any]:
        bodies = self.sub.payloads("/health")
        return bodies[-1]["links"]["table"] if bodies else {}

    def log_text(self) -> str:
        return "".join(p.read_text(errors="replace") for p in self.logs if p.exists())

    def connections(self) -> int:
        return self.log_text().count("table link connected")

    async def port(self, timeout: float = 60) -> None:
        """Until the board's USB port is there (the daemon refuses to start without it)."""
        await until(self.board.path.exists, timeout, "the board's USB port")

    def start(self) -> None:
        """Start ``jantaku run`` (a new log file per start)."""
        log = self.tmp / f"daemon{self.daemon.starts + 1}.log"
        self.logs.append(log)
        self.daemon.log = log
        self.daemon.start()

    async def up_again(self, before: int, timeout: float = 90) -> float:
        """Until the daemon's log says the link came up more than ``before`` times; returns the
        seconds it took."""
        start = time.monotonic()
        await until(lambda: self.connections() > before, timeout, "the table link up")
        return time.monotonic() - start

    async def press(self, pin: int, ms: int = 120) -> None:
        """A press of ``ms`` of the chip's time (debounce: 20 ms)."""
        await asyncio.to_thread(self.board.press, pin, ms)

    async def link_lost_on_board(self, timeout: float = 60) -> None:
        """Until the board's status LED blinks (it noticed that the host is gone)."""
        changes = len(self.board.outputs.changes)
        await until(lambda: any(p == STATUS_LED and level == 0 for p, level, _t in
                                self.board.outputs.changes[changes:]), timeout,
                    "the status LED blinking")

    async def settle_ms(self, ms: int) -> None:
        """Let ``ms`` of the chip's time pass."""
        await asyncio.to_thread(self.board.wait_chip_ms, ms)


ALICE = auth.derive_key("alice", daemon_kit.REFEREE_PASSWORD, 1000)


async def referee(c: Chip, name: str, args: dict[str, Any]) -> None:
    """A referee command over MQTT (as ``jantaku referee`` sends it); it must succeed."""
    topic, payload = build_command(c.table, name, "alice", ALICE, args)
    reply = await send("127.0.0.1", c.broker.port, c.table, topic, payload)
    assert reply is not None and reply["status"] == "ok", reply


# the kit's wait, polled every 0.2 s: the chip tests' conditions read the whole event log
until = functools.partial(kit_until, interval=0.2)


def daemon_config(tmp: Path, table: str, port: int, tty: str, web_port: int | None) -> Path:
    cfg = tmp / "table.toml"
    cfg.write_text(outside.serial_config(table=table, db=tmp / "table.sqlite", port=port, tty=tty,
                                         timing_scale=SCALE, web=web_port))
    return cfg


@contextlib.asynccontextmanager
async def chip(tmp: Path, config: dict[str, Any] | bytes | None = None, *,
               web: bool = False) -> AsyncIterator[Chip]:
    """A booted board (``config``: its config.json) and a broker; the daemon is configured on
    the board's port, not started."""
    broker = daemon_kit.Broker(tmp / "broker").start()
    table = daemon_kit.unique_table("chip")
    board = Rp2040Board(tmp / "board", config=config)
    web_port = daemon_kit.free_port() if web else None
    cfg = daemon_config(tmp, table, broker.port, board.tty, web_port)
    daemon = outside.Daemon(cfg, tmp / "daemon.log")
    try:
        async with daemon_kit.Collector(broker.port, [Topics(table).health]) as sub:
            yield Chip(tmp, board, broker, table, daemon, sub, web_port)
    finally:
        if daemon.alive:
            daemon.kill9()
        board.close()
        broker.stop()
