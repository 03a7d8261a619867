"""A TCP proxy between a client and a broker, with network faults on demand: the chaos suite
cuts a daemon's broker link with it, and bench/venue.py a venue broker's bridge to the centre.
Loopback only (it connects to 127.0.0.1)."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct


class TcpProxy:
    """An in-process TCP proxy between a client and a broker, with faults on demand.

    ``mode``: ``pass`` (bytes flow), ``blackhole`` (connections stay open, every byte is
    swallowed both ways, new connections are accepted and swallowed too), ``drop`` (connections
    are closed with a FIN, new ones closed at once), ``reset`` (closed with a RST, new ones too).
    """

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.mode = "pass"
        self.port = 0
        self.accepted = 0
        self._server: asyncio.Server | None = None
        self._conns: set[tuple[asyncio.StreamWriter, asyncio.StreamWriter]] = set()

    async def __aenter__(self) -> TcpProxy:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = int(self._server.sockets[0].getsockname()[1])
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        for a, b in list(self._conns):
            _abort(a)
            _abort(b)
        await self._server.wait_closed()

    def cut(self, mode: str) -> None:
        assert mode in ("blackhole", "drop", "reset")
        self.mode = mode
        if mode == "blackhole":
            return
        for a, b in list(self._conns):
            if mode == "reset":
                _rst(a)
                _rst(b)
            else:
                a.close()
                b.close()
        self._conns.clear()

    def heal(self) -> None:
        if self.mode == "blackhole":
            # a healed black hole: the stale connections are dead to both ends (their bytes are
            # lost); the client finds out by its keepalive, as over a real network
            for a, b in list(self._conns):
                _abort(a)
                _abort(b)
            self._conns.clear()
        self.mode = "pass"

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.accepted += 1
        if self.mode in ("drop", "reset"):
            (_rst if self.mode == "reset" else _close)(writer)
            return
        try:
            up_r, up_w = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            _abort(writer)
            return
        pair = (writer, up_w)
        self._conns.add(pair)
        try:
            await asyncio.gather(self._pipe(reader, up_w), self._pipe(up_r, writer))
        finally:
            self._conns.discard(pair)
            _abort(writer)
            _abort(up_w)

    async def _pipe(self, src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError, asyncio.IncompleteReadError):
            while data := await src.read(65536):
                if self.mode == "blackhole":
                    continue
                if dst.is_closing():
                    return
                dst.write(data)
                await dst.drain()
        _close(dst)


def _close(w: asyncio.StreamWriter) -> None:
    with contextlib.suppress(Exception):
        w.close()


def _abort(w: asyncio.StreamWriter) -> None:
    with contextlib.suppress(Exception):
        w.transport.abort()


def _rst(w: asyncio.StreamWriter) -> None:
    sock = w.get_extra_info("socket")
    with contextlib.suppress(Exception):
        if sock is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    _abort(w)
