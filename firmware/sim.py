"""Simulated hardware for the host: a ``machine``-like module whose pins are wires that tests,
the emulator and simulated devices drive, a WS2812 strip, and a TM1637 chip that decodes the
driver's bit-banged bus and acknowledges it (or not, to simulate a dead display).

Used by ``hil/table_controller.py`` and tests/firmware; importable by MicroPython too.
"""

try:
    from typing import TYPE_CHECKING
except ImportError:  # MicroPython has no typing module
    TYPE_CHECKING = False  # type: ignore[misc,unused-ignore]
if TYPE_CHECKING:
    from collections.abc import Callable

IN = 0
OUT = 1
PULL_UP = 1
PULL_DOWN = 2


class Net:
    """One wire: the level the MCU drives (``None``: its pin is an input), what an outside
    device drives (``None``: released), else the pull resistor's level."""

    def __init__(self) -> None:
        self.mcu: int | None = None
        self.ext: int | None = None
        self.pull = 1
        self.listeners: list[Callable[[Net, int], None]] = []

    def level(self) -> int:
        if self.mcu is not None:
            return self.mcu
        if self.ext is not None:
            return self.ext
        return self.pull

    def _set(self, what: str, value: int | None) -> None:
        old = self.level()
        if what == "mcu":
            self.mcu = value
        else:
            self.ext = value
        new = self.level()
        if new != old:
            for listener in self.listeners:
                listener(self, old)


class SimPin:
    IN = IN
    OUT = OUT
    PULL_UP = PULL_UP
    PULL_DOWN = PULL_DOWN

    def __init__(self, machine: "SimMachine", pin_id: int | str, mode: int = -1,
                 pull: int = -1, value: int | None = None) -> None:
        self.id = pin_id
        self.net = machine.net(pin_id)
        self._latch = 0 if value is None else value
        self.mode = IN
        self.init(mode, pull)

    def init(self, mode: int = -1, pull: int = -1) -> None:
        if pull == PULL_UP:
            self.net.pull = 1
        elif pull == PULL_DOWN:
            self.net.pull = 0
        if mode != -1:
            self.mode = mode
        self.net._set("mcu", self._latch if self.mode == OUT else None)

    def value(self, *args: int) -> int:
        if args:
            self._latch = 1 if args[0] else 0
            if self.mode == OUT:
                self.net._set("mcu", self._latch)
            return self._latch
        return self.net.level()

    def on(self) -> None:
        self.value(1)

    def off(self) -> None:
        self.value(0)


class SimMachine:
    """Stands in for ``machine``: ``Pin`` (``machine.Pin(id, mode, pull, value=)``), plus what a
    test needs to play the table: ``drive(pin, level)`` / ``release(pin)`` as an optocoupler's
    output transistor would, and ``level(pin)`` to read what the MCU drives."""

    def __init__(self) -> None:
        self.nets: dict[int | str, Net] = {}
        sim = self

        class Pin(SimPin):
            def __init__(self, pin_id: int | str, mode: int = -1, pull: int = -1,
                         value: int | None = None) -> None:
                SimPin.__init__(self, sim, pin_id, mode, pull, value)

        class UART(SimUART):
            def __init__(self, uart_id: int, baudrate: int = 115200, **kw: object) -> None:
                SimUART.__init__(self, sim, uart_id, baudrate)

        self.Pin = Pin
        self.UART = UART
        self.WDT = SimWDT
        self.PWRON_RESET = 1
        self.WDT_RESET = 3
        self.cause = 1  # what reset_cause() says (a test sets WDT_RESET)
        #: per UART id: (read what has arrived, write) -- what the simulated UART is wired to
        self.uart_io: dict[int, tuple[Callable[[], bytes], Callable[[bytes], object]]] = {}

    def reset_cause(self) -> int:
        return self.cause

    def net(self, pin_id: int | str) -> Net:
        if pin_id not in self.nets:
            self.nets[pin_id] = Net()
        return self.nets[pin_id]

    def drive(self, pin_id: int | str, level: int) -> None:
        self.net(pin_id)._set("ext", level)

    def release(self, pin_id: int | str) -> None:
        self.net(pin_id)._set("ext", None)

    def level(self, pin_id: int | str) -> int:
        return self.net(pin_id).level()


