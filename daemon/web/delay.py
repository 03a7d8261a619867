"""The broadcast delay line for the spectator feed.

A spectator feed shows the players' hands, so it may only go on air behind a delay long enough
that nobody at the table can learn from it. Views enter with the monotonic time they were built
and leave ``delay_s`` later, in order; a view is never released early.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from daemon.errors import ConfigError


class DelayLine:
    def __init__(self, delay_s: float) -> None:
        if delay_s <= 0:
            raise ConfigError(f"a spectator delay must be positive, got {delay_s!r}")
        self.delay_ns = int(delay_s * 1e9)
        self._queue: deque[tuple[int, dict[str, Any]]] = deque()

    def put(self, t_ns: int, view: dict[str, Any]) -> None:
        if self._queue and self._queue[-1][1] == view:
            return  # unchanged: keep the queue small on idle tables
        self._queue.append((t_ns, view))

    def due(self, now_ns: int) -> dict[str, Any] | None:
        """The newest view whose delay has passed (older due ones are superseded), if any."""
        out = None
        while self._queue and self._queue[0][0] + self.delay_ns <= now_ns:
            out = self._queue.popleft()[1]
        return out

    def next_due_ns(self) -> int | None:
        """When the oldest view waiting is due (monotonic; None: nothing waits)."""
        return self._queue[0][0] + self.delay_ns if self._queue else None

    def __len__(self) -> int:
        return len(self._queue)
