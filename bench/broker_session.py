"""The daemon's broker client alone: CPU per input of its publish path, beside aiomqtt's.

    .venv/bin/python bench/broker_session.py [--inputs 5000] [--rounds 3]
        [--host 127.0.0.1 --port 1883]
    .venv/bin/python bench/broker_session.py --nagle [--windows 30]

One input of the table is two QoS 1 publishes (the event in full on ``private/events``, its public
projection on ``events``) and their PUBACKs, which the outbox waits for before it deletes the row.
Against the same broker, in one process, rounds alternating, up to :data:`DEPTH` inputs awaiting
their PUBACKs (as the outbox keeps windows in flight):

1. ours: daemon/mqtt_session.py's ``publish_now`` of the pair (one write, one future for both
   reason codes), as daemon/mqtt.py drains the outbox;
2. reference: aiomqtt (paho-mqtt underneath), ``publish`` of the same pair at QoS 1, both awaited.

Printed: this process's CPU time per input (best round of each; the broker's CPU is its own) and
the inputs a second of that round. CPU per input is what the daemon's ``CPU per frame``
(bench/daemon_latency.py) spends in its broker client; compare the two lines of one run.

``--nagle``: the owed ACK's figure (no broker needed): windows of two publishes awaited alone
against a broker whose second PUBACK waits behind Nagle for our TCP ACK of the first
(hil/nagle_broker.py, as Mosquitto without ``set_tcp_nodelay``); the median window with the
session's quick ACK (about ``ACK_OWED_S``, 2 ms; under 20 ms is the goal its test used to time)
beside the reference, the same session with the quick ACK off (the kernel's delayed ACK, ~44 ms).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import sys
import time
from collections import deque
from collections.abc import Awaitable, Callable
from pathlib import Path

import aiomqtt

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from daemon.mqtt_session import ACK_OWED_S, MqttSession  # noqa: E402
from daemon.mqtt_wire import Connect  # noqa: E402
from hil.nagle_broker import nagle_broker  # noqa: E402

NODELAY = ((socket.IPPROTO_TCP, socket.TCP_NODELAY, 1),)
#: one input's two payloads, of an event's usual size
FULL = json.dumps({"schema": "jantaku/event/1", "table": "bench", "seq": 1, "input_seq": 1,
                   "type": "dice_rolled", "dice": [3, 4], "ts": "2026-12-05T04:00:00.000Z",
                   "hand": {"game": 1, "round_wind": "E", "hand_in_round": 1, "honba": 0},
                   "private": {"hands": [[1, 2, 3]] * 4}}).encode()
PUBLIC = FULL[:FULL.index(b', "private"')] + b"}"

#: one round: (CPU seconds, wall seconds)
Round = tuple[float, float]
#: inputs whose PUBACKs are awaited later, as daemon/mqtt.py keeps windows in flight (a closed loop
#: on each pair's PUBACKs waits out the broker's Nagle and our delayed ACK: ~40 ms an input)
DEPTH = 4


async def _loop(n: int, start: Callable[[], Awaitable[object]],
                waiting: Callable[[], None] = lambda: None) -> Round:
    async def run(k: int) -> None:
        flight: deque[Awaitable[object]] = deque()
        for _ in range(k):
            flight.append(start())
            if len(flight) >= DEPTH:
                waiting()  # as daemon/outbox_pump.py does when it waits for room
                await flight.popleft()
        for acked in flight:
            await acked

    await run(min(200, n))  # warm up: connection, caches, the broker's queues
    cpu0, t0 = time.process_time(), time.perf_counter()
    await run(n)
    return time.process_time() - cpu0, time.perf_counter() - t0


async def ours(host: str, port: int, n: int) -> Round:
    base = f"jantaku-bench/session/{os.getpid()}"
    spec = Connect(host, port, f"bench-ours-{os.getpid()}", v5=True, max_inflight=64,
                   socket_options=NODELAY)
    async with MqttSession(spec) as session:
        window = [(f"{base}/private/events", FULL), (f"{base}/events", PUBLIC)]
        return await _loop(n, lambda: session.publish_now(window), session.ack_now)


async def reference(host: str, port: int, n: int) -> Round:
    base = f"jantaku-bench/session/{os.getpid()}"
    async with aiomqtt.Client(host, port, identifier=f"bench-ref-{os.getpid()}",
                              protocol=aiomqtt.ProtocolVersion.V5, max_inflight_messages=64,
                              socket_options=NODELAY) as client:

        def start() -> Awaitable[object]:
            return asyncio.gather(client.publish(f"{base}/private/events", FULL, qos=1),
                                  client.publish(f"{base}/events", PUBLIC, qos=1))

        return await _loop(n, start)


class _Unsent:
    """The session's TCP_QUICKACK handle with the quick ACK never set: the reference."""

    def __init__(self, real: socket.socket) -> None:
        self.real = real

    def setsockopt(self, *option: int) -> None:
        del option

    def detach(self) -> int:
        return self.real.detach()


