"""The buttons driver lights a seat's warning LED and sounds the buzzer from the live clocks
(WMC: 15 s a turn, warning at 5 s left), on gpiozero's MockFactory pins."""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

from gpiozero.pins.mock import MockFactory

from daemon import clocks as dc
from daemon.devices import ButtonsDriver
from rules import inputs as ri
from rules.seats import Seat

SEAT_PINS = (5, 6, 13, 19)
LED_PINS = (12, 16, 20, 21)
BUZZER = 26


class Sink:
    """Just the clocks part of the service's input sink (and an empty log to restore from)."""

    def __init__(self, clocks: dc.Clocks) -> None:
        self.clocks = clocks

    def put(self, kind: str, source: str, body: dict[str, Any], mono_ns: int | None = None) -> Any:
        raise AssertionError("no button is pressed in this test")

    def timers_state(self) -> dc.Clocks:
        return self.clocks

    async def game_records(self) -> list[Any]:  # the buttons' own tracker restores from these
        return []


def _wmc_clocks(dealt_ago_s: float) -> dc.Clocks:
    clocks, _ = dc.follow(dc.Clocks(), ri.GameStart(ruleset="wmc", first_dealer=Seat.S0),
                          0, "table", None)
    t = time.monotonic_ns() - int(dealt_ago_s * 1e9)
    clocks, _ = dc.follow(clocks, ri.DealDone(), t, "table", 0)
    return clocks


async def _lamps(factory: MockFactory, clocks: dc.Clocks) -> tuple[list[bool], bool]:
    driver = ButtonsDriver(SEAT_PINS, None, factory, led_pins=LED_PINS, buzzer_pin=BUZZER)
    task = asyncio.create_task(driver.run(Sink(clocks)))
    try:
        for _ in range(100):
            if driver.indication is not None:
                break
            await asyncio.sleep(0.02)
        leds = [bool(factory.pin(p).state) for p in LED_PINS]
        return leds, bool(factory.pin(BUZZER).state)
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def test_led_lights_when_the_running_seat_is_low_on_time() -> None:
    factory = MockFactory()
    # grace 15 s + 12 s of the dealer's 15 s turn: 3 s left, under the 5 s warning
    leds, buzzer = await _lamps(factory, _wmc_clocks(15 + 12))
    assert leds == [True, False, False, False]
    assert buzzer is False


async def test_nothing_lit_with_time_to_spare() -> None:
    factory = MockFactory()
    leds, buzzer = await _lamps(factory, _wmc_clocks(15 + 2))
    assert leds == [False, False, False, False] and buzzer is False


async def test_buzzer_at_the_start_of_an_overtime() -> None:
    factory = MockFactory()
    # 0.1 s past the 15 s turn limit: inside the buzzer's first second of overtime
    _leds, buzzer = await _lamps(factory, _wmc_clocks(15 + 15.1))
    assert buzzer is True
