"""Per-seat time left on a serial clock display: the daemon's driver sends CLOCKS lines from the
live clocks (W 打牌时限) to the display, here the hil display emulator on a real pty."""

from __future__ import annotations

import asyncio
import contextlib
import time
from pathlib import Path
from typing import Any

import pytest

from daemon import clocks as dc
from daemon.config import parse_config
from daemon.devices import ClockDisplayDriver, build_drivers, clocks_line
from drivers.display.lines import DisplayProtocolError, SetClocks, format_command
from hil.display_emulator import SerialDisplayEmulator, parse_command
from rules import inputs as ri
from rules.seats import Seat


class Sink:
    def __init__(self, clocks: dc.Clocks) -> None:
        self.clocks = clocks

    def put(self, kind: str, source: str, body: dict[str, Any], mono_ns: int | None = None) -> Any:
        raise AssertionError("the display only reads the clocks")

    def timers_state(self) -> dc.Clocks:
        return self.clocks


def _wmc(dealt_ago_s: float, ruleset: str = "wmc") -> dc.Clocks:
    clocks, _ = dc.follow(dc.Clocks(), ri.GameStart(ruleset=ruleset, first_dealer=Seat.S2),
                          0, "table", None)
    t = time.monotonic_ns() - int(dealt_ago_s * 1e9)
    clocks, _ = dc.follow(clocks, ri.DealDone(), t, "table", 2)
    return clocks


def test_clocks_line_round_trips_and_refuses_nonsense() -> None:
    line = SetClocks(2, -3, (180, 175, 12, -40))
    assert format_command(line) == b"CLOCKS 2 -3 180 175 12 -40\n"
    assert parse_command("CLOCKS 2 -3 180 175 12 -40") == line
    for bad in ("CLOCKS 4 0 1 2 3 4", "CLOCKS 0 0 1 2 3", "CLOCKS 0 x 1 2 3 4"):
        with pytest.raises(DisplayProtocolError):
            parse_command(bad)


def test_the_line_follows_the_clock_view() -> None:
    # WMC: 15 s grace, then the dealer (seat 2) has 15 s for the turn and 180 s for the hand.
    line = clocks_line(_wmc(15 + 10.5), time.monotonic_ns())
    assert line is not None and line.running == 2
    assert line.turn_left == 5  # 4.5 s left shows as 5 until the last second has gone
    assert line.hand_left[2] == 170 and line.hand_left[0] == 180
    assert clocks_line(dc.Clocks(), time.monotonic_ns()) is None


async def test_driver_shows_the_clocks_on_a_serial_display(tmp_path: Path) -> None:
    async with SerialDisplayEmulator(tmp_path / "ttyCLOCKS") as display:
        driver = ClockDisplayDriver(display.path, 9600)
        task = asyncio.create_task(driver.run(Sink(_wmc(15 + 3))))
        try:
            for _ in range(100):
                if display.state.clocks is not None:
                    break
                await asyncio.sleep(0.05)
            shown = display.state.clocks
            assert shown is not None and shown.running == 2
            assert 10 <= shown.turn_left <= 12
            assert shown.hand_left[0] == shown.hand_left[1] == shown.hand_left[3] == 180
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


def test_config_wires_the_clock_display(tmp_path: Path) -> None:
    dev = tmp_path / "ttyCLOCKS"
    dev.touch()
    text = f"""
config_version = 1
[table]
id = "t9"
ruleset = "wmc"
[eventlog]
path = "{tmp_path / 'x.sqlite'}"
[mqtt]
host = "127.0.0.1"
[devices.table]
kind = "none"
[devices.displays]
clocks_path = "{dev}"
clocks_baud = 19200
"""
    config = parse_config(text, tmp_path / "j.toml")
    drivers = build_drivers(config)
    clock = [d for d in drivers if isinstance(d, ClockDisplayDriver)]
    assert len(clock) == 1 and clock[0].path == dev and clock[0].baud == 19200
