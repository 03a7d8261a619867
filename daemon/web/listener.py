"""The web server's own accept path: connection caps, a header deadline, counted refusals.

Why not ``loop.create_server``: it accepts whatever arrives until the process
runs out of descriptors; about 1,100 idle connections then took the overlay, the console, the
broker reconnect and the health task down, and asyncio logged every failed ``accept`` at once.
Here:

* every connection is accepted and counted against ``max_connections_per_address`` and
  ``max_connections``; one over a cap is closed at once with a reset (it never holds a
  descriptor past the accept), so one address cannot crowd out another;
* the total cap never exceeds the process's descriptor limit less :data:`RESERVE_FDS`, kept for
  the event log, the broker link and the devices;
* a connection must complete its request headers within ``header_timeout_seconds`` (a
  slowloris that trickles bytes is closed as surely as one that sends none); between requests
  aiohttp's keep-alive timeout closes an idle connection;
* an accept that fails (``EMFILE`` and friends) pauses the accept loop briefly instead of
  spinning, and is counted;
* refusals and failures are counters in ``health.web`` and at most one log line a second.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import resource
import socket
import ssl
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

from aiohttp import web

from daemon.config.values import WebLimits

log = logging.getLogger("jantaku.web")

#: the web limits of a running server (its app holds them: the SSE handlers read their cap;
#: here, not in server.py, so that the console's stream can read them without an import cycle)
LIMITS_KEY: web.AppKey[WebLimits] = web.AppKey("limits", WebLimits)
DEFAULT_LIMITS = WebLimits()
#: an SSE stream's keep-alive comment, for proxies
KEEPALIVE_S = 15.0
#: how often a quiet SSE stream checks that its client is still there
GONE_CHECK_S = 1.0

#: descriptors kept for the rest of the daemon (event log, broker, devices, health): the web
#: server never holds more than the process limit less these
RESERVE_FDS = 128
#: how long the accept loop rests after an accept failed for want of resources
ACCEPT_PAUSE_S = 0.1
#: connections accepted in one go before the loop runs the others
ACCEPT_BATCH = 256
#: at most one log line about refused connections per this many seconds
REPORT_EVERY_S = 1.0
_LINGER_RESET = struct.pack("ii", 1, 0)  # SO_LINGER on, 0 s: close() sends RST, no TIME_WAIT


@dataclass(slots=True)
class WebStats:
    """The web server's tally (the shell's mutable state, reported as ``health.web``)."""

    serving: bool = False
    max_connections: int = 0  # the cap in force (config bounded by the descriptor limit)
    open: int = 0
    peak: int = 0
    accepted: int = 0
    refused_per_address: int = 0
    refused_total: int = 0
    accept_failed: int = 0
    last_accept_error: str | None = None
    header_timeouts: int = 0
    sse_open: int = 0
    sse_refused: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "serving": self.serving,
            "max_connections": self.max_connections,
            "connections": self.open,
            "peak": self.peak,
            "accepted": self.accepted,
            "refused": {"per_address": self.refused_per_address, "total": self.refused_total,
                        "sse": self.sse_refused},
            "accept_failed": self.accept_failed,
            "last_accept_error": self.last_accept_error,
            "header_timeouts": self.header_timeouts,
            "sse_clients": self.sse_open,
        }


#: the backlog of a web listener (connections the kernel holds until they are accepted)
BACKLOG = 1024


def bind(host: str, port: int) -> list[socket.socket]:
    """Listening sockets for every address of ``host`` (as asyncio's ``create_server`` binds
    them); an ``OSError`` when one cannot be bound. The caller owns them."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    sockets: list[socket.socket] = []
    try:
        for family, kind, proto, _, address in dict.fromkeys(infos):
            sock = socket.socket(family, kind, proto)
            sockets.append(sock)
            # as create_server: a restart rebinds at once over TIME_WAIT connections (a port
            # another socket listens on is still refused)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            sock.bind(address)
            sock.listen(BACKLOG)
            sock.setblocking(False)
    except BaseException:
        for sock in sockets:
            sock.close()
        raise
    return sockets


