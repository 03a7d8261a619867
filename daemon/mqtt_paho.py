"""The daemon's broker client: paho-mqtt driven on the asyncio loop through paho's public API only.

paho's client is a sans-I/O-ish state machine with a documented "external event loop" interface:
``socket()``, ``loop_read()``, ``loop_write()``, ``loop_misc()``, ``want_write()`` and the
``on_socket_open/close/register_write/unregister_write`` callbacks. :class:`PahoSession` wires
them to the asyncio loop itself (no aiomqtt, no thread but the one that runs paho's blocking
``connect``), so nothing here depends on another library's private members, and:

* every publish has its own future, resolved with the PUBACK's reason code (0 = success; an MQTT
  v5 broker may refuse a publish in the PUBACK: daemon/mqtt.py keeps that event);
* :meth:`PahoSession.publish_now` writes a window of publishes to the socket in the step that
  publishes it (before the table link's ACK, which the loop runs next), and a socket writer is
  added only for bytes the socket did not take;
* a connection closed before the CONNACK fails the connect at once (the reconnect loop retries
  with its backoff instead of waiting out a timeout).

Every failure of the connection is a :class:`daemon.errors.BrokerError`.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import socket
import ssl
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import paho.mqtt.client as paho
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.properties import Properties
from paho.mqtt.subscribeoptions import SubscribeOptions

from daemon.errors import BrokerError

#: how often paho's keepalive bookkeeping runs (PINGREQ, the broker's silence)
MISC_EVERY_S = 1.0


@dataclass(frozen=True, slots=True)
class Will:
    topic: str
    payload: bytes
    qos: int = 1
    retain: bool = True


@dataclass(frozen=True, slots=True)
class Connect:
    """What one connection needs (daemon/mqtt.py builds it from the config)."""

    host: str
    port: int
    client_id: str
    v5: bool
    will: Will | None = None
    username: str | None = None
    password: str | None = None
    keepalive: int = 60
    timeout: float = 10.0
    tls: ssl.SSLContext | None = None
    max_inflight: int = 20
    socket_options: tuple[tuple[int, int, int], ...] = ()
    transport: Literal["tcp", "websockets"] = "tcp"


class PahoSession:
    """One connection (``async with``): connected on enter, disconnected on exit."""

    def __init__(self, spec: Connect,
                 on_message: Callable[[paho.MQTTMessage], None] | None = None) -> None:
        self.spec = spec
        #: each message received, on paho's read callback (none kept: the caller bounds them)
        self.on_message = on_message
        self._loop = asyncio.get_running_loop()
        c = paho.Client(CallbackAPIVersion.VERSION2, client_id=spec.client_id,
                        protocol=paho.MQTTv5 if spec.v5 else paho.MQTTv311,
                        clean_session=None if spec.v5 else True, transport=spec.transport)
        if spec.will is not None:
            w = spec.will
            c.will_set(w.topic, w.payload, w.qos, w.retain)
        if spec.username is not None:
            c.username_pw_set(spec.username, spec.password)
        if spec.tls is not None:
            c.tls_set_context(spec.tls)
        c.max_inflight_messages_set(spec.max_inflight)
        c.connect_timeout = spec.timeout
        c.on_connect, c.on_publish, c.on_subscribe = self._connack, self._puback, self._suback
        c.on_message, c.on_disconnect = self._message, self._disconnected
        c.on_unsubscribe = self._unsuback
        self._paho = c
        self._connected: asyncio.Future[None] = self._loop.create_future()
        self._closed: asyncio.Future[None] = self._loop.create_future()
        self._acks: dict[int, asyncio.Future[int]] = {}
        self._subs: dict[int, asyncio.Future[None]] = {}
        self._sock: Any = None
        self._writer = False  # a socket writer is registered on the loop
        self._batching = False  # inside publish_now: the window is written at its end
        self._misc: asyncio.Task[None] | None = None

    # ------------------------------------------------------------------ connection
    async def __aenter__(self) -> PahoSession:
        s = self.spec
        try:
            async with asyncio.timeout(s.timeout):
                # paho's connect blocks (DNS, TCP, TLS handshake): off the loop. The socket
                # callbacks are set once it returns, so they all run on the loop's thread.
                # v5: a clean start on every connect (nothing is resumed: the outbox resends)
                start = True if s.v5 else paho.MQTT_CLEAN_START_FIRST_ONLY
                await self._loop.run_in_executor(None, functools.partial(
                    self._paho.connect, s.host, s.port, s.keepalive, clean_start=start))
                self._attach()
                await self._connected
        except TimeoutError:
            self._abort()
            raise BrokerError(f"no CONNACK from {s.host}:{s.port} within {s.timeout} s") from None
        except (OSError, paho.WebsocketConnectionError) as exc:
            self._abort()
            raise BrokerError(f"cannot connect to {s.host}:{s.port}: {exc}") from None
        except BrokerError:
            self._abort()
            raise
        return self

    async def __aexit__(self, *exc: object) -> None:
        try:
            if not self._closed.done():
                self._paho.disconnect()
                self._flush()
                with contextlib.suppress(TimeoutError, BrokerError):
                    async with asyncio.timeout(1.0):
                        await asyncio.shield(self._closed)
        finally:
            self._abort()

    def _attach(self) -> None:
        sock = self._paho.socket()
        if sock is None:
            raise BrokerError("the broker closed the connection while connecting")
        self._sock = sock
        if isinstance(sock, socket.socket):
            for option in self.spec.socket_options:
                sock.setsockopt(*option)
        c = self._paho
        c.on_socket_close = self._socket_closed
        c.on_socket_register_write = self._want_writer
        c.on_socket_unregister_write = self._no_writer
        self._loop.add_reader(sock, self._readable)
        self._misc = self._loop.create_task(self._keepalive(), name="mqtt-keepalive")
        self._flush()

    def _abort(self) -> None:
        """Everything this session registered on the loop removed; pending futures failed."""
        if self._misc is not None:
            self._misc.cancel()
            self._misc = None
        self._release(self._sock)
        self._sock = None
        self.fail_all(BrokerError("connection closed"))
        if not self._closed.done():
            self._closed.set_exception(BrokerError("connection closed"))
            self._closed.exception()  # retrieved: nobody may be waiting

    def _release(self, sock: Any) -> None:
        if sock is None:
            return
        with contextlib.suppress(ValueError, OSError):
            self._loop.remove_reader(sock)
        if self._writer:
            self._writer = False
            with contextlib.suppress(ValueError, OSError):
                self._loop.remove_writer(sock)

    async def _keepalive(self) -> None:
        while self._paho.loop_misc() == paho.MQTT_ERR_SUCCESS:
            await asyncio.sleep(MISC_EVERY_S)

    @property
    def closed(self) -> bool:
        return self._closed.done()

    def nodelay(self) -> bool | None:
        """TCP_NODELAY on the socket (None: not a TCP socket)."""
        sock = self._paho.socket()
        if not isinstance(sock, socket.socket):
            return None
        return bool(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))

    # ------------------------------------------------------------------ socket events
    def _readable(self) -> None:
        self._paho.loop_read()

    def _writable(self) -> None:
        self._paho.loop_write()

    def _flush(self) -> None:
        if self._paho.want_write():
            self._paho.loop_write()

    def _want_writer(self, client: Any, userdata: Any, sock: Any) -> None:
        # paho queued bytes: written at the end of the window (publish_now), or at once here;
        # a writer is added only when the socket does not take them all
        if self._batching or self._writer:
            return
        self._loop.call_soon(self._settle_writer)

    def _settle_writer(self) -> None:
        self._flush()
        if self._paho.want_write() and not self._writer and self._sock is not None:
            self._writer = True
            self._loop.add_writer(self._sock, self._writable)

    def _no_writer(self, client: Any, userdata: Any, sock: Any) -> None:
        if self._writer:
            self._writer = False
            with contextlib.suppress(ValueError, OSError):
                self._loop.remove_writer(sock)

    def _socket_closed(self, client: Any, userdata: Any, sock: Any) -> None:
        self._release(sock)
        self._sock = None
        exc = BrokerError("the broker connection closed")
        if not self._connected.done():
            self._connected.set_exception(BrokerError("connection closed before the CONNACK"))
        if not self._closed.done():
            self._closed.set_exception(exc)
            self._closed.exception()
        self.fail_all(exc)

    # ------------------------------------------------------------------ paho callbacks
    def _connack(self, client: Any, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if self._connected.done():
            return
        if getattr(reason, "is_failure", False):
            self._connected.set_exception(BrokerError(f"the broker refused the connection: "
                                                      f"{reason}"))
        else:
            self._connected.set_result(None)

    def _disconnected(self, client: Any, userdata: Any, flags: Any, reason: Any,
                      props: Any) -> None:
        if not self._closed.done():
            self._closed.set_exception(BrokerError(f"disconnected: {reason}"))
            self._closed.exception()

    def _puback(self, client: Any, userdata: Any, mid: int, reason: Any, props: Any) -> None:
        fut = self._acks.pop(mid, None)
        if fut is not None and not fut.done():
            fut.set_result(int(getattr(reason, "value", reason) or 0))

    def _suback(self, client: Any, userdata: Any, mid: int, codes: Any, props: Any) -> None:
        fut = self._subs.pop(mid, None)
        if fut is None or fut.done():
            return
        refused = [c for c in codes if getattr(c, "is_failure", False)]
        if refused:
            fut.set_exception(BrokerError(f"subscription refused: {refused[0]}"))
        else:
            fut.set_result(None)

    def _unsuback(self, client: Any, userdata: Any, mid: int, codes: Any, props: Any) -> None:
        fut = self._subs.pop(mid, None)
        if fut is not None and not fut.done():
            fut.set_result(None)

    def _message(self, client: Any, userdata: Any, message: paho.MQTTMessage) -> None:
        if self.on_message is not None:
            self.on_message(message)

    # ------------------------------------------------------------------ the API
    def publish(self, topic: str, payload: bytes, *, qos: int = 1, retain: bool = False,
                properties: Properties | None = None) -> asyncio.Future[int]:
        """A publish; its future gets the PUBACK's reason code (QoS 0: 0 at once)."""
        if self._closed.done():
            raise BrokerError(f"could not publish to {topic}: the connection is closed")
        info = self._paho.publish(topic, payload, qos, retain, properties)
        if info.rc != paho.MQTT_ERR_SUCCESS:
            raise BrokerError(f"could not publish to {topic}: {paho.error_string(info.rc)}")
        fut: asyncio.Future[int] = self._loop.create_future()
        if qos == 0 or info.is_published():
            fut.set_result(0)
        else:
            self._acks[info.mid] = fut
        return fut

    def publish_now(self, messages: Sequence[tuple[str, bytes]]) -> list[asyncio.Future[int]]:
        """QoS 1 publishes written to the socket in this step of the loop, before anything the
        loop runs next (the table link's ACK); what the socket does not take gets a writer."""
        self._batching = True
        try:
            return [self.publish(topic, payload) for topic, payload in messages]
        finally:
            self._batching = False
            self._settle_writer()

    async def subscribe(self, topic: str, *, qos: int = 1,
                        options: SubscribeOptions | None = None) -> None:
        """Subscribe, and wait for the SUBACK (a refusal raises)."""
        if options is not None:
            rc, mid = self._paho.subscribe(topic, options=options)
        else:
            rc, mid = self._paho.subscribe(topic, qos)
        if rc != paho.MQTT_ERR_SUCCESS or mid is None:
            raise BrokerError(f"could not subscribe to {topic}: {paho.error_string(rc)}")
        fut: asyncio.Future[None] = self._loop.create_future()
        self._subs[mid] = fut
        await self._until(fut)

    async def unsubscribe(self, topic: str) -> None:
        """Unsubscribe, and wait for the UNSUBACK (what the broker sent before it is in)."""
        rc, mid = self._paho.unsubscribe(topic)
        if rc != paho.MQTT_ERR_SUCCESS or mid is None:
            raise BrokerError(f"could not unsubscribe from {topic}: {paho.error_string(rc)}")
        fut: asyncio.Future[None] = self._loop.create_future()
        self._subs[mid] = fut
        await self._until(fut)

    async def _until(self, fut: asyncio.Future[Any]) -> None:
        """Wait for ``fut`` or the connection's end, whichever comes first."""
        done, _ = await asyncio.wait((fut, self._closed), return_when=asyncio.FIRST_COMPLETED)
        if fut in done:
            fut.result()
            return
        fut.cancel()
        self._closed.result()  # raises: the connection's end

    def fail_all(self, exc: BaseException) -> None:
        for ack in self._acks.values():
            if not ack.done():
                ack.set_exception(exc)
        for sub in self._subs.values():
            if not sub.done():
                sub.set_exception(exc)
        self._acks.clear()
        self._subs.clear()

