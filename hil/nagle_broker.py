"""A broker that answers as Mosquitto without ``set_tcp_nodelay`` does: Nagle on (the kernel's
default), a CONNACK, then a PUBACK for each QoS 1 PUBLISH, each in a send of its own. The second
PUBACK of a window waits behind Nagle for our TCP ACK of the first: what the session's owed ACK
(daemon/mqtt_session.py ``on_puback``) is for. Shared by its test (tests/daemon/test_mqtt_wire.py)
and its figure (bench/broker_session.py ``--nagle``)."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator

from daemon import mqtt_wire as wire
from hil.errors import PeerClosed


def _recv_exact(conn: socket.socket, n: int) -> bytes:
    got = b""
    while len(got) < n:
        more = conn.recv(n - len(got))
        if not more:
            raise PeerClosed
        got += more
    return got


def _serve(listener: socket.socket) -> None:
    """One client's connection, until its DISCONNECT or its end."""
    conn, _ = listener.accept()
    with conn, contextlib.suppress(PeerClosed, OSError):
        while True:
            first, length, shift = _recv_exact(conn, 1)[0], 0, 0
            while True:
                digit = _recv_exact(conn, 1)[0]
                length, shift = length | (digit & 0x7F) << shift, shift + 7
                if not digit & 0x80:
                    break
            body = _recv_exact(conn, length)
            if first == wire.CONNECT:
                conn.sendall(b"\x20\x03\x00\x00\x00")  # v5: accepted, no properties
            elif first & 0xF0 == wire.PUBLISH:
                at = 2 + ((body[0] << 8) | body[1])
                conn.sendall(wire.puback(body[at:at + 2]))
            elif first == wire.DISCONNECT:
                return


@contextlib.contextmanager
def nagle_broker() -> Iterator[int]:
    """The broker on a kernel-picked loopback port (yielded), for one client connection; its
    thread is gone when the block ends."""
    listener = socket.create_server(("127.0.0.1", 0))
    thread = threading.Thread(target=_serve, args=(listener,), daemon=True)
    thread.start()
    try:
        yield int(listener.getsockname()[1])
    finally:
        listener.close()
        thread.join(5)
