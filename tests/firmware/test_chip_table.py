"""A table's life on the emulated RP2040 (the real MicroPython rp2 build running the real
firmware) against the real ``jantaku run``: every signal the board reads, from its pin to a
logged input; every command the daemon sends, to a pin or a display digit; the daemon killed and
restarted (settled by ``hello``, nothing twice); a storm of damaged frames into the board.

One board boot serves the whole scenario (docs/firmware.md "On the emulated chip")."""

from __future__ import annotations

import asyncio
import random
import threading
from collections import Counter
from pathlib import Path

from chip_kit import (
    BUZZER,
    DIE_A,
    DIE_B,
    FIRMWARE,
    HONBA_DIO,
    SCORE_DIOS,
    SEATS,
    START,
    WALL,
    Chip,
    chip,
    needs_rp2040js,
    referee,
    until,
)

from drivers.link.frame import encode_frame
from drivers.link.messages import Heartbeat, HonbaDisplay
from hil.kit import SLOW

pytestmark = needs_rp2040js

STORM_S = 30.0 if SLOW else 5.0
STORM_PRESSES = 24 if SLOW else 6  # 120 ms each: the longest loop turn under the storm is ~25 ms


def dice_lines(c: Chip, a: int, b: int) -> None:
    """The dice display's two digits as the lines' optocouplers show them (a set bit: low)."""
    for bit in range(3):
        c.board.set_input(DIE_A[bit], 0 if a >> bit & 1 else 1)
        c.board.set_input(DIE_B[bit], 0 if b >> bit & 1 else 1)


def rises(c: Chip, pin: int) -> list[float]:
    return [t for p, level, t in c.board.outputs.changes if p == pin and level == 1]


def falls(c: Chip, pin: int) -> list[float]:
    return [t for p, level, t in c.board.outputs.changes if p == pin and level == 0]


async def signals_to_inputs(c: Chip) -> None:
    """Each of the board's signals, from its pin to the input the daemon logs."""
    await c.press(START)
    await until(lambda: c.types()[-1:] == ["hand_start"], 60, "hand_start")
    c.board.set_input(WALL, 0)  # the lift's "up" switch closes and stays closed
    await until(lambda: c.types()[-1:] == ["wall_raised"], 60, "wall_raised")
    dice_lines(c, 3, 4)
    await until(lambda: c.types()[-1:] == ["dice"], 60, "dice")
    assert c.rows()[-1].body["dice"] == [3, 4] and c.rows()[-1].body["seat"] == 0  # the dealer
    dice_lines(c, 0, 0)  # blank: ready for the next roll
    c.board.set_input(WALL, 1)
    await c.press(SEATS[2])  # seat 2's key 0: its clock button (a timer record)
    await until(lambda: any(r.source == "button:2" for r in c.rows()), 60, "seat 2's clock key")


async def faults_to_markers(c: Chip) -> None:
    """The faults the board's adapters report, each a table_fault marker."""
    c.board.set_input(SEATS[1], 0)  # held: a press, then stuck after stuck_ms (0.6 s here)
    await until(lambda: ("table_fault", 10, 1) in [(r.type, r.body.get("code"),
                                                   r.body.get("seat")) for r in c.rows()],
                90, "input_stuck at seat 1")
    c.board.set_input(SEATS[1], 1)
    dice_lines(c, 7, 1)  # a steady value that is no roll
    await until(lambda: ("table_fault", 5) in [(r.type, r.body.get("code")) for r in c.rows()],
                60, "dice_error")
    dice_lines(c, 0, 0)
    c.board.send_ack(False)  # the TM1637 modules stop answering (unplugged)
    await referee(c, "set_scores", {"scores": [30000, 20000, 26000, 24000], "reason": "test"})
    await until(lambda: ("table_fault", 11) in [(r.type, r.body.get("code")) for r in c.rows()],
                60, "display fault")
    c.board.send_ack(True)
    await asyncio.sleep(2)  # the other displays' writes (each reports its own fault)
    health = c.health()
    assert health["last_fault"]["code"] in (5, 10, 11)


async def commands_to_pins(c: Chip) -> None:
    """The commands the daemon sends: honba and score displays after a new game, the buzzer on
    a violation."""
    await referee(c, "new_game", {"ruleset": "mleague", "first_dealer": 0,
                                  "names": ["a", "b", "c", "d"]})
    out = c.board.outputs
    await until(lambda: out.displays.get(HONBA_DIO) == " 0. 0"
                and [out.displays.get(d) for d in SCORE_DIOS] == [" 25000"] * 4, 60,
                "the displays after a new game")


