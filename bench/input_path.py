"""The input path's figures (docs/performance.md, "The input path"):

1. sustained inputs/s through the event log (a real SQLite file, ``synchronous=FULL``) with
   **group commit** (groups of 16, 64, 256: :meth:`daemon.table.TableCore.submit_group`) beside
   **one commit per input** (the same inputs, ``submit`` one at a time), same file system, same run;
2. the **table event's ACK latency** over a pty: a controller endpoint (the pure
   ``drivers.link.arq.Endpoint``, role controller) writes a burst of events into the real daemon
   service (``devices.table.kind = "serial"``, real ``LinkSession``, real log); the time from the
   event frame written to its ACK read (the ACK leaves only after the input is committed), and
   the burst's events/s, beside the software round trip of a command over the same pty with no
   log (the controller acknowledging a host command at once).

    .venv/bin/python bench/input_path.py [--dir DIR] [--inputs N] [--burst N] [--json]

``--dir``: where the log lives (default: a temporary directory under /var/tmp, a real disk; on
tmpfs an fsync is free and the comparison means nothing).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from daemon.engine import load_engine  # noqa: E402
from daemon.eventlog import EventLog  # noqa: E402
from daemon.table import Pending, TableCore  # noqa: E402
from daemon.tracking.records import KIND_MARKER  # noqa: E402
from hil.kit import daemon_config  # noqa: E402


def _bodies(n: int) -> list[dict[str, Any]]:
    # table faults: markers, logged and folded like any table event (no rules state needed)
    return [{"type": "table_fault", "code": i % 65536, "name": "unknown", "seat": None}
            for i in range(n)]


def throughput(workdir: Path, n: int, group: int) -> float:
    """Inputs/s through the log: ``group`` = 1 is one commit per input."""
    path = workdir / f"tp-{group}-{time.monotonic_ns()}.sqlite"
    log = EventLog(path, "bench")
    core = TableCore(log, load_engine(), "bench", checkpoint_every=0)
    bodies = _bodies(n)
    t0 = time.perf_counter()
    for i in range(0, n, group):  # group 1: a group of one per input, as the intake commits it
        core.submit_group([Pending(KIND_MARKER, "table", b, time.monotonic_ns(),
                                   time.time_ns(), "bench") for b in bodies[i:i + group]])
    elapsed = time.perf_counter() - t0
    log.close()
    for suffix in ("", "-wal", "-shm", ".mark"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    return n / elapsed


def ack_config(db: Path, tty: str) -> str:
    """The ack bench's daemon: the table on the pty ``tty``; no broker listens on port 1."""
    return daemon_config("bench-ack", db, 1, link=tty)


async def ack_latency(workdir: Path, burst: int) -> dict[str, Any]:
    from daemon.config import parse_config
    from daemon.devices import TableLinkDriver, build_drivers
    from daemon.service import Service
    from drivers.link.arq import Endpoint
    from drivers.link.messages import Buzzer, Fault
    from drivers.link.reports import Acked, Role

    master, slave = os.openpty()
    import termios
    import tty

    tty.setraw(slave, termios.TCSANOW)
    path = os.ttyname(slave)
    db = workdir / f"ack-{time.monotonic_ns()}.sqlite"
    config = parse_config(ack_config(db, path))
    service = Service(config, load_engine(), drivers=build_drivers(config), ready_timeout=0.1)
    loop = asyncio.get_running_loop()
    ctl = Endpoint(Role.CONTROLLER, boot_id=0x1234)
    sent_at: dict[int, float] = {}
    acked_at: dict[int, float] = {}
    os.set_blocking(master, False)

    def pump() -> None:
        data, outs = ctl.drain()
        if data:
            os.write(master, data)
        for out in outs:
            if isinstance(out, Acked):
                acked_at[out.handle] = loop.time()

    def readable() -> None:
        try:
            data = os.read(master, 65536)
        except OSError:
            return
        ctl.receive(data, loop.time())
        pump()

    loop.add_reader(master, readable)
    ctl.attach(loop.time())
    task = asyncio.create_task(service.run())

    async def ticker() -> None:
        while True:
            ctl.tick(loop.time())
            pump()
            await asyncio.sleep(0.002)

    tick = asyncio.create_task(ticker())
    try:
        while not ctl.connected:
            await asyncio.sleep(0.01)
        # the reference: a host command acknowledged by the controller at once (no log)
        table = service.drivers[0]
        assert isinstance(table, TableLinkDriver)
        link = table.link
        assert link is not None
        rtts = []
        for _ in range(200):
            t = time.perf_counter()
            await link.send(Buzzer(1, 1))
            rtts.append((time.perf_counter() - t) * 1000)
        t0 = loop.time()
        for i in range(burst):
            handle = ctl.send(Fault(i % 65535 + 1, None), loop.time())
            sent_at[handle] = loop.time()
            pump()
        while len(acked_at) < burst:
            await asyncio.sleep(0.005)
        elapsed = loop.time() - t0
    finally:
        tick.cancel()
        loop.remove_reader(master)
        service.stop()
        await task
        os.close(master)
        os.close(slave)
    # stop-and-wait: the controller queues the burst; an event's own latency is from the moment
    # its frame went out (the previous one's ACK) to its ACK
    order = sorted(acked_at)
    lat = []
    prev = None
    for h in order:
        start = sent_at[h] if prev is None else max(sent_at[h], acked_at[prev])
        lat.append((acked_at[h] - start) * 1000)
        prev = h
    lat.sort()
    return {
        "ack_p50_ms": statistics.median(lat),
        "ack_p99_ms": lat[int(len(lat) * 0.99) - 1],
        "burst_events_per_s": burst / elapsed,
        "command_rtt_p50_ms": statistics.median(rtts),
        "command_rtt_p99_ms": sorted(rtts)[int(len(rtts) * 0.99) - 1],
        "burst": burst,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dir", type=Path, default=None)
    parser.add_argument("--inputs", type=int, default=2000)
    parser.add_argument("--burst", type=int, default=1000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    logging.getLogger("jantaku").setLevel(logging.CRITICAL)  # no broker here, on purpose
    base = args.dir or Path("/var/tmp")
    with tempfile.TemporaryDirectory(prefix="jantaku-bench-", dir=base) as tmp:
        work = Path(tmp)
        out: dict[str, Any] = {"dir": str(base), "inputs": args.inputs}
        for group in (1, 16, 64, 256):
            n = args.inputs if group > 1 else min(args.inputs, 1000)
            out[f"inputs_per_s_group_{group}"] = throughput(work, n, group)
            print(f"group {group:>3}: {out[f'inputs_per_s_group_{group}']:9.0f} inputs/s",
                  file=sys.stderr)
        out.update(asyncio.run(ack_latency(work, args.burst)))
    print(f"table event ACK (after commit) p50 {out['ack_p50_ms']:.2f} ms, p99 "
          f"{out['ack_p99_ms']:.2f} ms; burst of {args.burst}: {out['burst_events_per_s']:.0f} "
          f"events/s; command round trip (no log) p50 {out['command_rtt_p50_ms']:.2f} ms, p99 "
          f"{out['command_rtt_p99_ms']:.2f} ms", file=sys.stderr)
    if args.json:
        print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
