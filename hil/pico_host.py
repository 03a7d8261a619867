"""The Pico's own main loop (``firmware/pico.py``: ``main()`` as ``main.py`` calls it) run on this
machine, on simulated hardware, with its link on a pty -- the whole firmware as flashed, including
its transports, clock, watchdog and ``config.json``.

    python -m hil.pico_host --link /tmp/ttyPICO --transport usb --control /tmp/pico.ctl

* ``--link``: a symlink to the pty the daemon opens (``devices.table.path``), as udev's
  ``/dev/serial/by-id/...`` link to a real Pico.
* ``--transport usb``: the firmware's ``UsbCdcTransport`` reads and writes this process's
  stdin/stdout, which are the pty (as MicroPython's are the USB CDC port); ``uart``: its
  ``UartTransport`` on a simulated ``machine.UART`` wired to the pty.
* ``--control``: a FIFO of commands, one a line: ``drive PIN LEVEL`` / ``release PIN`` (the
  table's signals at the optocoupler outputs), ``dump`` (one JSON line on stderr: what the
  TM1637 displays show, the relay, the LEDs, the buzzer).
* ``--config``: a ``config.json`` for the board (default: the documented wiring).

What stands in for MicroPython here: ``machine`` is :class:`firmware.sim.SimMachine` (pins,
UART, WDT) with simulated TM1637 chips on the display lines, ``neopixel`` its strip,
``micropython.kbd_intr`` does nothing, and ``time`` gains ``ticks_ms``/``ticks_diff``/
``sleep_ms``/``sleep_us``. Everything else is the firmware's own code.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import json
import os
import sys
import threading
import time
import tty
import types
from pathlib import Path
from typing import Any

from firmware.config import Config
from firmware.sim import SimMachine, SimNeoPixel, SimTM1637


def _install_micropython_modules(sim: SimMachine) -> dict[str, list[Any]]:
    """The modules firmware/pico.py imports that CPython lacks; returns what the harness
    watches (the strips the firmware makes)."""
    made: dict[str, list[Any]] = {"strips": []}
    machine = types.ModuleType("machine")
    machine.Pin = sim.Pin  # type: ignore[attr-defined]
    machine.UART = sim.UART  # type: ignore[attr-defined]
    machine.WDT = sim.WDT  # type: ignore[attr-defined]
    machine.reset_cause = sim.reset_cause  # type: ignore[attr-defined]
    machine.PWRON_RESET = sim.PWRON_RESET  # type: ignore[attr-defined]
    machine.WDT_RESET = sim.WDT_RESET  # type: ignore[attr-defined]
    neopixel = types.ModuleType("neopixel")

    def strip(pin: Any, n: int) -> SimNeoPixel:
        pixels = SimNeoPixel(pin, n)
        made["strips"].append(pixels)
        return pixels

    neopixel.NeoPixel = strip  # type: ignore[attr-defined]
    micropython = types.ModuleType("micropython")
    micropython.kbd_intr = lambda char: None  # type: ignore[attr-defined]
    sys.modules.update(machine=machine, neopixel=neopixel, micropython=micropython)
    start = time.monotonic()
    time.ticks_ms = lambda: int((time.monotonic() - start) * 1000)  # type: ignore[attr-defined]
    time.ticks_diff = lambda a, b: a - b  # type: ignore[attr-defined]
    time.sleep_ms = lambda ms: time.sleep(ms / 1000)  # type: ignore[attr-defined]
    time.sleep_us = lambda us: None  # type: ignore[attr-defined]  # the sim chips need no timing
    return made


def _open_pty(link: Path) -> tuple[int, int]:
    master, slave = os.openpty()
    tty.setraw(slave)
    tmp = link.with_name(link.name + ".new")
    with contextlib.suppress(FileNotFoundError):
        tmp.unlink()
    tmp.symlink_to(os.ttyname(slave))
    tmp.replace(link)
    return master, slave


def _reader(fd: int) -> Any:
    def read() -> bytes:
        try:
            return os.read(fd, 4096)
        except BlockingIOError:
            return b""
    return read


def _control(path: Path, sim: SimMachine, chips: dict[str, Any], made: dict[str, list[Any]],
             cfg: Config) -> None:
    with open(path) as fifo:
        for line in fifo:
            words = line.split()
            if not words:
                continue
            pin: int | str = int(words[1]) if len(words) > 1 and words[1].isdigit() \
                else (words[1] if len(words) > 1 else "")
            if words[0] == "drive":
                sim.drive(pin, int(words[2]))
            elif words[0] == "release":
                sim.release(pin)
            elif words[0] == "dump":
                dump = {
                    "honba": chips["honba"].text(cfg.honba_digits) if chips["honba"] else None,
                    "scores": [c.text() for c in chips["scores"]],
                    "relay": None if cfg.start_relay is None else sim.level(cfg.start_relay),
                    "buzzer": None if cfg.buzzer is None else sim.level(cfg.buzzer),
                    "leds": [list(map(list, s.shown)) for s in made["strips"]],
                    "status_led": None if cfg.status_led is None else sim.level(cfg.status_led),
                }
                print(json.dumps(dump), file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hil.pico_host", description=__doc__)
    parser.add_argument("--link", type=Path, required=True)
    parser.add_argument("--transport", choices=("usb", "uart"), default="usb")
    parser.add_argument("--control", type=Path, required=True)
    parser.add_argument("--config", type=Path, default=None)
    args = parser.parse_args(argv)
    overrides: dict[str, Any] = {}
    if args.config is not None:
        overrides = json.loads(args.config.read_text(encoding="utf-8"))
    overrides["transport"] = args.transport
    config_path = args.control.with_name(args.control.name + ".config.json")
    config_path.write_text(json.dumps(overrides), encoding="utf-8")
    cfg = Config()
    cfg.update(overrides)

    sim = SimMachine()
    made = _install_micropython_modules(sim)
    master, _slave = _open_pty(args.link)
    os.set_blocking(master, False)
    if args.transport == "usb":
        # MicroPython's stdin/stdout are the USB CDC port: here they are the pty, unbuffered
        os.dup2(master, 0)
        os.dup2(master, 1)
        sys.stdin = types.SimpleNamespace(
            buffer=io.FileIO(0, "rb", closefd=False), fileno=lambda: 0)
        sys.stdout = types.SimpleNamespace(
            buffer=_Writer(1), fileno=lambda: 1)
    else:
        sim.uart_io[cfg.uart_id] = (_reader(master), _Writer(master).write)
    chips: dict[str, Any] = {"honba": None, "scores": []}
    if cfg.display_clk is not None:
        clk = sim.net(cfg.display_clk)
        if cfg.honba_dio is not None:
            chips["honba"] = SimTM1637(clk, sim.net(cfg.honba_dio), cfg.honba_digits)
        chips["scores"] = [SimTM1637(clk, sim.net(n), cfg.score_digits) for n in cfg.score_dios]
    threading.Thread(target=_control, args=(args.control, sim, chips, made, cfg),
                     daemon=True, name="pico-host control").start()
    pico = importlib.import_module("firmware.pico")  # imported late: it needs the modules above
    pico.main(config_path=str(config_path))
    return 0


class _Writer:
    """Writes all of ``data`` to a non-blocking fd (a pty whose reader is slow waits a little,
    as the USB stack does)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def write(self, data: bytes) -> int:
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(self.fd, view):]
            except BlockingIOError:
                time.sleep(0.001)
        return len(data)


if __name__ == "__main__":
    sys.exit(main())
