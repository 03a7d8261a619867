"""The device tracker: the async shell around the one translation from device to input.

A sensor table reports *physical* facts: a tile appeared on a seat's hand rack, in its river, in
its meld area, on the dora spot (``drivers/tiles``, RFID); the wall went up, the dice showed 3-4,
the wall opened there, an indicator was turned (the table link); a seat pressed a key on its
panel, or its GPIO clock button (``drivers/buttons``), or the referee the pause button. The pure
fold :func:`daemon.tracking.track.track` turns each into the records to log (rules inputs,
``tile_rejected`` / ``tracker_hold`` markers, clock records) from the table's state, the clocks'
state and what the tracker holds (:class:`daemon.tracking.held.Held`). Rules violations (a draw
out of turn, a wrong break) are *not* the tracker's business: the physical fact goes to the reducer,
which judges it. A read the fold cannot place is a rejected read (a ``tile_rejected`` marker, a
warning in the JSON log, a counter in health), never guessed into an input.

This shell only feeds items, commits the records through the sink in order (an item of several
steps: each step on the state after the previous one's input) and keeps ``held``. Where a tile
is, is the reducer's ``located`` plus ``held`` (daemon.tracking.held.where); the RFID sensor
model here keeps no locations of its own (``TileSensor(locations=None)``).

After a restart (kill -9, power loss) ``held`` is the same fold over the logged records of the
game (:func:`daemon.tracking.held.restore`), so a deal or a meld half read before the kill is
taken on as if nothing happened (docs/hil.md).

Seat panel keys (the table link's ``seat_button`` message, capability ``seat_buttons``): the
protocol's :class:`drivers.link.messages.SeatKey`; key 0 is the seat's clock button (a ``timer``
record). The constants below are those numbers, for the HIL rig and the tests.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Final

from daemon.errors import TrackerError
from daemon.intake import InputRefused
from daemon.log_values import LinkPosition
from daemon.tracking.held import Held, restore
from daemon.tracking.keys import BUTTONS
from daemon.tracking.records import KIND_INPUT, KIND_MARKER, Entry, is_tracked
from daemon.tracking.track import Item, Setup, track
from drivers.link.messages import SeatKey, StartPressed
from drivers.tiles.camera import CameraRead
from drivers.tiles.errors import ReaderStoppedError
from drivers.tiles.events import ReaderFault

if TYPE_CHECKING:
    from daemon.service import InputSink
    from drivers.link.messages import TableEvent
    from drivers.tiles.config import TilesConfig
    from drivers.tiles.rfid import RfidTiles, TagReader
    from drivers.tiles.sensor import TileSensor

log = logging.getLogger("jantaku.tracker")

# --- the seat panel: the protocol's numbering (drivers.link.messages.SeatKey) ------------------
CLOCK: Final = int(SeatKey.CLOCK)
RIICHI: Final = int(SeatKey.RIICHI)
TSUMO: Final = int(SeatKey.TSUMO)
RON: Final = int(SeatKey.RON)
TENPAI: Final = int(SeatKey.TENPAI)
NOTEN: Final = int(SeatKey.NOTEN)
NINE_TERMINALS: Final = int(SeatKey.NINE_TERMINALS)
FOUR_WINDS: Final = int(SeatKey.FOUR_WINDS)
FOUR_RIICHI: Final = int(SeatKey.FOUR_RIICHI)
FOUR_KANS: Final = int(SeatKey.FOUR_KANS)
__all__ = ["BUTTONS", "CLOCK", "FOUR_KANS", "FOUR_RIICHI", "FOUR_WINDS", "NINE_TERMINALS",
           "NOTEN", "RIICHI", "RON", "TENPAI", "TSUMO", "DeviceTracker"]


class DeviceTracker:
    """A daemon driver: the shell of the one translation from device to input. It takes the
    table link's events and seat keys, the RFID readers' reads (if the table has any: a table
    without tile sensors runs one too, for its keys and buttons), the clock buttons' presses and
    the camera's votes, and feeds the inputs and markers they make."""

    def __init__(self, readers: Sequence[TagReader] = (), sensor: TileSensor | None = None, *,
                 aka: bool = True, name: str = "tracker") -> None:
        from drivers.tiles.rfid import RfidTiles

        self.name = name
        self.tiles: RfidTiles | None = None
        if sensor is not None:
            # one owner of tile locations: the fold (the reducer's state + held), not the sensor
            self.tiles = RfidTiles(readers, replace(sensor, locations=None), self.feed)
        self.setup = Setup(aka=aka, sensed=sensor is not None)
        self.aka = aka
        self.held = Held()
        #: items in arrival order; None: a table event handled in its driver's task failed
        #: (:meth:`take`), the task restarts and restores ``held`` from the log
        self._queue: asyncio.Queue[Item | None] = asyncio.Queue()
        #: held while an item is handled (by the tracker's task, or by :meth:`take` inline)
        self._handling = asyncio.Lock()
        #: the sink while the task runs with ``held`` restored (None: table events queue)
        self._sink: InputSink | None = None
        self._failed: BaseException | None = None
        self.inline = 0  # table events handled in their driver's task (benches, tests)
        # id(table event) -> (handled, the link position to commit with its last record)
        self._waiters: dict[int, tuple[asyncio.Future[None], LinkPosition | None]] = {}
        self.consumed = 0  # device events handled (reads, rejections, table events, keys)
        self._consumed_changed = asyncio.Event()
        self.inputs = 0
        self.rejected = 0
        self.reader_faults = 0
        self.reader_connects = 0
        self.camera_reads = 0  # camera vote changes taken (evidence, daemon/camera.py)
        self.disagreements = 0  # of them, the ones that disagreed with where the tiles are
        self.last_disagreement: dict[str, Any] | None = None
        self.last_rejection: dict[str, Any] | None = None
        self.reasons: Counter[str] = Counter()  # rejections by reason
        self._status = "starting"

    @classmethod
    def from_config(cls, tiles: TilesConfig) -> DeviceTracker:
        """The tracker for a config's ``[tiles]`` section (readers and their enrolment)."""
        from drivers.tiles.config import build_readers
        from drivers.tiles.enroll import load
        from drivers.tiles.sensor import TileSensor

        # the config reader refuses readers without an enrolment (daemon/config/reading.py)
        assert tiles.enrolment is not None
        enrolment = load(tiles.enrolment)
        sensor = TileSensor(enrolment.registry(), tiles.places(),
                            window_ns=tiles.debounce_ms * 1_000_000, locations=None)
        return cls(build_readers(tiles), sensor, aka=enrolment.aka)

    # ------------------------------------------------------------------ intake
    def feed(self, item: Item) -> None:
        """A table event, an RFID outcome or a clock button's press, in arrival order (any
        caller on the loop: it never waits)."""
        self._queue.put_nowait(item)

    async def take(self, event: TableEvent, position: LinkPosition | None = None) -> None:
        """Feed a table event and wait until it is handled (its records committed): the table
        link acknowledges it only then. ``position`` (the link's, after this event) is committed
        in the same transaction as the event's last record, or alone if it makes none."""
        sink = self._sink
        handling = self._handling
        if sink is not None and self._queue.empty() and not handling.locked():
            # nothing before it: handled here, in the link driver's task, in arrival order all
            # the same (anything fed meanwhile waits for the lock), without the queue's
            # hand-off and the two wake-ups around it (docs/performance.md). The free lock is
            # taken at once; acquire/release, not ``async with``: two coroutines fewer a frame
            await handling.acquire()
            self.inline += 1
            try:
                await self._handle(sink, event, position)
            except BaseException as exc:
                self._failed_inline(exc)
                if not isinstance(exc, Exception):
                    raise
                raise TrackerError(f"tracker failed on {event!r}: {exc!r}") from exc
            finally:
                handling.release()
                self.consumed += 1
                self._consumed_changed.set()
            return
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters[id(event)] = (done, position)
        self.feed(event)
        await done

    def _failed_inline(self, exc: BaseException) -> None:
        """As when the task fails on an item: the caller is told, and the task restarts and
        restores ``held`` from the log (a step may have been committed without it); a cancelled
        driver (the daemon stopping) only has ``held`` restored."""
        self._sink, self._failed = None, exc
        self._queue.put_nowait(None)

    async def wait_consumed(self, n: int, timeout: float = 30.0) -> None:
        """Until ``n`` device events have been handled (the HIL runner's lockstep)."""
        async def _wait() -> None:
            while self.consumed < n:
                self._consumed_changed.clear()
                await self._consumed_changed.wait()

        await asyncio.wait_for(_wait(), timeout)

    # ------------------------------------------------------------------ driver
    async def run(self, sink: InputSink) -> None:
        await self._restore(sink)
        reader: asyncio.Task[None] | None = None
        if self.tiles is not None:
            reader = asyncio.create_task(self.tiles.run(), name="tracker:rfid")
        self._status = "up"
        self._failed = None
        self._sink = sink
        try:
            while True:
                item = await self._next(reader)
                if item is None:
                    failed, self._failed = self._failed, None
                    if isinstance(failed, Exception):
                        raise TrackerError(f"tracker failed on a table event: {failed!r}") \
                            from failed
                    async with self._handling:
                        await self._restore(sink)
                    self._sink = sink
                    continue
                async with self._handling:
                    await self._one(sink, item)
        finally:
            self._sink = None
            self._status = "closed"
            if reader is not None:
                reader.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await reader

    async def _next(self, reader: asyncio.Task[None] | None) -> Item | None:
        """The next item; raises once the RFID readers' task has stopped. Without readers, or
        with an item waiting, no ``asyncio.wait``: its futures and callbacks were a tenth of a
        table frame's way through the daemon."""
        if reader is None:
            return await self._queue.get()
        if reader.done():
            raise ReaderStoppedError("the RFID readers stopped") from reader.exception()
        if not self._queue.empty():
            return self._queue.get_nowait()
        get = asyncio.ensure_future(self._queue.get())
        done, _ = await asyncio.wait((get, reader), return_when=asyncio.FIRST_COMPLETED)
        if get not in done:
            get.cancel()
            raise ReaderStoppedError("the RFID readers stopped") from reader.exception()
        return get.result()

    async def _one(self, sink: InputSink, item: Item) -> None:
        waiter, position = self._waiters.pop(id(item), (None, None))
        try:
            await self._handle(sink, item, position)
        except BaseException as exc:
            if waiter is not None and not waiter.done():
                waiter.set_exception(TrackerError(f"tracker failed on {item!r}: {exc!r}"))
            raise
        else:
            if waiter is not None and not waiter.done():
                waiter.set_result(None)
        finally:
            if not isinstance(item, ReaderFault):
                self.consumed += 1
                self._consumed_changed.set()

    async def _handle(self, sink: InputSink, item: Item, position: LinkPosition | None) -> None:
        """Fold the item step by step, committing each step's record before the next step reads
        the table state; the link position goes with the item's last record."""
        if self.tiles is not None and isinstance(item, StartPressed):
            self.tiles.reset()  # the debouncer forgets: every tile is back in the wall
        if isinstance(item, CameraRead):
            self.camera_reads += 1
        while True:
            out = track(self.held, sink.table_state(), item, self.setup,
                        clocks=sink.timers_state().state)
            for i, entry in enumerate(out.entries):
                last = not out.more and i == len(out.entries) - 1
                await self._commit(sink, entry, position if last else None)
            self.held = out.held
            if not out.more:
                break
        if position is not None and not out.entries:  # the event made no record of its own
            await sink.mark_link(position)

    async def _commit(self, sink: InputSink, entry: Entry, link: LinkPosition | None) -> None:
        try:
            await sink.submit(entry.kind, entry.source, entry.body,
                              mono_ns=entry.mono_ns, link=link)
        except InputRefused as exc:  # not JSON: a bug here, never lose the position
            log.error("record refused: %s", exc)
            if link is not None:
                await sink.mark_link(link)
            return
        if entry.kind == KIND_INPUT:  # the common record: counted without a call
            self.inputs += 1
        else:
            self._count(entry)

    def _count(self, entry: Entry) -> None:
        """A committed record other than an input: the counters of its kind of marker."""
        body = entry.body
        if not isinstance(body, Mapping):
            return
        if entry.kind == KIND_MARKER and body.get("type") == "tile_rejected":
            self.rejected += 1
            self.reasons[str(body.get("reason"))] += 1
            self.last_rejection = dict(body)
            log.warning("rejected %s: %s", body.get("what", body.get("tag")), body.get("reason"),
                        extra={"fields": dict(body)})
        elif entry.kind == KIND_MARKER and body.get("type") == "sensor_disagreement":
            self.disagreements += 1
            self.last_disagreement = dict(body)
            log.warning("camera disagrees: %s in %s (camera %s, located %s)", body.get("tile"),
                        body.get("zone"), body.get("camera"), body.get("rfid"),
                        extra={"fields": dict(body)})
        elif entry.kind == KIND_MARKER and body.get("type") == "reader_fault":
            if body.get("fault") == "connected":
                self.reader_connects += 1  # at start and after every re-plug: not a fault
            else:
                self.reader_faults += 1

    async def _restore(self, sink: InputSink) -> None:
        """After a restart: ``held`` is the same fold over the game's logged records (their inputs
        typed as the core's recovery read them: each read from the log once)."""
        records = await sink.game_records()
        self.held = restore((r.kind, r.source, r.body) for r in records if is_tracked(r.source))
        if self.held != Held():
            log.info("tracker restored after a restart", extra={"fields": {
                "deal": sum(len(d) for d in self.held.deal), "riichi": sorted(self.held.riichi),
                "melds": {int(s): len(t) for s, t in self.held.melds}}})

    async def show(self, board: dict[str, Any], events: Sequence[dict[str, Any]]) -> None:
        return None

    def health(self) -> dict[str, Any]:
        return {
            "kind": "tracker",
            "status": self._status,
            "consumed": self.consumed,
            "inputs": self.inputs,
            "rejected": self.rejected,
            "reasons": dict(self.reasons),
            "reader_faults": self.reader_faults,
            "reader_connects": self.reader_connects,
            "last_rejection": self.last_rejection,
            "camera_reads": self.camera_reads,
            "disagreements": self.disagreements,
            "last_disagreement": self.last_disagreement,
        }
