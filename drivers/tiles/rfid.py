"""The RFID side of the daemon: run every configured reader and turn tags into tile reads.

:class:`RfidTiles` is the imperative shell around the pure :class:`TileSensor`: readers push
their events into one queue (so reads from all readers are judged in arrival order against one
location model), each :class:`TagSeen` goes through the sensor, and every outcome — tile read,
rejection, reader fault — is handed to ``emit``. Nothing is dropped: a consumer sees one event for
every tag and every fault.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Sequence
from typing import Protocol

from drivers.tiles.errors import ReaderStoppedError, SensorConfigError
from drivers.tiles.events import ReaderEvent, ReaderFault, Rejection, TagSeen, TileRead
from drivers.tiles.sensor import TileSensor

RfidEvent = TileRead | Rejection | ReaderFault


class TagReader(Protocol):
    name: str

    async def run(self, emit: Callable[[ReaderEvent], None]) -> None: ...


class RfidTiles:
    def __init__(self, readers: Sequence[TagReader], sensor: TileSensor,
                 emit: Callable[[RfidEvent], None]) -> None:
        names = [r.name for r in readers]
        unmapped = [n for n in names if n not in sensor.places]
        if unmapped:
            raise SensorConfigError(f"readers without a place: {unmapped}")
        self.readers = tuple(readers)
        self.sensor = sensor
        self._emit = emit
        self._queue: asyncio.Queue[ReaderEvent] = asyncio.Queue()

    def reset(self) -> None:
        """A new hand (the table shuffled): every tile back in the wall."""
        self.sensor = self.sensor.reset()

    def handle(self, ev: ReaderEvent) -> None:
        if isinstance(ev, TagSeen):
            self.sensor, out = self.sensor.feed(ev)
            self._emit(out)
        else:
            self._emit(ev)

    async def run(self) -> None:
        """Until cancelled; a reader that crashes (a bug, not an unplug) stops it loudly."""
        tasks = [asyncio.create_task(r.run(self._queue.put_nowait), name=f"rfid:{r.name}")
                 for r in self.readers]
        try:
            while True:
                get = asyncio.ensure_future(self._queue.get())
                done, _ = await asyncio.wait([get, *tasks], return_when=asyncio.FIRST_COMPLETED)
                if get not in done:
                    get.cancel()
                    crashed = next(t for t in tasks if t in done)
                    raise ReaderStoppedError(f"RFID reader task {crashed.get_name()} ended") from (
                        crashed.exception())
                self.handle(get.result())
        finally:
            for t in tasks:
                t.cancel()
            for t in tasks:
                with contextlib.suppress(asyncio.CancelledError):
                    await t
