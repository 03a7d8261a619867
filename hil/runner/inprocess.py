"""The daemon side: the production service (``daemon.service.Service``) with the drivers its
venue config names, in this process, and a tap that keeps every event it publishes."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from daemon.tracker import DeviceTracker
from hil.errors import EmulatorTimeout, ProcessStartError
from hil.runner.result import table_scores
from rules import inputs as ri


class EventTap:
    """A daemon driver that keeps every event envelope the service publishes (and the latest
    scoreboard): what a subscriber of ``events`` would receive, in order."""

    name = "tap"

    def __init__(self, on_events: Callable[[dict[str, Any], Sequence[dict[str, Any]]], None]
                 | None = None) -> None:
        self.envelopes: list[dict[str, Any]] = []
        self.board: dict[str, Any] = {}  # the last scoreboard (rules.table_view.scoreboard)
        self.on_events = on_events

    async def run(self, sink: Any) -> None:
        await asyncio.Event().wait()

    async def show(self, board: dict[str, Any], events: Sequence[dict[str, Any]]) -> None:
        self.envelopes.extend(events)
        self.board = board
        if self.on_events is not None:
            self.on_events(board, events)

    def health(self) -> dict[str, Any]:
        return {"kind": "tap", "status": "up", "events": len(self.envelopes)}

    @property
    def data(self) -> list[dict[str, Any]]:
        return [e["data"] for e in self.envelopes]


class InProcessDaemon:
    """The production service with the drivers its config names, in this process."""

    def __init__(self, config_text: str, source: Path, gpio: Any,
                 on_events: Callable[[dict[str, Any], Sequence[dict[str, Any]]], None]
                 | None = None) -> None:
        from daemon.config import parse_config
        from daemon.devices import build_drivers
        from daemon.engine import load_engine
        from daemon.service import Service

        self.config = parse_config(config_text, source)
        drivers = build_drivers(self.config, pin_factory=gpio)
        self.tap = EventTap(on_events)
        self.tracker = next(d for d in drivers if isinstance(d, DeviceTracker))
        self.service = Service(self.config, load_engine(), drivers=[*drivers, self.tap],
                               ready_timeout=0.5)
        self._task: asyncio.Task[int] | None = None

    async def __aenter__(self) -> InProcessDaemon:
        self._task = asyncio.create_task(self.service.run(), name="daemon")
        ready = asyncio.create_task(self.service.ready.wait())
        done, _ = await asyncio.wait([ready, self._task], return_when=asyncio.FIRST_COMPLETED)
        if self._task in done:
            ready.cancel()
            raise ProcessStartError(f"the daemon stopped at start: {self._task.result()}")
        # a serial port flushes its input when opened: play starts once every reader is open
        readers = len(self.tracker.tiles.readers) if self.tracker.tiles is not None else 0
        deadline = time.monotonic() + 30
        while self.tracker.reader_connects < readers and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.service.stop()
        if self._task is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._task, 15)

    async def submit_referee(self, inp: ri.Input) -> None:
        from daemon.tracking.records import KIND_INPUT

        await self.service.submit(KIND_INPUT, "referee:hil", ri.input_to_json(inp))
        await self.settled()  # its events are the last game's, not the next one's

    async def sync(self, consumed: int, timeout: float = 30.0, ordering: bool = True) -> None:
        await self.tracker.wait_consumed(consumed, timeout)
        # the tracker's last input is queued: wait until the service has applied it
        await asyncio.wait_for(self.service.queue.join(), timeout)

    @property
    def events(self) -> list[dict[str, Any]]:
        return self.tap.data

    @property
    def envelopes(self) -> list[dict[str, Any]]:
        return self.tap.envelopes

    async def drained(self, timeout: float = 20.0) -> None:
        """Until the broker has acknowledged every event (the outbox is empty)."""
        deadline = time.monotonic() + timeout
        while self.service.eventlog.outbox_depth() and time.monotonic() < deadline:
            await asyncio.sleep(0.1)

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    async def step_done(self, expected_inputs: int) -> None:
        """Lockstep is per device event in-process (:meth:`sync`): nothing more to wait for."""

    async def settled(self, timeout: float = 10.0) -> None:
        """Until the tap has seen every event the core has made: the service shows a group's
        events to its drivers after the outbox had its turn (daemon/service.py ``_applied``),
        so an input can be applied a moment before the tap sees its events."""
        deadline = time.monotonic() + timeout
        while self._shown() < self.service.core.state.event_seq:
            if time.monotonic() > deadline:
                raise EmulatorTimeout(f"the tap saw events up to {self._shown()}, the core made "
                                   f"{self.service.core.state.event_seq}")
            await asyncio.sleep(0.005)

    def _shown(self) -> int:
        seen = self.tap.envelopes
        return int(seen[-1]["seq"]) if seen else 0

    def stats(self) -> tuple[int, int, Counter[str]]:
        """(rejected reads, reader faults, rejections by reason) so far."""
        t = self.tracker
        return t.rejected, t.reader_faults, Counter(t.reasons)

    def scores(self) -> list[int] | None:
        return table_scores(self.service.core.state.table)

    def game_running(self) -> bool:
        st = self.service.core.state.table
        return st.game is not None and not st.game_over

    def published(self) -> int:
        return self.service.core.state.event_seq

    def outbox_depth(self) -> int:
        return self.service.eventlog.outbox_depth()
