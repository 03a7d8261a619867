"""The kit the tests and the benches share: a free port, a polled wait, and the slow switch.

``SLOW`` is ``JANTAKU_SLOW=1`` (docs/engineering.md): soak, fuzz and power-cut runs take their long
form; by default each runs a bounded form that fits the suite's time. ``until`` polls a condition
with a hang guard: the guard makes a broken build fail instead of hanging and is never a measure
of speed (speed is measured by bench/, not by timed tests).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
from collections.abc import Callable, Iterator
from typing import Final

from hil.errors import EmulatorTimeout

#: the long forms of soak, fuzz and power-cut tests (``JANTAKU_SLOW=1``)
SLOW: Final = os.environ.get("JANTAKU_SLOW") == "1"


def bounded(ci: int, slow: int) -> int:
    """``slow`` with ``JANTAKU_SLOW=1``, else ``ci``: the size of a soak or fuzz run."""
    return slow if SLOW else ci


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nothing listens on now (the kernel's pick, released for the caller)."""
    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


async def until(cond: Callable[[], object], timeout: float = 30.0, interval: float = 0.02) -> None:
    """Poll ``cond`` until it holds; :class:`EmulatorTimeout` (a ``TimeoutError``) after
    ``timeout`` seconds."""
    try:
        async with asyncio.timeout(timeout):
            while not cond():
                await asyncio.sleep(interval)
    except TimeoutError:
        raise EmulatorTimeout(f"condition not met in {timeout} s") from None


def die_with_parent() -> None:
    """In a child (``preexec_fn``): SIGTERM when the parent dies, even by SIGKILL (Linux prctl
    PR_SET_PDEATHSIG), so a killed test, bench or demo leaves no process behind."""
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)


@contextlib.contextmanager
def reaped(proc: subprocess.Popen[bytes],
           grace_s: float = 10.0) -> Iterator[subprocess.Popen[bytes]]:
    """``proc`` is gone when the block ends, by return, exception or timeout alike: SIGTERM,
    then SIGKILL after ``grace_s`` seconds."""
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(grace_s)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
