"""Table-link figures: frame round-trip latency over a pty, decoder throughput, reconnect time
after a replug, and the theoretical time of the same frames on a real UART. Prints; asserts nothing.

    .venv/bin/python bench/link.py [--frames 5000] [--baud 115200] [--replugs 20] [--json]

Round trip = ``await link.send(command)`` until the controller emulator's ACK is processed: host
session -> pty -> emulator -> pty -> host, all in one event loop (a pty moves bytes at memory speed,
so this measures the software path; add the wire time printed below for a real table).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from drivers.link.frame import Decoder, Frame, encode_frame
from drivers.link.messages import Ack, HonbaDisplay, examples
from drivers.table.serial import SerialTransport
from drivers.table.session import LinkSession
from hil.kit import connected
from hil.table_controller import PtyTableController, TableController

#: the figures, for ``--json`` (bench/report.py)
FIGURES: dict[str, float] = {}


def percentile(sorted_values: list[float], q: float) -> float:
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))]


def bench_decoder(total: int) -> None:
    messages = examples()
    stream = b"".join(encode_frame(messages[i % len(messages)], i & 0xFF) for i in range(total))
    t0 = time.perf_counter()
    decoder = Decoder()
    frames = 0
    for i in range(0, len(stream), 4096):
        frames += sum(isinstance(x, Frame) for x in decoder.feed(stream[i:i + 4096]))
    elapsed = time.perf_counter() - t0
    print(f"decoder: {frames} frames ({len(stream) / 1e6:.2f} MB, all 18 message types) in "
          f"{elapsed:.3f} s = {frames / elapsed:,.0f} frames/s, {len(stream) / elapsed / 1e6:.2f} "
          f"MB/s")
    FIGURES["decoder_frames_per_s"] = frames / elapsed
    small = encode_frame(HonbaDisplay(2, 1), 7) * total
    t0 = time.perf_counter()
    decoder = Decoder()
    n = sum(isinstance(x, Frame) for x in decoder.feed(small))
    elapsed = time.perf_counter() - t0
    print(f"decoder: {n} honba_display frames in one feed: {n / elapsed:,.0f} frames/s")
    t0 = time.perf_counter()
    for i in range(total):
        encode_frame(messages[i % len(messages)], i & 0xFF)
    elapsed = time.perf_counter() - t0
    print(f"encoder: {total / elapsed:,.0f} frames/s")


async def bench_round_trip(frames: int, replugs: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        table = PtyTableController(Path(tmp) / "ttyTABLE", TableController())
        async with table, LinkSession(SerialTransport(str(table.path))) as link:
            await connected(link)
            for _ in range(200):  # warm-up
                await link.send(HonbaDisplay(0, 0))
            samples = []
            for i in range(frames):
                t0 = time.perf_counter()
                await link.send(HonbaDisplay(i % 100, i % 7))
                samples.append(time.perf_counter() - t0)
            samples.sort()
            ms = [s * 1000 for s in samples]
            print(f"round trip over a pty ({frames} commands, each awaited until ACKed): "
                  f"p50 {statistics.median(ms):.3f} ms, p99 {percentile(ms, 0.99):.3f} ms, "
                  f"max {ms[-1]:.3f} ms, {frames / sum(samples):,.0f} round trips/s")
            FIGURES["pty_round_trip_p50_ms"] = statistics.median(ms)
            FIGURES["pty_round_trip_p99_ms"] = percentile(ms, 0.99)
            times = []
            loop = asyncio.get_running_loop()
            for _ in range(replugs):
                table.unplug()
                while link.state.connected:
                    await asyncio.sleep(0.001)
                await asyncio.sleep(0.3)  # cable out long enough for the backoff to grow
                t0 = loop.time()
                table.plug()
                await connected(link)
                times.append(loop.time() - t0)
            times.sort()
            if times:
                print(f"replug -> connected ({replugs} replugs after 0.3 s unplugged, default "
                      f"timings): p50 {statistics.median(times) * 1000:.0f} ms, max "
                      f"{times[-1] * 1000:.0f} ms (requirement: 2000 ms; bound "
                      f"{(link.timings.backoff_max + link.timings.hello_interval) * 1000:.0f} ms)")
                FIGURES["replug_p50_ms"] = statistics.median(times) * 1000
                FIGURES["replug_max_ms"] = times[-1] * 1000
            print(f"counters: {link.state.counters}")


def wire_figures(baud: int) -> None:
    bits = 10  # 8N1: start + 8 data + stop
    command = len(encode_frame(HonbaDisplay(2, 1), 7))
    ack = len(encode_frame(Ack(), 7))
    manifest = len(encode_frame(examples()[10], 7))
    one_way = command * bits / baud * 1000
    back = ack * bits / baud * 1000
    print(f"theoretical at {baud} baud 8N1: honba_display frame {command} B = {one_way:.3f} ms, "
          f"ack {ack} B = {back:.3f} ms, round trip on the wire {one_way + back:.3f} ms; "
          f"wall_manifest frame {manifest} B = {manifest * bits / baud * 1000:.2f} ms; "
          f"max {baud // bits // (command + ack):,} command round trips/s")
    FIGURES.update(baud=baud, frame_ms=one_way, ack_ms=back, wire_round_trip_ms=one_way + back)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--frames", type=int, default=5000)
    parser.add_argument("--baud", type=int, default=115200)
    parser.add_argument("--replugs", type=int, default=20)
    parser.add_argument("--json", action="store_true", help="print one JSON object of figures")
    args = parser.parse_args()
    logging.getLogger("jantaku.table").setLevel(logging.ERROR)  # replugs log a warning each
    with contextlib.redirect_stdout(sys.stderr if args.json else sys.stdout):
        print(f"python {sys.version.split()[0]}")
        wire_figures(args.baud)
        bench_decoder(max(args.frames, 20000))
        asyncio.run(bench_round_trip(args.frames, args.replugs))
    if args.json:
        print(json.dumps({"bench": "link", **FIGURES}))


if __name__ == "__main__":
    main()
