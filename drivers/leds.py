"""Per-seat warning LEDs and a buzzer, driven from the clocks' live view.

What to show is a pure function of the :class:`rules.timers.ClockView` (:func:`indication`), so
the daemon can call :meth:`ClockIndicators.apply` at any rate and the lamps follow the clock, not
the call rate; the class only pushes changes to the gpiozero devices.

* LOW (the running seat has ``warning_seconds`` or less before a limit): its LED is lit.
* OVER (past the per-turn or the per-hand limit): its LED blinks, derived from the overtime
  itself (on for the first half of each period), and the buzzer sounds for the first
  ``buzz_seconds`` of the overtime.
* A short chirp marks the start of the warning. Paused clocks: LEDs hold, the buzzer is silent.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gpiozero import LED, Buzzer

from drivers.gpio_errors import GpioConfigError
from rules.seats import SEATS
from rules.timers import ClockView, SeatView, WarningLevel, seconds_to_ns


@dataclass(frozen=True, slots=True)
class IndicatorConfig:
    blink_period_seconds: float = 0.5
    buzz_seconds: float = 1.0  # at the start of an overtime
    chirp_seconds: float = 0.15  # at the start of the warning

    def __post_init__(self) -> None:
        for name in ("blink_period_seconds", "buzz_seconds", "chirp_seconds"):
            value = getattr(self, name)
            if not isinstance(value, int | float) or value < 0:
                raise GpioConfigError(f"{name}: expected a number >= 0, got {value!r}")
        if self.blink_period_seconds == 0:
            raise GpioConfigError("blink_period_seconds: expected a number > 0, got 0")


@dataclass(frozen=True, slots=True)
class Indication:
    leds: tuple[bool, ...]  # seat 0..3
    buzzer: bool


def _left(seat: SeatView) -> int | None:
    """Time before the nearer limit (negative: the overtime), for the running seat."""
    if seat.turn_remaining_ns is None:
        return None
    return min(seat.turn_remaining_ns, seat.hand_remaining_ns)


def indication(view: ClockView, config: IndicatorConfig, warning_ns: int) -> Indication:
    """The lamps and the buzzer for a view. ``warning_ns``: the ruleset's warning time."""
    leds: list[bool] = []
    buzzer = False
    half = max(1, seconds_to_ns(config.blink_period_seconds) // 2)
    for seat in view.seats:
        left = _left(seat)
        if seat.warning is WarningLevel.NONE or left is None:
            leds.append(False)
            continue
        if seat.warning is WarningLevel.LOW:
            leds.append(True)
            into = warning_ns - left  # how long the warning has been on
            buzzer = buzzer or 0 <= into < seconds_to_ns(config.chirp_seconds)
            continue
        over = -left
        leds.append((over // half) % 2 == 0)
        buzzer = buzzer or over < seconds_to_ns(config.buzz_seconds)
    return Indication(tuple(leds), buzzer and not view.paused)


class ClockIndicators:
    """gpiozero LEDs (seat 0..3 in ``led_pins`` order) and an optional buzzer."""

    def __init__(
        self,
        led_pins: Sequence[int | str],
        buzzer_pin: int | str | None = None,
        *,
        warning_seconds: float,
        config: IndicatorConfig | None = None,
        pin_factory: Any = None,
    ) -> None:
        if len(led_pins) != len(SEATS):
            raise GpioConfigError(f"led_pins: expected {len(SEATS)} pins (seats 0..3), got "
                                  f"{led_pins!r}")
        self.config = config if config is not None else IndicatorConfig()
        self.warning_ns = seconds_to_ns(warning_seconds)
        self.leds: list[LED] = []
        self.buzzer: Buzzer | None = None
        try:
            for pin in led_pins:
                self.leds.append(LED(pin, pin_factory=pin_factory))
            if buzzer_pin is not None:
                self.buzzer = Buzzer(buzzer_pin, pin_factory=pin_factory)
        except Exception:
            self.close()
            raise
        self.shown = Indication((False,) * len(SEATS), False)

    def apply(self, view: ClockView) -> Indication:
        """Show a view; only devices whose state changes are written."""
        new = indication(view, self.config, self.warning_ns)
        for led, was, now in zip(self.leds, self.shown.leds, new.leds, strict=True):
            if was != now:
                led.value = now
        if self.buzzer is not None and new.buzzer != self.shown.buzzer:
            self.buzzer.value = new.buzzer
        self.shown = new
        return new

    def off(self) -> None:
        for led in self.leds:
            led.off()
        if self.buzzer is not None:
            self.buzzer.off()
        self.shown = Indication((False,) * len(SEATS), False)

    def close(self) -> None:
        for led in self.leds:
            led.close()
        if self.buzzer is not None:
            self.buzzer.close()
        self.leds = []
        self.buzzer = None