def connection_cap(limits: WebLimits) -> int:
    """``max_connections``, bounded by the descriptor limit less :data:`RESERVE_FDS`."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return limits.max_connections
    return max(1, min(limits.max_connections, soft - RESERVE_FDS))


@dataclass(slots=True)
class _Reporter:
    """Counts since the last line; one line at most every :data:`REPORT_EVERY_S`."""

    stats: WebStats
    pending: dict[str, int] = field(default_factory=dict)
    last: float = 0.0
    handle: asyncio.TimerHandle | None = None

    def note(self, kind: str) -> None:
        self.pending[kind] = self.pending.get(kind, 0) + 1
        if self.handle is not None:
            return
        now = time.monotonic()
        delay = max(0.0, self.last + REPORT_EVERY_S - now)
        self.handle = asyncio.get_running_loop().call_later(delay, self.flush)

    def flush(self) -> None:
        self.handle = None
        if not self.pending:
            return
        self.last = time.monotonic()
        counts, self.pending = self.pending, {}
        log.warning("web connections refused or failed", extra={"fields": {
            "since_last": counts, "totals": self.stats.to_json()["refused"],
            "accept_failed": self.stats.accept_failed,
            "last_accept_error": self.stats.last_accept_error,
            "connections": self.stats.open}})

    def close(self) -> None:
        if self.handle is not None:
            self.handle.cancel()
            self.flush()


class Gate:
    """Who may hold a connection: the per-address and total caps."""

    def __init__(self, limits: WebLimits, stats: WebStats) -> None:
        self.limits = limits
        self.stats = stats
        self.total_cap = connection_cap(limits)
        stats.max_connections = self.total_cap
        self.by_address: dict[str, int] = {}
        self.reporter = _Reporter(stats)

    def admit(self, address: str) -> bool:
        held = self.by_address.get(address, 0)
        if held >= self.limits.max_connections_per_address:
            self.stats.refused_per_address += 1
            self.reporter.note("per_address")
            return False
        if self.stats.open >= self.total_cap:
            self.stats.refused_total += 1
            self.reporter.note("total")
            return False
        self.by_address[address] = held + 1
        self.stats.open += 1
        self.stats.accepted += 1
        self.stats.peak = max(self.stats.peak, self.stats.open)
        return True

    def release(self, address: str) -> None:
        held = self.by_address.get(address, 0) - 1
        if held > 0:
            self.by_address[address] = held
        else:
            self.by_address.pop(address, None)
        self.stats.open -= 1

    def accept_failed(self, exc: OSError) -> None:
        self.stats.accept_failed += 1
        self.stats.last_accept_error = f"{exc.strerror or exc}"
        self.reporter.note("accept_failed")


class Guarded(asyncio.Protocol):
    """Wraps the HTTP protocol of one connection: the header deadline, and the gate's count
    given back exactly once when the connection ends (or never starts)."""

    def __init__(self, inner: asyncio.Protocol, gate: Gate, address: str) -> None:
        self.inner = inner
        self.gate = gate
        self.address = address
        self.transport: asyncio.Transport | None = None
        self._released = False
        self._deadline: asyncio.TimerHandle | None = None
        self._tail = b""

    def release(self) -> None:
        if not self._released:
            self._released = True
            self.gate.release(self.address)
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # a stream transport (asyncio's, or uvloop's: not a subclass, the same API)
        self.transport = cast(asyncio.Transport, transport)
        self._deadline = asyncio.get_running_loop().call_later(
            self.gate.limits.header_timeout_seconds, self._too_slow)
        self.inner.connection_made(transport)

    def _too_slow(self) -> None:
        self._deadline = None
        self.gate.stats.header_timeouts += 1
        if self.transport is not None:
            self.transport.abort()

    def data_received(self, data: bytes) -> None:
        if self._deadline is not None:
            seen = self._tail + data
            if b"\r\n\r\n" in seen:  # the first request's headers are complete
                self._deadline.cancel()
                self._deadline = None
                self._tail = b""
            else:
                self._tail = seen[-3:]
        self.inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self.inner.eof_received()

    def pause_writing(self) -> None:
        self.inner.pause_writing()

    def resume_writing(self) -> None:
        self.inner.resume_writing()

    def connection_lost(self, exc: Exception | None) -> None:
        self.release()
        self.inner.connection_lost(exc)


class Listener:
    """Accepts on bound, listening sockets and hands admitted connections to ``factory``."""

    def __init__(self, sockets: list[socket.socket], factory: Callable[[], asyncio.Protocol],
                 gate: Gate, ssl_context: ssl.SSLContext | None) -> None:
        self.sockets = sockets
        self.factory = factory
        self.gate = gate
        self.ssl_context = ssl_context
        self._tasks: set[asyncio.Task[None]] = set()

    async def run(self) -> None:
        """Accept on every socket until cancelled (the sockets stay open: the caller's)."""
        loops = [asyncio.create_task(self._accept(s), name="web-accept") for s in self.sockets]
        try:
            await asyncio.gather(*loops)
        finally:
            for task in (*loops, *self._tasks):
                task.cancel()
            await asyncio.gather(*loops, *self._tasks, return_exceptions=True)
            self.gate.reporter.close()

    async def _accept(self, sock: socket.socket) -> None:
        """Drain the backlog in batches: a refusal costs one accept and one close, so a
        reconnecting crowd cannot fill the kernel's backlog ahead of other clients (a SYN
        dropped on a full backlog is retried only a second later)."""
        loop = asyncio.get_running_loop()
        readable = asyncio.Event()
        loop.add_reader(sock.fileno(), readable.set)
        try:
            while True:
                await readable.wait()
                readable.clear()
                while await self._drain(sock):
                    await asyncio.sleep(0)  # a full batch: let the connections run, go on
        finally:
            loop.remove_reader(sock.fileno())

    async def _drain(self, sock: socket.socket) -> bool:
        """Accept up to :data:`ACCEPT_BATCH` waiting connections; True if there may be more."""
        for _ in range(ACCEPT_BATCH):
            try:
                conn, peer = sock.accept()
            except (BlockingIOError, InterruptedError):
                return False
            except ConnectionAbortedError:
                continue
            except OSError as exc:  # EMFILE, ENFILE, ENOBUFS, ENOMEM: rest, do not spin
                self.gate.accept_failed(exc)
                await asyncio.sleep(ACCEPT_PAUSE_S)
                return True
            address = str(peer[0]) if isinstance(peer, tuple) else str(peer)
            if not self.gate.admit(address):
                with contextlib.suppress(OSError):
                    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, _LINGER_RESET)
                conn.close()
                continue
            conn.setblocking(False)
            task = asyncio.create_task(self._connect(conn, address))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        return True

    async def _connect(self, conn: socket.socket, address: str) -> None:
        guarded = Guarded(self.factory(), self.gate, address)
        loop = asyncio.get_running_loop()
        try:
            await loop.connect_accepted_socket(
                lambda: guarded, conn, ssl=self.ssl_context,
                ssl_handshake_timeout=(self.gate.limits.header_timeout_seconds
                                       if self.ssl_context is not None else None))
        except (OSError, ssl.SSLError, TimeoutError, ConnectionError):
            # a TLS handshake that failed or took too long: the protocol never started
            guarded.release()
            conn.close()
        except BaseException:
            guarded.release()
            conn.close()
            raise


