"""Referee commands from the broker to the desk, bounded: a reader, the gate, a queue, the desk.

* **The reader.** With ``[mqtt.commands] connection = "own"`` (the default where it can be:
  daemon/config) the commands have a connection of their own, subscribed only to ``cmd/+`` and
  read by the lean reader (daemon/mqtt_lean.py), so a flood never reaches the table's main
  connection (events, retained state, backfill) and is read faster than it arrives. With
  ``"shared"`` they come on the main connection, as before, through the same gate.
* **The gate** (daemon/command_gate.py) screens each message synchronously as it is read.
* **Backfill requests** (daemon/backfill.py) come on the own connection too when there is one:
  anyone may send them, so a flood of them, like one of commands, must never reach the main
  connection (docs/performance.md "Backfill requests under a flood"). They are
  subscribed apart, and proven by a probe the table sends itself on the main connection: with an
  ACL that does not let the command account read them (an older ``jantaku.acl``) the broker
  refuses that subscription or grants it and delivers nothing; either way commands are read, and
  ``health.backfill.connection`` says ``"none"`` (daemon/backfill.py ``PROBE_S``).
* **The queue** holds what the gate let through, bounded (the excess is shed, counted); one task
  hands each to the desk (daemon/referee_desk.py) and publishes its reply on the main connection.

Both subscriptions are QoS 0: with QoS 1 deliveries, the shipped broker's
``autosave_on_changes`` saves its persistence file every 10 messages queued for the table, which
held a flood to ~1,400 messages a second and the valid command behind it (docs/performance.md
"Commands under a flood"). A command lost with a dropped connection is sent again by its
referee: the same ``id`` is executed once.
"""

from __future__ import annotations

import asyncio
import logging
import ssl
import time
from collections.abc import Awaitable, Callable
from typing import Any, Final, Protocol

from daemon import mqtt_wire as wire
from daemon.command_gate import CommandGate, GateLimits, Verdict, limits_of
from daemon.config import MqttConfig, RefereeConfig
from daemon.errors import BrokerError
from daemon.log_sample import SampledLog
from daemon.mqtt import SOCKET_OPTIONS, Incoming, Reply, tls_context
from daemon.mqtt_session import MqttSession
from daemon.topics import Topics

log = logging.getLogger("jantaku.mqtt")

#: subscription options: QoS 0; v5 retain-as-published (bit 3), so a command published retained
#: while we are connected still carries its flag and is recognised (never executed)
SUBSCRIBE_V5: Final = 0x08
SUBSCRIBE_V3: Final = 0x00
#: retained command topics named in health and cleared at most (a flood of them is counted)
RETAINED_TOPICS: Final = 64
#: one clearing publish per topic at most this often
CLEAR_EVERY_S: Final = 5.0


class ReplySink(Protocol):
    """What the intake needs of the table's main connection (daemon/mqtt.py ``BrokerLink``)."""

    def send_reply(self, reply: Reply) -> bool: ...

    def clear_retained(self, topic: str, done: Callable[[bool], None]) -> bool: ...


class RequestTaker(Protocol):
    """Requests on topics of their own read here too (daemon/backfill.py ``Backfill``)."""

    filters: tuple[str, ...]
    connection: str

    def take(self, topic: str, payload: bytes, *, retain: bool, size: int) -> bool: ...

    def expect_probe(self) -> None: ...

    @property
    def probe_due(self) -> bool: ...

    @property
    def probe_topic(self) -> str: ...

    def probe_sent(self) -> None: ...


