"""The latest overlay view and its subscribers.

The daemon publishes a complete view after every applied event (and on timer ticks); each browser
connection waits for a newer version than the one it has. Views are complete, never deltas, so a
subscriber that missed versions (a slow browser, a reconnect) is correct as soon as it gets one.
:class:`Pulse` tells the console's streams that the table moved (they build their own states).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from daemon.web.view import hold_standings


class ViewHub:
    def __init__(self, initial: dict[str, Any] | None = None) -> None:
        self._view: dict[str, Any] = initial or {"status": "waiting", "seats": []}
        self._text = json.dumps(self._view, ensure_ascii=False, separators=(",", ":"))
        self._version = 0
        self._changed = asyncio.Condition()

    @property
    def version(self) -> int:
        return self._version

    @property
    def view(self) -> dict[str, Any]:
        return self._view

    @property
    def text(self) -> str:
        return self._text

    async def publish(self, view: dict[str, Any]) -> None:
        view = hold_standings(self._view, view)
        text = json.dumps(view, ensure_ascii=False, separators=(",", ":"))
        if text == self._text:
            return
        async with self._changed:
            self._view, self._text = view, text
            self._version += 1
            self._changed.notify_all()

    async def wait_newer(self, version: int, timeout: float) -> tuple[int, str] | None:
        """The current (version, text) once it is newer than ``version``; ``None`` on timeout."""
        async with self._changed:
            try:
                await asyncio.wait_for(
                    self._changed.wait_for(lambda: self._version > version), timeout
                )
            except TimeoutError:
                return None
            return self._version, self._text


class Pulse:
    """A wake-up for any number of waiters (the console's streams): :meth:`fire` wakes every
    waiter, and one that was busy when it fired sees the generation moved and does not wait.
    (One ``asyncio.Event`` cleared by one consumer would be lost to the others.)"""

    def __init__(self) -> None:
        self.generation = 0
        self._event = asyncio.Event()

    def fire(self) -> None:
        self.generation += 1
        self._event.set()
        self._event = asyncio.Event()

    async def wait(self, generation: int, timeout: float) -> bool:
        """Whether it fired since ``generation`` (False: ``timeout`` seconds passed first)."""
        if generation != self.generation:
            return True
        try:
            async with asyncio.timeout(timeout):
                await self._event.wait()
        except TimeoutError:
            return False
        return True
