"""The outbox's publishing on one connection (daemon/outbox_pump.py) without a broker: a session
whose PUBACK windows the test settles, an outbox in memory. Windows are confirmed in order, a
row leaves the outbox only when both its publishes succeed, a refusal keeps it and sends it again
after the backoff, a window past its deadline ends the connection, and a commit is published in
its own step only while the drain task waits for work."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from daemon import outbox_pump
from daemon.broker_seq import BrokerSeq
from daemon.errors import BrokerError
from daemon.outbox import OutboxSource, Outgoing
from daemon.outbox_pump import OutboxPump
from daemon.topics import Topics

TOPICS = Topics("p")


class _Session:
    """``publish_now`` recorded; each window's future settled by the test."""

    def __init__(self) -> None:
        self.windows: list[tuple[list[tuple[str, bytes]], asyncio.Future[list[int]]]] = []
        self._settled: list[Callable[[], None] | None] = []
        self.acks_now = 0  # owed TCP ACKs asked for at once (the pump waits for PUBACKs)

    def ack_now(self) -> None:
        self.acks_now += 1

    def publish_now(self, messages: Sequence[tuple[str, bytes]],
                    settled: Callable[[], None] | None = None) -> asyncio.Future[list[int]]:
        fut: asyncio.Future[list[int]] = asyncio.get_running_loop().create_future()
        self.windows.append((list(messages), fut))
        self._settled.append(settled)
        return fut

    def settle(self, i: int, codes: list[int] | BaseException) -> None:
        """Window ``i``'s PUBACKs read (or the connection failed), as the session does it."""
        fut = self.windows[i][1]
        if isinstance(codes, BaseException):
            fut.set_exception(codes)
        else:
            fut.set_result(codes)
        done = self._settled[i]
        assert done is not None
        done()


class _Outbox(OutboxSource):
    """Events offered by the test; ``fresh`` serves them unless ``cold`` (the log must be read)."""

    def __init__(self) -> None:
        self.waiting: list[Outgoing] = []
        self.acked: list[int] = []
        self.restarts = 0
        self.cold = False
        self.sent: list[Outgoing] = []  # handed out since the last restart

    def fresh(self, limit: int) -> list[Outgoing] | None:
        if self.cold:
            return None
        out, self.waiting = self.waiting[:limit], self.waiting[limit:]
        self.sent += out
        return out

    async def fetch(self, limit: int) -> list[Outgoing]:
        self.cold = False
        await asyncio.sleep(0)
        return self.fresh(limit) or []

    def ack(self, seqs: list[int]) -> None:
        self.acked += seqs

    def restart(self) -> None:
        self.restarts += 1
        # everything handed out and not acknowledged comes again, from the log
        self.waiting = [o for o in self.sent if o.seq not in self.acked] + self.waiting
        self.sent = []
        self.cold = True


class _Counters:
    published = 0
    refused = 0
    last_error: str | None = None
    last_ack_mono: float | None = None


def _event(seq: int) -> Outgoing:
    return Outgoing(seq, TOPICS.events, b'{"seq":%d}' % seq, b'{"pub":%d}' % seq)


async def _pump(backoff_s: float = 0.05) -> tuple[OutboxPump, _Session, _Outbox, _Counters,
                                                   asyncio.Event, asyncio.Task[None]]:
    session, outbox, counters = _Session(), _Outbox(), _Counters()
    ready = asyncio.Event()
    seq = BrokerSeq(TOPICS, lambda: 0, "--config x")
    pump = OutboxPump(session, outbox, TOPICS, seq, counters,  # type: ignore[arg-type]
                      ready=ready, backoff_s=backoff_s)
    task = asyncio.create_task(pump.drain())
    for _ in range(3):
        await asyncio.sleep(0)  # the drain reads the log once (restart), then waits for work
    return pump, session, outbox, counters, ready, task