class SimUART:
    """``machine.UART``: non-blocking ``any``/``read``/``write`` on what ``SimMachine.uart_io``
    wires it to (a pty on the host)."""

    def __init__(self, machine: SimMachine, uart_id: int, baudrate: int) -> None:
        self.io = machine.uart_io[uart_id]
        self.baudrate = baudrate
        self._buf = b""

    def any(self) -> int:
        self._buf += self.io[0]()
        return len(self._buf)

    def read(self, n: int = -1) -> bytes | None:
        self.any()
        if not self._buf:
            return None
        size = len(self._buf) if n < 0 else n
        data, self._buf = self._buf[:size], self._buf[size:]
        return data

    def readinto(self, buf: bytearray) -> int | None:
        self.any()
        if not self._buf:
            return None
        n = min(len(buf), len(self._buf))
        buf[:n] = self._buf[:n]
        self._buf = self._buf[n:]
        return n

    def write(self, data: "bytes | memoryview") -> int:
        self.io[1](bytes(data))
        return len(data)

    def txdone(self) -> bool:
        return True


class SimWDT:
    """``machine.WDT``: counts feeds (the host's loop cannot hang the test machine)."""

    def __init__(self, timeout: int = 5000) -> None:
        self.timeout = timeout
        self.feeds = 0

    def feed(self) -> None:
        self.feeds += 1


class SimNeoPixel:
    """``neopixel.NeoPixel(pin, n)``: what was last written is in ``shown``."""

    def __init__(self, pin: SimPin, n: int) -> None:
        self.pin = pin
        self.pixels: list[tuple[int, int, int]] = [(0, 0, 0)] * n
        self.shown: list[tuple[int, int, int]] = list(self.pixels)
        self.writes = 0

    def __setitem__(self, index: int, rgb: tuple[int, int, int]) -> None:
        self.pixels[index] = rgb

    def write(self) -> None:
        self.shown = list(self.pixels)
        self.writes += 1


class SimTM1637:
    """A TM1637 on two nets: decodes start/stop, LSB-first bytes and acknowledges each byte by
    pulling DIO low in the ninth clock (unless ``present`` is False). ``grids`` holds the segment
    bytes, ``on``/``brightness`` the display control."""

    def __init__(self, clk: Net, dio: Net, digits: int = 6) -> None:
        self.clk = clk
        self.dio = dio
        self.present = True
        self.grids = bytearray(digits)
        self.on = False
        self.brightness = 0
        self.frames = 0  # complete start..stop transfers
        self._bits = 0
        self._byte = 0
        self._acking = False
        self._bytes: list[int] = []
        self._active = False
        clk.listeners.append(self._on_clk)
        dio.listeners.append(self._on_dio)

    def _on_dio(self, net: Net, old: int) -> None:
        if self.clk.level() != 1 or self._acking:
            return
        if old == 1 and net.level() == 0:  # start
            self._active = True
            self._bits = self._byte = 0
            self._bytes = []
        elif old == 0 and net.level() == 1 and self._active:  # stop
            self._active = False
            self._execute(self._bytes)

    def _on_clk(self, net: Net, old: int) -> None:
        if not self._active:
            return
        rising = net.level() == 1
        if self._acking:
            if not rising:  # the ninth clock ends: release DIO
                self._acking = False
                self.dio._set("ext", None)
            return
        if rising:
            self._byte |= (self.dio.level() & 1) << self._bits
            self._bits += 1
        elif self._bits == 8:
            self._bytes.append(self._byte)
            self._bits = self._byte = 0
            if self.present:
                self._acking = True
                self.dio._set("ext", 0)

    def _execute(self, data: list[int]) -> None:
        if not data or not self.present:
            return
        self.frames += 1
        head = data[0]
        if head & 0xC0 == 0xC0:
            address = head & 0x07
            for k, byte in enumerate(data[1:]):
                if address + k < len(self.grids):
                    self.grids[address + k] = byte
        elif head & 0xF0 == 0x80:
            self.on = bool(head & 0x08)
            self.brightness = head & 0x07

    def text(self, digits: int | None = None) -> str:
        """The grids read back as characters ('.' after a digit whose point is lit)."""
        from firmware.tm1637 import DOT, FONT

        chars = {v: k for k, v in FONT.items()}
        out = ""
        for byte in self.grids[:digits or len(self.grids)]:
            out += chars.get(byte & ~DOT & 0xFF, "?")
            if byte & DOT:
                out += "."
        return out
