"""The daemon's one MQTT adapter: connection loop, outbox, retained state.

* One ``async with`` :class:`daemon.mqtt_session.MqttSession` per connection (the daemon's own
  MQTT client on an asyncio transport), and an explicit reconnect loop with backoff.
  The table never waits for the broker: inputs are logged and applied whatever the connection.
* The Last Will is ``status`` = ``{"state": "offline"}``, retained, QoS 1; once connected the
  daemon publishes ``{"state": "online"}`` retained, and ``offline`` on a clean shutdown.
* Events leave the durable outbox in seq order (daemon/outbox.py: from memory after a commit,
  from the log otherwise), pipelined (daemon/outbox_pump.py: published in the step that commits
  them while the connection keeps up); a row is deleted only after its PUBACK, and only if the
  PUBACK is a success (an MQTT v5 broker may refuse a publish in the PUBACK: the event stays, and
  is sent again later).
* Retained topics (state, state/*, health) are the latest value of each: republished on every
  connect (a broker that lost its retained store is complete again at once).
* Commands arrive on a connection of their own, or on this one with ``[mqtt.commands]
  connection = "shared"`` (daemon/command_intake.py); either way their replies go out here, to
  the v5 response topic with the correlation data, or to ``reply/<client>`` (v3.1.1).

A window of events is written to the socket in the step that publishes it, and one future
carries the PUBACK reason codes of the whole window (daemon/mqtt_session.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import socket
import ssl
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from daemon import disclosure
from daemon.broker_seq import BrokerSeq
from daemon.config import MqttConfig
from daemon.errors import BrokerError
from daemon.mqtt_session import MqttSession
from daemon.mqtt_wire import Connect, PublishProperties, Will
from daemon.outbox import OutboxSource, dumps
from daemon.outbox_pump import ACK_TIMEOUT, WINDOW, OutboxPump
from daemon.topics import SCHEMA_STATUS, Topics

log = logging.getLogger("jantaku.mqtt")

#: each publish and its PUBACK are small: without TCP_NODELAY, Nagle and delayed ACKs add ~40 ms
#: to a command's round trip (bench/referee_rtt.py measures both)
SOCKET_OPTIONS: tuple[tuple[int, int, int], ...] = ((socket.IPPROTO_TCP, socket.TCP_NODELAY, 1),)


@dataclass(frozen=True, slots=True)
class Incoming:
    """A command message as received (topic, payload, and where the reply goes)."""

    topic: str
    payload: bytes
    response_topic: str | None
    correlation: bytes | None
    user_properties: tuple[tuple[str, str], ...]
    #: a retained copy: never executed (a command must be sent to be meant)
    retain: bool = False
    #: the command gate's refusal (daemon/command_gate.py): answered, never executed
    refused: str | None = None
    #: the payload's length on the wire (``payload`` is empty for one too long to keep)
    size: int | None = None


@dataclass(frozen=True, slots=True)
class Reply:
    topic: str
    payload: bytes
    correlation: bytes | None = None


def status_payload(state: str, table: str, **extra: Any) -> bytes:
    body = {"schema": SCHEMA_STATUS, "state": state, "table": table, **extra}
    return json.dumps(body, separators=(",", ":")).encode()


def tls_context(cfg: MqttConfig) -> ssl.SSLContext | None:
    if cfg.tls is None:
        return None
    ctx = ssl.create_default_context(ssl.Purpose.SERVER_AUTH, cafile=str(cfg.tls.ca))
    if cfg.tls.cert is not None and cfg.tls.key is not None:
        ctx.load_cert_chain(str(cfg.tls.cert), str(cfg.tls.key))
    if cfg.tls.insecure:
        ctx.check_hostname = False
    return ctx


#: SUBSCRIBE options: QoS 0, and QoS 0 with v5 retain as published
QOS0, QOS0_RAP = 0x00, 0x08


class RequestRoute(Protocol):
    """Requests on topics of their own (daemon/backfill.py): ``offer`` says whether it took it."""

    filters: tuple[str, ...]

    def offer(self, topic: str, payload: bytes) -> bool: ...


class CommandFeed(Protocol):
    """Where commands read on this connection go (daemon/command_intake.py ``CommandIntake``):
    ``own`` false means this connection subscribes to them."""

    own: bool
    #: set while the own connection is subscribed (``own`` only)
    subscribed: asyncio.Event

    def feed(self, topic: bytes, payload: bytes, retain: bool,
             props: bytes | None, size: int) -> None: ...


class BrokerLink:
    """Keeps one table connected to its broker, forever (until :meth:`stop`)."""

    def __init__(
        self,
        cfg: MqttConfig,
        client_id: str,
        topics: Topics,
        outbox: OutboxSource,
        *,
        backoff: tuple[float, float] = (0.2, 5.0),
        log_seq: Callable[[], int] = lambda: 0,
        accept: str = "--config FILE",
    ) -> None:
        self.cfg = cfg
        self.client_id = client_id
        self.topics = topics
        self.outbox = outbox
        self.backoff = backoff
        self.outbox_ready = asyncio.Event()
        #: the current connection's publishing of the outbox (None: disconnected)
        self._pump: OutboxPump | None = None
        self._retained: dict[str, bytes] = {}
        self._dirty: set[str] = set()
        self._retained_ready = asyncio.Event()
        self._stopping = asyncio.Event()
        # health
        self.connected = False
        self.connects = 0
        self.last_error: str | None = None
        self.last_ack_mono: float | None = None
        self.published = 0
        self.refused = 0
        self.since: float | None = None
        #: TCP_NODELAY on the current connection's socket (None: not a TCP socket)
        self.nodelay: bool | None = None
        #: requests other than commands (daemon/backfill.py): subscribed on connect
        self.requests: RequestRoute | None = None
        #: the command intake: subscribed here only when it has no connection of its own
        self.commands: CommandFeed | None = None
        #: the current connection (None: disconnected)
        self.session: MqttSession | None = None
        #: the broker's retained seq against the log's: events held while it is ahead
        self.seq = BrokerSeq(topics, log_seq, accept, on_release=self._retained_ready.set)

    # ------------------------------------------------------------------ what the service feeds

    def set_retained_json(self, topic: str, body: dict[str, Any]) -> None:
        """:meth:`set_retained` of ``body``, each form encoded once from the dict in hand (the
        same bytes as encoding ``body`` and projecting the encoded payload)."""
        full = dumps(body)
        project = {self.topics.state: disclosure.public_state,
                   self.topics.health: disclosure.public_health}.get(topic)
        if project is None:
            self._set(topic, full)
            return
        if topic == self.topics.state:
            self._set(self.topics.private_state, full)
        shown = project(body)
        self._set(topic, full if shown is body else dumps(shown))

    def _set(self, topic: str, payload: bytes) -> None:
        if self._retained.get(topic) == payload:
            return
        self._retained[topic] = payload
        self._dirty.add(topic)
        self._retained_ready.set()

    def notify_outbox(self) -> bool:
        """Events were committed (:meth:`daemon.outbox_pump.OutboxPump.notify`): ``True`` when
        they are on the broker's socket already (or nothing was waiting to be sent)."""
        pump = self._pump
        if pump is None:
            self.outbox_ready.set()
            return False
        return pump.notify()

    def stop(self) -> None:
        self._stopping.set()

    # ------------------------------------------------------------------ the loop
    def _client(self) -> MqttSession:
        return MqttSession(Connect(
            host=self.cfg.host,
            port=self.cfg.port,
            client_id=self.client_id,
            v5=self.cfg.protocol == "5",
            will=Will(self.topics.status, status_payload("offline", self.topics.table)),
            username=self.cfg.username,
            password=None if self.cfg.password is None else self.cfg.password.reveal(),
            keepalive=self.cfg.keepalive,
            timeout=self.cfg.connect_timeout,
            tls=tls_context(self.cfg),
            max_inflight=WINDOW,
            socket_options=SOCKET_OPTIONS,
        ), self._message)

    async def run(self) -> None:
        delay = self.backoff[0]
        while not self._stopping.is_set():
            started = time.monotonic()
            try:
                await self._session()
            except* (BrokerError, OSError, ssl.SSLError) as group:
                self.last_error = "; ".join(str(e) for e in group.exceptions)[:300]
                log.warning("broker connection lost: %s", self.last_error)
            finally:
                self.connected = False
                self.since = None
            if self._stopping.is_set():
                break
            if time.monotonic() - started > 10:
                delay = self.backoff[0]
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(delay):
                    await self._stopping.wait()
            delay = min(delay * 2, self.backoff[1])

    async def _session(self) -> None:
        async with self._client() as client:
            acks = client
            try:
                await self._on_connected(client, acks)
                pump = self._pump = OutboxPump(acks, self.outbox, self.topics, self.seq, self,
                                               ready=self.outbox_ready,
                                               backoff_s=self.backoff[1])
                async with asyncio.TaskGroup() as tg:
                    tg.create_task(pump.drain(), name="mqtt-outbox")
                    tg.create_task(pump.failed(), name="mqtt-acks")
                    tg.create_task(self._publish_retained(acks), name="mqtt-retained")
                    tg.create_task(self._until_stopped(), name="mqtt-stop")
                    tg.create_task(self.seq.watch(client), name="mqtt-seq")
            except* _Stop:
                await self._goodbye(acks)
            finally:
                self.session = None
                if self._pump is not None:
                    self._pump.close()
                    self._pump = None
                acks.fail_all(BrokerError("connection closed"))

    async def _on_connected(self, client: MqttSession, acks: MqttSession) -> None:
        self.nodelay = client.nodelay()
        self.connected = True
        self.connects += 1
        self.since = time.time()
        self.last_error = None
        if self.commands is not None and not self.commands.own:
            # QoS 0 (daemon/command_intake.py says why); v5 retain-as-published: a command
            # published retained while we are connected still carries its retain flag, so it is
            # recognised (and not executed) at once
            opts = QOS0_RAP if self.cfg.protocol == "5" else QOS0
            await client.subscribe([(self.topics.cmd_filter, opts)])
        if self.requests is not None:
            # QoS 0, as the commands: a QoS 1 flood of requests made the shipped broker save
            # its persistence file every 10 deliveries (docs/performance.md "Backfill requests
            # under a flood"); a lost request is asked again
            await client.subscribe([(flt, QOS0) for flt in self.requests.filters])
        self.session = acks
        if self.commands is not None and self.commands.own:
            # "online" says that commands are read: the own connection's subscription first
            # (not for ever: a table whose command account fails still publishes its events)
            waits = [asyncio.ensure_future(e.wait())
                     for e in (self.commands.subscribed, self._stopping)]
            try:
                await asyncio.wait(waits, timeout=self.cfg.connect_timeout,
                                   return_when=asyncio.FIRST_COMPLETED)
            finally:
                for w in waits:
                    w.cancel()
        await self.seq.check(client)  # before anything is published on this connection
        online = status_payload("online", self.topics.table, since=_iso_now())
        async with asyncio.timeout(ACK_TIMEOUT):
            await acks.publish(self.topics.status, online, qos=1, retain=True)
        # Everything retained again: a broker restarted without persistence is complete at once.
        self._dirty = set(self._retained)
        self._retained_ready.set()
        self.outbox_ready.set()
        log.info("connected to %s:%d as %s", self.cfg.host, self.cfg.port, self.client_id)

    async def _goodbye(self, acks: MqttSession) -> None:
        offline = status_payload("offline", self.topics.table, since=_iso_now())
        try:
            async with asyncio.timeout(5.0):
                await acks.publish(self.topics.status, offline, qos=1, retain=True)
        except (TimeoutError, BrokerError):
            log.warning("could not publish offline status at shutdown")

    async def _until_stopped(self) -> None:
        await self._stopping.wait()
        raise _Stop

    def _message(self, topic: bytes, payload: bytes, retain: bool, props: bytes | None,
                 size: int) -> None:
        """A message from the broker, on the reader's callback: a backfill request, or a command
        for the intake's gate (both bounded where they are taken; ``payload`` is ``b""`` for one
        longer than the reader buffers, daemon/mqtt_lean.py)."""
        name = topic.decode("utf-8", "replace")
        if self.requests is not None and not retain and payload \
                and self.requests.offer(name, payload):
            return
        if self.seq.route(name, payload, retain):
            return  # the broker's retained state, read back by a check (daemon/broker_seq.py)
        if self.commands is None or self.commands.own:
            return
        self.commands.feed(topic, payload, retain, props, size)

    def send_reply(self, reply: Reply) -> bool:
        """Publish a command's reply (QoS 1, not awaited); ``False`` while disconnected."""
        acks = self.session
        if acks is None:
            return False
        properties = None
        if reply.correlation is not None and self.cfg.protocol == "5":
            properties = PublishProperties(correlation=reply.correlation)
        try:
            fut = acks.publish(reply.topic, reply.payload, qos=1, properties=properties)
        except (ValueError, BrokerError) as exc:  # the desk checked the topic
            log.error("could not publish a reply: %r", exc)
            return False
        fut.add_done_callback(_ignore)
        return True

    def clear_retained(self, topic: str, done: Callable[[bool], None]) -> bool:
        """Publish an empty retained message on ``topic`` (a retained command); ``done`` gets
        whether the broker took it. ``False``: not sent (disconnected)."""
        acks = self.session
        if acks is None:
            return False
        try:
            fut = acks.publish(topic, b"", qos=1, retain=True)
        except (ValueError, BrokerError):
            return False

        def settled(f: asyncio.Future[int]) -> None:
            code = 0x80 if f.cancelled() or f.exception() is not None else f.result()
            # v5 says 0x87 (not authorised); a v3.1.1 broker cannot say: the copy comes back
            # retained on the next connect and is counted again
            done(code < 0x80 and self.cfg.protocol == "5")

        fut.add_done_callback(settled)
        return True

    async def publish_reply(self, topic: str, payload: bytes) -> bool:
        """Publish one reply at QoS 1 and wait for its PUBACK: whether the broker took it
        (``False`` while disconnected: the requester asks again)."""
        acks = self.session
        if acks is None or self.seq.held is not None:
            return False
        try:
            async with asyncio.timeout(ACK_TIMEOUT):
                code = await acks.publish(topic, payload, qos=1)
        except (TimeoutError, ValueError, BrokerError):
            return False
        return code < 0x80

    async def _publish_retained(self, acks: MqttSession) -> None:
        while True:
            await self._retained_ready.wait()
            self._retained_ready.clear()
            dirty, self._dirty = self._dirty, set()
            if self.seq.held is not None:  # those carrying a seq wait (broker_seq.py)
                self._dirty, dirty = dirty & self.seq.held_topics, dirty - self.seq.held_topics
            futures = [
                acks.publish(t, self._retained[t], qos=1, retain=True) for t in sorted(dirty)
            ]
            try:
                async with asyncio.timeout(ACK_TIMEOUT):
                    results = await asyncio.gather(*futures, return_exceptions=True)
            except TimeoutError:
                self._dirty |= dirty
                raise BrokerError("no PUBACK for retained state") from None
            if any(isinstance(r, BaseException) for r in results):
                self._dirty |= dirty
                raise BrokerError("retained state not acknowledged")

    def health(self) -> dict[str, Any]:
        return {
            "connected": self.connected,
            "host": self.cfg.host,
            "port": self.cfg.port,
            "protocol": self.cfg.protocol,
            "connects": self.connects,
            "published": self.published,
            "refused": self.refused,
            "last_error": self.last_error,
            "held": self.seq.held,
        }


class _Stop(Exception):
    """Raised inside the session's task group to end it cleanly (stop requested)."""


def _ignore(fut: asyncio.Future[int]) -> None:
    if not fut.cancelled():
        fut.exception()


def _iso_now() -> str:
    from daemon.table import iso

    return iso(time.time_ns())