async def violation_buzzes(c: Chip) -> None:
    before = len(rises(c, BUZZER))
    await c.press(START)  # a second hand start in the hand: a violation, the daemon buzzes
    await until(lambda: len(falls(c, BUZZER)) >= before + 2, 60, "two beeps")
    on = rises(c, BUZZER)[before:before + 2]
    off = falls(c, BUZZER)[before:before + 2]
    # 300 ms beeps (daemon/devices.py), on the chip's clock, within a loop turn or two
    assert all(abs((b - a) - 300) < 20 for a, b in zip(on, off, strict=True)), (on, off)


async def daemon_killed_and_restarted(c: Chip) -> None:
    """kill -9 right after an event is committed (its ack may or may not have gone out), an
    event while the daemon is away, a restart: each logged exactly once."""
    starts = c.types().count("hand_start")
    await c.press(SEATS[3])
    await until(lambda: len(c.types("button:3")) == 1, 60, "seat 3's key logged")
    c.daemon.kill9()
    await c.press(START)  # queued by the board while nobody listens
    ups = c.connections()
    c.start()
    await c.up_again(ups)
    await until(lambda: c.types().count("hand_start") == starts + 1, 60, "the queued press")
    await asyncio.sleep(1.5)  # a resend would be in by now
    assert c.types().count("hand_start") == starts + 1
    assert len(c.types("button:3")) == 1


def _storm(c: Chip, stop: threading.Event, seed: int) -> int:
    """Damaged frames into the board's USB port, 50 a second (about 3.5 KB/s with the runs of
    1,100 bytes: the line's own traffic is a few frames a second) between the daemon's."""
    rng = random.Random(seed)
    good = [encode_frame(Heartbeat()), encode_frame(HonbaDisplay(1, 2), 200)]
    sent = 0
    while not stop.is_set():
        frame = bytearray(rng.choice(good))
        kind = rng.random()
        if kind < 0.4:  # a flipped bit
            frame[rng.randrange(1, len(frame) - 1)] ^= 1 << rng.randrange(8)
        elif kind < 0.7:  # cut short
            frame = frame[:rng.randrange(2, len(frame) - 1)]
        elif kind < 0.95:  # noise
            frame = bytearray(rng.randbytes(rng.randrange(1, 40)))
        else:  # a run with no delimiter, longer than any frame
            frame = bytearray(b"\x01" * 1100)
        c.board.send_usb(bytes(frame))
        sent += 1
        stop.wait(0.02)
    return sent


async def frame_storm(c: Chip) -> None:
    """Garbage on the line into the board while the table is used: the board neither resets nor
    loses or doubles an event, and sees every press (a turn of its loop that read 512 bytes of
    garbage once held its inputs unpolled for longer than a press)."""
    boots = len(c.board.outputs.boots)
    before = Counter(c.types("button:0"))
    stop = threading.Event()
    storm = asyncio.create_task(asyncio.to_thread(_storm, c, stop, 7))
    try:
        for _ in range(STORM_PRESSES):
            await c.press(SEATS[0])
            await asyncio.sleep(STORM_S / STORM_PRESSES)
    finally:
        stop.set()
        sent = await storm
    assert sent > 100
    want = sum(before.values()) + STORM_PRESSES
    try:
        await until(lambda: len(c.types("button:0")) == want, 90, "the presses made in the storm")
    except AssertionError as exc:
        raise AssertionError(f"{exc}: {len(c.types('button:0'))} presses logged, {want} wanted, "
                             f"{sent} storm frames; last logged {c.types()[-6:]}; "
                             f"health {c.health()}") from None
    await asyncio.sleep(1.5)
    assert len(c.types("button:0")) == want
    assert len(c.board.outputs.boots) == boots  # never reset


@needs_rp2040js
async def test_a_table_on_the_chip_from_pins_to_the_log_and_back(tmp_path: Path) -> None:
    async with chip(tmp_path, {"stuck_ms": 600, "dice_settle_ms": 100}) as c:
        await c.port()
        c.start()
        await c.up_again(0)
        await until(lambda: c.health().get("status") == "connected", 30, "health")
        health = c.health()
        assert health["firmware"] == FIRMWARE
        assert health["capabilities"] == ["honba_display", "score_displays", "seat_buttons"]
        # the first event of a boot: the board says it started (power-on; nothing known lost)
        await until(lambda: c.types() == ["table_controller_reset"], 60, "the reset report")
        assert c.rows()[-1].body == {"type": "table_controller_reset", "cause": 1,
                                     "name": "power_on", "lost": None}
        for step in (commands_to_pins, signals_to_inputs, violation_buzzes, faults_to_markers,
                     daemon_killed_and_restarted, frame_storm):
            await step(c)
        counts = Counter((r.source, r.type) for r in c.rows() if r.source == "table")
        assert counts[("table", "table_controller_reset")] == 1
        assert counts[("table", "wall_raised")] == 1 and counts[("table", "dice")] == 1
        assert len(c.board.outputs.boots) == 1
