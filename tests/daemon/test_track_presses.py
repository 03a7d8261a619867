"""Clock button presses through the one fold (daemon/tracking): a GPIO seat press makes exactly
the record the table link's clock key (seat key 0) makes, also when it first closes an open meld
area, and the referee's pause button toggles the clocks as they are folded from the log."""

from __future__ import annotations

import asyncio

from test_tracker_shell import FakeSink, _pon_pending
from track_kit import Table, game_start

from daemon import clocks as dc
from daemon.tracker import DeviceTracker
from daemon.tracking.held import Held
from daemon.tracking.records import KIND_INPUT, KIND_TIMER, Entry
from daemon.tracking.track import track
from drivers.link import messages as m
from drivers.link.messages import SeatKey
from drivers.presses import RefereePress, SeatPress
from rules import inputs as ri
from rules import timers as rt
from rules.seats import SEATS, Seat
from rules.tiles import Tile


def _record(e: Entry) -> tuple[str, str, dict[str, object]]:
    return e.kind, e.source, e.as_json()


def _dealt() -> Table:
    t = Table()
    t.feed_all([game_start("wmc", dealer=1), m.StartPressed(), m.Dice((3, 4)), m.Dice((2, 2))])
    return t


def test_a_gpio_seat_press_is_the_link_clock_key() -> None:
    t = _dealt()
    for seat in SEATS:
        gpio = track(t.held, t.state, SeatPress(1_000 + int(seat), seat), t.setup)
        link = track(t.held, t.state, m.SeatButton(int(seat), SeatKey.CLOCK), t.setup)
        assert [_record(e) for e in gpio.entries] == [_record(e) for e in link.entries] == [
            (KIND_TIMER, f"button:{int(seat)}", {"type": "button", "seat": int(seat)})]
        assert (gpio.held, gpio.more) == (link.held, link.more) == (t.held, False)
        # the GPIO edge's instant is the clock's; the link reports none (stamped on intake)
        assert gpio.entries[0].mono_ns == 1_000 + int(seat)
        assert link.entries[0].mono_ns is None


def test_a_gpio_press_closes_an_open_meld_area_first_like_the_link_key() -> None:
    gpio, link = _pon_pending(), _pon_pending()
    assert gpio.held == link.held and gpio.held.melds != ()
    got_gpio = gpio.feed(SeatPress(77, Seat.S2))
    got_link = link.feed(m.SeatButton(2, SeatKey.CLOCK))
    assert [_record(e) for e in got_gpio] == [_record(e) for e in got_link]
    assert [e.kind for e in got_gpio] == [KIND_INPUT, KIND_TIMER]
    assert ri.input_from_json(got_gpio[0].as_json()) == ri.Call(
        seat=Seat.S2, kind="pon", tiles=(Tile(0), Tile(1)))
    assert gpio.held == link.held and gpio.held.melds == ()
    assert gpio.state == link.state


def _clocks() -> dc.Clocks:
    rules = rt.wmc_rules()
    state, _ = rt.step(rt.new_hand(rules), rt.Deal(0, Seat.S0))
    return dc.Clocks(rules, state)


def test_the_referee_button_toggles_the_clocks_as_folded_from_the_log() -> None:
    clocks = _clocks()
    assert clocks.state is not None and not clocks.state.paused
    seen = []
    for t_ns in (10, 20, 30):
        out = track(Held(), None, RefereePress(t_ns), clocks=clocks.state)
        (entry,) = out.entries
        assert (entry.kind, entry.source, entry.mono_ns) == (KIND_TIMER, "button:referee", t_ns)
        seen.append(entry.as_json()["type"])
        clocks, _ = dc.apply_record(clocks, entry.as_json(), t_ns)  # what the core folds
        assert clocks.state is not None
        assert clocks.state.paused == (entry.as_json()["type"] == "pause")
    assert seen == ["pause", "resume", "pause"]
    # no hand, no clocks: a pause (which the clocks ignore), never a guess at resume
    (entry,) = track(Held(), None, RefereePress(5)).entries
    assert entry.as_json() == {"type": "pause"}


def test_the_referee_button_closes_no_meld_area() -> None:
    t = _pon_pending()
    out = track(t.held, t.state, RefereePress(9), t.setup, clocks=_clocks().state)
    assert not out.more and out.held == t.held and out.held.melds != ()
    assert [e.as_json()["type"] for e in out.entries] == ["pause"]


async def test_the_shell_commits_a_press_with_its_instant_and_the_link_key_without() -> None:
    t = _dealt()
    sink = FakeSink(t.state, [(e.kind, e.source, e.as_json()) for e in t.log])
    tracker = DeviceTracker()
    task = asyncio.create_task(tracker.run(sink))  # type: ignore[arg-type]
    try:
        await asyncio.wait_for(tracker.take(m.SeatButton(1, SeatKey.CLOCK)), 10)
        tracker.feed(SeatPress(123_456, Seat.S1))
        await asyncio.wait_for(tracker.wait_consumed(2), 10)
    finally:
        task.cancel()
    link, gpio = sink.commits[-2:]
    assert link == gpio == ("timer", "button:1", {"type": "button", "seat": 1}, None)
    assert sink.stamps[-2:] == [None, 123_456]
