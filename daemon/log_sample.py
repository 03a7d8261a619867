"""Sampled log lines: under a flood, a few lines a window and one summary, never a line per event.

A refused command used to log one line each: 147,000 lines (47 MB) in a 20 s flood,
which journald's rate limit then turns into lost real lines. :class:`SampledLog` logs the first
``burst`` lines of each ``window`` seconds and counts the rest by key; :meth:`SampledLog.tick`
(the health loop, once a second) writes one summary line for a window that suppressed any.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Callable
from typing import Any


class SampledLog:
    """At most ``burst`` lines per ``window`` seconds, then a count by key (a mutable tally)."""

    def __init__(
        self, logger: logging.Logger, what: str, *, burst: int = 5, window: float = 10.0,
        mono: Callable[[], float] = time.monotonic,
    ) -> None:
        self.logger, self.what, self.burst, self.window, self.mono = (
            logger, what, burst, window, mono)
        self._start = mono()
        self._logged = 0
        self._suppressed: Counter[str] = Counter()
        #: lines not written since the start (health)
        self.suppressed_total = 0

    def warning(self, key: str, msg: str, *args: Any, extra: dict[str, Any] | None = None) -> None:
        """Log ``msg`` unless this window's lines are spent; ``key`` counts it then (a code)."""
        self.tick()
        if self._logged < self.burst:
            self._logged += 1
            self.logger.warning(msg, *args, extra=extra)
            return
        self._suppressed[key] += 1
        self.suppressed_total += 1

    def tick(self) -> None:
        """End the window if it is over: one summary line of what it did not log."""
        now = self.mono()
        if now - self._start < self.window:
            return
        if self._suppressed:
            self.logger.warning(
                "%d %s not logged in the last %.0f s", sum(self._suppressed.values()), self.what,
                now - self._start,
                extra={"fields": {"suppressed": dict(sorted(self._suppressed.items()))}},
            )
        self._start, self._logged = now, 0
        self._suppressed = Counter()
