"""The web server's limits, each on real loopback sockets (daemon/web/listener.py): the SSE cap
tells the client when to come back, a connection that never completes its headers is closed
after ``header_timeout_seconds`` however it trickles, an idle keep-alive connection after
``keepalive_timeout_seconds``, and the per-address and total caps refuse at once while other
addresses are served. (The crowd against ``jantaku run``: tests/daemon/test_daemon_web_crowd.py.)
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import time

import aiohttp
import pytest

from daemon.config import WebLimits
from daemon.web.hub import ViewHub
from daemon.web.listener import WebStats
from daemon.web.server import SSE_BUSY_RETRY_MS, serve


async def _closed_within(sock: socket.socket, seconds: float, trickle: bytes = b"") -> bool:
    """Does the server close ``sock`` within ``seconds`` (sending ``trickle`` byte by byte)?"""
    loop = asyncio.get_running_loop()
    sock.setblocking(False)
    deadline = time.monotonic() + seconds
    sent = 0
    while time.monotonic() < deadline:
        if sent < len(trickle):
            with contextlib.suppress(OSError):
                sock.send(trickle[sent:sent + 1])
            sent += 1
        try:
            data = await asyncio.wait_for(loop.sock_recv(sock, 4096), 0.1)
        except TimeoutError:
            continue
        except OSError:
            return True
        if not data:
            return True
    return False


def _connect(port: int, source: str = "127.0.0.1") -> socket.socket:
    s = socket.socket()
    s.bind((source, 0))
    s.connect(("127.0.0.1", port))
    return s


async def test_sse_clients_over_the_cap_are_told_to_retry() -> None:
    stats = WebStats()
    limits = WebLimits(max_sse_clients=2)
    async with serve(ViewHub({"n": 1}), "127.0.0.1", 0, limits=limits, stats=stats) as port, \
            aiohttp.ClientSession() as http:
        streams = [await http.get(f"http://127.0.0.1:{port}/api/stream") for _ in range(2)]
        for r in streams:
            assert r.status == 200
            assert b"event: view" in await r.content.readuntil(b"\n\n")
        assert stats.sse_open == 2
        async with http.get(f"http://127.0.0.1:{port}/api/stream") as busy:
            assert busy.status == 200
            assert busy.headers["Content-Type"].startswith("text/event-stream")
            body = await busy.text()  # it ends: an EventSource reconnects after `retry`
        assert body.startswith(f"retry: {SSE_BUSY_RETRY_MS}\nevent: busy\n")
        assert stats.sse_refused == 1
        streams[0].close()  # its slot comes back within a second (GONE_CHECK_S)
        async with asyncio.timeout(5):
            while stats.sse_open >= 2:
                await asyncio.sleep(0.05)
        async with http.get(f"http://127.0.0.1:{port}/api/stream") as again:
            assert b"event: view" in await again.content.readuntil(b"\n\n")
        for r in streams:
            r.close()


async def test_headers_must_be_complete_within_the_header_timeout() -> None:
    stats = WebStats()
    limits = WebLimits(header_timeout_seconds=1.0, keepalive_timeout_seconds=60.0)
    async with serve(ViewHub(), "127.0.0.1", 0, limits=limits, stats=stats) as port:
        silent = _connect(port)
        slow = _connect(port)
        try:
            silent_closed, slow_closed = await asyncio.gather(
                _closed_within(silent, 4.0),
                _closed_within(slow, 4.0, b"GET /api/view HTTP/1.1\r\nHost: x\r\nX-Slow: yes"),
            )
        finally:
            silent.close()
            slow.close()
        assert silent_closed and slow_closed
        assert stats.header_timeouts == 2
        # a prompt request is answered (the deadline is for headers only)
        async with aiohttp.ClientSession() as http, \
                http.get(f"http://127.0.0.1:{port}/api/view") as r:
            assert r.status == 200


async def test_an_idle_keepalive_connection_is_closed() -> None:
    limits = WebLimits(header_timeout_seconds=30.0, keepalive_timeout_seconds=1.0)
    async with serve(ViewHub(), "127.0.0.1", 0, limits=limits) as port:
        s = _connect(port)
        try:
            s.sendall(b"GET /api/view HTTP/1.1\r\nHost: x\r\n\r\n")
            s.setblocking(False)
            reply = await asyncio.wait_for(asyncio.get_running_loop().sock_recv(s, 4096), 5)
            assert reply.startswith(b"HTTP/1.1 200")
            assert await _closed_within(s, 4.0)
        finally:
            s.close()


async def test_the_caps_refuse_at_once_and_other_addresses_are_served() -> None:
    stats = WebStats()
    limits = WebLimits(max_connections=6, max_connections_per_address=4)
    async with serve(ViewHub(), "127.0.0.1", 0, limits=limits, stats=stats) as port:
        held = [_connect(port, "127.0.0.3") for _ in range(4)]
        await asyncio.sleep(0.2)
        extra = _connect(port, "127.0.0.3")
        assert await _closed_within(extra, 2.0)  # refused: over the per-address cap
        assert stats.refused_per_address == 1
        held += [_connect(port, "127.0.0.4") for _ in range(2)]
        await asyncio.sleep(0.2)
        assert stats.open == 6
        full = _connect(port, "127.0.0.5")
        assert await _closed_within(full, 2.0)  # refused: over the total cap
        assert stats.refused_total == 1
        for s in held[:2]:
            s.close()
        await asyncio.sleep(0.2)
        async with aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(local_addr=("127.0.0.5", 0))
        ) as http, http.get(f"http://127.0.0.1:{port}/api/view") as r:
            assert r.status == 200
        for s in (*held, extra, full):
            s.close()


async def test_bad_requests_do_not_flood_the_log(caplog: pytest.LogCaptureFixture) -> None:
    """Each bad request is a line in aiohttp's logs (and its traceback): a budget of 5 lines a
    second, bursts of 20, and the next line says how many were dropped."""
    caplog.set_level(logging.INFO)
    loop = asyncio.get_running_loop()
    async with serve(ViewHub(), "127.0.0.1", 0) as port:
        start = time.monotonic()
        for _ in range(150):
            s = _connect(port)
            s.setblocking(False)
            await loop.sock_sendall(s, b"NOT\x01HTTP\r\n\r\n")
            with contextlib.suppress(OSError):
                while await asyncio.wait_for(loop.sock_recv(s, 4096), 2):
                    pass
            s.close()
        await asyncio.sleep(1.0)
        async with aiohttp.ClientSession() as http, \
                http.get(f"http://127.0.0.1:{port}/api/view") as r:
            assert r.status == 200
        elapsed = time.monotonic() - start
    lines = [r for r in caplog.records if r.name.startswith("aiohttp.")]
    assert 0 < len(lines) <= 2 * 20 + 2 * 5 * elapsed + 2, (len(lines), elapsed)
    assert any(getattr(r, "fields", {}).get("suppressed") for r in lines)
