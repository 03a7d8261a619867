"""The seat and referee buttons on gpiozero's MockFactory pins (drivers/buttons.py)."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory, MockPin

from daemon.clocks import timer_input as clock_input
from daemon.tracking.held import Held
from daemon.tracking.track import track
from drivers.buttons import ButtonPress, ClockButtons, RefereePress, SeatPress
from rules.seats import Seat
from rules.timers import (
    Deal,
    Discard,
    DuplicateDiscard,
    Pause,
    Resume,
    Source,
    TimerInput,
    TimerState,
    new_hand,
    step,
    wmc_rules,
)


def timer_input(press: ButtonPress, state: TimerState) -> TimerInput | None:
    """What the daemon makes of a press: the tracker's record (daemon/tracking), as the clocks
    read it back from the log."""
    (entry,) = track(Held(), None, press, clocks=state).entries
    assert entry.mono_ns == press.t_ns
    return clock_input(dict(entry.body), press.t_ns)


SEAT_PINS = (17, 27, 22, 23)
REFEREE_PIN = 24
LONG = 10_000_000_000  # a debounce window no test run can outlast between two calls


@pytest.fixture
def factory() -> Iterator[MockFactory]:
    previous = Device.pin_factory
    Device.pin_factory = factory = MockFactory()
    yield factory
    factory.reset()
    Device.pin_factory = previous


def pin(factory: MockFactory, number: int) -> MockPin:
    p = factory.pin(number)
    assert isinstance(p, MockPin)
    return p


async def next_press(buttons: ClockButtons) -> ButtonPress:
    return await asyncio.wait_for(buttons.presses.get(), timeout=5)


async def test_a_press_is_timestamped_in_the_callback(factory: MockFactory) -> None:
    with ClockButtons(SEAT_PINS, REFEREE_PIN) as buttons:
        before = time.monotonic_ns()
        pin(factory, SEAT_PINS[2]).drive_low()
        after = time.monotonic_ns()
        press = await next_press(buttons)
        assert isinstance(press, SeatPress) and press.seat is Seat.S2
        assert before <= press.t_ns <= after
        pin(factory, SEAT_PINS[2]).drive_high()
        await asyncio.sleep(0)
        assert buttons.presses.empty()


async def test_bounces_make_one_press(factory: MockFactory) -> None:
    with ClockButtons(SEAT_PINS, window_ns=LONG) as buttons:
        p = pin(factory, SEAT_PINS[0])
        for _ in range(5):
            p.drive_low()
            p.drive_high()
        press = await next_press(buttons)
        assert press == SeatPress(press.t_ns, Seat.S0)
        for _ in range(3):
            await asyncio.sleep(0)
        assert buttons.presses.empty()
        assert buttons.counters.raw_edges == 10 and buttons.counters.presses == 1


async def test_presses_after_a_quiet_window_all_count(factory: MockFactory) -> None:
    with ClockButtons(SEAT_PINS, window_ns=1_000_000) as buttons:
        p = pin(factory, SEAT_PINS[1])
        times = []
        for _ in range(3):
            p.drive_low()
            time.sleep(0.005)  # sleep() lasts at least this long: the window (1 ms) is quiet
            p.drive_high()
            time.sleep(0.005)
            press = await next_press(buttons)
            times.append(press.t_ns)
        assert times == sorted(times) and len(set(times)) == 3


async def test_each_seat_and_the_referee(factory: MockFactory) -> None:
    with ClockButtons(SEAT_PINS, REFEREE_PIN, window_ns=LONG) as buttons:
        for seat, number in enumerate(SEAT_PINS):
            pin(factory, number).drive_low()
            press = await next_press(buttons)
            assert isinstance(press, SeatPress) and press.seat == Seat(seat)
        pin(factory, REFEREE_PIN).drive_low()
        assert isinstance(await next_press(buttons), RefereePress)


async def test_presses_driven_from_another_thread_reach_the_loop_in_order(
    factory: MockFactory,
) -> None:
    with ClockButtons(SEAT_PINS, window_ns=LONG) as buttons:
        stamps: list[int] = []

        def drive() -> None:
            for number in SEAT_PINS:
                stamps.append(time.monotonic_ns())
                pin(factory, number).drive_low()

        thread = threading.Thread(target=drive)
        thread.start()
        got = [await next_press(buttons) for _ in SEAT_PINS]
        thread.join()
        assert [p.seat for p in got if isinstance(p, SeatPress)] == list(Seat)
        assert all(s <= p.t_ns for s, p in zip(stamps, got, strict=True))


async def test_on_press_callback_runs_on_the_loop(factory: MockFactory) -> None:
    seen: list[tuple[ButtonPress, int]] = []
    loop_thread = threading.get_ident()
    with ClockButtons(
        SEAT_PINS, on_press=lambda p: seen.append((p, threading.get_ident()))
    ) as buttons:
        thread = threading.Thread(target=pin(factory, SEAT_PINS[3]).drive_low)
        thread.start()
        thread.join()
        for _ in range(3):
            await asyncio.sleep(0)
        assert [(type(p), ident) for p, ident in seen] == [(SeatPress, loop_thread)]
        assert buttons.presses.empty()


def test_a_press_after_the_loop_closed_is_dropped(factory: MockFactory) -> None:
    loop = asyncio.new_event_loop()
    buttons = ClockButtons(SEAT_PINS, loop=loop)
    loop.close()
    pin(factory, SEAT_PINS[0]).drive_low()  # must not raise on the gpiozero thread
    buttons.close()


def test_four_seat_pins_are_required(factory: MockFactory) -> None:
    loop = asyncio.new_event_loop()
    try:
        with pytest.raises(ValueError, match="4 pins"):
            ClockButtons(SEAT_PINS[:3], loop=loop)
    finally:
        loop.close()


def test_close_releases_the_pins(factory: MockFactory) -> None:
    loop = asyncio.new_event_loop()
    try:
        ClockButtons(SEAT_PINS, REFEREE_PIN, loop=loop).close()
        ClockButtons(SEAT_PINS, REFEREE_PIN, loop=loop).close()  # the pins are free again
    finally:
        loop.close()


async def test_buttons_drive_the_clocks_and_the_sensor_report_is_deduplicated(
    factory: MockFactory,
) -> None:
    state, _ = step(new_hand(wmc_rules()), Deal(0))
    with ClockButtons(SEAT_PINS, REFEREE_PIN, window_ns=LONG) as buttons:
        pin(factory, SEAT_PINS[0]).drive_low()
        press = await next_press(buttons)
        inp = timer_input(press, state)
        assert inp == Discard(press.t_ns, Seat.S0, Source.BUTTON)
        state, events = step(state, inp)
        assert state.turn is not None and state.turn.seat is Seat.S1
        # the tile sensors see the same discard a little later
        state, events = step(state, Discard(press.t_ns + 1000, Seat.S0, Source.SENSOR))
        assert events == (DuplicateDiscard(press.t_ns + 1000, Seat.S0, Source.SENSOR),)
        assert state.turn is not None and state.turn.seat is Seat.S1

        pin(factory, REFEREE_PIN).drive_low()
        ref = await next_press(buttons)
        pause = timer_input(ref, state)
        assert pause == Pause(ref.t_ns)
        state, events = step(state, pause)
        assert events == () and state.paused
        assert timer_input(RefereePress(ref.t_ns + 1), state) == Resume(ref.t_ns + 1)
