"""Backfill: the events of a ``seq`` range, from the table's own log, over MQTT.

The broker may lose what it acknowledged (a SIGKILL or a power cut between two autosaves,
docs/scaling.md); the table never does: every event is a fold of the logged inputs. A consumer
that sees a gap asks the table (docs/mqtt.md "Backfill"):

* request on ``jantaku/v1/<table>/backfill/request/<client>`` (public stream) or
  ``.../private/backfill/request/<client>`` (full stream: only the private readers may write
  there, systemd/mosquitto/jantaku.acl), payload ``jantaku/backfill-request/1``;
* answer on ``.../backfill/reply/<client>`` (or ``.../private/backfill/reply/<client>``): the
  envelopes as published on ``events`` (``private/events``), in chunks of ``jantaku/backfill/1``.

Paced so that it never starves live play: at most :data:`MAX_RANGE` events a request (the reply
says where it stopped: ask again), :data:`CHUNK` events a message, each chunk's PUBACK awaited
before the next, :data:`RATE` events a second for all requesters together, one request at a
time, one queued per requester, :data:`QUEUE` queued in all. Recent events come from memory;
older ones are folded again from the log on a thread of their own, with their own read-only SQLite
connection (never the database thread that commits the inputs), in slices of :data:`SLICE`
inputs, each followed by a pause twice as long as it took.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from daemon import bounded_json, disclosure
from daemon import clocks as dc
from daemon.engine import Engine
from daemon.errors import DaemonError, EventLogError
from daemon.eventlog import EventLog
from daemon.outbox import dumps
from daemon.table import Applied, CoreState, TableCore
from daemon.topics import SCHEMA_BACKFILL, SCHEMA_BACKFILL_REQUEST, Topics

log = logging.getLogger("jantaku.backfill")

#: events one request returns at most (the reply's ``until_seq`` says where it stopped)
MAX_RANGE: Final = 1000
#: events per reply message
CHUNK: Final = 100
#: events per second, all requesters together (a live table makes a few a second)
RATE: Final = 1000.0
#: requests waiting, all requesters together (one each)
QUEUE: Final = 8
#: the newest events kept in memory (their JSON text): a gap after a broker restart is recent
RECENT: Final = 4096
#: inputs folded per slice when an event is older than memory
SLICE: Final = 25
#: after each slice, a pause this many times as long as the slice took: the fold takes at most
#: a third of one core from live play (bench/backfill_pacing.py)
PAUSE_FACTOR: Final = 2.0
#: a request payload's size bound
MAX_REQUEST_BYTES: Final = 1024

#: publish(topic, payload) -> whether the broker acknowledged it
Publish = Callable[[str, bytes], Awaitable[bool]]


@dataclass(frozen=True, slots=True)
class Request:
    client: str
    private: bool
    id: str | None
    from_seq: int
    until_seq: int | None


class BackfillRefused(DaemonError, ValueError):
    """A request answered with an error reply (``code``, ``message``)."""

    def __init__(self, code: str, message: str, rid: str | None = None) -> None:
        super().__init__(message)
        self.code, self.message, self.rid = code, message, rid


def parse_request(client: str, private: bool, payload: bytes) -> Request:
    """A request payload checked field by field (:class:`BackfillRefused` says what is wrong)."""
    try:
        body = bounded_json.load(payload, max_bytes=MAX_REQUEST_BYTES, max_depth=2)
    except bounded_json.JsonRefused as exc:
        raise BackfillRefused("bad_request", str(exc)) from None
    if not isinstance(body, dict):
        raise BackfillRefused("bad_request", "the payload is not a JSON object")
    rid = body.get("id")
    if rid is not None and (not isinstance(rid, str) or len(rid) > 64):
        raise BackfillRefused("bad_request", "id: expected a string of at most 64 characters")
    if body.get("schema") != SCHEMA_BACKFILL_REQUEST:
        got = body.get("schema")
        raise BackfillRefused("bad_request",
                              f"schema: expected {SCHEMA_BACKFILL_REQUEST!r}, got {got!r}", rid)
    unknown = sorted(set(body) - {"schema", "id", "from_seq", "until_seq"})
    if unknown:
        raise BackfillRefused("bad_request", f"unknown field {unknown[0]!r}", rid)
    first, last = body.get("from_seq"), body.get("until_seq")
    if not isinstance(first, int) or not _positive(first):
        raise BackfillRefused("bad_request",
                              f"from_seq: expected an integer >= 1, got {first!r}", rid)
    if last is not None and (not isinstance(last, int) or not _positive(last) or last < first):
        raise BackfillRefused(
            "bad_request", f"until_seq: expected an integer >= from_seq ({first}), got {last!r}",
            rid)
    return Request(client, private, rid, first, last)


def _positive(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


class Replayer:
    """Folds the log again, read-only, from the newest usable checkpoint; keeps its position, so
    a consumer walking forward range after range never folds an input twice."""

    def __init__(self, path: Path, table_id: str, engine: Engine) -> None:
        self.path, self.table_id, self.engine = path, table_id, engine
        self._core: TableCore | None = None
        self._cs: CoreState | None = None

    def _open(self) -> TableCore:
        if self._core is None:
            log_ = EventLog(self.path, self.table_id, readonly=True)
            self._core = TableCore(log_, self.engine, self.table_id, checkpoint_every=0)
        return self._core

    def _seek(self, core: TableCore, from_seq: int) -> CoreState:
        if self._cs is not None and self._cs.event_seq < from_seq:
            return self._cs
        upto = core.log.last_seq()
        while upto > 0:  # the log keeps its two newest checkpoints
            cp = core.log.load_checkpoint(self.engine.code, upto)
            if cp is None:
                break
            if isinstance(cp.state, CoreState) and cp.event_seq < from_seq:
                return cp.state
            upto = cp.input_seq - 1
        return CoreState(table=self.engine.new_table(), clocks=dc.Clocks())

    def step(self, from_seq: int, until_seq: int) -> tuple[list[dict[str, Any]], bool]:
        """Fold up to :data:`SLICE` inputs: the envelopes in ``[from_seq, until_seq]`` they
        made, and whether the range is complete (or the log has nothing more)."""
        core = self._open()
        cs = self._seek(core, from_seq)
        out: list[dict[str, Any]] = []
        folded = 0
        records = core.log.records(after=cs.input_seq)
        try:
            for rec in records:
                cs, envs = core.refold(cs, rec)
                out.extend(e for e in envs if from_seq <= e["seq"] <= until_seq)
                folded += 1
                if cs.event_seq >= until_seq or folded >= SLICE:
                    break
        finally:
            close = getattr(records, "close", None)
            if close is not None:
                close()  # the read transaction ends: the WAL can be checkpointed
        self._cs = cs
        return out, cs.event_seq >= until_seq or folded < SLICE

    def close(self) -> None:
        if self._core is not None:
            self._core.log.close()
            self._core = None
            self._cs = None


class Backfill:
    """The backfill service of one table: :meth:`offer` takes requests from the broker link,
    :meth:`run` answers them one at a time, :meth:`remember` keeps the newest events."""

    def __init__(
        self, topics: Topics, path: Path, engine: Engine, last_seq: Callable[[], int],
        *, rate: float = RATE,
    ) -> None:
        self.topics = topics
        self.filters: tuple[str, ...] = topics.backfill_filters
        self.last_seq = last_seq
        self.rate = rate
        self.replayer = Replayer(path, topics.table, engine)
        self._recent: deque[tuple[int, str]] = deque(maxlen=RECENT)
        self._queue: asyncio.Queue[Request] = asyncio.Queue(QUEUE)
        self._waiting: set[tuple[str, bool]] = set()
        self._refusals: deque[tuple[Request | None, str, bool, BackfillRefused]] = deque(maxlen=64)
        self._wake = asyncio.Event()
        self._tokens = float(CHUNK)
        self._tokens_at = time.monotonic()
        # health and tests
        self.served = 0
        self.refused = 0

    def keep_recent(self, n: int) -> None:
        """Keep the newest ``n`` events in memory (0: every answer folded from the log, the
        worst case that bench/backfill_pacing.py measures)."""
        self._recent = deque(self._recent, maxlen=n)

    # ------------------------------------------------------------------ the hot path's side
    def remember(self, applied: Iterable[Applied]) -> None:
        """After a group commit: the new events' text (a deque append each, nothing else)."""
        for a in applied:
            for env, text in zip(a.events, a.payloads, strict=False):
                self._recent.append((env["seq"], text))

    def offer(self, topic: str, payload: bytes) -> bool:
        """A message from the broker: ``True`` when it was a backfill request (queued or
        refused at once), ``False`` for any other topic."""
        who = self.topics.backfill_requester(topic)
        if who is None:
            return False
        client, private = who
        try:
            req = parse_request(client, private, payload)
        except BackfillRefused as exc:
            self._refuse(None, client, private, exc)
            return True
        if (client, private) in self._waiting:
            self._refuse(req, client, private,
                         BackfillRefused("busy", "one request at a time per requester"))
            return True
        try:
            self._queue.put_nowait(req)
        except asyncio.QueueFull:
            self._refuse(req, client, private,
                         BackfillRefused("busy", f"{QUEUE} requests are waiting; ask again"))
            return True
        self._waiting.add((client, private))
        return True

    def _refuse(
        self, req: Request | None, client: str, private: bool, exc: BackfillRefused
    ) -> None:
        self.refused += 1
        self._refusals.append((req, client, private, exc))
        self._wake.set()

    # ------------------------------------------------------------------ the task
    async def run(self, publish: Publish) -> None:
        try:
            while True:
                while self._refusals:
                    await self._send_refusal(publish, *self._refusals.popleft())
                if self._queue.empty():
                    self._wake.clear()
                    getter = asyncio.ensure_future(self._queue.get())
                    waker = asyncio.ensure_future(self._wake.wait())
                    await asyncio.wait([getter, waker], return_when=asyncio.FIRST_COMPLETED)
                    waker.cancel()
                    if not getter.done():
                        getter.cancel()
                        continue
                    req = getter.result()
                else:
                    req = self._queue.get_nowait()
                try:
                    await self._serve(publish, req)
                finally:
                    self._waiting.discard((req.client, req.private))
        finally:
            self.replayer.close()

    async def _send_refusal(
        self, publish: Publish, req: Request | None, client: str, private: bool,
        exc: BackfillRefused,
    ) -> None:
        body = self._head(req, "error")
        if req is None:
            body["id"] = exc.rid
        body["error"] = {"code": exc.code, "message": exc.message}
        await publish(self.topics.backfill_reply(client, private=private), dumps(body))

    def _head(self, req: Request | None, status: str) -> dict[str, Any]:
        return {"schema": SCHEMA_BACKFILL, "table": self.topics.table,
                "id": None if req is None else req.id, "status": status,
                "last_seq": self.last_seq()}

    async def _serve(self, publish: Publish, req: Request) -> None:
        last = self.last_seq()
        until = min(req.until_seq or last, req.from_seq + MAX_RANGE - 1, last)
        topic = self.topics.backfill_reply(req.client, private=req.private)
        chunk = 0
        try:
            async for events in self._events(req.from_seq, until):
                shown = events if req.private else [disclosure.public_event(e) for e in events]
                await self._paced(len(shown))
                body = {**self._head(req, "ok"), "from_seq": req.from_seq, "until_seq": until,
                        "chunk": chunk, "final": False, "events": shown}
                if not await publish(topic, dumps(body)):
                    return  # the broker is gone: the requester asks again
                chunk += 1
        except EventLogError as exc:
            await self._send_refusal(publish, req, req.client, req.private,
                                     BackfillRefused("unavailable", str(exc)))
            return
        body = {**self._head(req, "ok"), "from_seq": req.from_seq, "until_seq": until,
                "chunk": chunk, "final": True, "events": []}
        await publish(topic, dumps(body))
        self.served += 1
        log.info("backfill served", extra={"fields": {
            "table": self.topics.table, "client": req.client, "private": req.private,
            "from_seq": req.from_seq, "until_seq": until}})

    async def _paced(self, n: int) -> None:
        """A token bucket: ``n`` events may go out once the bucket holds them."""
        while True:
            now = time.monotonic()
            self._tokens = min(float(CHUNK), self._tokens + (now - self._tokens_at) * self.rate)
            self._tokens_at = now
            if self._tokens >= n:
                self._tokens -= n
                return
            await asyncio.sleep((n - self._tokens) / self.rate)

    async def _events(self, first: int, until: int) -> AsyncIterator[list[dict[str, Any]]]:
        """The envelopes ``first..until`` in chunks: from memory when it still holds them all,
        else folded again from the log off the event loop."""
        if first > until:
            return
        recent = self._recent
        if recent and recent[0][0] <= first and recent[-1][0] >= until:
            picked = [json.loads(t) for s, t in list(recent) if first <= s <= until]
            for i in range(0, len(picked), CHUNK):
                yield picked[i:i + CHUNK]
            return
        pending: list[dict[str, Any]] = []
        done = False
        while not done:
            began = time.monotonic()
            envs, done = await asyncio.to_thread(self.replayer.step, first, until)
            first = max(first, envs[-1]["seq"] + 1) if envs else first
            pending.extend(envs)
            while len(pending) >= CHUNK or (done and pending):
                yield pending[:CHUNK]
                pending = pending[CHUNK:]
            # the fold shares the CPU (and the GIL) with live play
            await asyncio.sleep((time.monotonic() - began) * PAUSE_FACTOR)
