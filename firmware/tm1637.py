"""TM1637 7-segment display driver (4- or 6-digit modules), bit-banged on two GPIO pins.

The TM1637's two-wire bus is I2C-like but not I2C (no address, LSB first), so it is driven by
hand: start (DIO falls while CLK is high), bytes LSB first sampled on CLK's rising edge, the
chip's ACK (it pulls DIO low during the ninth clock), stop (DIO rises while CLK is high). CLK may
be shared by several modules; each has its own DIO. A write returns False when the chip did not
acknowledge: no module, a broken wire, no power (the board reports it as a fault).
"""

from firmware.errors import FirmwareConfigError

try:
    from typing import TYPE_CHECKING
except ImportError:  # MicroPython has no typing module
    TYPE_CHECKING = False  # type: ignore[misc,unused-ignore]
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Protocol

    class BusPin(Protocol):
        def value(self, *args: int) -> int: ...

        def init(self, mode: int = ..., pull: int = ...) -> None: ...

_DATA_AUTO = 0x40  # data command: write, auto-increment address
_ADDRESS = 0xC0  # address command, + grid 0..5
_DISPLAY_ON = 0x88  # display control: on, + brightness 0..7

#: segments gfedcba per character; bit 7 is the digit's decimal point (or the colon)
FONT = {"0": 0x3F, "1": 0x06, "2": 0x5B, "3": 0x4F, "4": 0x66, "5": 0x6D, "6": 0x7D,
        "7": 0x07, "8": 0x7F, "9": 0x6F, "-": 0x40, " ": 0x00, "d": 0x5E, "E": 0x79,
        "r": 0x50, "h": 0x74, "n": 0x54, "o": 0x5C, "A": 0x77, "b": 0x7C, "C": 0x39}
DOT = 0x80


def segments(text: str) -> bytes:
    """The segment bytes of ``text``; a '.' lights the previous character's point."""
    out = bytearray()
    for ch in text:
        if ch == "." and out:
            out[-1] |= DOT
        else:
            out.append(FONT.get(ch, 0x00))
    return bytes(out)


def number_text(value: int, digits: int) -> str:
    """``value`` right-aligned in ``digits`` characters. A score too long for the module is shown
    in hundreds with the last point lit (25000 on 4 digits: "250."): riichi scores are multiples
    of 100. Beyond even that: all dashes."""
    text = str(value)
    if len(text) <= digits:
        return " " * (digits - len(text)) + text
    if value % 100 == 0:
        text = str(value // 100)
        if len(text) <= digits:
            return " " * (digits - len(text)) + text + "."
    return "-" * digits


class TM1637:
    def __init__(self, clk: "BusPin", dio: "BusPin", digits: int = 4, brightness: int = 5,
                 delay_us: "Callable[[int], object] | None" = None, out_mode: int = 1,
                 in_mode: int = 0) -> None:
        if digits not in (4, 6):
            raise FirmwareConfigError("TM1637 modules have 4 or 6 digits")
        self.clk = clk
        self.dio = dio
        self.digits = digits
        self.brightness = brightness & 7
        self._delay = delay_us
        self._out = out_mode
        self._in = in_mode
        self.clk.init(out_mode)
        self.dio.init(out_mode)
        self.clk.value(1)
        self.dio.value(1)

    def _wait(self) -> None:
        if self._delay is not None:
            self._delay(3)  # the chip needs ~1 us per half clock; 3 us leaves margin

    def _start(self) -> None:
        self.dio.value(1)
        self.clk.value(1)
        self._wait()
        self.dio.value(0)
        self._wait()

    def _stop(self) -> None:
        self.clk.value(0)
        self._wait()
        self.dio.value(0)
        self._wait()
        self.clk.value(1)
        self._wait()
        self.dio.value(1)
        self._wait()

    def _byte(self, value: int) -> bool:
        for bit in range(8):
            self.clk.value(0)
            self._wait()
            self.dio.value((value >> bit) & 1)
            self._wait()
            self.clk.value(1)
            self._wait()
        # ninth clock: release DIO and read the chip's ACK (low)
        self.clk.value(0)
        self.dio.init(self._in)
        self._wait()
        self.clk.value(1)
        self._wait()
        ack = self.dio.value() == 0
        self.clk.value(0)
        self.dio.init(self._out)
        self.dio.value(0)
        return ack

    def _command(self, data: bytes) -> bool:
        self._start()
        ok = True
        for byte in data:
            ok = self._byte(byte) and ok
        self._stop()
        return ok

    def write(self, segs: bytes, pos: int = 0) -> bool:
        """Show ``segs`` from grid ``pos``; True when the module acknowledged every byte."""
        ok = self._command(bytes((_DATA_AUTO,)))
        ok = self._command(bytes((_ADDRESS | pos,)) + segs) and ok
        return self._command(bytes((_DISPLAY_ON | self.brightness,))) and ok

    def fit(self, text: str) -> bytes:
        """The segments of ``text`` on this module: right-aligned, as many as it has digits."""
        segs = segments(text)
        if len(segs) < self.digits:
            segs = bytes(self.digits - len(segs)) + segs
        return segs[-self.digits:]

    def show(self, text: str) -> bool:
        return self.write(self.fit(text))

    def number(self, value: int) -> bool:
        return self.show(number_text(value, self.digits))
