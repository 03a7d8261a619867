"""The daemon's one MQTT adapter: connection loop, outbox, retained state.

* One ``async with`` :class:`daemon.mqtt_paho.PahoSession` per connection (paho-mqtt driven on
  the loop through its public API), and an explicit reconnect loop with backoff.
  The table never waits for the broker: inputs are logged and applied whatever the connection.
* The Last Will is ``status`` = ``{"state": "offline"}``, retained, QoS 1; once connected the
  daemon publishes ``{"state": "online"}`` retained, and ``offline`` on a clean shutdown.
* Events leave the durable outbox in seq order (daemon/outbox.py: from memory after a commit,
  from the log otherwise), pipelined: up to :data:`IN_FLIGHT` windows are published before their
  PUBACKs are in; a row is deleted only after its PUBACK, and only if the PUBACK is a success (an
  MQTT v5 broker may refuse a publish in the PUBACK: the event stays, and is sent again later).
* Retained topics (state, state/*, health) are the latest value of each: republished on every
  connect (a broker that lost its retained store is complete again at once).
* Commands arrive on ``cmd/+``; the handler's reply goes to the v5 response topic with the
  correlation data, or to ``reply/<client>`` for a v3.1.1 client.

Each publish's future carries its PUBACK reason code, and a window of events is written to the
socket in the step that publishes it (daemon/mqtt_paho.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import socket
import ssl
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from paho.mqtt.subscribeoptions import SubscribeOptions

from daemon import disclosure
from daemon.broker_seq import BrokerSeq
from daemon.config import MqttConfig
from daemon.errors import BrokerError
from daemon.mqtt_paho import Connect, PahoSession, Will
from daemon.outbox import OutboxSource, Outgoing, dumps
from daemon.topics import SCHEMA_STATUS, Topics

log = logging.getLogger("jantaku.mqtt")

#: events in flight at once while draining the outbox
WINDOW = 64
#: each publish and its PUBACK are small: without TCP_NODELAY, Nagle and delayed ACKs add ~40 ms
#: to a command's round trip (bench/referee_rtt.py measures both)
SOCKET_OPTIONS: tuple[tuple[int, int, int], ...] = ((socket.IPPROTO_TCP, socket.TCP_NODELAY, 1),)
#: seconds to wait for the acknowledgements of one window before giving the connection up
ACK_TIMEOUT = 30.0
#: windows of events published and not yet confirmed at most (then the outbox waits)
IN_FLIGHT = 4


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


#: a published window: its rows and the PUBACK futures of their two publishes each
_Sent = tuple[list[Outgoing], list[asyncio.Future[int]]]


class RequestRoute(Protocol):
    """Requests on topics of their own (daemon/backfill.py): ``offer`` says whether it took it."""

    filters: tuple[str, ...]

    def offer(self, topic: str, payload: bytes) -> bool: ...


class BrokerLink:
    """Keeps one table connected to its broker, forever (until :meth:`stop`)."""

    def __init__(
        self,
        cfg: MqttConfig,
        client_id: str,
        topics: Topics,
        outbox: OutboxSource,
        on_command: Callable[[Incoming], Awaitable[Reply | None]],
        *,
        backoff: tuple[float, float] = (0.2, 5.0),
        log_seq: Callable[[], int] = lambda: 0,
        accept: str = "--config FILE",
    ) -> None:
        self.cfg = cfg
        self.client_id = client_id
        self.topics = topics
        self.outbox = outbox
        self.on_command = on_command
        self.backoff = backoff
        self.outbox_ready = asyncio.Event()
        self._resend_at = 0.0  # monotonic: when refused events are sent again
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
        self.retained_seen = 0
        #: TCP_NODELAY on the current connection's socket (None: not a TCP socket)
        self.nodelay: bool | None = None
        self.retained_topics: dict[str, str] = {}
        self.command_errors = 0
        #: requests other than commands (daemon/backfill.py): subscribed on connect
        self.requests: RequestRoute | None = None
        self._acks: PahoSession | None = None
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

    def notify_outbox(self) -> None:
        self.outbox_ready.set()

    def stop(self) -> None:
        self._stopping.set()

    # ------------------------------------------------------------------ the loop
    def _client(self) -> PahoSession:
        return PahoSession(Connect(
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
        ))

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
                sent: asyncio.Queue[_Sent] = asyncio.Queue(IN_FLIGHT)
                async with asyncio.TaskGroup() as tg:
                    tg.create_task(self._listen(client, acks), name="mqtt-commands")
                    tg.create_task(self._drain(acks, sent), name="mqtt-outbox")
                    tg.create_task(self._confirm(sent), name="mqtt-acks")
                    tg.create_task(self._publish_retained(acks), name="mqtt-retained")
                    tg.create_task(self._until_stopped(), name="mqtt-stop")
                    tg.create_task(self.seq.watch(client), name="mqtt-seq")
            except* _Stop:
                await self._goodbye(acks)
            finally:
                self._acks = None
                acks.fail_all(BrokerError("connection closed"))

    async def _on_connected(self, client: PahoSession, acks: PahoSession) -> None:
        self.nodelay = client.nodelay()
        self.connected = True
        self.connects += 1
        self.since = time.time()
        self.last_error = None
        if self.cfg.protocol == "5":
            # retain-as-published: a command published retained while we are connected still
            # carries its retain flag, so it is recognised (and not executed) at once
            opts = SubscribeOptions(qos=1, retainAsPublished=True)
            await client.subscribe(self.topics.cmd_filter, options=opts)
        else:
            await client.subscribe(self.topics.cmd_filter, qos=1)
        if self.requests is not None:
            for flt in self.requests.filters:
                await client.subscribe(flt, qos=1)
        self._acks = acks
        await self.seq.check(client)  # before anything is published on this connection
        online = status_payload("online", self.topics.table, since=_iso_now())
        async with asyncio.timeout(ACK_TIMEOUT):
            await acks.publish(self.topics.status, online, qos=1, retain=True)
        # Everything retained again: a broker restarted without persistence is complete at once.
        self._dirty = set(self._retained)
        self._retained_ready.set()
        self.outbox_ready.set()
        log.info("connected to %s:%d as %s", self.cfg.host, self.cfg.port, self.client_id)

    async def _goodbye(self, acks: PahoSession) -> None:
        offline = status_payload("offline", self.topics.table, since=_iso_now())
        try:
            async with asyncio.timeout(5.0):
                await acks.publish(self.topics.status, offline, qos=1, retain=True)
        except (TimeoutError, BrokerError):
            log.warning("could not publish offline status at shutdown")

    async def _until_stopped(self) -> None:
        await self._stopping.wait()
        raise _Stop

    async def _listen(self, client: PahoSession, acks: PahoSession) -> None:
        async for message in client.messages():
            props = message.properties
            payload = message.payload if isinstance(message.payload, bytes) else b""
            topic = str(message.topic)
            if self.requests is not None and not message.retain and payload \
                    and self.requests.offer(topic, payload):
                continue
            if self.seq.route(topic, payload, message.retain):
                continue
            if message.retain:
                self._retained_command(topic, payload, acks)
                continue
            if not payload:
                continue  # a retained command being cleared (by us or the operator)
            incoming = Incoming(
                topic=topic,
                payload=payload,
                response_topic=getattr(props, "ResponseTopic", None) if props else None,
                correlation=getattr(props, "CorrelationData", None) if props else None,
                user_properties=tuple(getattr(props, "UserProperty", ()) or ()) if props else (),
            )
            try:
                reply = await self.on_command(incoming)
            except Exception:  # the handler refuses what it cannot check; this is the last net
                self.command_errors += 1
                log.exception("command handler failed; the message is dropped")
                continue
            if reply is None:
                continue
            properties = None
            if reply.correlation is not None and self.cfg.protocol == "5":
                properties = Properties(PacketTypes.PUBLISH)  # type: ignore[no-untyped-call]
                properties.CorrelationData = reply.correlation
            try:
                fut = acks.publish(reply.topic, reply.payload, qos=1, properties=properties)
            except (ValueError, BrokerError) as exc:  # the handler checked the topic
                self.command_errors += 1
                log.error("could not publish a reply: %r", exc)
                continue
            fut.add_done_callback(_ignore)

    def _retained_command(self, topic: str, payload: bytes, acks: PahoSession) -> None:
        """A retained copy on ``cmd/*`` is never executed: log it and try to clear it (the
        shipped ACL does not let a table write ``cmd/#``: then ``health`` says what to do)."""
        if not payload:
            return
        self.retained_seen += 1
        log.warning(
            "retained command on %s ignored (%d bytes); clearing it",
            topic.encode("ascii", "backslashreplace").decode()[:200], len(payload),
        )
        if len(self.retained_topics) >= 64 and topic not in self.retained_topics:
            return  # a flood of retained topics: counted, the first 64 are named and cleared
        self.retained_topics[topic] = "clearing"
        try:
            fut = acks.publish(topic, b"", qos=1, retain=True)
        except (ValueError, BrokerError):
            self.retained_topics[topic] = "not_cleared"
            return

        def done(f: asyncio.Future[int]) -> None:
            code = 0x80 if f.cancelled() or f.exception() is not None else f.result()
            # v5 says 0x87 (not authorised); a v3.1.1 broker cannot say: the copy comes back
            # retained on the next connect and is counted again
            cleared = code < 0x80 and self.cfg.protocol == "5"
            self.retained_topics[topic] = "cleared" if cleared else "not_cleared"

        fut.add_done_callback(done)

    async def publish_reply(self, topic: str, payload: bytes) -> bool:
        """Publish one reply at QoS 1 and wait for its PUBACK: whether the broker took it
        (``False`` while disconnected: the requester asks again)."""
        acks = self._acks
        if acks is None or self.seq.held is not None:
            return False
        try:
            async with asyncio.timeout(ACK_TIMEOUT):
                code = await acks.publish(topic, payload, qos=1)
        except (TimeoutError, ValueError, BrokerError):
            return False
        return code < 0x80

    def command_health(self) -> dict[str, Any]:
        stuck = sorted(t.encode("ascii", "backslashreplace").decode()[:200]
                       for t, s in self.retained_topics.items() if s != "cleared")
        out: dict[str, Any] = {"retained_seen": self.retained_seen,
                               "handler_errors": self.command_errors}
        if stuck:
            out["retained_not_cleared"] = stuck[:8]
            out["operator_action"] = (
                "a retained message sits on a command topic (it is never executed): clear it "
                "as a referee account, e.g. mosquitto_pub -r -n -t <topic>"
            )
        return out

    async def _drain(self, acks: PahoSession, sent: asyncio.Queue[_Sent]) -> None:
        """Publish the outbox in seq order, without waiting for the PUBACKs of what is in flight
        (:meth:`_confirm` collects them): the next input's events never wait for the broker's
        acknowledgement of the last ones (a broker without ``set_tcp_nodelay`` holds a second
        PUBACK until our TCP ACK, which the kernel may delay 40 ms when we send nothing)."""
        self.outbox.restart()  # a new connection: from the first event not acknowledged
        while True:
            await self.seq.released.wait()  # the broker ahead of the log: seqs would be reused
            pause = self._resend_at - time.monotonic()
            if pause > 0:  # the broker refused an event: it is sent again after the backoff
                await asyncio.sleep(pause)
            self.outbox_ready.clear()
            rows = await self.outbox.fetch(WINDOW)
            if not rows:
                await self.outbox_ready.wait()
                continue
            # each event twice: in full on private/events, its public projection on events
            window = [m for r in rows
                      for m in ((self.topics.private_events, r.full), (r.topic, r.public))]
            futures = acks.publish_now(window)  # on the wire before the loop runs the link's ACK
            await sent.put((rows, futures))  # bounded: at most IN_FLIGHT windows unconfirmed

    async def _confirm(self, sent: asyncio.Queue[_Sent]) -> None:
        """The PUBACKs of each published window, in order: a row is deleted from the outbox only
        once both its publishes are acknowledged as a success."""
        while True:
            rows, futures = await sent.get()
            try:
                async with asyncio.timeout(ACK_TIMEOUT):
                    results = await asyncio.gather(*futures, return_exceptions=True)
            except TimeoutError:
                raise BrokerError("no PUBACK within the timeout") from None
            failed = [r for r in results if isinstance(r, BaseException)]
            if failed:
                raise BrokerError(f"publish failed: {failed[0]!r}")
            pairs = [r for r in results if isinstance(r, int)]
            codes = [max(a, b) for a, b in zip(pairs[::2], pairs[1::2])]
            good = [r.seq for r, code in zip(rows, codes) if code < 0x80]
            refused = [(r.seq, code) for r, code in zip(rows, codes) if code >= 0x80]
            await self.outbox.ack(good)
            self.published += len(good)
            self.last_ack_mono = time.monotonic()
            if refused:
                self.refused += len(refused)
                self.last_error = (
                    f"broker refused event {refused[0][0]} (reason {refused[0][1]}) on"
                    f" {self.topics.events} or {self.topics.private_events}: the ACL must let"
                    f" the table write {self.topics.base}/private/# too (docs/mqtt.md)"
                )
                log.error("%s; it stays in the outbox", self.last_error)
                # sent again, from the log, after the backoff; windows published after it may
                # be on the broker already (a refusal is an ACL fault: consumers order by seq)
                self.outbox.restart()
                self._resend_at = time.monotonic() + self.backoff[1]

    async def _publish_retained(self, acks: PahoSession) -> None:
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
