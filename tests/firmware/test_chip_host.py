"""The commands ``jantaku run`` never sends (``led``, ``press_start``) and the timing of what the
board drives, on the emulated RP2040, with the host's own codec (drivers/link) playing the host on
the board's USB port frame by frame:

* ``led`` to the WS2812 chain, ``press_start`` to the relay and back as ``start_pressed``,
  ``buzzer`` to the buzzer pin with its beeps on the chip's clock;
* a host that holds the USB port open but does not read it: the board's writes never block its
  loop (MicroPython's CDC write waits up to 500 ms for room): the buzzer keeps its time while the
  board's output has nowhere to go, and the link carries on once the host reads again.
"""

from __future__ import annotations

import itertools
import os
import select
import time
import tty
from pathlib import Path

from chip_kit import BUZZER, RELAY, needs_rp2040js

from drivers.link.frame import Decoder, Frame, encode_frame
from drivers.link.messages import (
    Ack,
    Buzzer,
    ControllerReset,
    Hello,
    Led,
    LedMode,
    Message,
    PressStart,
    StartPressed,
    TableEvent,
    Welcome,
)
from hil.rp2040_board import Rp2040Board

pytestmark = needs_rp2040js

HOST_BOOT = 0x5EED


class RawHost:
    """The host end, frame by frame, on the board's port (acks every event it reads)."""

    def __init__(self, path: Path) -> None:
        self.fd = os.open(path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        tty.setraw(self.fd)
        self.decoder = Decoder()
        self.seq = 0
        self.events: list[TableEvent] = []
        self.acked: list[int] = []
        self.welcomes = 0
        self.reading = True

    def close(self) -> None:
        os.close(self.fd)

    def write(self, message: Message, seq: int = 0) -> None:
        os.write(self.fd, encode_frame(message, seq))

    def command(self, message: Message) -> int:
        seq = self.seq
        self.seq += 1
        self.write(message, seq)
        return seq

    def pump(self, seconds: float) -> None:
        """Read (when ``reading``) and answer for ``seconds``."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if not self.reading:
                time.sleep(0.05)
                continue
            ready, _, _ = select.select([self.fd], [], [], 0.05)
            if not ready:
                continue
            try:
                data = os.read(self.fd, 4096)
            except BlockingIOError:
                continue
            for item in self.decoder.feed(data):
                if not isinstance(item, Frame):
                    continue
                match item.message:
                    case Welcome():
                        self.welcomes += 1
                    case Ack():
                        self.acked.append(item.seq)
                    case StartPressed() | ControllerReset() as event:
                        self.events.append(event)
                        self.write(Ack(), item.seq)
                    case _:
                        pass

    def until(self, cond: object, timeout: float, what: str) -> None:
        end = time.monotonic() + timeout
        while not cond():  # type: ignore[operator]
            assert time.monotonic() < end, f"timed out waiting for {what}"
            self.pump(0.1)


def hello() -> Hello:
    return Hello(1, 1, HOST_BOOT, None, None)


def edges(board: Rp2040Board, pin: int, since: int) -> list[tuple[int, float]]:
    return [(level, t) for p, level, t in board.outputs.changes[since:] if p == pin]


def beeps_keep_time(board: Rp2040Board, since: int, count: int, ms: int) -> list[float]:
    """The buzzer's edges after ``since``: ``count`` beeps of ``ms`` with gaps of ``ms``."""
    got = edges(board, BUZZER, since)
    assert [level for level, _t in got] == [1, 0] * count, got
    times = [t for _level, t in got]
    return [b - a for a, b in itertools.pairwise(times)]


@needs_rp2040js
def test_leds_relay_buzzer_and_a_host_that_stops_reading(tmp_path: Path) -> None:
    board = Rp2040Board(tmp_path / "board")
    host: RawHost | None = None
    try:
        deadline = time.monotonic() + 60
        while not board.path.exists():
            assert time.monotonic() < deadline, "the board's USB port"
            time.sleep(0.1)
        host = RawHost(board.path)
        h = host
        while not h.welcomes:  # hello every 0.3 s until welcomed, as a host does
            assert time.monotonic() < deadline, "no welcome"
            h.write(hello())
            h.pump(0.3)
        h.until(lambda: any(isinstance(e, ControllerReset) for e in h.events), 30,
                "the board's reset report")
        # led: seat 0 on in orange, to the WS2812 chain
        seq = h.command(Led(0, LedMode.ON, (255, 64, 0)))
        h.until(lambda: seq in h.acked and board.outputs.pixels[:1] == [(255, 64, 0)], 30,
                "pixel 0 lit")
        assert board.outputs.pixels[1:4] == [(0, 0, 0)] * 3
        # press_start: the relay closes across the start button for 200 ms, the table reports
        since = len(board.outputs.changes)
        seq = h.command(PressStart())
        h.until(lambda: seq in h.acked and StartPressed(None) in h.events
                and len(edges(board, RELAY, since)) == 2, 30, "the relay pulse")
        (on, t_on), (off, t_off) = edges(board, RELAY, since)
        assert (on, off) == (1, 0) and abs((t_off - t_on) - 200) < 20
        # buzzer: three 100 ms beeps, 100 ms apart, on the chip's clock
        since = len(board.outputs.changes)
        seq = h.command(Buzzer(100, 3))
        h.until(lambda: len(edges(board, BUZZER, since)) == 6, 30, "three beeps")
        assert all(abs(d - 100) < 15 for d in beeps_keep_time(board, since, 3, 100))
        # the host stops reading: hellos make the board answer with welcomes until its USB FIFO
        # (256 B) is full and its own buffer holds the rest
        board.stall(True)
        h.reading = False
        for _ in range(12):
            h.write(hello())
            h.pump(0.1)
        since = len(board.outputs.changes)
        h.command(Buzzer(100, 3))
        h.pump(1.0)
        deadline = time.monotonic() + 30
        while len(edges(board, BUZZER, since)) < 6:
            assert time.monotonic() < deadline, edges(board, BUZZER, since)
            h.pump(0.2)
        # a blocking write would have held the loop 500 ms at a time: the beeps keep time
        assert all(abs(d - 100) < 15 for d in beeps_keep_time(board, since, 3, 100))
        # reading again: what the board kept comes out, the link carries on
        welcomes = h.welcomes
        board.stall(False)
        h.reading = True
        h.until(lambda: h.welcomes > welcomes, 30, "the held welcomes")
        seq = h.command(Led(None, LedMode.OFF, (0, 0, 0)))
        h.until(lambda: seq in h.acked and board.outputs.pixels[:1] == [(0, 0, 0)], 30,
                "the link after the stall")
        assert len(board.outputs.boots) == 1
    finally:
        if host is not None:
            host.close()
        board.close()
