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

Bounded under a flood (anyone, the anonymous overlay listener too, may ask for the public
stream): each request is screened as it is read, cheapest check first, before anything is kept
for it: its size (at most :data:`MAX_REQUEST_BYTES`), its requester's rate (a token bucket per
requester, :data:`PER_REQUESTER_PER_S`), then its JSON. A refusal is answered only within a reply
budget shared by all (:data:`REPLIES_PER_S`); the rest are counted (``health.backfill``) and
logged a few lines a window (daemon/log_sample.py). With ``[mqtt.commands]`` the requests are
read on the command connection's lean reader (daemon/command_intake.py), not on the table's
main connection: docs/performance.md "Backfill requests under a flood" says why.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections import Counter, OrderedDict, deque
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from daemon import bounded_json, disclosure
from daemon import clocks as dc
from daemon.command_gate import Bucket
from daemon.engine import Engine
from daemon.errors import DaemonError, EventLogError
from daemon.eventlog import EventLog
from daemon.log_sample import SampledLog
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
#: requests one requester may make: a sustained rate and a burst (a consumer walking forward
#: asks about once a second: each answer is at most MAX_RANGE events at RATE a second)
PER_REQUESTER_PER_S: Final = 2.0
PER_REQUESTER_BURST: Final = 10
#: requesters whose buckets are kept (least recent forgotten: a forgotten one starts afresh)
REQUESTERS: Final = 1024
#: error replies to refused requests, for everyone together
REPLIES_PER_S: Final = 20.0
REPLIES_BURST: Final = 50
#: refusals waiting for their reply at most (then shed)
REFUSALS_WAITING: Final = 64
#: read on the command connection: its ACL is proven by a probe (an empty request the table
#: sends itself, under its private tree, which only it may write); unheard this long after it
#: was sent, health says "none" (Mosquitto grants a subscription its ACL denies, silently)
PROBE_S: Final = 10.0

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


