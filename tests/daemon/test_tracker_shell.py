"""The tracker's async shell around the pure fold: records committed in order, ``held`` restored
from the log by the same fold, and a table event's link position committed with its last record
-- also when the event first closes a meld area (the meld's input, then the event's own)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

from test_track_fold import _meld_wall, _turn
from track_kit import Table, melds, read

from daemon.clocks import Clocks
from daemon.log_values import LinkPosition
from daemon.tracker import DeviceTracker
from daemon.tracking.records import KIND_INPUT, Body, body_json
from drivers.link import messages as m
from drivers.link.messages import SeatKey
from drivers.link.reports import RxPosition
from drivers.tiles.registry import TagRegistry
from drivers.tiles.sensor import TileSensor
from rules import inputs as ri
from rules.reducer import reduce
from rules.seats import Seat
from rules.table_state import TableState
from rules.tiles import Tile


@dataclass
class FakeSink:
    """The service as the tracker sees it: the log (records with their link position) and the
    state folded from it."""

    state: TableState
    records: list[tuple[str, str, dict[str, Any]]]
    commits: list[tuple[str, str, dict[str, Any], LinkPosition | None]] = field(
        default_factory=list)

    stamps: list[int | None] = field(default_factory=list)  # each commit's mono_ns

    async def submit(self, kind: str, source: str, typed: Body, *,
                     mono_ns: int | None = None, link: LinkPosition | None = None) -> None:
        body = body_json(typed)  # what the log writes, and a restart reads
        self.commits.append((kind, source, body, link))
        self.stamps.append(mono_ns)
        self.records.append((kind, source, body))
        if kind == KIND_INPUT:
            self.state, _ = reduce(self.state, ri.input_from_json(body))

    async def mark_link(self, position: LinkPosition) -> None:
        self.commits.append(("link", "", {}, position))

    def table_state(self) -> TableState:
        return self.state

    def timers_state(self) -> Clocks:
        return Clocks()

    async def game_records(self) -> list[Any]:
        return [SimpleNamespace(kind=k, source=s, body=b) for k, s, b in self.records]


def _pon_pending() -> Table:
    """Seat 2 has laid a pon in its meld area (not closed yet)."""
    t, wall = _meld_wall("mleague", 2, [0, 1], discard=3)
    _turn(t, 0, wall)
    t.feed_all([read(melds(2), Tile(i)) for i in (0, 1, 3)])
    assert t.held.melds_of(Seat.S2) is not None
    return t


async def _take(sink: FakeSink, event: m.TableEvent, position: LinkPosition) -> DeviceTracker:
    tracker = DeviceTracker((), TileSensor(TagRegistry({}), {}))
    task = asyncio.create_task(tracker.run(sink))  # type: ignore[arg-type]
    try:
        await asyncio.wait_for(tracker.take(event, position), 10)
    finally:
        task.cancel()
    return tracker


async def test_a_meld_closed_by_a_table_event_is_logged_and_the_event_with_its_position() -> None:
    t = _pon_pending()
    sink = FakeSink(t.state, [(e.kind, e.source, e.as_json()) for e in t.log])
    pos = LinkPosition("table", RxPosition(7, 42))
    tracker = await _take(sink, m.SeatButton(2, SeatKey.CLOCK), pos)
    assert tracker.held.melds == ()  # restored from the log, then closed
    (k1, s1, b1, l1), (k2, s2, b2, l2) = sink.commits
    assert (k1, s1, l1) == ("input", "seat:2", None)
    assert ri.input_from_json(b1) == ri.Call(seat=Seat.S2, kind="pon", tiles=(Tile(0), Tile(1)))
    assert (k2, s2, b2, l2) == ("timer", "button:2", {"type": "button", "seat": 2}, pos)


async def test_killed_between_the_meld_and_the_event_the_resent_event_is_taken_once() -> None:
    t = _pon_pending()
    sink = FakeSink(t.state, [(e.kind, e.source, e.as_json()) for e in t.log])
    event, pos = m.SeatButton(2, SeatKey.CLOCK), LinkPosition("table", RxPosition(7, 42))
    await _take(sink, event, pos)
    # the log as a kill after the meld's commit left it: the pon, not the event, no position
    log = sink.records[:-1]
    again = FakeSink(sink.state, list(log))
    tracker = await _take(again, event, pos)  # the controller resends the unacknowledged event
    assert again.commits == [("timer", "button:2", {"type": "button", "seat": 2}, pos)]
    assert tracker.inputs == 0


async def _up(sink: FakeSink) -> tuple[DeviceTracker, asyncio.Task[None]]:
    """A tracker whose task has restored ``held`` and waits for items."""
    tracker = DeviceTracker((), TileSensor(TagRegistry({}), {}))
    task = asyncio.create_task(tracker.run(sink))  # type: ignore[arg-type]
    for _ in range(1000):
        if tracker.health()["status"] == "up":
            break
        await asyncio.sleep(0.001)
    return tracker, task


@dataclass
class SlowSink(FakeSink):
    """A commit that waits (an fsync on the database thread): the caller's task suspends."""

    async def submit(self, kind: str, source: str, typed: Body, *,
                     mono_ns: int | None = None, link: LinkPosition | None = None) -> None:
        await asyncio.sleep(0.01)
        await super().submit(kind, source, typed, mono_ns=mono_ns, link=link)


