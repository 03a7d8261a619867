"""The firmware's board, adapters and link on simulated pins, as MicroPython runs them
(tests/firmware/test_firmware_checks.py runs ``main`` in the MicroPython WebAssembly port; the
same steps run under CPython there too). Plays the host with raw frames: hello, commands, acks.
"""

import struct

from firmware import frame as fr
from firmware import messages as m
from firmware.board import Board
from firmware.config import Config, check, safe
from firmware.link import Link
from firmware.sim import SimMachine, SimNeoPixel, SimTM1637
from firmware.table import Table


def _frames(data: bytes) -> "list[fr.Frame]":
    return [i for i in fr.Decoder().feed(data) if isinstance(i, fr.Frame)]


def scenario() -> list[str]:
    """Runs the table through a start, a dice roll, displays and a stuck button; returns what
    went wrong (empty: nothing)."""
    fails = []
    sim = SimMachine()
    cfg = Config()
    cfg.update({"stuck_ms": 1000})
    board = Board(sim, cfg, SimNeoPixel)
    honba = SimTM1637(sim.net(16), sim.net(17), 4)
    seat0 = SimTM1637(sim.net(16), sim.net(18), 6)
    link = Link(0xC0FFEE, board.capabilities(), "jantaku-ctl 1.0.0 mp")
    table = Table(link, board)
    board.table = table
    table.attach(0)
    hello = struct.pack("<BBIIH", 1, 1, 0x1234, 0, 0xFFFF)
    table.receive(fr.encode_frame(m.HELLO, hello), 1)
    got = _frames(table.take_output())
    if not got or got[0].kind != m.WELCOME or got[0].payload[0] != 1:
        fails.append("no welcome version 1")
    now = 1
    seen = []
    host_seq = 0

    def run(ms: int) -> None:
        nonlocal now
        for _ in range(ms // 5):
            now += 5
            table.tick(now)
            for f in _frames(table.take_output()):
                if m.is_event(f.kind):
                    seen.append((f.kind, f.payload))
                    table.receive(fr.encode_frame(m.ACK, b"", f.seq), now)
            table.receive(fr.encode_frame(m.HEARTBEAT, b""), now)

    def command(kind: int, payload: bytes) -> None:
        nonlocal host_seq
        table.receive(fr.encode_frame(kind, payload, host_seq), now)
        acks = [f for f in _frames(table.take_output()) if f.kind == m.ACK]
        if [f.seq for f in acks] != [host_seq]:
            fails.append(f"command 0x{kind:02x} not acked")
        host_seq += 1

    sim.drive(2, 0)
    run(100)
    sim.release(2)
    for bit in range(3):
        sim.drive(9 + bit, 0 if 3 >> bit & 1 else 1)
        sim.drive(12 + bit, 0 if 4 >> bit & 1 else 1)
    run(400)
    if seen != [(m.START_PRESSED, b"\xff"), (m.DICE, b"\x03\x04")]:
        fails.append("events " + repr(seen))
    command(m.HONBA_DISPLAY, b"\x02\x01")
    command(m.SCORE_DISPLAY, struct.pack("<4i", 25000, 1, 2, 3))
    run(25)  # one display written per loop turn, five displays
    if honba.text(4) != " 2. 1" or seat0.text() != " 25000":
        fails.append("displays show " + honba.text(4) + " / " + seat0.text())
    sim.drive(5, 0)
    run(1500)
    if seen[-2:] != [(m.SEAT_BUTTON, b"\x00\x00"), (m.FAULT, m.fault(m.FAULT_INPUT_STUCK, 0))]:
        fails.append("stuck button: " + repr(seen[-2:]))
    # config.json's check, as the board runs it (firmware/config.py)
    got = check({"buzzer": 3, "zz": 1, "debounce_ms": True, "seat_buttons": [[0, 0, 40]]})
    if got != [(m.CONFIG_TYPE, "debounce_ms", None), (m.CONFIG_VALUE, "seat_buttons", None),
               (m.CONFIG_UNKNOWN_KEY, "zz", None), (m.CONFIG_PIN_CONFLICT, "buzzer", 3)]:
        fails.append("config check " + repr(got))
    if check("x") != [(m.CONFIG_JSON, None, None)] or not safe(None).safe:
        fails.append("config: not an object")
    return fails


def main() -> None:
    import sys

    fails = scenario()
    print(sys.implementation.name, "board", fails if fails else "ok")
    if fails:
        raise SystemExit(1)
