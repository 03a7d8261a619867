"""The firmware on the emulated RP2040 (hil/rp2040_board.py: the real MicroPython 1.27 rp2 build in
rp2040js), against the real ``jantaku run`` on the board's USB CDC port (a pty).

The emulated chip runs ~5-20x slower than a real one (measured: docs/firmware.md "On the emulated
chip"), so the daemon's link timings are scaled (``devices.table.timing_scale``) and these tests
are few: each boots a board more than once.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "daemon"))

import daemon_kit
import outside

from daemon.topics import Topics
from hil.rp2040_board import MODULES, Rp2040Board

pytestmark = pytest.mark.skipif(not (MODULES / "node_modules" / "rp2040js").is_dir(),
                                reason="rp2040js not installed (bin/ensure-services)")

SCALE = 20  # the daemon waits x 20 for the emulated chip (10-35x slower than a real one)
FIRMWARE = "jantaku-ctl 1.0.0 rp2040"


def table_health(sub: daemon_kit.Collector) -> dict[str, Any]:
    bodies = sub.payloads("/health")
    return bodies[-1]["links"]["table"] if bodies else {}


def chip_config(tmp_path: Path, table: str, port: int, tty: str) -> Path:
    cfg = tmp_path / "table.toml"
    text = outside.serial_config(table=table, db=tmp_path / "table.sqlite", port=port, tty=tty)
    cfg.write_text(text.replace("baud = 115200", f"baud = 115200\ntiming_scale = {SCALE}"))
    return cfg


def connections(log: Path) -> int:
    """How many times the daemon's log says the table link came up."""
    return log.read_text().count("table link connected")


async def test_chip_answers_a_host_saying_hello_from_power_up_and_after_resets(
    tmp_path: Path
) -> None:
    """The boot race (issue 26): ``jantaku run`` says hello every 0.2 s from before the board
    powers up, so hellos (byte 0x03 in each) arrive while main.py starts, on a cold boot and
    after each reset; the board must come up and answer every time (before the fix it stopped
    in the raw REPL, for good)."""
    broker = daemon_kit.Broker(tmp_path / "broker").start()
    table = daemon_kit.unique_table("chip")
    board = Rp2040Board(tmp_path / "board")
    daemon = outside.Daemon(chip_config(tmp_path, table, broker.port, board.tty),
                            tmp_path / "daemon.log")
    topics = Topics(table)
    try:
        async with daemon_kit.Collector(broker.port, [topics.health]) as sub:
            daemon.start()
            await daemon_kit.until(lambda: table_health(sub).get("status") == "connected", 240)
            health = table_health(sub)
            assert health["firmware"] == FIRMWARE
            assert health["capabilities"] == ["honba_display", "score_displays", "seat_buttons"]
            log = tmp_path / "daemon.log"
            for how in ("run", "power"):
                ups = connections(log)
                boots = len(board.outputs.boots)
                board.reset(how)
                await asyncio.to_thread(board.wait, lambda o, n=boots: len(o.boots) > n, 30,
                                        "the reset")
                # the daemon hears silence, says hello again; the new boot answers
                await daemon_kit.until(lambda n=ups: connections(log) > n, 240)
            assert board.outputs.boots == ["power", "run", "power"]
            raw = (tmp_path / "board" / "usb.log").read_text()
            assert b"raw REPL".hex() not in raw.replace("\n< ", "")
    finally:
        if daemon.alive:
            daemon.kill9()
        board.close()
        broker.stop()
