"""The whole firmware as flashed -- ``firmware/pico.py``'s main loop with its USB CDC or UART
transport, clock, watchdog and config.json (hil/pico_host.py puts simulated hardware under it) --
runs a table for the real ``jantaku run`` over a pty: handshake with its version, a start press
at the optocoupler becomes a logged input, a referee's new game reaches its TM1637 displays."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import IO, Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "daemon"))

import daemon_kit
import outside

import firmware
from daemon import auth
from daemon.cli.referee import build_command, send
from daemon.topics import Topics
from hil.kit import reaped, until_sync

ALICE = auth.derive_key("alice", daemon_kit.REFEREE_PASSWORD, 1000)


def _fifo_writer(path: Path) -> IO[str]:
    """The write end of the board's control FIFO, once the board has opened its read end (a
    plain open would block for good if the board never came up)."""
    def opened() -> int | None:
        try:
            return os.open(path, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as e:  # ENXIO: no reader yet
            if e.errno != errno.ENXIO:
                raise
            return None

    fd = until_sync(opened, 60, "the board's control FIFO opened")
    os.set_blocking(fd, True)
    return os.fdopen(fd, "w")


def _table_health(sub: daemon_kit.Collector) -> dict[str, Any]:
    bodies = sub.payloads("/health")
    return bodies[-1]["links"]["table"] if bodies else {}


@pytest.mark.parametrize("transport", ["usb", "uart"])
async def test_the_pico_main_loop_runs_a_table_for_jantaku_run(
    tmp_path: Path, transport: str
) -> None:
    table = daemon_kit.unique_table("pico")
    db = tmp_path / "table.sqlite"
    link = tmp_path / "ttyPICO"
    control = tmp_path / "pico.ctl"
    os.mkfifo(control)
    errors = tmp_path / "pico.err"
    cfg = tmp_path / "table.toml"
    daemon = outside.Daemon(cfg, tmp_path / "daemon.log")
    # every part is gone when the test ends, however it ends: the daemon, the FIFO, the board,
    # the broker (in that order)
    with contextlib.ExitStack() as parts:
        broker = daemon_kit.Broker(tmp_path / "broker").start()
        parts.callback(broker.stop)
        cfg.write_text(outside.serial_config(table=table, db=db, port=broker.port, tty=str(link)))
        parts.enter_context(reaped(subprocess.Popen(
            [sys.executable, "-m", "hil.pico_host", "--link", str(link), "--transport", transport,
             "--control", str(control)],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=open(errors, "wb")), grace_s=0))  # noqa: SIM115
        ctl = parts.enter_context(_fifo_writer(control))
        parts.callback(lambda: daemon.kill9() if daemon.alive else None)

        def say(line: str) -> None:
            ctl.write(line + "\n")
            ctl.flush()

        def dumps() -> list[dict[str, Any]]:
            return [json.loads(x) for x in errors.read_text().splitlines() if x.startswith("{")]

        await daemon_kit.until(lambda: link.exists())
        async with daemon_kit.Collector(broker.port, [Topics(table).health]) as sub:
            daemon.start()
            await daemon_kit.until(lambda: _table_health(sub).get("status") == "connected")
            health = _table_health(sub)
            assert health["firmware"] == f"{firmware.FIRMWARE} sim"  # docs: the emulator says sim
            assert health["capabilities"] == ["honba_display", "score_displays", "seat_buttons"]
            say("drive 2 0")  # the centre start button, through its optocoupler
            await asyncio.sleep(0.2)
            say("release 2")
            # the board's first event says it started (the simulated chip: power-on), then the
            # press
            await daemon_kit.until(lambda: outside.table_events(db) == [
                ("table_controller_reset", None), ("hand_start", None)])
            topic, payload = build_command(table, "new_game", "alice", ALICE, {
                "ruleset": "mleague", "first_dealer": 0, "names": ["a", "b", "c", "d"]})
            reply = await send("127.0.0.1", broker.port, table, topic, payload)
            assert reply is not None and reply["status"] == "ok", reply

            def shown() -> dict[str, Any]:
                say("dump")
                return dumps()[-1] if dumps() else {}

            await daemon_kit.until(lambda: shown().get("scores") == [" 25000"] * 4)
            assert shown()["honba"] == " 0. 0" and shown()["status_led"] == 1
            assert daemon.terminate() == 0
    assert "Traceback" not in errors.read_text(), errors.read_text()
