"""Firmware figures beside the host's, measured in the same run: CRC-32C, frame encoding and the
incremental decoder of ``firmware/`` (the code flashed to the Pico, here under CPython) against
``drivers/link`` on the same bytes, and a command round trip through the firmware's link (pure,
in-process: host Endpoint -> firmware Link -> host) against the host's Endpoint in the controller
role. Prints; asserts nothing. A Pico runs MicroPython roughly 50-100x slower than CPython here:
the firmware's budget is the wire (a 15-byte frame takes 1.3 ms at 115200 baud).

    .venv/bin/python bench/firmware_link.py [--frames 20000]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from drivers.link import crc as host_crc
from drivers.link import frame as host_frame
from drivers.link.arq import Endpoint
from drivers.link.messages import HonbaDisplay, examples
from drivers.link.reports import Role
from firmware import FIRMWARE
from firmware import crc as fw_crc
from firmware import frame as fw_frame
from firmware import link as fw_link
from firmware import messages as fw_messages


def rate(work: Callable[[], int]) -> float:
    t0 = time.perf_counter()
    n = work()
    return n / (time.perf_counter() - t0)


def round_trips(n: int, controller: str) -> float:
    host = Endpoint(Role.HOST, boot_id=1)
    if controller == "firmware":
        ctl = fw_link.Link(2, fw_messages.ALL_CAPABILITIES, FIRMWARE + " bench")
        ctl.attach(0)

        def to_ctl(data: bytes, now: float) -> bytes:
            ctl.receive(data, int(now * 1000))
            return ctl.take_tx()
    else:
        ref = Endpoint(Role.CONTROLLER, boot_id=2)
        ref.attach(0.0)

        def to_ctl(data: bytes, now: float) -> bytes:
            ref.receive(data, now)
            return ref.drain()[0]
    host.attach(0.0)
    host.receive(to_ctl(host.drain()[0], 0.0), 0.0)
    host.drain()
    t0 = time.perf_counter()
    for i in range(n):
        host.send(HonbaDisplay(i % 100, 0), 0.001 * i)
        host.receive(to_ctl(host.drain()[0], 0.001 * i), 0.001 * i)
        host.drain()
    elapsed = time.perf_counter() - t0
    if host.pending > 1:  # a bench that measured nothing must not print a figure
        raise SystemExit(f"{controller}: {host.pending} commands never acknowledged")
    return n / elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--frames", type=int, default=20000)
    n = parser.parse_args().frames
    messages = examples()
    frames = [(m, i & 0xFF) for i, m in zip(range(n), messages * (n // len(messages) + 1))]
    stream = b"".join(host_frame.encode_frame(m, s) for m, s in frames)
    data = bytes(range(256)) * 4
    print(f"{n} frames, all 18 message types ({len(stream) / 1e6:.2f} MB); CPython, same run")
    rows = [
        ("CRC-32C, 1 KiB blocks/s",
         rate(lambda: len([host_crc.crc32c_of(data) for _ in range(2000)])),
         rate(lambda: len([fw_crc.crc32c(data) for _ in range(2000)]))),
        ("encode, frames/s",
         rate(lambda: len([host_frame.encode_frame(m, s) for m, s in frames])),
         rate(lambda: len([fw_frame.encode_frame(int(m.TYPE), m.payload(), s)
                           for m, s in frames]))),
        ("decode, frames/s",
         rate(lambda: len(host_frame.Decoder().feed(stream))),
         rate(lambda: len(fw_frame.Decoder().feed(stream)))),
        ("command round trips/s (pure)",
         round_trips(min(n, 5000), "host"), round_trips(min(n, 5000), "firmware")),
    ]
    print(f"{'':32} {'drivers/link':>14} {'firmware/':>14} {'ratio':>7}")
    for name, host, fw in rows:
        print(f"{name:32} {host:14,.0f} {fw:14,.0f} {fw / host:7.2f}")


if __name__ == "__main__":
    main()
