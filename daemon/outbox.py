"""The outbox as the broker link sees it: the events of the event log not yet acknowledged, in
seq order, handed over from memory while the link keeps up and read back from the log otherwise.

The outbox table (daemon/eventlog.py) is the truth: an event is deleted only after its PUBACK,
and after a reconnect, a refusal or a restart everything still in it is read again. But a
connected link that keeps up would read back, for every input, the rows the group commit has
just written: a round trip through the database thread and a decoding of every event, on the
path of every event to its subscribers. So the committed events are also *offered* here as they
are (:meth:`LogOutbox.offer`, encoded once, the public projection built from the envelope in
hand), and :meth:`LogOutbox.fetch` serves them from memory as long as they continue the seqs
already handed out without a gap. Anything else -- a new connection (:meth:`LogOutbox.restart`),
a gap, more than :data:`MEMORY` events waiting (a link that is away) -- falls back to the log,
which then also says where the memory feed may take over again (its last event seq, read in the
same call on the database thread that commits, so no commit can fall between the two).

The rows the broker acknowledged are deleted :data:`DELETE_AFTER` later, all that were
acknowledged meanwhile in one statement (:meth:`LogOutbox.ack`), not once per PUBACK window: that
hop to the database thread would otherwise come with every input, just when the next input's
commit wants the thread (a closed loop: the next input follows the last one's arrival). Until
they are deleted they are left out of every read of the log; a ``kill -9`` in between makes the
restarted daemon send them again, which QoS 1 allows anyway (consumers drop a repeated ``seq``).
"""

from __future__ import annotations

import asyncio
import json
import logging
import sqlite3
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Final, NamedTuple

from daemon import disclosure
from daemon.eventlog import EventLog
from daemon.json_text import compact_encoder
from daemon.log_values import OutboxRow
from daemon.table import Applied

log = logging.getLogger("jantaku.outbox")

#: events held in memory at most; past that the link is behind and reads the log
MEMORY: Final = 1024
#: seconds an acknowledged row waits for its delete (the deletes of that time go together)
DELETE_AFTER: Final = 0.05

Db = Callable[..., Awaitable[Any]]


class Outgoing(NamedTuple):
    """One event on its way to the broker: its ``seq``, in full (``private/events``) and as the
    public may see it (``events``), both encoded once. A named tuple, immutable like a frozen
    dataclass but built in 2,000 instructions instead of 7,200 (callgrind; one per event)."""

    seq: int
    topic: str
    full: bytes
    public: bytes

    @staticmethod
    def of_row(row: OutboxRow) -> Outgoing:
        """An event read back from the outbox table (its public form projected from the text)."""
        full = row.payload.encode()
        return Outgoing(row.seq, row.topic, full, project(full, disclosure.public_event))

    @staticmethod
    def of_envelope(envelope: dict[str, Any], text: str, topic: str) -> Outgoing:
        """An event just committed: ``text`` is its outbox row (the envelope encoded as
        :func:`dumps` encodes, daemon/table.py), the public form comes from the envelope in hand
        (no decoding)."""
        full = text.encode()
        data = envelope.get("data")
        # disclosure.public_event without its copy of the envelope, which the splice needs not
        shown = disclosure.public_data(data) if isinstance(data, dict) else None
        if shown is None or shown is data:
            public = full
        else:
            public = _spliced(envelope, text, shown) \
                or dumps(disclosure.public_event(envelope))
        return Outgoing(int(envelope["seq"]), topic, full, public)


class OutboxSource(ABC):
    """What the link needs from the event log (the service runs these on its database thread)."""

    @abstractmethod
    async def fetch(self, limit: int) -> list[Outgoing]:
        """The next events in seq order, at most ``limit``, starting at the first not yet
        acknowledged (after :meth:`restart`) or after the last one fetched."""

    def fresh(self, limit: int) -> list[Outgoing] | None:
        """What :meth:`fetch` would give, when it can be had without waiting (from memory);
        ``None``: :meth:`fetch` must read it."""
        del limit
        return None

    @abstractmethod
    def ack(self, seqs: list[int]) -> None:
        """The events of ``seqs`` reached the broker: they leave the outbox (called from a
        PUBACK's callback: it must not wait)."""

    @abstractmethod
    def restart(self) -> None:
        """The events fetched but not acknowledged will be fetched again (a new connection)."""


def project(payload: bytes, fn: Callable[[dict[str, Any]], dict[str, Any]]) -> bytes:
    """``fn``'s projection of an encoded payload (the same bytes when it shows all of it)."""
    body = json.loads(payload)
    shown = fn(body) if isinstance(body, dict) else body
    if shown is body:
        return payload
    return dumps(shown)


def dumps(body: dict[str, Any]) -> bytes:
    """A payload as the daemon encodes every one (compact, UTF-8)."""
    return _ENCODE(body).encode()


#: one encoder for every payload, the envelopes' own (daemon/json_text.py: its C encoder made
#: once, not per call)
_ENCODE: Final = compact_encoder(sort_keys=False)
#: where an envelope's ``data`` (its last key) begins in its encoding
_DATA_KEY: Final = ',"data":{'


