"""The console's PBKDF2 derivations under a login flood: bounded, one per address, quiet first.

Every console login derives a key (PBKDF2, 200,000 iterations: ~0.1 s here, several times that on
a Pi). Ten addresses each sending 20 wrong passwords at once queued 200 derivations behind one lock
and kept the real referee waiting 2.4-7.6 s. :class:`LoginGate` decides *before*
anything is derived:

* an address with an attempt already being checked (or waiting) is refused at once: 429 with
  ``Retry-After`` (a referee's device sends one login at a time);
* at most ``in_flight`` derivations run at once (threads: hashlib releases the GIL) and at most
  ``waiting`` attempts wait for one; beyond that, 429 at once;
* a freed slot goes to the waiting attempt whose address has made the fewest recent attempts
  by then (then the oldest): a flooding address's refused attempts count against it, so the
  referee's first attempt from a quiet device is next.

The rate limit of failed logins (console_auth.py) runs before this and is unchanged.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

from daemon.web.console_auth import LoginRefused

#: seconds without an attempt after which an address's count starts again
QUIET_S = 60.0
#: seconds a refused attempt is told to wait
RETRY_S = 1.0


@dataclass(frozen=True, slots=True)
class GateSettings:
    in_flight: int = 2
    waiting: int = 16


@dataclass(slots=True)
class _Seen:
    count: int
    last: float


class LoginGate:
    """The slots for key derivations (a mutable tally of the event loop, not a value type)."""

    def __init__(self, settings: GateSettings | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.settings = settings or GateSettings()
        self.clock = clock
        self._busy = 0
        self._active: set[str] = set()
        self._waiters: list[tuple[int, str, asyncio.Future[None]]] = []
        self._order = itertools.count()
        self._seen: dict[str, _Seen] = {}
        #: refused before deriving, by reason (health, the console's counters)
        self.refused = {"address_busy": 0, "queue_full": 0}

    def _attempt(self, address: str) -> int:
        """Count an attempt of ``address``; its recent attempts (its priority: fewer first)."""
        now = self.clock()
        seen = self._seen.get(address)
        if seen is None or now - seen.last >= QUIET_S:
            seen = self._seen[address] = _Seen(0, now)
        seen.count += 1
        seen.last = now
        if len(self._seen) > 10_000:  # many addresses: forget the quiet ones
            for key in [k for k, s in self._seen.items() if now - s.last >= QUIET_S]:
                del self._seen[key]
        return seen.count

    @contextlib.asynccontextmanager
    async def slot(self, address: str) -> AsyncIterator[None]:
        """Hold a derivation slot for one attempt of ``address``, or raise
        :class:`LoginRefused` (``retry_after`` set) at once, before anything is derived."""
        self._attempt(address)
        if address in self._active:
            self.refused["address_busy"] += 1
            raise LoginRefused("a login from this address is being checked; try again in 1 s",
                               retry_after=RETRY_S)
        if self._busy >= self.settings.in_flight and len(self._waiters) >= self.settings.waiting:
            self.refused["queue_full"] += 1
            raise LoginRefused("too many logins being checked; try again in 1 s",
                               retry_after=RETRY_S)
        self._active.add(address)
        try:
            await self._acquire(address)
            try:
                yield
            finally:
                self._release()
        finally:
            self._active.discard(address)

    async def _acquire(self, address: str) -> None:
        if self._busy < self.settings.in_flight:
            self._busy += 1
            return
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append((next(self._order), address, fut))
        try:
            await fut
        except asyncio.CancelledError:
            if fut.done() and not fut.cancelled():
                self._release()  # handed a slot as the request went away: pass it on
            else:
                fut.cancel()  # skipped when its turn comes
            raise

    def _release(self) -> None:
        """Hand the slot to the next waiter, or free it: the one whose address has made the
        fewest attempts by now (counted since it queued: a flooding address's refused attempts
        count), then the oldest; at most ``waiting`` to compare."""
        self._waiters = [w for w in self._waiters if not w[2].done()]
        if not self._waiters:
            self._busy -= 1
            return
        now = self.clock()

        def rank(w: tuple[int, str, asyncio.Future[None]]) -> tuple[int, int]:
            seen = self._seen.get(w[1])
            recent = 0 if seen is None or now - seen.last >= QUIET_S else seen.count
            return recent, w[0]

        best = min(self._waiters, key=rank)
        self._waiters.remove(best)
        best[2].set_result(None)

    def health(self) -> dict[str, int]:
        return {"deriving": self._busy, "waiting": sum(not f.done() for *_, f in self._waiters),
                **self.refused}
