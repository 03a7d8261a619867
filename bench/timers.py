"""Timer accuracy bench: charged turn time vs the true interval between button presses.

A thread drives gpiozero MockFactory pins (with contact bounce) at known instants, seats in
turn, while busy processes load every CPU. The presses go through the real path: gpiozero
callback (timestamp) → ``loop.call_soon_threadsafe`` → debouncer → reducer. For each turn we
compare the charged time with the true interval between the two presses that bound it (taken
with ``time.monotonic_ns()`` by the driving thread just before it drives the pin).

Prints figures (p50/p99/max of the error, goal: p99 ≤ 5 ms); asserts nothing.

    .venv/bin/python bench/timers.py [--presses 400] [--interval-ms 25] [--load N] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import random
import statistics
import sys
import threading
import time
from dataclasses import dataclass
from multiprocessing.synchronize import Event as EventType

from gpiozero import Device
from gpiozero.pins.mock import MockFactory, MockPin

from drivers.buttons import ClockButtons, SeatPress
from rules.timers import Deal, Discard, Source, TurnEnded, new_hand, step, wmc_rules

#: the figures, for ``--json`` (bench/report.py): per phase ("idle", "loaded")
FIGURES: dict[str, dict[str, float]] = {}

SEAT_PINS = (17, 27, 22, 23)


def spin(stop: EventType) -> None:
    """A busy process: burns a CPU until told to stop."""
    x = 0
    while not stop.is_set():
        for _ in range(100_000):
            x = (x * 31 + 7) % 1_000_003


@dataclass
class Phase:
    name: str
    errors_ns: list[int]
    delivery_ns: list[int]
    lost: int


def drive(
    pins: list[MockPin], start_ns: int, count: int, interval_ns: int, truth: list[int]
) -> None:
    """Press seat k % 4 at start + k·interval (±20 % jitter), with bounce, hold 8 ms."""
    rng = random.Random(6)
    for k in range(count):
        target = start_ns + k * interval_ns + rng.randint(-interval_ns // 5, interval_ns // 5)
        while True:
            left = target - time.monotonic_ns()
            if left <= 0:
                break
            if left > 2_000_000:
                time.sleep((left - 1_500_000) / 1e9)
        pin = pins[k % 4]
        truth.append(time.monotonic_ns())
        pin.drive_low()
        pin.drive_high()  # contact bounce
        pin.drive_low()
        time.sleep(0.008)
        pin.drive_high()
        pin.drive_low()  # release bounce
        pin.drive_high()


async def run_phase(name: str, count: int, interval_ns: int) -> Phase:
    factory = MockFactory()
    Device.pin_factory = factory
    pins = [factory.pin(p) for p in SEAT_PINS]
    assert all(isinstance(p, MockPin) for p in pins)
    rules = wmc_rules(grace_seconds=0.0, per_hand_seconds=1e6, mode="monitor")
    state, _ = step(new_hand(rules), Deal(time.monotonic_ns()))
    charged: list[int] = []
    delivery: list[int] = []
    truth: list[int] = []
    with ClockButtons(SEAT_PINS) as buttons:
        start = time.monotonic_ns() + 200_000_000
        thread = threading.Thread(
            target=drive, args=(pins, start, count, interval_ns, truth), daemon=True
        )
        thread.start()
        deadline = start + (count + 20) * interval_ns + 2_000_000_000
        got = 0
        while got < count and time.monotonic_ns() < deadline:
            try:
                press = await asyncio.wait_for(buttons.presses.get(), timeout=1.0)
            except TimeoutError:
                continue
            delivery.append(time.monotonic_ns() - press.t_ns)
            assert isinstance(press, SeatPress)
            got += 1
            state, events = step(state, Discard(press.t_ns, press.seat, Source.BUTTON))
            charged += [e.charged_ns for e in events if isinstance(e, TurnEnded) and e.counted]
        thread.join()
    factory.reset()
    errors = [
        charged[k] - (truth[k] - truth[k - 1]) for k in range(1, min(len(charged), len(truth)))
    ]
    return Phase(name, errors, delivery, count - len(charged))


def pct(values: list[int], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] / 1e6


def report(phase: Phase) -> None:
    err = [abs(e) for e in phase.errors_ns]
    print(f"{phase.name}: {len(err)} turns, {phase.lost} presses lost")
    if not err:
        return
    FIGURES[phase.name.split()[0]] = {
        "turns": len(err),
        "lost": phase.lost,
        "error_p50_ms": pct(err, 0.5),
        "error_p99_ms": pct(err, 0.99),
        "error_max_ms": max(err) / 1e6,
    }
    print(
        f"  |charged - true| ms: p50 {pct(err, 0.5):.3f}  p99 {pct(err, 0.99):.3f}  "
        f"max {max(err) / 1e6:.3f}  mean signed {statistics.fmean(phase.errors_ns) / 1e6:+.4f}"
    )
    print(
        f"  callback → loop delivery ms (display latency, not charged): p50 "
        f"{pct(phase.delivery_ns, 0.5):.3f}  p99 {pct(phase.delivery_ns, 0.99):.3f}  "
        f"max {max(phase.delivery_ns) / 1e6:.3f}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--presses", type=int, default=400)
    parser.add_argument("--interval-ms", type=float, default=25.0)
    parser.add_argument("--load", type=int, default=os.cpu_count() or 1, help="busy processes")
    parser.add_argument("--json", action="store_true", help="print one JSON object of figures")
    args = parser.parse_args()
    with contextlib.redirect_stdout(sys.stderr if args.json else sys.stdout):
        measure(args)
    if args.json:
        print(json.dumps({"bench": "timers", **FIGURES}))
    return 0


def measure(args: argparse.Namespace) -> None:
    interval = round(args.interval_ms * 1e6)
    print(
        f"timer accuracy: {args.presses} presses every {args.interval_ms:g} ms (±20 %), "
        f"{os.cpu_count()} CPUs, Python {sys.version.split()[0]}"
    )
    report(asyncio.run(run_phase("idle", args.presses, interval)))
    ctx = multiprocessing.get_context("spawn")
    stop = ctx.Event()
    procs = [ctx.Process(target=spin, args=(stop,), daemon=True) for _ in range(args.load)]
    for p in procs:
        p.start()
    try:
        time.sleep(0.5)
        name = f"loaded ({args.load} busy processes)"
        loaded = asyncio.run(run_phase(name, args.presses, interval))
    finally:
        stop.set()
        for p in procs:
            p.join(timeout=5)
            if p.is_alive():
                p.terminate()
    report(loaded)
    print("goal: p99 ≤ 5 ms")


if __name__ == "__main__":
    sys.exit(main())
