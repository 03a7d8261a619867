"""Run on the emulated RP2040 (tests/firmware/test_chip_budget.py, through the raw REPL of a board
whose maintenance jumper is set): the firmware's hot paths, measured with ``gc.mem_alloc()`` while
the collector is off, under the real rp2 port (31-bit small ints), and the loop's timing and free
memory. Prints one JSON line."""

import gc
import json
import struct
import time

import machine
from neopixel import NeoPixel

from firmware import crc, pico
from firmware import frame as fr
from firmware import messages as m
from firmware.board import Board
from firmware.config import Config
from firmware.link import Link
from firmware.resets import ResetMemory
from firmware.table import Table
from firmware.transport import UsbCdcTransport


class Dog:
    """Stands in for the watchdog (a real one would reset the board after the script)."""

    def feed(self) -> None:
        pass


def allocated(fn, *args):  # type: ignore[no-untyped-def]
    gc.collect()
    gc.disable()
    before = gc.mem_alloc()
    fn(*args)
    used = gc.mem_alloc() - before
    gc.enable()
    return used


def main() -> None:
    data = bytearray(64)
    out = bytearray(68)
    halves = crc.new_halves()
    board = Board(machine, Config(), NeoPixel, time.sleep_us, pico.gpio_in())
    link = Link(1, board.capabilities(), "x")
    table = Table(link, board)
    board.table = table
    clock = pico.Clock()
    transport = UsbCdcTransport()
    resets = ResetMemory(machine.mem32, machine.reset_cause())
    dog = Dog()
    table.attach(clock.now())
    hello = struct.pack("<BBIIH", 1, 1, 0x1234, 0, 0xFFFF)
    table.receive(fr.encode_frame(m.HELLO, hello), clock.now())
    link.tx_len = 0  # the welcome: not for the REPL's output
    table.dice(3, 4, clock.now())  # outstanding: seq 0
    link.tx_len = 0
    ack = fr.encode_frame(m.ACK, b"", 0)

    def turns(n: int) -> None:
        for _ in range(n):
            pico.turn(table, transport, clock, dog, resets)
            link.tx_len = 0  # heartbeats: not for the REPL's output

    turns(2)
    result = {
        "crc32c_64": allocated(crc.put, data, 64, out, 64, halves),
        "encode_heartbeat": allocated(fr.encode_frame, m.HEARTBEAT, b"", 3),
        "link_heartbeat": allocated(link._write, m.HEARTBEAT, b"", 0, False, clock.now()),
        "decode_ack": allocated(table.receive, ack, clock.now()),
        "idle_200_turns": allocated(turns, 200),
    }
    assert link.pending == 0 and link.connected, "the ack settled the event"
    link.tx_len = 0
    gc.collect()
    result["mem_free"] = gc.mem_free()
    start = time.ticks_us()
    for _ in range(100):
        if not pico.turn(table, transport, clock, dog, resets):
            transport.wait(pico.IDLE_MS)
        link.tx_len = 0
    result["period_us"] = time.ticks_diff(time.ticks_us(), start) // 100
    start = time.ticks_us()
    turns(100)
    result["turn_us"] = time.ticks_diff(time.ticks_us(), start) // 100
    board.show_scores((25000, 25000, 25000, 25000), 0)
    start = time.ticks_us()
    board.poll(0)  # one display per turn
    result["tm1637_us"] = time.ticks_diff(time.ticks_us(), start)
    link.detach(0)  # the host away: the queue fills
    while link.send(m.DICE, b"\x01\x01", 0):
        pass
    gc.collect()
    result["mem_free_full_queue"] = gc.mem_free()
    result["queue"] = link.pending
    print("BUDGET " + json.dumps(result))