def _spliced(envelope: dict[str, Any], text: str, data: dict[str, Any]) -> bytes | None:
    """:func:`dumps` of :func:`daemon.disclosure.public_event` of ``envelope`` (``data``: its
    public ``data``, the same ``type``) from ``text`` (``envelope``'s encoding) and ``data``
    alone: an object's encoding is its members' in order, so everything before ``data`` is the
    same text. The first
    ``,"data":{`` of the text is the envelope's own when nothing before it is an object or a
    list (a ``"`` inside a string is escaped); ``None`` when that does not hold. Half the
    encoding of a redacted event's public copy (1.9 % of the daemon's GIL time under
    bench/daemon_latency.py went to encoding it whole)."""
    if data.get("type") != envelope.get("type") or next(reversed(envelope)) != "data":
        return None
    at = text.find(_DATA_KEY)
    if at < 0 or text.find("{", 1, at) >= 0 or text.find("[", 0, at) >= 0:
        return None
    return (text[:at + len(_DATA_KEY) - 1] + _ENCODE(data) + "}").encode()


class LogOutbox(OutboxSource):
    """The outbox for the broker link. A row whose delete could not be written (a full disk) is
    deleted with the next acknowledgement; until then it may be sent again (dropped by seq)."""

    def __init__(
        self, db: Db, eventlog: EventLog, topic: str, *, memory: int = MEMORY,
        delete_after: float = DELETE_AFTER, quick: Db | None = None,
    ) -> None:
        self._db = db  # runs a function on the service's database thread
        self._quick = quick or db  # the same, inline when that is safe (daemon.log_gate)
        self._memory = memory
        self._log = eventlog
        self._topic = topic  # ``events``: where the outbox rows go
        #: acknowledged, not deleted yet (waiting for :meth:`flush`, or its delete failed)
        self._undeleted: list[int] = []
        self._deleting: list[int] = []  # the ones a delete on the database thread is writing
        self._delete_after = delete_after
        self._timer: asyncio.TimerHandle | None = None
        self._flushing: asyncio.Task[None] | None = None
        self._fresh: deque[Outgoing] = deque()
        #: the seq the next fetch starts at when served from memory (None: read the log)
        self._next: int | None = None
        #: the last seq handed out since :meth:`restart` (the log is read after it)
        self._high = 0
        self.from_memory = 0  # events handed over without reading the log (health, benches)
        self.from_log = 0

    def offer(self, applied: Sequence[Applied]) -> None:
        """The events of a group just committed, in seq order. Kept even while the log is being
        read: a commit the read did not see may be offered before the read returns."""
        for a in applied:
            if len(a.payloads) != len(a.events):  # not from a group commit: read the log
                self.restart()
                return
            for env, text in zip(a.events, a.payloads, strict=True):
                self._fresh.append(Outgoing.of_envelope(env, text, self._topic))
        if len(self._fresh) > self._memory:  # the link is behind: it reads the log
            self._fresh.clear()
            self._next = None

    def restart(self) -> None:
        self._fresh.clear()
        self._next = None
        self._high = 0

    def fresh(self, limit: int) -> list[Outgoing] | None:
        if self._next is None:
            return None
        fresh = self._fresh
        while fresh and fresh[0].seq < self._next:
            fresh.popleft()  # committed before the log was read: handed out from there
        if not fresh:
            return []
        if fresh[0].seq == self._next:
            if len(fresh) <= limit:  # the usual case: this commit's events, in one list
                out = list(fresh)
                fresh.clear()
            else:
                out = [fresh.popleft() for _ in range(limit)]
            self._high = out[-1].seq
            self._next = self._high + 1
            self.from_memory += len(out)
            return out
        # a gap (cannot happen while every commit is offered): the log, after what was sent
        self._fresh.clear()
        self._next = None
        return None

    async def fetch(self, limit: int) -> list[Outgoing]:
        out = self.fresh(limit)
        return await self._read(limit) if out is None else out

    async def _read(self, limit: int) -> list[Outgoing]:
        want = limit + len(self._undeleted) + len(self._deleting)
        rows, last = await self._db(_outbox_and_last, self._log, want, self._high)
        gone = set(self._undeleted) | set(self._deleting)
        fresh = [r for r in rows if r.seq not in gone]
        out = [Outgoing.of_row(r) for r in fresh[:limit]]
        self.from_log += len(out)
        if out:
            self._high = out[-1].seq
        if len(rows) < want and len(fresh) <= limit:
            # the log's outbox is read to its end: memory takes over after its last event
            # (rows not in it were acknowledged, or are undeleted ones, sent already; rows in
            # memory up to it are dropped by the next fetch)
            self._next = last + 1
        return out

    def ack(self, seqs: list[int]) -> None:
        """The broker acknowledged these: they are deleted :data:`DELETE_AFTER` from now, with
        every other acknowledged meanwhile (0: in the next step of the loop)."""
        self._undeleted += seqs
        if self._undeleted and self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(self._delete_after, self._due)

    def _due(self) -> None:
        self._timer = None
        if self._flushing is None or self._flushing.done():
            self._flushing = asyncio.create_task(self.flush(), name="outbox-delete")
        else:  # a delete is being written: the rows acknowledged since go with the next
            self._timer = asyncio.get_running_loop().call_later(self._delete_after, self._due)

    async def flush(self) -> None:
        """Delete every acknowledged row now (also when the service stops)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        todo, self._undeleted = self._undeleted, []
        if not todo:
            return
        self._deleting += todo
        try:
            await self._quick(self._log.ack, todo)
        except (sqlite3.Error, OSError) as exc:
            self._undeleted = (todo + self._undeleted)[-10_000:]
            log.warning("outbox: %d published events not deleted yet: %s", len(todo), exc)
        finally:
            done = set(todo)
            self._deleting = [s for s in self._deleting if s not in done]


def _outbox_and_last(
    eventlog: EventLog, limit: int, after: int
) -> tuple[list[OutboxRow], int]:
    """The first ``limit`` outbox rows after ``after`` and the last event seq committed, read
    together."""
    return eventlog.outbox(limit, after), eventlog.applied()[1]
