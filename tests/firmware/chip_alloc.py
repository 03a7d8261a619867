"""Run on the emulated RP2040 (tests/firmware/test_chip_budget.py, through the raw REPL of a board
whose maintenance jumper is set): the firmware's hot paths, measured with ``gc.mem_alloc()`` while
the collector is off, under the real rp2 port (31-bit small ints). Prints one JSON line."""

import gc
import json
import time

import machine
from neopixel import NeoPixel

from firmware import crc, pico
from firmware import frame as fr
from firmware import messages as m
from firmware.board import Board
from firmware.link import Link
from firmware.table import Table


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
    ack = fr.encode_frame(m.ACK, b"", 7)
    decoder = fr.Decoder()
    board = Board(machine, pico.Config(), NeoPixel, time.sleep_us)
    link = Link(1, board.capabilities(), "x")
    table = Table(link, board)
    board.table = table
    clock = pico.Clock()
    table.attach(clock.now())

    def turn() -> None:
        table.tick(clock.now())
        table.take_output()

    def turns(n: int) -> None:
        for _ in range(n):
            turn()

    turn()
    result = {
        "crc32c_64": allocated(crc.put, data, 64, out, 64),
        "encode_heartbeat": allocated(fr.encode_frame, m.HEARTBEAT, b"", 3),
        "decode_ack": allocated(decoder.feed, ack),
        "idle_turn": allocated(turns, 50) // 50,
    }
    gc.collect()
    result["mem_free"] = gc.mem_free()
    start = time.ticks_us()
    turns(50)
    result["turn_us"] = time.ticks_diff(time.ticks_us(), start) // 50
    start = time.ticks_us()
    board.show_scores((25000, 25000, 25000, 25000), 0)
    result["tm1637_us"] = time.ticks_diff(time.ticks_us(), start) // 4
    print("BUDGET " + json.dumps(result))
