"""The chess-clock buttons: one gpiozero Button per seat, and the referee's pause button.

gpiozero calls our callbacks on its own threads (the pin's edge thread; with MockFactory, the
thread that drives the pin). The callback does the least possible there: it reads
``time.monotonic_ns()`` -- the instant the clock is charged to -- and hands the raw edge to the
asyncio loop captured at setup with ``loop.call_soon_threadsafe``. On the loop, the pure
debouncer (``drivers/debounce.py``) turns raw edges into presses, in arrival order, and puts them
on :attr:`ClockButtons.presses`. So how late the loop runs never changes a press's timestamp.
What a press means (a clock record) is the daemon's one translation from device to input
(``daemon/tracking/keys.py``), the same for a GPIO button and the table link's clock key.

Buttons are wired between the GPIO and ground with the internal pull-up: pressed = low.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from gpiozero import Button

from drivers.debounce import DEFAULT_WINDOW_NS, Debouncer
from drivers.gpio_errors import GpioConfigError
from drivers.presses import ButtonPress, RefereePress, SeatPress
from rules.seats import SEATS, Seat

REFEREE = "referee"
__all__ = ["REFEREE", "ButtonCounters", "ButtonPress", "ClockButtons", "RefereePress", "SeatPress"]


@dataclass(frozen=True, slots=True)
class ButtonCounters:
    raw_edges: int
    presses: int


class ClockButtons:
    """Seat buttons (seat 0..3 in ``seat_pins`` order) and an optional referee button.

    Build it inside the running loop (it captures ``asyncio.get_running_loop()``), or pass
    ``loop``. Read debounced presses from :attr:`presses`, or give ``on_press`` to be called on
    the loop for each press instead.
    """

    def __init__(
        self,
        seat_pins: Sequence[int | str],
        referee_pin: int | str | None = None,
        *,
        loop: asyncio.AbstractEventLoop | None = None,
        window_ns: int = DEFAULT_WINDOW_NS,
        on_press: Callable[[ButtonPress], None] | None = None,
        pin_factory: Any = None,
    ) -> None:
        if len(seat_pins) != len(SEATS):
            raise GpioConfigError(f"seat_pins: expected 4 pins (seats 0..3), got {seat_pins!r}")
        self._loop = loop if loop is not None else asyncio.get_running_loop()
        self.presses: asyncio.Queue[ButtonPress] = asyncio.Queue()
        self._on_press = on_press
        self._debouncers: dict[Seat | str, Debouncer] = {}
        self._raw = 0
        self._count = 0
        self._buttons: list[Button] = []
        keys: list[tuple[Seat | str, int | str]] = list(zip(SEATS, seat_pins, strict=True))
        if referee_pin is not None:
            keys.append((REFEREE, referee_pin))
        try:
            for key, pin in keys:
                button = Button(pin, pull_up=True, bounce_time=None, pin_factory=pin_factory)
                self._buttons.append(button)
                self._debouncers[key] = Debouncer(window_ns)
                button.when_pressed = self._callback(key, True)
                button.when_released = self._callback(key, False)
        except Exception:
            self.close()
            raise

    def _callback(self, key: Seat | str, closed: bool) -> Callable[[], None]:
        loop = self._loop

        def edge() -> None:  # on a gpiozero thread
            t_ns = time.monotonic_ns()
            with contextlib.suppress(RuntimeError):  # the loop is closed: shutting down
                loop.call_soon_threadsafe(self._edge, key, t_ns, closed)

        return edge

    def _edge(self, key: Seat | str, t_ns: int, closed: bool) -> None:  # on the loop
        self._raw += 1
        state, pressed = self._debouncers[key].feed(t_ns, closed)
        self._debouncers[key] = state
        if not pressed:
            return
        self._count += 1
        press: ButtonPress = SeatPress(t_ns, key) if isinstance(key, Seat) else RefereePress(t_ns)
        if self._on_press is not None:
            self._on_press(press)
        else:
            self.presses.put_nowait(press)

    @property
    def counters(self) -> ButtonCounters:
        return ButtonCounters(self._raw, self._count)

    def close(self) -> None:
        for button in self._buttons:
            button.when_pressed = None
            button.when_released = None
            button.close()
        self._buttons.clear()

    def __enter__(self) -> ClockButtons:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