async def nagle_windows(n: int, quick: bool) -> list[float]:
    """Seconds each of ``n`` windows (two QoS 1 publishes, awaited alone) took against
    hil/nagle_broker.py; ``quick=False``: the session's quick ACK off (the reference)."""
    took: list[float] = []
    with nagle_broker() as port:
        async with MqttSession(Connect("127.0.0.1", port, f"bench-nagle-{os.getpid()}", v5=True,
                                       socket_options=NODELAY)) as session:
            if not quick and session._quickack is not None:
                # the handle kept (it shares the connection's descriptor), its quick ACK not sent
                session._quickack = _Unsent(session._quickack)  # type: ignore[assignment]
            for _ in range(n):
                t0 = time.perf_counter()
                await session.publish_now([("t/a", b"x" * 50), ("t/b", b"y" * 50)])
                took.append(time.perf_counter() - t0)
    return sorted(took)


def nagle_main(n: int) -> None:
    ours, ref = asyncio.run(nagle_windows(n, True)), asyncio.run(nagle_windows(n, False))
    print(f"a window of 2 QoS 1 publishes against a broker without TCP_NODELAY, median of {n} "
          f"(ACK_OWED_S {ACK_OWED_S * 1000:.0f} ms; goal under 20 ms), load average "
          f"{os.getloadavg()[0]:.2f}")
    print(f"{'ours (the owed ACK sent alone)':<44} {ours[n // 2] * 1000:6.1f} ms")
    print(f"{'reference: quick ACK off (delayed ACK)':<44} {ref[n // 2] * 1000:6.1f} ms")


def _line(name: str, rounds: list[Round], n: int) -> str:
    cpu, wall = min(rounds)
    return (f"{name:<44} CPU {cpu / n * 1e6:7.1f} µs/input  "
            f"{n / wall:8.0f} inputs/s")


async def main_async(args: argparse.Namespace) -> None:
    got: dict[str, list[Round]] = {"ours": [], "reference": []}
    for _ in range(args.rounds):
        got["ours"].append(await ours(args.host, args.port, args.inputs))
        got["reference"].append(await reference(args.host, args.port, args.inputs))
    print(f"broker client, {args.inputs} inputs (2 QoS 1 publishes + PUBACKs each), best of "
          f"{args.rounds} rounds, broker {args.host}:{args.port}, load average "
          f"{os.getloadavg()[0]:.2f}")
    print(_line("ours (daemon/mqtt_session.py publish_now)", got["ours"], args.inputs))
    print(_line("reference: aiomqtt publish ×2, awaited", got["reference"], args.inputs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--inputs", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=1883)
    parser.add_argument("--nagle", action="store_true", help="the owed ACK's figure instead")
    parser.add_argument("--windows", type=int, default=30)
    args = parser.parse_args()
    if args.nagle:
        nagle_main(args.windows)
    else:
        asyncio.run(main_async(args))


if __name__ == "__main__":
    main()
