"""The outbox's way to the broker on one connection (daemon/mqtt.py's ``BrokerLink``): events
published in seq order, pipelined, and deleted from the outbox only once their PUBACKs say the
broker took them.

* Published from memory in the step that commits them: right after a group commit
  (:meth:`OutboxPump.notify`, before the submitters are answered) the new events are written to
  the broker's socket at once, when the connection is idle (the drain task waiting for work, no
  refusal backoff, the broker's retained seq not ahead, fewer than :data:`IN_FLIGHT` windows
  unconfirmed) and the outbox serves them from memory. Otherwise the drain task
  (:meth:`OutboxPump.drain`) is woken and publishes them, from the log when it must.
* Pipelined: up to :data:`IN_FLIGHT` windows are published before their PUBACKs are in. Each
  window's PUBACKs settle one future (daemon/mqtt_session.py), and its ``settled`` callback,
  called as the last PUBACK is read, confirms the windows in order
  (:meth:`OutboxPump._settled`): a row leaves the outbox only if both its publishes (private
  and public) are acknowledged as a success; a refusal (an MQTT v5 broker may refuse a publish
  in the PUBACK) keeps it, and it is sent again from the log after the backoff.
* Every window has a deadline (:data:`ACK_TIMEOUT` from its publish), watched by one timer that
  is re-armed only when it fires, not one per window; a window past it, or failed, ends the
  connection (:meth:`OutboxPump.failed`).

Why a callback and one timer instead of a task that awaits each window under
``asyncio.timeout``: that task woke twice per input (its queue, then the window) and built a
timeout (a timer handle, two coroutines) per window; the drain task woke once more per input,
and the service yielded once more for it.
docs/performance.md "The publish path" has the figures.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from typing import Final, Protocol

from daemon.broker_seq import BrokerSeq
from daemon.errors import BrokerError
from daemon.mqtt_session import MqttSession
from daemon.outbox import OutboxSource, Outgoing
from daemon.topics import Topics

log = logging.getLogger("jantaku.mqtt")

#: events in flight at once while draining the outbox
WINDOW: Final = 64
#: seconds a window's acknowledgements may take before the connection is given up
ACK_TIMEOUT: Final = 30.0
#: windows of events published and not yet confirmed at most (then the outbox waits)
IN_FLIGHT: Final = 4

#: a published window: its rows, the PUBACK reason codes of their two publishes each, and the
#: monotonic time it was published
_Window = tuple[list[Outgoing], asyncio.Future[list[int]], float]


class Counters(Protocol):
    """What the link's health shows of the outbox (daemon/mqtt.py ``BrokerLink``)."""

    published: int
    refused: int
    last_error: str | None
    last_ack_mono: float | None


