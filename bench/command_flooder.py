"""One flooding client (a process of its own): bad referee commands on a table's ``cmd/`` topics
at a steady rate, from a raw socket (so the flood, not the client, sets the pace).

    python bench/command_flooder.py --port P --user referee.x --password PW --table T
        --rate 2500 --seconds 20 [--qos 0|1] [--replay FILE] [--seed N] [--kind backfill]

The commands are the bad ones a lost tablet or a hostile account can send: signed with a wrong
key (a known user, a fresh ``ts``: the costly kind, the gate must compute the HMAC), an unknown
user, a stale ``ts``, not JSON, nested too deep, an envelope without fields, and (``--replay``)
a captured valid command sent again. Each asks for a reply on a v5 response topic. Prebuilt,
sent in batches every 10 ms. ``--kind backfill``: backfill requests on the table's public
``backfill/request/<user>`` instead (docs/mqtt.md "Backfill": anyone may send them), the mix
of :func:`backfill_requests`. Prints one JSON line when done: ``{"sent", "seconds", "rate",
"acked"}`` (``acked``: QoS 1 PUBACKs received).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import socket
import struct
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from daemon import mqtt_wire as wire

#: QoS 1 publishes in flight at most (the broker's receive maximum is its max_inflight_messages)
WINDOW = 48
BATCH_EVERY_S = 0.01


def _props(response_topic: str) -> bytes:
    raw = response_topic.encode()
    body = bytes((wire.RESPONSE_TOPIC,)) + struct.pack("!H", len(raw)) + raw
    return wire.varint(len(body)) + body


def publish(topic: str, payload: bytes, *, qos: int, packet_id: int, props: bytes) -> bytes:
    t = topic.encode()
    body = struct.pack("!H", len(t)) + t
    if qos:
        body += struct.pack("!H", packet_id)
    body += props + payload
    return bytes((0x30 | (qos << 1),)) + wire.varint(len(body)) + body


def bad_commands(table: str, user: str, n: int, rng: random.Random,
                 replay: bytes | None) -> list[tuple[str, bytes]]:
    """``n`` distinct bad commands ``(topic, payload)``, the mix of the module's docstring."""
    base = f"jantaku/v1/{table}/cmd/"
    now = time.time()
    out: list[tuple[str, bytes]] = []
    for i in range(n):
        kind = i % 20
        cid = f"{user[-12:]}-{os.getpid()}-{i}"
        body: dict[str, object] = {
            "schema": "jantaku/command/1", "id": cid, "user": "alice", "ts": now,
            "client": user, "args": {"reason": "flood " + "x" * rng.randrange(8, 64)},
            "auth": {"hmac": f"{rng.getrandbits(256):064x}"},
        }
        name = rng.choice(("pause", "set_scores", "new_game", "undo", "dead_hand"))
        if kind == 14:
            body["user"] = f"nobody{i}"
        elif kind == 15:
            body["ts"] = now - 3600
        elif kind == 16:
            out.append((base + name, b'{"schema": "jantaku/command/1", "id": ' + b"[" * 40))
            continue
        elif kind == 17:
            out.append((base + name, b"[" * 200 + b"]" * 200))
            continue
        elif kind == 18:
            body = {"id": cid, "client": user}
        elif kind == 19 and replay is not None:
            out.append((base + "new_game", replay))
            continue
        out.append((base + name, json.dumps(body).encode()))
    return out


def backfill_requests(table: str, user: str, n: int,
                      rng: random.Random) -> list[tuple[str, bytes]]:
    """``n`` backfill requests in the requester's own name: well-formed ones (the costly kind:
    past the screen only by the requester's rate), not JSON, the wrong schema, a bad range,
    deep nesting, too large."""
    topic = f"jantaku/v1/{table}/backfill/request/{user}"
    out: list[tuple[str, bytes]] = []
    for i in range(n):
        kind = i % 8
        body: dict[str, object] = {"schema": "jantaku/backfill-request/1",
                                   "id": f"flood-{os.getpid()}-{i}", "from_seq": 1 + i % 50}
        if kind == 4:
            out.append((topic, b'{"schema": "jantaku/backfill-request/1", "id": ' + b"[" * 40))
            continue
        if kind == 5:
            body["schema"] = "jantaku/backfill-request/9"
        elif kind == 6:
            body["until_seq"] = 0
        elif kind == 7:
            body["id"] = "x" * rng.randrange(1100, 4000)  # past the size bound
        out.append((topic, json.dumps(body).encode()))
    return out


def _connect(host: str, port: int, user: str, password: str) -> socket.socket:
    sock = socket.create_connection((host, port), 10)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.sendall(wire.connect(wire.Connect(host, port, user, v5=True, username=user,
                                           password=password)))
    head = sock.recv(2)
    rest = sock.recv(head[1]) if len(head) == 2 else b""
    if len(head) < 2 or head[0] != wire.CONNACK or wire.connack(rest, v5=True).code != 0:
        raise SystemExit(f"flooder {user}: connection refused: {head!r} {rest!r}")
    return sock


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--user", required=True)
    ap.add_argument("--password", required=True)
    ap.add_argument("--table", required=True)
    ap.add_argument("--rate", type=float, required=True)
    ap.add_argument("--seconds", type=float, required=True)
    ap.add_argument("--qos", type=int, choices=(0, 1), default=0)
    ap.add_argument("--replay", type=Path)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--kind", choices=("commands", "backfill"), default="commands")
    a = ap.parse_args()
    rng = random.Random(a.seed or os.getpid())
    replay = a.replay.read_bytes() if a.replay else None
    if a.kind == "backfill":
        commands, props = backfill_requests(a.table, a.user, 2000, rng), b"\x00"
    else:
        commands = bad_commands(a.table, a.user, 2000, rng, replay)
        props = _props(f"jantaku/v1/{a.table}/reply/{a.user}")
    sock = _connect(a.host, a.port, a.user, a.password)
    acked = [0]
    room = threading.Semaphore(WINDOW)

    def read_acks() -> None:
        buf = b""
        while True:
            try:
                chunk = sock.recv(65536)
            except OSError:
                return
            if not chunk:
                return
            buf += chunk
            while len(buf) >= 2 and len(buf) >= 2 + buf[1]:
                if buf[0] & 0xF0 == wire.PUBACK:
                    acked[0] += 1
                    room.release()
                buf = buf[2 + buf[1]:]

    threading.Thread(target=read_acks, daemon=True).start()
    sent, pid = 0, 0
    start = time.monotonic()
    end = start + a.seconds
    next_at = start
    while True:
        now = time.monotonic()
        if now >= end:
            break
        due = int(a.rate * (now - start)) + 1  # paced by the clock: a late batch catches up
        batch: list[bytes] = []
        while sent < due:
            topic, payload = commands[sent % len(commands)]
            if a.qos:
                if not room.acquire(blocking=False):
                    sock.sendall(b"".join(batch))  # the window is full: what we have, first
                    batch = []
                    room.acquire()
                pid = pid % 65535 + 1
            batch.append(publish(topic, payload, qos=a.qos, packet_id=pid, props=props))
            sent += 1
        sock.sendall(b"".join(batch))
        next_at += BATCH_EVERY_S
        pause = next_at - time.monotonic()
        if pause > 0:
            time.sleep(pause)
    seconds = time.monotonic() - start
    time.sleep(0.2)
    sock.close()
    print(json.dumps({"sent": sent, "seconds": round(seconds, 3), "rate": round(sent / seconds),
                      "acked": acked[0]}), flush=True)


if __name__ == "__main__":
    main()