async def test_an_idle_tracker_handles_a_table_event_in_the_drivers_task_a_busy_one_queues_it(
) -> None:
    """Nothing queued: the event is handled by its caller's task (no hand-off), its records and
    position committed before ``take`` returns; an event taken while another is being handled
    waits its turn in the queue, in arrival order."""
    t = _pon_pending()
    sink = SlowSink(t.state, [(e.kind, e.source, e.as_json()) for e in t.log])
    tracker, task = await _up(sink)
    try:
        pos = LinkPosition("table", RxPosition(7, 42))
        await asyncio.wait_for(tracker.take(m.SeatButton(2, SeatKey.CLOCK), pos), 10)
        assert tracker.inline == 1 and tracker.consumed == 1
        assert sink.commits[-1] == ("timer", "button:2", {"type": "button", "seat": 2}, pos)
        first, second = (LinkPosition("table", RxPosition(7, s)) for s in (43, 44))
        both = asyncio.gather(tracker.take(m.SeatButton(1, SeatKey.CLOCK), first),
                              tracker.take(m.SeatButton(3, SeatKey.CLOCK), second))
        await asyncio.wait_for(both, 10)
        assert tracker.inline == 2  # the second found the first being handled: queued
        assert [c[3] for c in sink.commits[-2:]] == [first, second]
    finally:
        task.cancel()


@dataclass
class BrokenSink(FakeSink):
    async def submit(self, kind: str, source: str, typed: Body, *,
                     mono_ns: int | None = None, link: LinkPosition | None = None) -> None:
        raise ZeroDivisionError("a bug in the commit")


async def test_a_tracker_failing_on_a_table_event_in_the_drivers_task_tells_it_and_restarts(
) -> None:
    """As on a queued item: the driver gets TrackerError, and the tracker's task ends with it
    (its supervisor restarts it, restoring ``held`` from the log)."""
    from daemon.errors import TrackerError

    sink = BrokenSink(TableState(), [])
    tracker, task = await _up(sink)
    try:
        pos = LinkPosition("table", RxPosition(7, 42))
        try:
            await asyncio.wait_for(tracker.take(m.SeatButton(2, SeatKey.CLOCK), pos), 10)
        except TrackerError as exc:
            assert isinstance(exc.__cause__, ZeroDivisionError)
        else:
            raise AssertionError("the driver was not told")
        done, _ = await asyncio.wait([task], timeout=10)
        assert done and isinstance(task.exception(), TrackerError)
        assert tracker.health()["status"] == "closed"
    finally:
        task.cancel()