class OutboxPump:
    """One connection's publishing of the outbox (a new pump per connection)."""

    def __init__(self, acks: MqttSession, outbox: OutboxSource, topics: Topics, seq: BrokerSeq,
                 counters: Counters, *, ready: asyncio.Event, backoff_s: float) -> None:
        self._acks = acks
        self._outbox = outbox
        self._topics = topics
        self._private = topics.private_events
        self._seq = seq
        self._counters = counters
        self._ready = ready  # set: the drain task has work (the link's ``outbox_ready``)
        self._backoff_s = backoff_s
        self._flight: deque[_Window] = deque()
        self._room = asyncio.Event()  # a window confirmed: the drain task may publish again
        self._loop = asyncio.get_running_loop()
        self._failed: asyncio.Future[None] = self._loop.create_future()
        self._timer: asyncio.TimerHandle | None = None
        #: the drain task waits for work (the only time :meth:`notify` publishes itself)
        self._parked = False
        #: monotonic: when refused events are sent again (0: none refused)
        self.resend_at = 0.0

    def notify(self) -> bool:
        """Events were committed: published now when the connection is idle and the outbox
        has them in memory (``True``: on the broker's socket, or nothing to send), else the
        drain task is woken (``False``)."""
        if self._parked and not self._ready.is_set() and not self.resend_at \
                and len(self._flight) < IN_FLIGHT and self._seq.released.is_set():
            rows = self._outbox.fresh(WINDOW)
            if rows is not None:
                if rows:
                    try:
                        self._send(rows)
                    except BrokerError as exc:  # the connection is going: as the drain would
                        self._fail(exc)
                        return False
                    if len(rows) == WINDOW:  # more may wait
                        self._ready.set()
                return True
        self._ready.set()
        return False

    async def drain(self) -> None:
        """Publish the outbox in seq order, without waiting for the PUBACKs of what is in flight:
        the next input's events never wait for the broker's acknowledgement of the last ones (a
        broker without ``set_tcp_nodelay`` holds a second PUBACK until our TCP ACK, which the
        kernel may delay 40 ms when we send nothing)."""
        self._outbox.restart()  # a new connection: from the first event not acknowledged
        while True:
            if not self._seq.released.is_set():  # the broker ahead of the log: seqs reused
                await self._seq.released.wait()
            if self.resend_at:  # the broker refused an event: it is sent again after a backoff
                pause = self.resend_at - time.monotonic()
                if pause > 0:
                    await asyncio.sleep(pause)
                    continue
                self.resend_at = 0.0
            if len(self._flight) >= IN_FLIGHT:
                self._room.clear()
                self._acks.ack_now()  # nothing is written until a PUBACK makes room
                await self._room.wait()
                continue
            self._ready.clear()
            rows = self._outbox.fresh(WINDOW)
            if rows is None:
                rows = await self._outbox.fetch(WINDOW)
            if rows:
                self._send(rows)  # on the wire before the loop runs the link's ACK
                continue
            self._parked = True
            try:
                await self._ready.wait()
            finally:
                self._parked = False

    async def failed(self) -> None:
        """Until a window fails or passes its deadline: raises :class:`BrokerError`."""
        await self._failed

    def close(self) -> None:
        """The connection ended: nothing more is confirmed here (its windows are sent again
        on the next connection, from the log)."""
        self._flight = deque()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _send(self, rows: list[Outgoing]) -> None:
        private = self._private
        # each event twice: in full on private/events, its public projection on events
        window: list[tuple[str, bytes]] = []
        for r in rows:
            window += ((private, r.full), (r.topic, r.public))
        acked = self._acks.publish_now(window, self._settled)
        self._flight.append((rows, acked, time.monotonic()))
        if self._timer is None:
            self._timer = self._loop.call_later(ACK_TIMEOUT, self._overdue)

    def _settled(self) -> None:
        """A window's PUBACKs are in (or it failed): the windows settled so far, in order
        (called by the session as the last PUBACK is read: no step of the loop later)."""
        flight = self._flight
        while flight and flight[0][1].done():
            rows, acked, _sent = flight.popleft()
            if acked.cancelled():
                self._fail(BrokerError("publish failed: cancelled"))
                return
            exc = acked.exception()
            if exc is not None:
                self._fail(BrokerError(f"publish failed: {exc!r}"))
                return
            self._confirmed(rows, acked.result())
        self._room.set()

    def _confirmed(self, rows: list[Outgoing], pairs: list[int]) -> None:
        if max(pairs, default=0) < 0x80:  # every publish taken (the usual case): no pairing
            good, refused = [r.seq for r in rows], []
        else:
            codes = [max(a, b) for a, b in zip(pairs[::2], pairs[1::2])]
            good = [r.seq for r, code in zip(rows, codes) if code < 0x80]
            refused = [(r.seq, code) for r, code in zip(rows, codes) if code >= 0x80]
        c = self._counters
        self._outbox.ack(good)
        c.published += len(good)
        c.last_ack_mono = time.monotonic()
        if not refused:
            return
        c.refused += len(refused)
        c.last_error = (
            f"broker refused event {refused[0][0]} (reason {refused[0][1]}) on"
            f" {self._topics.events} or {self._topics.private_events}: the ACL must let"
            f" the table write {self._topics.base}/private/# too (docs/mqtt.md)"
        )
        log.error("%s; it stays in the outbox", c.last_error)
        # sent again, from the log, after the backoff; windows published after it may be on the
        # broker already (a refusal is an ACL fault: consumers order by seq)
        self._outbox.restart()
        self.resend_at = time.monotonic() + self._backoff_s

    def _overdue(self) -> None:
        """The timer: the oldest window unconfirmed past its deadline ends the connection, else
        the timer waits for its deadline (none while nothing is in flight)."""
        self._timer = None
        if not self._flight:
            return
        left = self._flight[0][2] + ACK_TIMEOUT - time.monotonic()
        if left <= 0:
            self._fail(BrokerError("no PUBACK within the timeout"))
        else:
            self._timer = self._loop.call_later(left, self._overdue)

    def _fail(self, exc: BrokerError) -> None:
        if not self._failed.done():
            self._failed.set_exception(exc)
            self._failed.exception()  # retrieved: the session may be ending for another reason
