"""The one gate to the event log's connection (docs/daemon.md, "The input path").

Every use of the log runs in submission order on one database thread, so a long read (the
console's records of a game, a backup) never stalls the event loop. A *quick* call (a group
commit, an outbox delete) runs inline on the loop instead when the thread has nothing to do and
the disk has been quick: the two thread hand-offs (about 120 µs, and the tail of their wake-ups)
were a fifth of a table frame's way to the broker. Order is kept: inline runs only
when no thread call is queued or running, and nothing else runs on the loop meanwhile.

A disk that turns slow must not freeze the loop (timers, the broker link, the console): a quick
call that takes longer than :data:`SLOW_S`, or fails, sends quick calls to the thread for the next
:data:`THREAD_FOR_S`, and the move is logged. A connection held elsewhere (a wedged write) sends
them to the thread too. What inline gives up: a commit that never returns (a disk that hangs in
the middle of an fsync) stops the loop with it; the watchdog is then not fed and systemd
restarts the daemon after ``WatchdogSec``, the same end as a wedged database thread, without
the ``health`` publications between (docs/daemon.md).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Final, ParamSpec, TypeVar

log = logging.getLogger("jantaku.eventlog")

P = ParamSpec("P")
T = TypeVar("T")

#: a quick call that takes longer than this (an SD card's stall) moves quick calls to the thread
SLOW_S: Final = 0.05
#: for this long after a slow or failed quick call
THREAD_FOR_S: Final = 60.0


class LogGate:
    """Runs functions on the event log's connection: :meth:`run` on the database thread,
    :meth:`quick` inline when that is safe and the disk has been quick."""

    def __init__(
        self, table_id: str, *, in_use: Callable[[], bool] = lambda: False,
        slow_s: float = SLOW_S, thread_for_s: float = THREAD_FOR_S,
        mono: Callable[[], float] = time.monotonic,
    ) -> None:
        self._executor = ThreadPoolExecutor(1, thread_name_prefix="jantaku-db")
        self._table = table_id
        self._in_use = in_use  # the log's connection is held (by a thread that is not ours)
        self._slow_s, self._thread_for_s, self._mono = slow_s, thread_for_s, mono
        self._busy = 0  # calls handed to the thread and not returned yet
        self._thread_until = 0.0  # quick calls go to the thread until then (monotonic)
        self.inline = 0  # quick calls run inline (tests, benches)
        self.threaded = 0  # quick calls run on the thread
        self.slow = 0  # quick calls that moved the quick calls to the thread

    async def run(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """``fn`` on the database thread, after every call handed to it before."""
        loop = asyncio.get_running_loop()
        self._busy += 1
        try:
            return await loop.run_in_executor(self._executor, lambda: fn(*args, **kwargs))
        finally:
            self._busy -= 1

    async def quick(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """``fn`` inline when the thread is idle and the disk has been quick, else on the
        thread; either way after every call handed to the thread before."""
        start = self._mono()
        if self._busy or self._in_use() or start < self._thread_until:
            self.threaded += 1
            return await self.run(fn, *args, **kwargs)
        self.inline += 1
        try:
            result = fn(*args, **kwargs)
        except BaseException as exc:
            self._to_thread(f"failed: {exc!r}", start)
            raise
        took = self._mono() - start
        if took > self._slow_s:
            self._to_thread(f"took {took * 1000:.0f} ms", start)
        return result

    def _to_thread(self, why: str, start: float) -> None:
        self.slow += 1
        self._thread_until = start + self._thread_for_s
        log.warning("event log slow (%s): commits on the database thread for %.0f s", why,
                    self._thread_for_s, extra={"fields": {
                        "event": "event_log_slow", "table": self._table, "why": why,
                        "commits_on_thread_s": self._thread_for_s}})

    def shutdown(self) -> None:
        self._executor.shutdown(wait=True)
