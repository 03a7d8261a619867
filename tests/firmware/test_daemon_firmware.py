"""From the outside: the real ``jantaku run`` with the table on a pty, and the firmware
(hil/table_controller.py, the firmware/ modules on simulated pins) as the board in the table.

* An old reference firmware is refused: the daemon's health on the broker says ``incompatible``
  with what runs and what to do, its log says so, and nothing the board sends is taken.
* Reflashed with this release's firmware (a new boot), the same daemon drives it: the version
  is in the health, a start press is logged once, and after a referee's new game the scores
  reach the board's TM1637 chips (docs/firmware.md; welcome: docs/protocol/table-link.md §6.1).
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "daemon"))

import daemon_kit
import outside

import firmware
from daemon import auth
from daemon.cli.referee import build_command, send
from daemon.topics import Topics
from hil.table_controller import PtyTableController, TableController

ALICE = auth.derive_key("alice", daemon_kit.REFEREE_PASSWORD, 1000)


def _table_health(sub: daemon_kit.Collector) -> dict[str, Any]:
    bodies = sub.payloads("/health")
    return bodies[-1]["links"]["table"] if bodies else {}


async def test_jantaku_run_refuses_an_old_firmware_then_drives_the_reflashed_board(
    tmp_path: Path
) -> None:
    broker = daemon_kit.Broker(tmp_path / "broker").start()
    table = daemon_kit.unique_table("fw")
    db = tmp_path / "table.sqlite"
    tty = tmp_path / "ttyTABLE"
    cfg = tmp_path / "table.toml"
    cfg.write_text(outside.serial_config(table=table, db=db, port=broker.port, tty=str(tty)))
    daemon = outside.Daemon(cfg, tmp_path / "daemon.log")
    topics = Topics(table)
    try:
        async with daemon_kit.Collector(broker.port, [topics.health]) as sub:
            old = TableController(firmware="jantaku-ctl 0.9.0 rp2040")
            async with PtyTableController(tty, old):
                daemon.start()
                await daemon_kit.until(lambda: _table_health(sub).get("status") == "incompatible")
                health = _table_health(sub)
                assert "'jantaku-ctl 0.9.0 rp2040' is older than 1.0.0" in health["reason"]
                assert "docs/firmware.md" in health["reason"]
                old.press_start()
                await asyncio.sleep(1.0)
                assert outside.table_events(db) == []  # nothing from a refused board
                assert old.commands == []
                log = (tmp_path / "daemon.log").read_text()
                assert "table link incompatible (table firmware 'jantaku-ctl 0.9.0 rp2040' is " \
                    "older than 1.0.0" in log
            new = TableController()  # reflashed: this release's firmware, a new boot id
            async with PtyTableController(tty, new):
                await daemon_kit.until(lambda: _table_health(sub).get("status") == "connected")
                health = _table_health(sub)
                assert health["firmware"] == firmware.firmware_string("sim")
                assert health["reason"] is None
                new.press_start(1)
                # the reflashed board's first event says it started, then its press
                now = [("table_controller_reset", None), ("hand_start", None)]
                await daemon_kit.until(lambda: outside.table_events(db) == now)
                await asyncio.sleep(0.5)
                assert outside.table_events(db) == now  # the old board's press: not taken
                # a referee starts a game: the board's own score displays show the scores
                topic, payload = build_command(table, "new_game", "alice", ALICE, {
                    "ruleset": "mleague", "first_dealer": 0, "names": ["a", "b", "c", "d"]})
                reply = await send("127.0.0.1", broker.port, table, topic, payload)
                assert reply is not None and reply["status"] == "ok", reply
                # written one display per loop turn (docs/firmware.md)
                await daemon_kit.until(
                    lambda: [c.text() for c in new.score_chips] == [" 25000"] * 4
                    and new.honba_chip is not None and new.honba_chip.text(4) == " 0. 0")
            assert daemon.terminate() == 0
    finally:
        if daemon.alive:
            daemon.kill9()
        broker.stop()