def test_a_commit_is_published_in_its_step_and_confirmed_in_order() -> None:
    async def go() -> None:
        pump, session, outbox, counters, ready, task = await _pump()
        outbox.waiting = [_event(1)]
        assert pump.notify() is True  # on the wire now, no task woken
        assert not ready.is_set() and len(session.windows) == 1
        messages, first = session.windows[0]
        assert messages == [(TOPICS.private_events, b'{"seq":1}'), (TOPICS.events, b'{"pub":1}')]
        outbox.waiting = [_event(2), _event(3)]
        assert pump.notify() is True
        session.settle(1, [0, 0, 0, 0])  # the later window first: nothing is confirmed yet
        assert outbox.acked == [] and not first.done()
        session.settle(0, [0, 0])  # confirmed as the PUBACK is read, no loop step later
        assert outbox.acked == [1, 2, 3] and counters.published == 3
        task.cancel()

    asyncio.run(go())


def test_a_busy_or_cold_outbox_wakes_the_drain_task() -> None:
    async def go() -> None:
        pump, session, outbox, _, ready, task = await _pump()
        for seq in range(1, outbox_pump.IN_FLIGHT + 1):
            outbox.waiting = [_event(seq)]
            assert pump.notify() is True
        outbox.waiting = [_event(99)]
        assert pump.notify() is False and ready.is_set()  # IN_FLIGHT windows unconfirmed
        assert session.acks_now == 0  # a write carries our ACK while inputs keep coming
        await asyncio.sleep(0)
        assert len(session.windows) == outbox_pump.IN_FLIGHT  # the drain waits for room
        assert session.acks_now == 1  # ... with nothing to write: our owed ACK now
        session.settle(0, [0, 0])
        for _ in range(3):
            await asyncio.sleep(0)
        assert len(session.windows) == outbox_pump.IN_FLIGHT + 1
        assert session.windows[-1][0][0][1] == b'{"seq":99}'
        for _ in range(3):
            await asyncio.sleep(0)
        outbox.cold = True  # a gap: the log is read, by the drain task
        outbox.waiting = [_event(100)]
        assert pump.notify() is False and ready.is_set()
        task.cancel()

    asyncio.run(go())


def test_a_refused_event_stays_and_is_sent_again_after_the_backoff() -> None:
    async def go() -> None:
        pump, session, outbox, counters, _, task = await _pump(backoff_s=0.05)
        outbox.waiting = [_event(1), _event(2)]
        assert pump.notify() is True
        session.settle(0, [0, 0, 0, 0x87])  # event 2's public copy refused
        assert outbox.acked == [1] and counters.refused == 1 and outbox.restarts == 2
        assert "refused event 2 (reason 135)" in (counters.last_error or "")
        outbox.waiting.append(_event(3))
        assert pump.notify() is False  # the backoff: the drain task sends it, later
        await asyncio.sleep(0.01)
        assert len(session.windows) == 1
        await asyncio.sleep(0.1)
        assert len(session.windows) == 2  # event 2 again, with event 3
        assert session.windows[1][0][0] == (TOPICS.private_events, b'{"seq":2}')
        task.cancel()

    asyncio.run(go())


@pytest.mark.parametrize("how", ["failed", "overdue"])
def test_a_window_failed_or_past_its_deadline_ends_the_connection(
        how: str, monkeypatch: Any) -> None:
    monkeypatch.setattr(outbox_pump, "ACK_TIMEOUT", 0.05)

    async def go() -> None:
        pump, session, outbox, counters, _, task = await _pump()
        outbox.waiting = [_event(1)]
        pump.notify()
        if how == "failed":
            session.settle(0, BrokerError("connection closed"))
        with pytest.raises(BrokerError, match="publish failed" if how == "failed"
                           else "no PUBACK within the timeout"):
            async with asyncio.timeout(1.0):
                await pump.failed()
        assert outbox.acked == [] and counters.published == 0
        task.cancel()

    asyncio.run(go())