class LineBudget(logging.Filter):
    """At most ``rate`` lines a second (bursts of ``burst``) from a logger the network can make
    talk: aiohttp's access log and its "Error handling request" lines, one per bad request, came
    to hundreds of kB a minute from one crowd. The next line that passes says how many were
    dropped (field ``suppressed``)."""

    def __init__(self, rate: float = 5.0, burst: float = 20.0) -> None:
        super().__init__()
        self.rate, self.burst = rate, burst
        self.tokens = burst
        self.stamp = time.monotonic()
        self.suppressed = 0

    def filter(self, record: logging.LogRecord) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens < 1.0:
            self.suppressed += 1
            return False
        self.tokens -= 1.0
        if self.suppressed:
            fields = getattr(record, "fields", None)
            record.fields = {**(fields if isinstance(fields, dict) else {}),
                             "suppressed": self.suppressed}
            self.suppressed = 0
        return True


def budget_aiohttp_logs() -> None:
    """Install one :class:`LineBudget` on each of aiohttp's request loggers (once)."""
    for name in ("aiohttp.access", "aiohttp.server"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, LineBudget) for f in logger.filters):
            logger.addFilter(LineBudget())


async def quiet_tick(request: web.Request, resp: web.StreamResponse, quiet: float) -> float | None:
    """An event stream (the overlay's, the console's) after ``GONE_CHECK_S`` without news:
    ``None`` when its client left, which gives the slot back within ``GONE_CHECK_S`` (aiohttp
    does not cancel the handler, and the keep-alive write is ``KEEPALIVE_S`` away); else the quiet
    seconds so far, a keep-alive comment written for proxies every ``KEEPALIVE_S``."""
    if request.transport is None or request.transport.is_closing():
        return None
    quiet += GONE_CHECK_S
    if quiet >= KEEPALIVE_S:
        await resp.write(b": keepalive\n\n")
        return 0.0
    return quiet
