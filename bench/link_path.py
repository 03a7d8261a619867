"""The link path's instructions per table frame (docs/performance.md, "Issue 30 item 8, session 9:
the link path"): a dice frame written into a pty → ``SerialTransport`` → ``LinkSession`` →
``TableLinkDriver.run`` → ``DeviceTracker.take`` → ``track`` → a sink whose ``submit`` returns at
once → ``confirm`` → the ACK read back off the pty, then the next frame; in process, on uvloop
(the daemon's loop), the loop's turns included, the commit not.

    valgrind --tool=callgrind --callgrind-out-file=/tmp/a.out .venv/bin/python \
        bench/link_path.py 2000
    valgrind --tool=callgrind --callgrind-out-file=/tmp/b.out .venv/bin/python \
        bench/link_path.py 0

(the difference of the two ``Collected`` totals over 2000: the instructions per frame, without
the interpreter's start; they do not move with the machine's load). The table's side is a few
bytes written and read on the pty's master, the frames encoded before the clock starts. Without
valgrind it prints the wall time per frame.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from daemon.config import DisplaysConfig  # noqa: E402
from daemon.devices import TableLinkDriver  # noqa: E402
from daemon.event_loop import run  # noqa: E402
from daemon.log_values import LinkPosition  # noqa: E402
from drivers.link.frame import encode_frame  # noqa: E402
from drivers.link.messages import Dice, Heartbeat, Welcome  # noqa: E402
from drivers.link.reports import RxPosition  # noqa: E402
from drivers.table.serial import SerialTransport  # noqa: E402
from drivers.table.session import LinkSession  # noqa: E402
from rules.timers import TimerState  # noqa: E402

#: the table's boot id (any)
BOOT = 0x5EED
#: what the host writes when it has nothing else to say (not an ACK)
HEARTBEAT = encode_frame(Heartbeat())


class _Clocks:
    state: TimerState | None = None  # only the referee's pause button reads it


class Sink:
    """An input sink whose commit returns at once (the commit is bench/commit_path.py's)."""

    def __init__(self) -> None:
        self.submitted = 0
        self.clocks = _Clocks()

    async def submit(self, kind: str, source: str, body: Any, *, mono_ns: int | None = None,
                     link: LinkPosition | None = None) -> None:
        self.submitted += 1

    async def mark_link(self, position: LinkPosition) -> None:
        return None

    async def link_position(self, name: str) -> LinkPosition | None:
        return None

    def table_state(self) -> None:
        return None

    async def game_records(self) -> list[Any]:
        return []

    def timers_state(self) -> _Clocks:
        return self.clocks


async def frames(n: int) -> float:
    """``n`` dice frames through the daemon's side of the link, each after the previous ACK;
    returns the seconds they took."""
    master, slave = os.openpty()
    path = os.ttyname(slave)
    os.set_blocking(master, False)
    welcome = encode_frame(Welcome(1, frozenset(), BOOT, None, "bench-table 1.0"))
    # one frame a seq, encoded before the count starts whatever ``n`` (frame i is dice[i % 256])
    dice = [encode_frame(Dice((1 + i % 6, 1 + (i // 6) % 6)), i) for i in range(256)]
    loop = asyncio.get_running_loop()
    done = loop.create_future()
    sent = 0
    t0 = 0.0

    def readable() -> None:
        nonlocal sent, t0
        data = os.read(master, 4096)
        if not t0:
            if data.count(0) < 2:
                return
            os.write(master, welcome)  # the host's hello, answered
            t0 = time.perf_counter()
        elif data == HEARTBEAT:
            return
        if sent < n:
            os.write(master, dice[sent & 0xFF])
            sent += 1
        elif not done.done():
            done.set_result(None)

    loop.add_reader(master, readable)
    sink = Sink()
    driver = TableLinkDriver(lambda resume: LinkSession(SerialTransport(path), resume=resume),
                             DisplaysConfig(honba="none", scores="none", buzzer="none"))
    task = asyncio.create_task(driver.run(sink))  # type: ignore[arg-type]
    await done
    took = time.perf_counter() - t0
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    loop.remove_reader(master)
    os.close(master)
    os.close(slave)
    assert sink.submitted >= n and driver.events >= n, (sink.submitted, driver.events, n)
    assert driver._positions.get(0, LinkPosition("", RxPosition(BOOT, 0))).at.peer_boot_id \
        == BOOT
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("frames", type=int, nargs="?", default=2000)
    args = parser.parse_args()
    took = run(frames(args.frames))
    print(f"{args.frames} frames, {took / max(1, args.frames) * 1e6:.1f} µs per frame (wall)")


if __name__ == "__main__":
    main()
