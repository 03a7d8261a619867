"""The broker's memory of the table, a second high-water mark beside the log's own mark
(docs/daemon.md, "The broker ahead of the log").

The broker keeps the table's retained ``state`` and ``state/scores``, each with the ``seq`` of
the last event it includes. If the broker remembers a seq the table's log never reached, the log
went back (a restored or replaced log with its mark, a log accepted shorter, another daemon
running with this table id): events numbered from the log now would reuse seqs that consumers
have seen, and they drop "any seq already seen" (docs/mqtt.md). So at every connect, before it
publishes anything, the daemon reads its own retained state back (subscribe, unsubscribe: the
UNSUBACK comes after the retained copies), and if the broker is ahead:

* it holds its events in the outbox (logged, not published), its retained ``state``,
  ``private/state`` and ``state/scores``, and backfill answers; ``status``, ``health`` and command
  replies still go out; the table plays on;
* the fault is one line, with the command that accepts it: ``broker_ahead`` at error level in the
  JSON log, ``health`` unhealthy with it as ``problem`` and ``broker.held``, the console's alert;
* it looks again every :data:`RECHECK_S` and at every reconnect, and publishes again once the
  broker no longer remembers more than the log held when the fault was raised (the retained state
  cleared by ``jantaku log accept --config FILE``; the log growing past it is no answer: those
  seqs were seen with other events).

A table starts whether or not its broker is there: the check runs when the broker is reached.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Iterable
from typing import Final

from daemon.errors import BrokerError
from daemon.mqtt_session import MqttSession
from daemon.topics import Topics

log = logging.getLogger("jantaku.mqtt")

#: while the broker is ahead, its retained state is read again this often
RECHECK_S: Final = 10.0


def seq_topics(topics: Topics) -> tuple[str, ...]:
    """The retained topics whose ``seq`` the broker remembers."""
    return (topics.state, topics.scores)


def highest_seq(payloads: Iterable[bytes | bytearray]) -> int:
    """The highest integer ``seq`` among JSON payloads (0: none)."""
    best = 0
    for raw in payloads:
        try:
            body = json.loads(raw)
        except ValueError:
            continue
        seq = body.get("seq") if isinstance(body, dict) else None
        if isinstance(seq, int) and not isinstance(seq, bool):
            best = max(best, seq)
    return best


def ahead_line(table: str, broker: int, logged: int, accept: str) -> str:
    return (f"the broker remembers event {broker} of table {table}, but the event log ends at "
            f"event {logged}: the log went back (a restored or replaced log, or another daemon "
            "with this table id); events are held, not published (their seqs would be reused) -- "
            f"restore the log, or accept it as it is with: jantaku log accept {accept} "
            "(docs/daemon.md, \"The broker ahead of the log\")")


class BrokerSeq:
    """The comparison, and what the broker link holds while the broker is ahead."""

    def __init__(self, topics: Topics, log_seq: Callable[[], int], accept: str,
                 on_release: Callable[[], None] = lambda: None) -> None:
        self.topics = topics
        self.log_seq = log_seq  # the table's last event seq (its log)
        self.accept = accept  # how the operator names this table: ``--config FILE``
        self.on_release = on_release
        self.watched = frozenset(seq_topics(topics))
        #: retained topics not published while held (each carries a seq)
        self.held_topics = frozenset({topics.state, topics.private_state, topics.scores})
        self.held: str | None = None  # the fault line while the broker is ahead
        self.broker_seq = 0  # what the broker remembered at the last check
        self._held_at = 0  # the log's last event when the fault was raised
        self.released = asyncio.Event()
        self.released.set()
        self._routed: list[bytes | bytearray] = []
        self._refused = False

    def route(self, topic: str, payload: bytes, retain: bool) -> bool:
        """A message on a watched topic (read by the broker link's listener during a check):
        kept for :meth:`check`; never a command."""
        if topic not in self.watched:
            return False
        if retain:
            self._routed.append(payload)
        return True

    async def check(self, client: MqttSession) -> None:
        """Read the broker's retained seq, compare, hold or release."""
        watched = sorted(self.watched)
        try:
            await client.subscribe([(topic, 1) for topic in watched])
            await client.unsubscribe(watched)
        except BrokerError as exc:
            if client.closed:
                raise
            if not self._refused:  # an ACL that does not let the table read its own state
                self._refused = True
                log.warning("cannot read the table's retained state back (%s): the broker is "
                            "not compared with the log", exc)
            return
        # the retained copies came through :meth:`route` (the reader's callback) before the
        # UNSUBACK that ended the unsubscribe above
        got, self._routed = self._routed, []
        self.broker_seq = highest_seq(got)
        logged = self.log_seq()
        if self.held is None and self.broker_seq > logged:
            self.held, self._held_at = ahead_line(self.topics.table, self.broker_seq, logged,
                                                  self.accept), logged
            self.released.clear()
            log.error("%s", self.held, extra={"fields": {
                "event": "broker_ahead", "table": self.topics.table,
                "broker_seq": self.broker_seq, "log_seq": logged}})
        elif self.held is not None and self.broker_seq <= self._held_at:
            self.held = None
            self.released.set()
            log.warning("the broker no longer remembers more than the log: events are published "
                        "again", extra={"fields": {"event": "broker_ahead_cleared",
                                                   "table": self.topics.table}})
            self.on_release()

    async def watch(self, client: MqttSession) -> None:
        """While held: look again every :data:`RECHECK_S` (a task of the connection)."""
        while True:
            await asyncio.sleep(RECHECK_S)
            if self.held is not None:
                await self.check(client)
