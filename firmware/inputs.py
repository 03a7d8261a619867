"""The table's switch signals: debounced, edge-reported, with stuck-input detection.

Every input is a GPIO pin read through an optocoupler (docs/firmware.md: the table's 12-24 V
signals never reach the Pico), so a pressed button or a closed limit switch reads low
(``active_low``). The adapters are polled from the main loop with the time in milliseconds.
"""

try:
    from typing import TYPE_CHECKING
except ImportError:  # MicroPython has no typing module
    TYPE_CHECKING = False  # type: ignore[misc,unused-ignore]
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Protocol

    class PinLike(Protocol):
        def value(self, *args: int) -> int: ...

PRESSED = 1
RELEASED = -1


class Debounced:
    """A level that counts only after it held ``debounce_ms`` (contact bounce, motor noise)."""

    def __init__(self, pin: "PinLike", active_low: bool = True, debounce_ms: int = 20) -> None:
        self.pin = pin
        self.active_low = active_low
        self.debounce_ms = debounce_ms
        self.active = False
        self.since = 0  # when the current stable level began
        self._raw = False
        self._raw_since = 0

    def read(self) -> bool:
        level = self.pin.value()
        return not level if self.active_low else bool(level)

    def poll(self, now: int) -> int:
        """PRESSED or RELEASED on a debounced edge, else 0."""
        raw = self.read()
        if raw != self._raw:
            self._raw = raw
            self._raw_since = now
        if raw != self.active and now - self._raw_since >= self.debounce_ms:
            self.active = raw
            self.since = now
            return PRESSED if raw else RELEASED
        return 0


class Button:
    """A push button: ``on_press(now)`` once per press; held longer than ``stuck_ms`` (a jammed
    switch, a shorted optocoupler, a wire pinched by the lid) it calls ``on_stuck(now)`` once,
    and does not report presses until it has been released."""

    def __init__(self, pin: "PinLike", on_press: "Callable[[int], object]",
                 on_stuck: "Callable[[int], object] | None" = None, stuck_ms: int = 10000,
                 debounce_ms: int = 20, active_low: bool = True) -> None:
        self.input = Debounced(pin, active_low, debounce_ms)
        self.on_press = on_press
        self.on_stuck = on_stuck
        self.stuck_ms = stuck_ms
        self.stuck = False
        self._armed = False  # at boot a held button is not a press: wait for a release first

    def poll(self, now: int) -> None:
        edge = self.input.poll(now)
        if edge == RELEASED:
            self.stuck = False
            self._armed = True
        elif edge == PRESSED and self._armed:
            self.on_press(now)
        elif edge == 0 and self.input.active and not self.stuck \
                and now - self.input.since >= self.stuck_ms:
            self.stuck = True
            if self.on_stuck is not None:
                self.on_stuck(now)
        if not self.input.active and not self._armed and now - self.input.since >= \
                self.input.debounce_ms:
            self._armed = True


class Level:
    """A level signal (the wall lift's "up" limit switch): ``on_rise(now)`` each time it becomes
    active. No stuck detection: the wall stays up for the whole hand."""

    def __init__(self, pin: "PinLike", on_rise: "Callable[[int], object]",
                 debounce_ms: int = 50, active_low: bool = True) -> None:
        self.input = Debounced(pin, active_low, debounce_ms)
        self.on_rise = on_rise
        self._armed = False

    def poll(self, now: int) -> None:
        edge = self.input.poll(now)
        if edge == PRESSED and self._armed:
            self.on_rise(now)
        if not self.input.active and now - self.input.since >= self.input.debounce_ms:
            self._armed = True  # a wall already up at boot is not a new "raised"
