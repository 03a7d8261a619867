"""Timed outputs, run from the main loop without blocking: the buzzer, the seat LEDs (a WS2812
chain, one pixel per seat), the start relay's pulse and the board's status LED."""

from firmware import messages as m

try:
    from typing import TYPE_CHECKING
except ImportError:  # MicroPython has no typing module
    TYPE_CHECKING = False  # type: ignore[misc,unused-ignore]
if TYPE_CHECKING:
    from typing import Protocol

    from firmware.inputs import PinLike

    class PixelStrip(Protocol):
        def __setitem__(self, index: int, rgb: tuple[int, int, int]) -> None: ...

        def write(self) -> None: ...

BLINK_MS = 500  # LED blink half-period (1 Hz)


class Buzzer:
    """``count`` beeps of ``duration_ms``, separated by gaps of the same length (at least
    80 ms, so that two beeps are heard as two). A new command replaces a running one."""

    def __init__(self, pin: "PinLike") -> None:
        self.pin = pin
        self.pin.value(0)
        self._edges: list[int] = []  # times at which the output toggles, first = on
        self.on = False
        self.beeps = 0  # beeps started (for tests and the debug log)

    def buzz(self, duration_ms: int, count: int, now: int) -> None:
        gap = duration_ms if duration_ms > 80 else 80
        self._edges = []
        t = now
        for _ in range(count):
            self._edges.append(t)
            self._edges.append(t + duration_ms)
            t += duration_ms + gap
        self.poll(now)

    def poll(self, now: int) -> None:
        while self._edges and now >= self._edges[0]:
            self._edges.pop(0)
            self.on = not self.on
            if self.on:
                self.beeps += 1
            self.pin.value(1 if self.on else 0)


class SeatLeds:
    """One RGB pixel per seat; mode off/on/blink per seat (§6.3 ``led``)."""

    def __init__(self, strip: "PixelStrip", seats: int = 4) -> None:
        self.strip = strip
        self.modes = [m.LED_OFF] * seats
        self.colors = [(0, 0, 0)] * seats
        self.shown: list[tuple[int, int, int]] = [(0, 0, 0)] * seats
        self._phase = -1
        self._render(0)

    def set(self, seat: int | None, mode: int, rgb: tuple[int, int, int], now: int) -> None:
        for s in range(len(self.modes)) if seat is None else (seat,):
            self.modes[s] = mode
            self.colors[s] = rgb
        self._phase = -1
        self._render(now)

    def poll(self, now: int) -> None:
        if m.LED_BLINK in self.modes and (now // BLINK_MS) % 2 != self._phase:
            self._render(now)

    def _render(self, now: int) -> None:
        self._phase = (now // BLINK_MS) % 2
        for s in range(len(self.modes)):
            mode = self.modes[s]
            lit = mode == m.LED_ON or (mode == m.LED_BLINK and self._phase == 0)
            rgb = self.colors[s] if lit else (0, 0, 0)
            self.shown[s] = rgb
            self.strip[s] = rgb
        self.strip.write()


class Pulse:
    """A relay closed for ``length_ms`` (across the table's start button: a press)."""

    def __init__(self, pin: "PinLike", length_ms: int = 200) -> None:
        self.pin = pin
        self.length_ms = length_ms
        self.pin.value(0)
        self._until: int | None = None
        self.pulses = 0

    def pulse(self, now: int) -> None:
        self.pin.value(1)
        self._until = now + self.length_ms
        self.pulses += 1

    def poll(self, now: int) -> None:
        if self._until is not None and now >= self._until:
            self.pin.value(0)
            self._until = None


class StatusLed:
    """The Pico's own LED: steady while the host is connected, blinking while it is not."""

    def __init__(self, pin: "PinLike") -> None:
        self.pin = pin
        self.connected = False
        self._lit = -1

    def poll(self, now: int) -> None:
        lit = 1 if self.connected or (now // BLINK_MS) % 2 == 0 else 0
        if lit != self._lit:
            self._lit = lit
            self.pin.value(lit)
