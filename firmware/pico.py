"""The firmware's main loop on the Pico (``main.py`` calls :func:`main`).

Every millisecond or so: read the link, poll the table's signals and the timed outputs, run
the link's timers, write what the link produced as far as the port takes it, note how many
events a reset would lose, feed the watchdog. Nothing blocks: one TM1637 display write per turn
is the longest step (16 ms measured on the emulated RP2040).
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
    from collections.abc import Callable
    from typing import Any

from firmware import config, firmware_string
from firmware.board import Board
from firmware.config import Config
from firmware.link import Link
from firmware.resets import ResetMemory
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


def boot_id() -> int:
    """Random per boot (§7.4: a rebooted board must not be taken for the same one)."""
    return int.from_bytes(os.urandom(4), "little") or 1


def main(watchdog: "Any" = None, cause: int | None = None,
         config_path: str = "/config.json") -> None:
    """Run the table (``main.py`` has turned Ctrl-C off, checked the maintenance jumper and armed
    ``watchdog``; ``cause`` is ``machine.reset_cause()``, read before anything else)."""
    cfg, problems = config.load(config_path)
    run(cfg, watchdog, cause, problems)


SIO_GPIO_IN = 0xD0000004  # RP2040: every GPIO's input level, one bit each (bits 0..29)


def gpio_in() -> "Callable[[], int] | None":
    """Reads every input at once on an RP2040 (bits 0..29: a small int, no allocation)."""
    if platform() != "rp2040":
        return None
    mem32 = machine.mem32

    def levels() -> int:
        return mem32[SIO_GPIO_IN]  # type: ignore[no-any-return,unused-ignore]
    return levels


def _reset_memory(cause: int | None) -> ResetMemory:
    if cause is None and hasattr(machine, "reset_cause"):
        cause = machine.reset_cause()
    mem32 = getattr(machine, "mem32", None) if platform() == "rp2040" else None
    return ResetMemory(mem32, cause, getattr(machine, "WDT_RESET", 3))


def run(cfg: Config, watchdog: "Any" = None, cause: int | None = None,
        problems: "list[tuple[int, str | None, int | None]] | None" = None) -> None:
    from neopixel import NeoPixel

    resets = _reset_memory(cause)
    board = Board(machine, cfg, NeoPixel, time.sleep_us, gpio_in())
    link = Link(boot_id(), board.capabilities(), firmware_string(platform()),
                max_queue=cfg.event_queue)
    table = Table(link, board)
    table.refuse_commands = cfg.safe
    board.table = table
    if cfg.transport == "uart":
        transport: UartTransport | UsbCdcTransport = UartTransport(
            machine, cfg.uart_id, cfg.uart_tx, cfg.uart_rx, cfg.baud)
        table.on_log = print  # the USB REPL is free: log there
    else:
        transport = UsbCdcTransport()
    # what the host sent while the board booted is for a board that no longer exists: hellos
    # said every 0.2 s all through the boot (~36 on the emulated chip), each of which would cost
    # a welcome and a resend of the reset report; the host says hello again within 0.2 s
    transport.discard(STALE_MAX)
    clock = Clock()
    now = clock.now()
    table.attach(now)
    # the first events of a boot, before any input is read: the host learns the board reset
    # (and how many events went with it), then what is wrong with its configuration
    table.controller_reset(resets.cause, resets.lost, now)
    for problem, key, pin in problems or ():
        table.config_fault(problem, key, pin, now)
    if watchdog is None:
        watchdog = machine.WDT(timeout=5000)  # a hung loop reboots the board (a new boot id)
    loop(table, transport, clock, watchdog, resets)


def turn(table: Table, transport: "UartTransport | UsbCdcTransport", clock: Clock,
         watchdog: "Any", resets: ResetMemory) -> int:
    """One turn of the main loop; returns the bytes read (0: the loop waits for input). A turn with
    nothing to do allocates nothing (docs/firmware.md "Memory and timing")."""
    link = table.link
    got = transport.read()
    if got:
        table.receive(transport.buf, clock.now(), got)
    # the time the inputs are read, not when the turn began: the debounce and stuck timers
    # compare the times of the levels they saw (a turn that took input lasts milliseconds)
    table.tick(clock.now())  # also polls the board's inputs, timed outputs and one display
    if link.tx_len:
        transport.write(link)
    resets.note(link.pending + link.dropped)
    watchdog.feed()
    return got


STALE_MAX = 4096  # bytes dropped at most at boot (a flood must not hold the boot)
IDLE_MS = 4  # a turn that read nothing waits this long for input (the chip idles meanwhile)


def loop(table: Table, transport: "UartTransport | UsbCdcTransport", clock: Clock,
         watchdog: "Any", resets: ResetMemory) -> None:
    while True:
        if not turn(table, transport, clock, watchdog, resets):
            transport.wait(IDLE_MS)
