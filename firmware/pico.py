"""The firmware's main loop on the Pico (``main.py`` calls :func:`main`).

Every millisecond or so: read the link, poll the table's signals and the timed outputs, run
the link's timers, write what the link produced, feed the watchdog. Nothing blocks: the TM1637
writes are the longest step (16 ms per display measured on the emulated RP2040).
"""

import os
import sys
import time

import machine

try:
    from typing import TYPE_CHECKING
except ImportError:  # MicroPython has no typing module
    TYPE_CHECKING = False  # type: ignore[misc,unused-ignore]
if TYPE_CHECKING:
    from typing import Any

from firmware import firmware_string
from firmware.board import Board, Config
from firmware.link import Link
from firmware.table import Table
from firmware.transport import UartTransport, UsbCdcTransport


class Clock:
    """Milliseconds since boot that never wrap (``time.ticks_ms`` wraps; the link compares
    times by subtraction)."""

    def __init__(self) -> None:
        self._last = time.ticks_ms()
        self._now = 0

    def now(self) -> int:
        tick = time.ticks_ms()
        self._now += time.ticks_diff(tick, self._last)
        self._last = tick
        return self._now


def platform() -> str:
    """"rp2040" or "rp2350" on a Pico, "sim" anywhere else (the host harness hil/pico_host.py
    runs this module under CPython), for the firmware string in ``welcome``."""
    name = getattr(sys.implementation, "_machine", "")  # "Raspberry Pi Pico with RP2040"
    if "RP2350" in name:
        return "rp2350"
    if "RP2040" in name:
        return "rp2040"
    return "sim"


def load_config(path: str = "/config.json") -> Config:
    """The documented wiring, overridden by ``/config.json`` when the venue put one there."""
    cfg = Config()
    try:
        import json

        with open(path) as f:
            cfg.update(json.load(f))
    except OSError:
        pass  # no config.json: the documented wiring
    return cfg


def boot_id() -> int:
    """Random per boot (§7.4: a rebooted board must not be taken for the same one)."""
    return int.from_bytes(os.urandom(4), "little") or 1


def main(watchdog: "Any" = None, cause: int | None = None,
         config_path: str = "/config.json") -> None:
    """Run the table (``main.py`` has turned Ctrl-C off, checked the maintenance jumper and armed
    ``watchdog``; ``cause`` is ``machine.reset_cause()``, read before anything else)."""
    cfg = load_config(config_path)
    run(cfg, watchdog, cause)


def run(cfg: Config, watchdog: "Any" = None, cause: int | None = None) -> None:
    from neopixel import NeoPixel

    board = Board(machine, cfg, NeoPixel, time.sleep_us)
    link = Link(boot_id(), board.capabilities(), firmware_string(platform()))
    table = Table(link, board)
    board.table = table
    if cfg.transport == "uart":
        transport: UartTransport | UsbCdcTransport = UartTransport(
            machine, cfg.uart_id, cfg.uart_tx, cfg.uart_rx, cfg.baud)
        table.on_log = print  # the USB REPL is free: log there
    else:
        transport = UsbCdcTransport()
    clock = Clock()
    table.attach(clock.now())
    if watchdog is None:
        watchdog = machine.WDT(timeout=5000)  # a hung loop reboots the board (a new boot id)
    while True:
        now = clock.now()
        data = transport.read()
        if data:
            table.receive(data, now)
        table.tick(now)  # also polls the board's inputs and timed outputs
        out = table.take_output()
        if out:
            transport.write(out)
        watchdog.feed()
        if not data:
            time.sleep_ms(1)