class CommandIntake:
    """Reads, screens, queues and answers the table's referee commands (``run`` forever)."""

    def __init__(
        self, cfg: MqttConfig, client_id: str, topics: Topics, referee: RefereeConfig,
        on_command: Callable[[Incoming], Awaitable[Reply | None]], replies: ReplySink, *,
        wall: Callable[[], float] = time.time, limits: GateLimits | None = None,
        backoff: tuple[float, float] = (0.2, 5.0),
    ) -> None:
        self.cfg, self.client_id, self.topics = cfg, client_id, topics
        self.on_command, self.replies, self.backoff = on_command, replies, backoff
        self.own = cfg.commands.connection == "own"
        limits = limits_of(cfg.commands) if limits is None else limits
        self.gate = CommandGate(topics.base, referee, limits=limits, wall=wall)
        self._queue: asyncio.Queue[Incoming] = asyncio.Queue(limits.queue)
        self._retained_log = SampledLog(log, "retained commands")
        self._errors_log = SampledLog(log, "intake errors")
        #: set while the own connection is subscribed to ``cmd/+``
        self.subscribed = asyncio.Event()
        # health
        self.connected = False
        self.connects = 0
        self.last_error: str | None = None
        self.handler_errors = 0
        self.unsent = 0
        self.retained_topics: dict[str, str] = {}
        self._cleared_at: dict[str, float] = {}
        #: backfill requests read on the own connection (set by the service when ``own``)
        self.requests: RequestTaker | None = None

    # ------------------------------------------------------------------ from a reader
    def feed(self, topic: bytes, payload: bytes, retain: bool,
             props: bytes | None, size: int) -> None:
        """One message from ``cmd/+`` (the lean reader's callback, or the main connection's):
        screened now; only what the gate lets through is kept. Nothing a message holds ends
        the reader: an unexpected error is counted and logged (a few lines a window)."""
        try:
            if self.requests is not None and not topic.startswith(self.gate.prefix) \
                    and self.requests.take(topic.decode("utf-8", "replace"), payload,
                                           retain=retain, size=size):
                return
            verdict, code = self.gate.screen(topic, payload, retain, size)
            if verdict is Verdict.ADMIT or verdict is Verdict.ANSWER:
                self._queue_for_desk(topic, payload, props, size, code or None)
            elif verdict is Verdict.RETAINED:
                self._retained(topic.decode("utf-8", "replace"), size)
        except Exception as exc:  # a bug: the last net, so the connection is not dropped
            self.handler_errors += 1
            self._errors_log.warning("internal", "command intake: a message was dropped: %r",
                                     exc)

    def _queue_for_desk(self, topic: bytes, payload: bytes,
                        props: bytes | None, size: int, refused: str | None) -> None:
        try:
            known = wire.publish_properties(props)
        except wire.ProtocolError:
            known = wire.PublishProperties()
        incoming = Incoming(topic.decode("utf-8", "replace"), payload, known.response_topic,
                            known.correlation, (), refused=refused, size=size)
        try:
            self._queue.put_nowait(incoming)
        except asyncio.QueueFull:
            self.gate.shed("queue_full")
            return
        if refused is None:
            self.gate.admitted()

    def _retained(self, topic: str, size: int) -> None:
        """A retained copy on ``cmd/*`` is never executed: counted, logged (sampled) and
        cleared where the ACL allows (the shipped one does not let a table write ``cmd/#``:
        then ``health`` says what the operator must do)."""
        shown = topic.encode("ascii", "backslashreplace").decode()[:200]
        self._retained_log.warning("retained", "retained command on %s ignored (%d bytes);"
                                   " clearing it", shown, size)
        if len(self.retained_topics) >= RETAINED_TOPICS and topic not in self.retained_topics:
            return
        now = time.monotonic()
        if self.retained_topics.get(topic) == "clearing" or \
                now - self._cleared_at.get(topic, -CLEAR_EVERY_S) < CLEAR_EVERY_S:
            return
        self._cleared_at[topic] = now

        def done(cleared: bool) -> None:
            self.retained_topics[topic] = "cleared" if cleared else "not_cleared"

        self.retained_topics[topic] = "clearing"
        if not self.replies.clear_retained(topic, done):
            self.retained_topics[topic] = "not_cleared"

    # ------------------------------------------------------------------ tasks
    async def run(self) -> None:
        async with asyncio.TaskGroup() as tg:
            tg.create_task(self._desk(), name="commands-desk")
            tg.create_task(self._tick(), name="commands-log")
            if self.own:
                tg.create_task(self._connection(), name="commands-mqtt")

    async def _desk(self) -> None:
        while True:
            incoming = await self._queue.get()
            try:
                reply = await self.on_command(incoming)
            except Exception:  # the desk refuses what it cannot check; this is the last net
                self.handler_errors += 1
                log.exception("command handler failed; the message is dropped")
                continue
            if reply is not None and not self.replies.send_reply(reply):
                self.unsent += 1

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(1.0)
            requests = self.requests
            if requests is not None and self.connected and requests.probe_due \
                    and self.replies.send_reply(Reply(requests.probe_topic, b"")):
                requests.probe_sent()
            self.gate.log.tick()
            self._retained_log.tick()
            self._errors_log.tick()

    def _spec(self) -> wire.Connect:
        c = self.cfg
        own = c.commands
        return wire.Connect(
            host=c.host, port=c.port,
            client_id=own.username if own.username is not None else f"{self.client_id}-cmd",
            v5=c.protocol == "5", username=own.username,
            password=None if own.password is None else own.password.reveal(),
            keepalive=c.keepalive, timeout=c.connect_timeout, tls=tls_context(c),
            socket_options=SOCKET_OPTIONS,
        )

    async def _connection(self) -> None:
        """The own connection, kept up forever with a backoff between attempts."""
        delay = self.backoff[0]
        options = SUBSCRIBE_V5 if self.cfg.protocol == "5" else SUBSCRIBE_V3
        while True:
            started = time.monotonic()
            try:
                async with MqttSession(self._spec(), self.feed) as session:
                    await session.subscribe([(self.topics.cmd_filter, options)])
                    await self._subscribe_requests(session, options)
                    self.subscribed.set()
                    self.connected, self.last_error = True, None
                    self.connects += 1
                    log.info("command intake connected to %s:%d", self.cfg.host, self.cfg.port)
                    await session.wait_closed()
            except (BrokerError, OSError, ssl.SSLError) as exc:
                self.last_error = str(exc)[:300]
                log.warning("command intake connection lost: %s", self.last_error)
            finally:
                self.connected = False
                self.subscribed.clear()
            if time.monotonic() - started > 10:
                delay = self.backoff[0]
            await asyncio.sleep(delay)
            delay = min(delay * 2, self.backoff[1])

    async def _subscribe_requests(self, session: MqttSession, options: int) -> None:
        requests = self.requests
        if requests is None:
            return
        try:
            await session.subscribe([(f, options) for f in requests.filters])
        except BrokerError as exc:
            requests.connection = "none"
            log.error("the command account may not read backfill requests (%s): none are "
                      "answered; let it read them (systemd/mosquitto/jantaku.acl)", exc)
            return
        requests.expect_probe()

    # ------------------------------------------------------------------ health
    def health(self) -> dict[str, Any]:
        """``health.commands``' keys from here: the retained copies, and ``intake``."""
        stuck = sorted(t.encode("ascii", "backslashreplace").decode()[:200]
                       for t, s in self.retained_topics.items() if s == "not_cleared")
        out: dict[str, Any] = {
            "retained_seen": self.gate.stats.retained,
            "handler_errors": self.handler_errors,
            "intake": {
                "connection": "own" if self.own else "shared",
                **({"connected": self.connected, "connects": self.connects,
                    "last_error": self.last_error} if self.own else {}),
                **self.gate.stats.to_json(),
                "queued": self._queue.qsize(),
                "replies_not_sent": self.unsent,
                "log_suppressed": self.gate.log.suppressed_total,
            },
        }
        if stuck:
            out["retained_not_cleared"] = stuck[:8]
            out["operator_action"] = (
                "a retained message sits on a command topic (it is never executed): clear it "
                "as a referee account, e.g. mosquitto_pub -r -n -t <topic>"
            )
        return out

