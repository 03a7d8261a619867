"""Warning LEDs and buzzer on gpiozero's MockFactory pins (drivers/leds.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from drivers.leds import ClockIndicators, Indication, IndicatorConfig, indication
from rules.seats import Seat
from rules.timers import (
    Deal,
    Discard,
    Pause,
    TimerState,
    clock_view,
    seconds_to_ns,
    step,
    wmc_rules,
)

LED_PINS = (5, 6, 13, 19)
BUZZER_PIN = 26
RULES = wmc_rules()  # 15 s turns after a 15 s grace, warning at 5 s left


def ns(seconds: float) -> int:
    return seconds_to_ns(seconds)


@pytest.fixture
def factory() -> Iterator[MockFactory]:
    previous = Device.pin_factory
    Device.pin_factory = factory = MockFactory()
    yield factory
    factory.reset()
    Device.pin_factory = previous


def dealt() -> TimerState:
    state, _ = step(TimerState(RULES), Deal(0))
    return state


def lit(factory: MockFactory) -> list[bool]:
    return [bool(factory.pin(p).state) for p in LED_PINS]


def buzzing(factory: MockFactory) -> bool:
    return bool(factory.pin(BUZZER_PIN).state)


def test_lamps_follow_the_running_seat(factory: MockFactory) -> None:
    state = dealt()
    cfg = IndicatorConfig(blink_period_seconds=0.5, buzz_seconds=1.0, chirp_seconds=0.15)
    ind = ClockIndicators(LED_PINS, BUZZER_PIN, warning_seconds=RULES.warning_seconds, config=cfg)
    try:
        ind.apply(clock_view(state, ns(20)))  # 5 s charged, 10 left
        assert lit(factory) == [False] * 4 and not buzzing(factory)

        ind.apply(clock_view(state, ns(25.05)))  # 4.95 s left: warning starts, with a chirp
        assert lit(factory) == [True, False, False, False] and buzzing(factory)
        ind.apply(clock_view(state, ns(25.5)))  # chirp over, lamp steady
        assert lit(factory) == [True, False, False, False] and not buzzing(factory)

        ind.apply(clock_view(state, ns(30.1)))  # 0.1 s over: blinking (on phase), buzzing
        assert lit(factory) == [True, False, False, False] and buzzing(factory)
        ind.apply(clock_view(state, ns(30.3)))  # off phase of the blink
        assert lit(factory) == [False] * 4 and buzzing(factory)
        ind.apply(clock_view(state, ns(31.6)))  # 1.6 s over: on phase, the buzz is over
        assert lit(factory) == [True, False, False, False] and not buzzing(factory)

        state, _ = step(state, Discard(ns(32), Seat.S0))  # South's turn starts: all dark
        ind.apply(clock_view(state, ns(33)))
        assert lit(factory) == [False] * 4 and not buzzing(factory)
    finally:
        ind.close()


def test_pause_silences_the_buzzer_and_holds_the_lamp(factory: MockFactory) -> None:
    state, _ = step(dealt(), Pause(ns(30.2)))
    ind = ClockIndicators(LED_PINS, BUZZER_PIN, warning_seconds=RULES.warning_seconds)
    try:
        shown = ind.apply(clock_view(state, ns(100)))
        assert shown == Indication((True, False, False, False), False)
        assert lit(factory)[0] and not buzzing(factory)
    finally:
        ind.close()


def test_off_mode_never_lights(factory: MockFactory) -> None:
    state, _ = step(TimerState(wmc_rules(mode="off")), Deal(0))
    ind = ClockIndicators(LED_PINS, None, warning_seconds=5.0)
    try:
        assert ind.apply(clock_view(state, ns(200))) == Indication((False,) * 4, False)
        assert lit(factory) == [False] * 4
        ind.off()
    finally:
        ind.close()


def test_indication_is_pure_and_uses_the_nearer_limit() -> None:
    rules = wmc_rules(per_hand_seconds=17.0)  # the hand budget runs out before the turn limit
    state, _ = step(TimerState(rules), Deal(0))
    cfg = IndicatorConfig()
    view = clock_view(state, ns(29))  # 14 s used: 3 s of hand left, 1 s of turn
    assert indication(view, cfg, rules.warning_ns).leds == (True, False, False, False)
    view = clock_view(state, ns(33))  # 1 s over the hand budget
    a = indication(view, cfg, rules.warning_ns)
    assert a == indication(view, cfg, rules.warning_ns)
    assert a.buzzer is False  # buzz_seconds (1 s) is over


def test_bad_configuration() -> None:
    with pytest.raises(ValueError, match="blink_period_seconds"):
        IndicatorConfig(blink_period_seconds=0)
    with pytest.raises(ValueError, match="buzz_seconds"):
        IndicatorConfig(buzz_seconds=-1)


def test_four_led_pins_are_required(factory: MockFactory) -> None:
    with pytest.raises(ValueError, match="4 pins"):
        ClockIndicators(LED_PINS[:2], warning_seconds=5.0)