@dataclass(slots=True)
class BackfillStats:
    """Counters for ``health.backfill`` (the shell's mutable tally)."""

    received: int = 0
    queued: int = 0
    served: int = 0
    refused: Counter[str] = field(default_factory=Counter)
    answered: int = 0
    shed: Counter[str] = field(default_factory=Counter)

    def to_json(self) -> dict[str, Any]:
        return {"received": self.received, "queued": self.queued, "served": self.served,
                "refused": dict(sorted(self.refused.items())), "answered": self.answered,
                "shed": dict(sorted(self.shed.items()))}


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
        self._refusals: deque[tuple[Request | None, str, bool, BackfillRefused]] = deque()
        self._wake = asyncio.Event()
        self._tokens = float(CHUNK)
        self._tokens_at = time.monotonic()
        self._requesters: OrderedDict[tuple[str, bool], Bucket] = OrderedDict()
        self._replies = Bucket(REPLIES_PER_S, REPLIES_BURST, time.monotonic())
        self.log = SampledLog(log, "refused backfill requests")
        #: where the requests are read: "shared" (the table's main connection) or "own" (the
        #: command connection's lean reader)
        self.connection = "shared"
        self._probe_sent: float | None = None
        self._probe_heard = False
        self._probe_logged = False
        # health and tests
        self.stats = BackfillStats()

    # ------------------------------------------------------------------ the hot path's side
    def remember(self, applied: Iterable[Applied]) -> None:
        """After a group commit: the new events' text (a deque append each, nothing else)."""
        for a in applied:
            for env, text in zip(a.events, a.payloads, strict=False):
                self._recent.append((env["seq"], text))

    def offer(self, topic: str, payload: bytes) -> bool:
        """A message from the broker: ``True`` when it was a backfill request (queued or
        refused at once), ``False`` for any other topic."""
        return self.take(topic, payload, retain=False, size=len(payload))

    def take(self, topic: str, payload: bytes, *, retain: bool, size: int) -> bool:
        """:meth:`offer` with what a reader knows of the message: a retained copy or an empty
        payload is counted, never answered; ``size`` is the payload's length (``payload`` is
        ``b""`` for one too long to buffer, daemon/mqtt_lean.py)."""
        who = self.topics.backfill_requester(topic)
        if who is None:
            return False
        client, private = who
        if private and not size and not retain and client == self.topics.table:
            self._probe_heard = True  # the table's own probe (expect_probe)
            return True
        self.stats.received += 1
        if retain or not size:
            self.stats.shed["retained" if retain else "empty"] += 1
            return True
        if size > MAX_REQUEST_BYTES:
            self._refuse(None, client, private, BackfillRefused(
                "too_large", f"a request is at most {MAX_REQUEST_BYTES} bytes, got {size}"))
            return True
        if not self._within_rate((client, private)):
            self._refuse(None, client, private, BackfillRefused(
                "rate_limited", f"at most {PER_REQUESTER_PER_S:g} requests a second; ask again"))
            return True
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
        self.stats.queued += 1
        return True

    def _within_rate(self, who: tuple[str, bool]) -> bool:
        now = time.monotonic()
        bucket = self._requesters.get(who)
        if bucket is None:
            bucket = self._requesters[who] = Bucket(PER_REQUESTER_PER_S, PER_REQUESTER_BURST, now)
            if len(self._requesters) > REQUESTERS:
                self._requesters.popitem(last=False)
        else:
            self._requesters.move_to_end(who)
        return bucket.take(now)

    def _refuse(
        self, req: Request | None, client: str, private: bool, exc: BackfillRefused
    ) -> None:
        """Counted and logged (sampled); answered within the reply budget only."""
        self.stats.refused[exc.code] += 1
        self.log.warning(exc.code, "backfill request refused: %s", exc.code,
                         extra={"fields": {"code": exc.code, "client": client[:64],
                                           "private": private}})
        if len(self._refusals) >= REFUSALS_WAITING:
            self.stats.shed["replies_waiting"] += 1
            return
        if not self._replies.take(time.monotonic()):
            self.stats.shed["reply_budget"] += 1
            return
        self.stats.answered += 1
        self._refusals.append((req, client, private, exc))
        self._wake.set()

    # ------------------------------------------------------------------ the own connection
    def expect_probe(self) -> None:
        """Subscribed on the command connection: read there once the probe comes back."""
        self.connection = "own"
        self._probe_sent, self._probe_heard, self._probe_logged = None, False, False

    @property
    def probe_due(self) -> bool:
        return self.connection == "own" and not self._probe_heard and self._probe_sent is None

    @property
    def probe_topic(self) -> str:
        return self.topics.backfill_request(self.topics.table, private=True)

    def probe_sent(self) -> None:
        self._probe_sent = time.monotonic()

    def _where(self) -> str:
        sent = self._probe_sent
        if self.connection != "own" or self._probe_heard or sent is None \
                or time.monotonic() - sent < PROBE_S:
            return self.connection
        if not self._probe_logged:
            self._probe_logged = True
            log.error("the command account reads no backfill requests (its probe never came "
                      "back): none are answered; let it read them (systemd/mosquitto/jantaku.acl)")
        return "none"

    def health(self) -> dict[str, Any]:
        """``health.backfill``: where requests are read, and the counters."""
        return {"connection": self._where(), **self.stats.to_json(),
                "waiting": self._queue.qsize(), "log_suppressed": self.log.suppressed_total}

    # ------------------------------------------------------------------ the task
    async def run(self, publish: Publish) -> None:
        try:
            while True:
                while self._refusals:
                    await self._send_refusal(publish, *self._refusals.popleft())
                self.log.tick()  # a window that suppressed lines ends with one summary
                if self._queue.empty():
                    self._wake.clear()
                    getter = asyncio.ensure_future(self._queue.get())
                    waker = asyncio.ensure_future(self._wake.wait())
                    await asyncio.wait([getter, waker], timeout=1.0,
                                       return_when=asyncio.FIRST_COMPLETED)
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
        self.stats.served += 1
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
