"""The one place that reaches into aiomqtt's paho client (aiomqtt ``>=2.5,<2.6``, pinned for it).

aiomqtt's ``publish`` ignores the PUBACK reason code and gives no message id, so publishes go
through :class:`Acks`, which wraps the paho client that aiomqtt drives (and writes a window of
publishes at once: :meth:`Acks.publish_now`); :func:`nodelay` reads
the socket's TCP_NODELAY for ``health``; :func:`fail_fast_on_close` ends a connect whose socket
closed before the CONNACK at once instead of after aiomqtt's whole timeout.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Sequence
from typing import Any

import aiomqtt
import paho.mqtt.client as paho
from paho.mqtt.properties import Properties


class Acks:
    """Publishes with their own future, resolved with the PUBACK reason code (0 = success)."""

    def __init__(self, client: aiomqtt.Client) -> None:
        self._paho: paho.Client = client._client
        self._loop = asyncio.get_running_loop()
        self._futures: dict[int, asyncio.Future[int]] = {}
        inner = self._paho.on_publish

        def on_publish(c: Any, userdata: Any, mid: int, reason: Any, props: Any) -> None:
            fut = self._futures.pop(mid, None)
            if fut is not None and not fut.done():
                code = int(getattr(reason, "value", reason) or 0)
                fut.set_result(code)
            if inner is not None:
                inner(c, userdata, mid, reason, props)  # type: ignore[call-arg]

        self._paho.on_publish = on_publish

    def publish(
        self,
        topic: str,
        payload: bytes,
        *,
        qos: int = 1,
        retain: bool = False,
        properties: Properties | None = None,
    ) -> asyncio.Future[int]:
        info = self._paho.publish(topic, payload, qos, retain, properties)
        if info.rc != paho.MQTT_ERR_SUCCESS:
            raise aiomqtt.MqttCodeError(info.rc, f"could not publish to {topic}")
        fut: asyncio.Future[int] = self._loop.create_future()
        if qos == 0 or info.is_published():
            fut.set_result(0)
        else:
            self._futures[info.mid] = fut
        return fut

    def publish_now(self, messages: Sequence[tuple[str, bytes]]) -> list[asyncio.Future[int]]:
        """QoS 1 publishes written to the socket in this step of the loop, before anything the
        loop runs next (the table link's ACK), rather than one turn later when aiomqtt's writer
        callback would run. A write that cannot finish stays queued and paho registers its
        writer as usual; a broken socket is handled by paho as in its own writer callback."""
        p = self._paho
        # paho asks aiomqtt for a writer on the first packet queued while none is registered,
        # and aiomqtt adds it through call_soon_threadsafe: a wake-up of the loop, two
        # epoll_ctl and a writer call per window, for bytes written here anyway. Marked as
        # registered while the window is queued, paho asks only if the write below leaves bytes.
        hold = not p._registered_write
        if hold:
            p._registered_write = True
        try:
            return [self.publish(topic, payload) for topic, payload in messages]
        finally:
            if hold:
                p._registered_write = False
            self._write(settle=not hold)

    def _write(self, *, settle: bool) -> None:
        if not self._paho.want_write():
            return
        self._paho.loop_write()
        sock = self._paho.socket()
        if settle and not self._paho.want_write() and sock is not None:
            # a writer was registered before this window (an earlier write that did not
            # finish): aiomqtt adds it a loop turn late but removes it at once, so the add may
            # come after paho's removal just now and leave a writer that fires (and spins the
            # loop) forever; a removal queued behind the add keeps the writers in step with paho
            self._loop.call_soon(_drop_writer, self._loop, sock.fileno())

    def fail_all(self, exc: BaseException) -> None:
        for fut in self._futures.values():
            if not fut.done():
                fut.set_exception(exc)
        self._futures.clear()


def _drop_writer(loop: asyncio.AbstractEventLoop, fd: int) -> None:
    with contextlib.suppress(ValueError, OSError):  # the socket closed meanwhile
        loop.remove_writer(fd)


def nodelay(client: aiomqtt.Client) -> bool | None:
    sock = client._client.socket()
    if not isinstance(sock, socket.socket):
        return None
    return bool(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))


def fail_fast_on_close(client: aiomqtt.Client) -> None:
    """A connection closed before the CONNACK fails the connect at once (aiomqtt would wait
    its whole timeout), so the reconnect loop retries at once, with its backoff."""
    paho_client: paho.Client = client._client
    inner = paho_client.on_socket_close
    loop = asyncio.get_running_loop()

    def on_close(c: Any, userdata: Any, sock: Any) -> None:
        if inner is not None:
            inner(c, userdata, sock)

        def fail() -> None:
            fut = client._connected
            if not fut.done():
                fut.set_exception(aiomqtt.MqttError("connection closed before the CONNACK"))

        loop.call_soon_threadsafe(fail)

    paho_client.on_socket_close = on_close
