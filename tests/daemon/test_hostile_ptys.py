"""Issue 15 items 1 and 6 for the device inputs: a running ``jantaku run`` whose table link and
RFID reader are ptys the test holds the other end of. Generated and mutated link frames
(bench/fuzz.py LinkTarget: valid COBS/CRC frames, mutations, garbage) and RFID lines (RfidTarget)
pour in, 10^4 chunks each in CI (10^6 with ``JANTAKU_SLOW=1``): the daemon stays up, keeps
answering referee commands over MQTT, logs no input from garbage and reports the link's errors in
``health``; no line in its log says a task died."""

from __future__ import annotations

import asyncio
import json
import os
import random
import sys
import termios
import tty
from pathlib import Path

import daemon_kit
import hostile_kit
import pytest
from hostile_kit import Wire

from daemon.topics import Topics
from rules.inputs import input_from_json

sys.path.insert(0, str(daemon_kit.REPO / "bench"))

import fuzz

from hil.kit import bounded

pytestmark = pytest.mark.slow  # bounded (10^4 chunks) unless JANTAKU_SLOW=1
N = bounded(10_000, 1_000_000)
SEED = int(os.environ.get("JANTAKU_SEED", "15"))


def _pty() -> tuple[int, str]:
    master, slave = os.openpty()
    tty.setraw(slave)
    attrs = termios.tcgetattr(slave)
    attrs[3] &= ~termios.ECHO
    termios.tcsetattr(slave, termios.TCSANOW, attrs)
    name = os.ttyname(slave)
    os.close(slave)  # the daemon opens it by name; the master keeps the pair alive
    os.set_blocking(master, False)
    return master, name


async def _write(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        try:
            n = os.write(fd, view)
            view = view[n:]
        except BlockingIOError:
            await asyncio.sleep(0.005)  # the daemon reads at its pace


def _drain(fd: int) -> None:
    """Read what the daemon sends (link acks, effects), so its writes never block."""
    try:
        while os.read(fd, 65536):
            pass
    except (BlockingIOError, OSError):
        pass


async def test_table_link_and_rfid_bytes_do_not_end_the_daemon(tmp_path: Path) -> None:
    link_fd, link_path = _pty()
    rfid_fd, rfid_path = _pty()
    enrol = tmp_path / "tiles.json"
    enrol.write_text(json.dumps({"format": "jantaku-tile-enrolment", "version": 1, "aka": True,
                                 "tags": {f"E0040000{i:04X}": i for i in range(136)}}))
    broker = daemon_kit.Broker(tmp_path / "broker").start()
    table = daemon_kit.unique_table("pt")
    db = tmp_path / f"{table}.sqlite"
    text = daemon_kit.config_text(table=table, db=db, port=broker.port)
    text = text.replace('[devices.table]\nkind = "none"',
                        f'[devices.table]\nkind = "serial"\npath = "{link_path}"\nbaud = 115200')
    text += (f'\n[tiles]\nenrolment = "{enrol}"\n\n[[tiles.readers]]\nname = "r0"\n'
             f'kind = "serial"\npath = "{rfid_path}"\nbaud = 9600\nseat = 0\nzone = "hand"\n')
    cfg = tmp_path / f"{table}.toml"
    cfg.write_text(text)
    d = hostile_kit.Daemon(cfg, tmp_path / f"{table}.log", table, db).start()
    rng = random.Random(SEED)
    link, rfid = fuzz.LinkTarget(), fuzz.RfidTarget()
    try:
        wire = Wire(broker.port, [f"{Topics(table).base}/#"])
        async with wire.run():
            await hostile_kit.wait_up(wire, d)
            for i in range(N):
                await _write(link_fd, link.generate(rng))
                await _write(rfid_fd, rfid.generate(rng))
                if i % 200 == 0:
                    _drain(link_fd)
                    _drain(rfid_fd)
                    assert d.alive(), f"the daemon ended after {i} chunks"
            _drain(link_fd)
            reply = await hostile_kit.ask(wire, table, "pause", {"reason": "alive?"},
                                          timeout=120)
            assert reply["status"] == "error" and reply["error"]["code"] == "not_applicable"
            assert (await hostile_kit.ask(wire, table, "new_game", hostile_kit.NEW_GAME,
                                          timeout=60))["status"] == "ok"
            assert d.alive()
            healths = [json.loads(m.payload) for m in wire.on(f"{table}/health")  # type: ignore[arg-type]
                       if m.payload]
        # what the link let through is well-formed table inputs (the generator also makes
        # valid frames: those are inputs like any other), each one a rules input
        table_inputs = [r for r in d.records() if r.source == "table" and r.kind == "input"]
        for rec in table_inputs:
            input_from_json(rec.body)
        links = healths[-1]["links"]
        print(f"ptys: {N} link chunks, {N} rfid chunks; {len(table_inputs)} table inputs logged;"
              f" links {json.dumps(links)[:400]}")
        died = [r["msg"] for r in d.lines() if "died" in str(r.get("msg"))
                or ("ended" in str(r.get("msg", "")) and "task" in str(r.get("msg")))]
        assert died == [], died
    finally:
        d.stop()
        broker.stop()
        os.close(link_fd)
        os.close(rfid_fd)
