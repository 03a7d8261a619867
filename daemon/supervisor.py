"""The service's task supervisor: a task that dies is restarted with backoff and reported.

A bug in one handler must not take the table down: the task that raised is logged
with its traceback, counted, and started again after a delay that doubles up to a ceiling (and
starts small again once the task has run for a while). Only what an operator must fix ends the
daemon: the caller's ``fatal`` predicate says which errors those are (an unwritable event log).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any

log = logging.getLogger("jantaku.daemon")

#: a task that ran this long before dying starts again from the smallest delay
STABLE_S = 60.0


@dataclass(slots=True)
class TaskRecord:
    """One supervised task's tally (the shell's mutable state, reported in ``health``)."""

    restarts: int = 0
    last_error: str | None = None
    restarting: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"restarts": self.restarts, "last_error": self.last_error,
                "restarting": self.restarting}


class Supervisor:
    def __init__(
        self,
        *,
        fatal: Callable[[str, BaseException], bool],
        stopping: Callable[[], bool],
        backoff: tuple[float, float] = (0.5, 30.0),
        optional: frozenset[str] = frozenset(),
    ) -> None:
        self.fatal = fatal
        #: tasks the table plays on without (the web server): their restart is reported but
        #: never withholds the watchdog (a restart of the daemon would not bring them back
        #: sooner, and would stop the table)
        self.optional = optional
        self.stopping = stopping
        self.backoff = backoff
        self.records: dict[str, TaskRecord] = {}

    async def supervise(
        self, name: str, factory: Callable[[], Coroutine[Any, Any, None]]
    ) -> None:
        """Run ``factory()`` until the service stops; raise only a ``fatal`` error."""
        rec = self.records.setdefault(name, TaskRecord())
        delay = self.backoff[0]
        while True:
            started = time.monotonic()
            try:
                await factory()
                if self.stopping():
                    return
                why = "the task returned"
            except Exception as exc:
                if self.fatal(name, exc):
                    raise
                why = repr(exc)[:300]
                log.exception("task %s died; restarting it in %.1f s", name, delay)
            rec.restarts += 1
            rec.last_error = why
            if time.monotonic() - started > STABLE_S:
                delay = self.backoff[0]
            rec.restarting = True
            try:
                await asyncio.sleep(delay)
            finally:
                rec.restarting = False
            delay = min(delay * 2, self.backoff[1])

    def problem(self) -> str | None:
        """A task waiting to be restarted (the watchdog is not fed meanwhile); not an
        ``optional`` one (:meth:`degraded`)."""
        waiting = sorted(n for n, r in self.records.items()
                         if r.restarting and n not in self.optional)
        return f"task {waiting[0]} restarting" if waiting else None

    def degraded(self) -> str | None:
        """An ``optional`` task waiting to be restarted (unhealthy, the watchdog still fed)."""
        waiting = sorted(n for n, r in self.records.items()
                         if r.restarting and n in self.optional)
        return f"task {waiting[0]} restarting" if waiting else None

    def health(self) -> dict[str, Any]:
        return {n: r.to_json() for n, r in sorted(self.records.items()) if r.restarts}
