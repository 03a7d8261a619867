"""The asyncio link session: drives one :class:`drivers.link.arq.Endpoint` (the pure state
machine) over a reopenable :class:`Transport`, and reconnects with backoff when the transport
fails. Timings come from :class:`LinkTimings`; nothing here reads a constant timing of its own.

Tasks per connection: a reader (bytes in -> endpoint -> outputs dispatched at once) and a ticker
(the only writer: sends what the endpoint produced, wakes at the endpoint's next deadline or when
kicked). A table event is acknowledged only when its consumer confirms it (``deliveries()`` +
``confirm``: the daemon confirms once the event's input is committed to its log; ``events()``
confirms as it hands the event out), so an acknowledged event is never only in memory
(docs/protocol/table-link.md §7.7).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import secrets
from collections import deque
from collections.abc import AsyncIterator
from types import TracebackType
from typing import Self, assert_never, cast

from drivers.link.arq import PROTOCOL_VERSIONS, Endpoint
from drivers.link.errors import (
    CommandRejectedError,
    LinkClosedError,
    LinkStateError,
    UnsupportedCommandError,
)
from drivers.link.messages import REQUIRED_CAPABILITY, Command, TableEvent
from drivers.link.reports import (
    Acked,
    Connected,
    Delivered,
    Garbled,
    Incompatible,
    LinkRejected,
    Lost,
    Role,
    RxPosition,
)
from drivers.link.timings import LinkTimings
from drivers.table.link import Delivery, LinkChange, LinkState, LinkStatus
from drivers.table.transport import PushTransport, Transport, TransportError

log = logging.getLogger("jantaku.table")


def new_boot_id() -> int:
    return secrets.randbits(32) or 1


class LinkSession:
    """A :class:`~drivers.table.link.TableLink` over the table-link protocol."""

    def __init__(
        self,
        transport: Transport,
        *,
        timings: LinkTimings | None = None,
        boot_id: int | None = None,
        versions: tuple[int, int] = PROTOCOL_VERSIONS,
        resume: RxPosition | None = None,
    ) -> None:
        self._transport = transport
        self.timings = timings or LinkTimings()
        self._endpoint = Endpoint(Role.HOST, boot_id=boot_id or new_boot_id(),
                                  timings=self.timings, versions=versions, defer_ack=True,
                                  resume=resume)
        # bounded by the protocol: one unconfirmed delivery at a time (stop-and-wait), and
        # link changes
        # link changes; None: closed. A deque and the consumers' wake-up futures, not an
        # asyncio.Queue: its get/put_nowait were ~10 calls a frame (docs/performance.md)
        self._events: deque[Delivery | LinkChange | None] = deque()
        self._waiting: list[asyncio.Future[None]] = []
        self._futures: dict[int, asyncio.Future[None]] = {}
        self._tx = bytearray()
        self._kick = asyncio.Event()
        #: a transport that reads into a callback and writes at once (serial): frames are
        #: decoded in the read's wake-up and written by the call that makes them, and the
        #: ticker is woken only for an earlier deadline (no task hop per frame)
        self._push = transport if isinstance(transport, PushTransport) else None
        self._open = False  # the transport is open (push: written to at once)
        #: when the sleeping ticker wakes next (-inf: it is awake and looks again before it
        #: sleeps; push transports only)
        self._ticker_at = -math.inf
        self._connected = asyncio.Event()
        self._status = LinkStatus.CONNECTING
        self._reason: str | None = None  # why the status is what it is (lost, incompatible)
        self._attempt = 0
        self._opens = 0
        self._runner: asyncio.Task[None] | None = None
        self._closed = False
        #: the loop the session runs on, kept (each asyncio.get_running_loop() is a getpid
        #: system call in CPython 3.11, three a frame before)
        self._loop: asyncio.AbstractEventLoop | None = None

    def __repr__(self) -> str:
        return f"<LinkSession {self._transport.name} {self._status.value}>"

    # --- the TableLink interface ---------------------------------------------------------------

    async def __aenter__(self) -> Self:
        if self._runner is not None or self._closed:
            raise LinkStateError(f"{self!r} is not reentrant and cannot be reopened")
        self._loop = asyncio.get_running_loop()
        self._runner = self._loop.create_task(self._run(),
                                              name=f"table-link {self._transport.name}")
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    async def close(self) -> None:
        """Stop the session (idempotent). Unacknowledged ``send`` calls raise LinkClosedError."""
        if self._closed:
            return
        self._closed = True
        if self._runner is not None:
            self._runner.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._runner
        await self._transport.close()
        self._set_status(LinkStatus.CLOSED, None)
        for future in self._futures.values():
            if not future.done():
                future.set_exception(LinkClosedError(f"{self._transport.name} closed"))
        self._futures.clear()
        self._put(None)

    async def events(self) -> AsyncIterator[TableEvent | LinkChange]:
        """Table events in the order the table sent them, each exactly once and acknowledged as
        it is handed out, and link changes. Ends when the session is closed. One consumer."""
        async for item in self.deliveries():
            if isinstance(item, Delivery):
                self.confirm(item)
                yield item.event
            else:
                yield item

    async def deliveries(self) -> AsyncIterator[Delivery | LinkChange]:
        """Table events in order, each exactly once, acknowledged to the table only when
        :meth:`confirm` is called for it; and link changes. Ends when the session is closed."""
        events = self._events
        while True:
            if not events:
                # a consumer cancelled meanwhile leaves a cancelled future, skipped by _put
                waiter = (self._loop or asyncio.get_running_loop()).create_future()
                self._waiting.append(waiter)
                await waiter
                continue
            item = events[0]
            if item is None:  # closed: left for every other consumer to see
                return
            events.popleft()
            yield item

    def _put(self, item: Delivery | LinkChange | None) -> None:
        self._events.append(item)
        waiting = self._waiting
        if waiting:
            self._waiting = []
            for waiter in waiting:
                if not waiter.done():
                    waiter.set_result(None)

    def confirm(self, delivery: Delivery) -> None:
        """``delivery`` is safe (logged): acknowledge it to the table now, or, if the link is
        down, in the next ``hello`` (``rx_last``)."""
        if delivery.receipt is None or self._closed:
            return
        receipt = delivery.receipt
        self._endpoint.confirm(receipt.peer_boot_id, receipt.seq,
                               (self._loop or asyncio.get_running_loop()).time())
        self._service()

    async def send(self, command: Command, *, timeout: float | None = None) -> None:
        """Queue ``command`` and wait until the table acknowledged it. While the link is down it
        waits for the reconnect (bound it with ``timeout``; the command stays queued).

        Raises UnsupportedCommandError (the table announced no capability for it),
        CommandRejectedError (the table refused it), LinkClosedError, TimeoutError."""
        if self._closed:
            raise LinkClosedError(f"{self._transport.name} is closed")
        needed = REQUIRED_CAPABILITY.get(command.TYPE)
        if needed is not None and self._endpoint.version and \
                needed not in self._endpoint.capabilities:
            raise UnsupportedCommandError(
                f"{command.TYPE.json_name} needs capability {needed.value!r}; the table "
                f"announced {sorted(c.value for c in self._endpoint.capabilities)}")
        loop = asyncio.get_running_loop()
        handle = self._endpoint.send(command, loop.time())
        future: asyncio.Future[None] = loop.create_future()
        self._futures[handle] = future
        self._service()
        async with asyncio.timeout(timeout):
            await asyncio.shield(future)

    @property
    def state(self) -> LinkState:
        e = self._endpoint
        return LinkState(self._status, self._transport.name, e.version, e.capabilities,
                         e.firmware, e.counters, self._opens, self._reason)

    # --- the machinery -------------------------------------------------------------------------

    def _set_status(self, status: LinkStatus, reason: str | None) -> None:
        if status is self._status:
            return
        self._status = status
        self._reason = reason
        if status is LinkStatus.CONNECTED:
            self._connected.set()
        else:
            self._connected.clear()
        level = logging.INFO if status is LinkStatus.CONNECTED else logging.WARNING
        log.log(level, json.dumps({"event": "table_link", "transport": self._transport.name,
                                   "status": status.value, "reason": reason}))
        self._put(LinkChange(status, reason))

    def _settle(self, handle: int, error: CommandRejectedError | None) -> None:
        """The command ``handle`` was acknowledged (``error`` None) or refused."""
        future = self._futures.pop(handle, None)
        if future is None or future.done():
            return
        if error is None:
            future.set_result(None)
        else:
            future.set_exception(error)

    def _service(self) -> None:
        """Dispatch what the endpoint produced; write its bytes (a push transport) or keep them
        for the ticker; wake the ticker when it has something to do sooner."""
        endpoint = self._endpoint
        data, outputs = endpoint.drain()
        push = self._push
        if push is None:
            self._tx += data
        elif data and self._open:
            # a failed write fails the transport's listen() too: the session reconnects (try,
            # not contextlib.suppress: its three Python calls a frame, for the ACK)
            try:  # noqa: SIM105
                push.write_now(data)
            except TransportError:
                pass
        for out in outputs:
            match out:
                case Delivered(message=message):
                    # a host's endpoint takes table events only (it refuses commands)
                    self._put(Delivery(cast(TableEvent, message), out.at))
                case Acked(handle=handle):
                    self._settle(handle, None)
                case LinkRejected(handle=handle, message=message):
                    self._settle(handle, CommandRejectedError(
                        f"the table rejected {message.to_json()}"))
                case Connected():
                    self._attempt = 0
                    self._set_status(LinkStatus.CONNECTED, None)
                case Lost(reason=reason):
                    self._set_status(LinkStatus.LOST, reason.value)
                case Incompatible():
                    self._set_status(LinkStatus.INCOMPATIBLE, out.reason or (
                        f"table firmware {out.firmware!r} supports none of protocol "
                        f"versions {out.offered[0]}..{out.offered[1]}"))
                case Garbled(span=span):
                    log.debug(json.dumps({"event": "table_link_garbled",
                                          "reason": span.reason.value,
                                          "offset": span.offset, "length": span.length}))
                case _:
                    assert_never(out)
        if push is None:
            self._kick.set()
        elif endpoint.sooner:  # else the deadline moved later, if at all: the ticker wakes
            endpoint.sooner = False  # at the old one and looks again
            deadline = endpoint.next_deadline()
            if deadline is not None and deadline < self._ticker_at:
                self._kick.set()

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            try:
                await self._transport.open()
            except TransportError as exc:
                log.debug(json.dumps({"event": "table_link_open_failed", "error": str(exc)}))
                await self._backoff()
                continue
            self._opens += 1
            self._tx.clear()
            self._open = True
            self._endpoint.attach(loop.time())
            self._service()
            try:
                async with asyncio.TaskGroup() as group:
                    group.create_task(self._reader())
                    group.create_task(self._ticker())
            except* TransportError:
                pass
            finally:
                self._open = False
            self._endpoint.detach(loop.time())
            self._service()
            self._tx.clear()
            await self._transport.close()
            await self._backoff()

    async def _backoff(self) -> None:
        delay = self.timings.backoff(self._attempt)
        self._attempt += 1
        await asyncio.sleep(delay)

    async def _reader(self) -> None:
        loop = asyncio.get_running_loop()
        if self._push is not None:
            await self._push.listen(self._received)
            return
        while True:
            data = await self._transport.read()
            self._endpoint.receive(data, loop.time())
            self._service()

    async def _ticker(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            if self._tx:
                data = bytes(self._tx)
                self._tx.clear()
                await self._transport.write(data)
                continue
            deadline = self._endpoint.next_deadline()
            self._ticker_at = math.inf if deadline is None else deadline
            self._kick.clear()
            try:
                async with asyncio.timeout_at(deadline):
                    await self._kick.wait()
            except TimeoutError:
                pass
            finally:
                self._ticker_at = -math.inf
            self._endpoint.tick(loop.time())
            self._service()

    def _received(self, data: bytes) -> None:
        """Bytes from a push transport, in its read's wake-up."""
        self._endpoint.receive(data, (self._loop or asyncio.get_running_loop()).time())
        self._service()
