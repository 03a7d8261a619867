"""The input intake: a bounded queue between the drivers and the event log, and the group-commit
loop that empties it (docs/daemon.md, "The input path").

* **Group commit.** The submissions waiting when a commit starts (at most :data:`MAX_GROUP`) are
  logged and applied in one transaction (:meth:`daemon.table.TableCore.submit_group`), then all
  of them are answered: a driver acknowledges a table event, a command handler replies, only
  after its input is committed. A group that raises (not the disk: a bad item, a bug) rolled
  back whole; its items are then committed one by one, so only the bad one is refused.
* **Who commits.** The intake's task, a group at a time; but a driver's input submitted while
  the intake is idle (nothing queued, no commit under way, the log writable) is committed by the
  driver's own task, as a group of one, holding the same commit turn (:meth:`Intake.submit`):
  no queue, no future to wake, no second task. What arrives meanwhile queues behind it, in order.
* **Back-pressure.** The queue is bounded (:data:`QUEUE_SIZE`): :meth:`Intake.submit` waits for
  room, so a table link stops taking events (the controller retransmits; nothing is dropped).
* **A log that cannot be written** (a full disk, an I/O error): the group is kept in memory and
  retried (:data:`RETRY_S`, growing with what arrived meanwhile) until it commits; nothing of it
  is applied before, no acknowledgement goes out, the fault is in :attr:`Intake.fault` (health,
  status, the JSON log), and the daemon keeps running.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sqlite3
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, assert_never

from daemon.commands import EngineRefused
from daemon.errors import EventLogError
from daemon.group_writer import body_text
from daemon.log_values import LinkPosition
from daemon.table import (
    Applied,
    CommandStamp,
    GroupItem,
    Pending,
    Refused,
    Repeated,
    TableCore,
)
from daemon.tracking.records import Body
from rules.evolve import fast_init, maker
from rules.inputs import INPUT_NAMES, input_type

log = logging.getLogger("jantaku.intake")

#: one per input: made without the class call (rules/evolve.py; daemon/table.py gives
#: ``Pending`` the quick constructor)
_pending = maker(Pending)

#: submissions waiting for the log at most (then producers wait: back-pressure)
QUEUE_SIZE: Final = 1024
#: submissions in one group commit at most
MAX_GROUP: Final = 256
#: the wait between two attempts to write a group the log refused (doubling up to the max)
RETRY_S: Final = (0.1, 2.0)
#: how often a persisting fault is logged again
FAULT_LOG_EVERY_S: Final = 10.0

#: errors after which the same group is tried again (the log's filesystem, not the input)
_RETRYABLE: Final = (sqlite3.OperationalError, sqlite3.DatabaseError, OSError)


class RepeatedCommand(Exception):
    """The command ``(user, id)`` was logged already: ``reply`` is its first reply."""

    def __init__(self, reply: dict[str, Any]) -> None:
        super().__init__("repeated command")
        self.reply = reply


class InputRefused(EventLogError):
    """The intake cannot take this input (its queue is full, or the body is not JSON)."""


@dataclass(slots=True)
class Submission:
    item: GroupItem
    done: asyncio.Future[Any]
    withdrawn: bool = False
    queued: bool = True  # went through the queue (False: committed by its submitter's task)


#: one per input: the quick constructor (rules/evolve.py)
fast_init([Submission])
_submission = maker(Submission)


@dataclass(frozen=True, slots=True)
class LogFault:
    """The event log refuses writes since ``since_wall_ns`` (``retries`` attempts so far)."""

    error: str
    since_wall_ns: int
    since_mono: float
    retries: int = 0
    waiting: int = 0  # submissions held (not logged, not acknowledged)


@dataclass(slots=True)
class _Counters:
    groups: int = 0
    inputs: int = 0
    faults: int = 0
    largest_group: int = 0
    recovered_after_s: list[float] = field(default_factory=list)


class Intake:
    def __init__(
        self,
        core: TableCore,
        db: Callable[[Callable[[list[GroupItem]], list[Applied | Repeated | Refused | None]],
                      list[GroupItem]], Awaitable[list[Applied | Repeated | Refused | None]]],
        boot: str,
        *,
        mono_ns: Callable[[], int] = time.monotonic_ns,
        wall_ns: Callable[[], int] = time.time_ns,
        on_applied: Callable[[list[Applied]], Awaitable[None]] | None = None,
        on_committed: Callable[[list[Applied]], None] | None = None,
        queue_size: int = QUEUE_SIZE,
    ) -> None:
        self.core = core
        self._db = db
        self.boot = boot
        self._mono_ns, self._wall_ns = mono_ns, wall_ns
        self._on_applied = on_applied
        self._on_committed = on_committed
        self.queue: asyncio.Queue[Submission] = asyncio.Queue(queue_size)
        self.fault: LogFault | None = None
        self.counters = _Counters()
        self._writing = False
        self._held = 0
        #: whoever commits holds this: the intake's task, or a submitter committing its own
        #: input while the intake is idle (:meth:`submit`). A flag, not an ``asyncio.Lock``: a
        #: submitter takes it only when it is free, so the intake's task is its one waiter
        #: (on :attr:`_turn`); the lock's ``async with`` was five Python calls an input
        self._busy = False
        #: the intake's task waits on it for a submitter's commit to end (None: not waiting)
        self._turn: asyncio.Future[None] | None = None
        #: the intake task's loop: the inline path's futures are made on it (each
        #: ``asyncio.get_running_loop()`` is a ``getpid`` system call in CPython 3.11)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._withdrawn = 0  # submissions withdrawn and not dropped from a batch yet
        self._running = False  # the intake's task is taking submissions
        self._taken = 0  # taken from the queue by the intake's task, not committing yet
        self.inline = 0  # inputs committed by their submitter's task (benches, tests)

    # ------------------------------------------------------------------ producers
    def pending(
        self, kind: str, source: str, body: Body, mono_ns: int | None = None, *,
        link: LinkPosition | None = None, command: CommandStamp | None = None,
    ) -> Pending:
        """An input stamped now (or at ``mono_ns``, when the driver saw it). Raises
        :class:`InputRefused` for a marker's body that is not JSON (a typed input always has
        its JSON form: the event log writes it, once)."""
        text = None
        if type(body) not in INPUT_NAMES and isinstance(body, Mapping):  # (inputs: no ABC check)
            body = dict(body)  # what the text says: the record's body is this copy's copy
            try:  # the log's own text: checked here, written as it is (not encoded twice)
                text = body_text(body)
            except (TypeError, ValueError, RecursionError) as exc:
                raise InputRefused(f"input from {source} is not JSON: {exc}") from None
        mono, wall = self._mono_ns(), self._wall_ns()
        if mono_ns is not None:  # seen earlier by the driver: date it then
            if mono > mono_ns:
                wall -= mono - mono_ns
            mono = mono_ns
        return _pending(kind, source, body, mono, wall, self.boot, link, command, text)

    def put(
        self, kind: str, source: str, body: Body, mono_ns: int | None = None, *,
        link: LinkPosition | None = None, command: CommandStamp | None = None,
    ) -> asyncio.Future[Applied]:
        """Queue an input without waiting for room (callbacks that cannot wait: a button press).
        The future fails with :class:`InputRefused` when the queue is full."""
        fut: asyncio.Future[Applied] = asyncio.get_running_loop().create_future()
        try:
            item = self.pending(kind, source, body, mono_ns, link=link, command=command)
            sub = Submission(item, fut)
            self.queue.put_nowait(sub)
        except InputRefused as exc:
            fut.set_exception(exc)
        except asyncio.QueueFull:
            log.error(json.dumps({"event": "input_refused", "table": self.core.table_id,
                                  "source": source, "reason": "queue_full",
                                  "type": _type_of(body)}))
            fut.set_exception(InputRefused(
                f"input from {source} refused: {self.queue.maxsize} inputs are waiting for the"
                " event log"))
        return fut

    async def submit(
        self, kind: str, source: str, body: Body, mono_ns: int | None = None, *,
        link: LinkPosition | None = None, command: CommandStamp | None = None,
    ) -> Applied:
        """Queue an input, waiting for room (back-pressure), and wait until it is committed and
        applied. Raises :class:`RepeatedCommand` for a command logged already."""
        sub = await self._through(
            self.pending(kind, source, body, mono_ns, link=link, command=command))
        result: Applied = await sub.done
        return result

    def _idle(self) -> bool:
        """Whether a submitter may commit its own input now: the intake's task runs, nothing is
        queued or committing, the log is writable."""
        return (self._running and not self._busy and self.fault is None and not self._taken
                and self.queue.empty())

    async def _through(self, item: GroupItem) -> Submission:
        """``item`` committed in the caller's own task when the intake is idle (:meth:`_idle`),
        as the intake's task would have: a group of one, in the same order, answered the same
        way; a table event then goes from its frame to its commit and ACK in one task, without
        the queue's hand-off and the two wake-ups around it (docs/performance.md). Else queued.
        The caller awaits the submission's ``done``."""
        loop = self._loop
        if loop is None or not self._idle():
            return await self.enqueue(item)
        sub = _submission(item, loop.create_future(), False, False)
        self._busy = True
        self.inline += 1
        try:
            await self._commit([sub])
        except Exception as exc:
            self._after_commit(sub, exc)
        finally:
            self._busy = False
            if self._turn is not None:
                self._pass_turn()
        return sub

    def _after_commit(self, sub: Submission, exc: Exception) -> None:
        """An inline commit raised: re-raised to the submitter unless its input is answered."""
        if not sub.done.done():
            raise exc
        # the input is committed and answered: what failed after it (the retained state, a
        # display) is not the submitter's failure
        log.exception(json.dumps({
            "event": "after_commit_failed", "table": self.core.table_id,
            "error": repr(exc)[:300]}), exc_info=exc)

    def _pass_turn(self) -> None:
        """An inline commit ended while the intake's task waits with a submission: its turn."""
        turn, self._turn = self._turn, None
        if turn is not None and not turn.done():
            turn.set_result(None)

    async def enqueue(self, item: GroupItem) -> Submission:
        """Queue a prepared item (waiting for room); the caller awaits ``.done``."""
        sub = _submission(item, asyncio.get_running_loop().create_future())
        await self.queue.put(sub)
        return sub

    async def mark_link(self, position: LinkPosition) -> None:
        """Commit a link position alone (a table event consumed without an input of its own)."""
        sub = await self._through(position)
        await sub.done

    def withdraw(self, sub: Submission) -> bool:
        """Take back a submission not logged yet (a command whose caller stops waiting): True if
        it will never be applied, False if it is being written now (wait for ``done``)."""
        if sub.done.done() or self._writing:
            return False
        if not sub.withdrawn:
            sub.withdrawn = True
            self._withdrawn += 1
        return True

    @property
    def waiting(self) -> int:
        return self.queue.qsize() + self._taken + self._held

    # ------------------------------------------------------------------ the loop
    async def run(self) -> None:
        loop = self._loop = asyncio.get_running_loop()
        self._running = True
        try:
            while True:
                batch = [await self.queue.get()]
                self._taken = 1  # out of the queue, waiting for a submitter's commit to end
                while self._busy:  # (no submitter starts one now: ``_taken`` says so)
                    turn = self._turn = loop.create_future()
                    await turn
                self._taken = 0
                self._busy = True
                try:
                    self._grow(batch)
                    await self._commit(batch)
                finally:
                    self._busy = False
        finally:
            self._running = False
            self._taken = 0
            self._turn = None

    def _grow(self, batch: list[Submission]) -> None:
        while not self.queue.empty() and len(batch) < MAX_GROUP:
            batch.append(self.queue.get_nowait())

    async def _commit(self, batch: list[Submission]) -> None:
        delay = RETRY_S[0]
        while True:
            if self._withdrawn:  # (rare: a referee command given up on a refusing log)
                for s in batch:
                    if s.withdrawn:
                        self._withdrawn -= 1
                        if s.queued:
                            self.queue.task_done()
                batch = [s for s in batch if not s.withdrawn]
            if not batch:
                return
            self._held = len(batch)
            self._writing = True
            try:
                results = await self._db(self.core.submit_group,
                                         [batch[0].item] if len(batch) == 1
                                         else [s.item for s in batch])
            except _RETRYABLE as exc:
                self._writing = False
                self._failed(exc, len(batch))
                await asyncio.sleep(delay)
                delay = min(RETRY_S[1], delay * 2)
                if not self._taken:  # else the intake's task holds an earlier one: it goes next
                    self._grow(batch)
                continue
            except Exception as exc:  # a bug or a bad item, not the disk: refuse it, keep going
                self._writing = False
                if len(batch) > 1:
                    # the group rolled back whole (state unchanged): each item alone, in order,
                    # so only the bad one is refused and the others commit
                    log.warning(json.dumps({
                        "event": "group_split", "table": self.core.table_id,
                        "inputs": len(batch), "error": repr(exc)[:300]}))
                    self._held = 0
                    for one in batch:
                        await self._commit([one])
                    return
                log.exception("input refused")
                self._finish(batch, [exc])
                return
            self._writing = False
            if self.fault is not None:
                self._recovered()
            applied = [r for r in results if isinstance(r, Applied)]
            if applied and self._on_committed is not None:
                # before the submitters are answered: the outbox task is woken first, so the
                # events are on the broker's socket before the table link's ACK is written
                # (the ACK still follows the commit: it is answered only below)
                self._on_committed(applied)
            self._finish(batch, results)
            counters = self.counters
            counters.groups += 1
            counters.inputs += len(applied)
            if len(batch) > counters.largest_group:
                counters.largest_group = len(batch)
            if applied and self._on_applied is not None:
                await self._on_applied(applied)
            return

    def _finish(self, batch: list[Submission],
                results: list[Applied | Repeated | Refused | None] | list[Exception]) -> None:
        self._held = 0
        for sub, result in zip(batch, results, strict=True):
            if not sub.done.done():
                match result:  # (class patterns: no allocation; the usual case first)
                    case Applied() | None:
                        sub.done.set_result(result)
                    case Repeated():
                        sub.done.set_exception(RepeatedCommand(result.reply))
                    case Refused():
                        sub.done.set_exception(EngineRefused(result.violations))
                    case Exception():
                        sub.done.set_exception(result)
                    case _:
                        assert_never(result)
            if sub.queued:
                self.queue.task_done()

    # ------------------------------------------------------------------ the fault
    def _failed(self, exc: BaseException, held: int) -> None:
        now = time.monotonic()
        fault = self.fault
        if fault is None:
            self.counters.faults += 1
            self.fault = LogFault(str(exc) or repr(exc), self._wall_ns(), now, 1, held)
            self._log_fault("event_log_unwritable", logging.ERROR)
            return
        self.fault = LogFault(str(exc) or repr(exc), fault.since_wall_ns, fault.since_mono,
                              fault.retries + 1, held + self.queue.qsize())
        if fault.retries % max(1, int(FAULT_LOG_EVERY_S / RETRY_S[1])) == 0:
            self._log_fault("event_log_unwritable", logging.ERROR)

    def _recovered(self) -> None:
        if self.fault is None:
            return
        self._log_fault("event_log_writable", logging.WARNING)
        self.counters.recovered_after_s.append(time.monotonic() - self.fault.since_mono)
        self.fault = None

    def _log_fault(self, event: str, level: int) -> None:
        fault = self.fault
        assert fault is not None
        cs = self.core.state
        log.log(level, json.dumps({
            "event": event, "table": self.core.table_id, "hand": cs.hand, "seq": cs.event_seq,
            "error": fault.error, "retries": fault.retries, "waiting": self.waiting,
            "for_s": round(time.monotonic() - fault.since_mono, 1),
        }))


def _type_of(body: Body) -> str | None:
    """The record's ``type`` (for a log line)."""
    if isinstance(body, Mapping):
        kind = body.get("type")
        return kind if isinstance(kind, str) else None
    return input_type(body)
