"""The event loop the daemon runs on (``jantaku run --loop``, ``jantaku demo --loop``).

**uvloop** by default: the same asyncio API (tasks, futures, ``asyncio.timeout``, protocols,
transports, ``add_reader`` for the serial port and the pty, signal handlers) on libuv, with the
loop's turn, its handles and its socket transports in compiled code instead of Python. The
daemon's input path is a handful of loop turns and socket reads per input (docs/daemon.md "The
input path"): on uvloop it takes 11 % fewer instructions a table frame (valgrind callgrind,
``bench/daemon_latency.py --callgrind``: 1.285 M against 1.147 M on the same tree), and its
socket reads go into a buffer the loop keeps instead of a fresh 256 KiB allocation per read
(glibc's mmap, mremap and munmap each time: 13.7 µs of system time a read here).
docs/performance.md has the figures; docs/engineering.md says why this dependency.

**asyncio**'s own loop on request (``--loop asyncio``): the reference behaviour, for telling a
loop-specific problem apart. The daemon uses nothing but the public asyncio API, so both run the
same code; the test suite runs in-process services on asyncio's loop and every ``jantaku run``
it starts on uvloop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, Final, TypeVar

from daemon.errors import UsageError

T = TypeVar("T")

#: the ``--loop`` choices; the first is the default
LOOPS: Final = ("uvloop", "asyncio")


def run(main: Coroutine[Any, Any, T], loop: str = LOOPS[0]) -> T:
    """``main`` to completion on a new loop of the kind ``loop`` (one of :data:`LOOPS`)."""
    if loop == "uvloop":
        import uvloop

        return uvloop.run(main)
    if loop == "asyncio":
        return asyncio.run(main)
    raise UsageError(f"no event loop {loop!r}: one of {', '.join(LOOPS)}")
