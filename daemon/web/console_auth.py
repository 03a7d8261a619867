"""The referee console's logins: password check, server-side sessions, failed-login limits.

* **Passwords** are never stored: a referee user's config ``key`` is PBKDF2 of the password
  (daemon/auth.py), so a typed password is checked by deriving the key again with the stored
  iteration count and comparing in constant time. An unknown user costs the same derivation (a
  dummy key), so timing does not tell which user names exist.
* **Sessions** live in memory on the table only (a restart logs everybody out): a random 256-bit
  id in an ``HttpOnly; SameSite=Strict`` cookie (``Secure`` over TLS), an idle expiry and an
  absolute one, and a per-session CSRF token that every state-changing request must echo in the
  ``X-CSRF-Token`` header.
* **Failed logins** are throttled per (user name, client address), with growing delays: after
  ``max_failures`` failures the next attempt waits 1 s, then 2, 4, 8 ... up to ``lockout``
  seconds; a success, or ``window`` seconds without a failure, forgets them. A stranger guessing
  "alice" from another device therefore slows only that device: the referee's own device logs in
  at once (the lock was per user name, so five wrong logins from anywhere locked the
  referee out, renewable for ever). One address guessing many names is throttled too, from
  ``ADDRESS_FACTOR`` x ``max_failures`` failures. A refused attempt derives nothing, so it
  cannot be used to burn the table's CPU. (Behind a reverse proxy every login comes from the
  proxy's address: throttle in the proxy, docs/console.md.)

Time comes from an injected monotonic clock (seconds), so expiry is testable without sleeping.
"""

from __future__ import annotations

import hmac
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from daemon import auth
from daemon.config import RefereeUser
from daemon.errors import DaemonError

Clock = Callable[[], float]


@dataclass(frozen=True, slots=True)
class ConsoleSettings:
    """Console policy (the daemon config's ``[console]`` values when the lead wires them)."""

    idle_timeout: float = 30 * 60.0
    absolute_timeout: float = 8 * 3600.0
    #: failures of one (user, address) before the delays start
    max_failures: int = 5
    #: seconds without a failure after which a bucket's failures are forgotten
    failure_window: float = 5 * 60.0
    #: the longest delay (the delays double from 1 s up to this)
    lockout: float = 5 * 60.0
    #: set the cookie's Secure flag (the server sets it anyway when it is served over TLS)
    secure_cookie: bool = False


@dataclass(frozen=True, slots=True)
class Session:
    sid: str
    user: str
    role: str
    csrf: str
    created: float
    last_seen: float


@dataclass(slots=True)
class _Failures:
    count: int = 0
    last: float = 0.0
    locked_until: float = 0.0


#: an address's failures over all user names are throttled from this many times max_failures
ADDRESS_FACTOR = 4
#: the first delay once a bucket is throttled (doubles with each further failure)
FIRST_DELAY_S = 1.0


def _buckets(keys: tuple[str, ...], max_failures: int) -> list[tuple[str, int]]:
    """``(bucket, threshold)`` for the caller's keys (``ip:<address>``, ``user:<name>``): one per
    (user, address) pair, and the address over all names; a name alone is never a bucket."""
    ips = [k for k in keys if k.startswith("ip:")]
    users = [k for k in keys if k.startswith("user:")]
    if not ips:
        return [(u, max_failures) for u in users]
    out = [(f"{ip}|{u}", max_failures) for ip in ips for u in users]
    out += [(ip, max_failures * ADDRESS_FACTOR) for ip in ips]
    return out


class LoginRefused(DaemonError, PermissionError):
    """A login refused; ``retry_after`` seconds when it is the rate limit."""

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


_DUMMY_KEY = "pbkdf2-sha256$200000$" + "00" * 32


def verify_password(user: RefereeUser | None, name: str, password: str) -> bool:
    """Derive the key of ``password`` for ``name`` and compare it with ``user``'s in constant
    time (an unknown user derives against a dummy key: same cost, always false)."""
    text = user.key.reveal() if user is not None else _DUMMY_KEY
    iterations, stored = auth.parse_key(text)
    typed = auth.derive_key(name, password, iterations)
    return hmac.compare_digest(typed, stored) and user is not None


class SessionStore:
    def __init__(self, settings: ConsoleSettings, clock: Clock = time.monotonic) -> None:
        self.settings = settings
        self.clock = clock
        self._sessions: dict[str, Session] = {}
        self._failures: dict[str, _Failures] = {}

    # ------------------------------------------------------------------ rate limit
    def check_allowed(self, keys: tuple[str, ...]) -> None:
        """Raise :class:`LoginRefused` if the (user, address) of ``keys`` (``ip:...``,
        ``user:...``) must wait, or the address as a whole."""
        now = self.clock()
        for key, _ in _buckets(keys, self.settings.max_failures):
            f = self._failures.get(key)
            if f is not None and f.locked_until > now:
                wait = f.locked_until - now
                raise LoginRefused(
                    f"too many failed logins; try again in {int(wait) + 1} s", retry_after=wait
                )

    def failed(self, keys: tuple[str, ...]) -> None:
        now = self.clock()
        s = self.settings
        for key, threshold in _buckets(keys, s.max_failures):
            f = self._failures.setdefault(key, _Failures())
            if now - f.last >= s.failure_window:
                f.count = 0  # quiet for a window: start again
            f.count += 1
            f.last = now
            if f.count >= threshold:
                delay = FIRST_DELAY_S * 2.0 ** min(f.count - threshold, 30)
                f.locked_until = now + min(s.lockout, delay)
        if len(self._failures) > 10_000:  # a flood of names: forget the idle ones
            for key in [k for k, f in self._failures.items()
                        if f.locked_until <= now and now - f.last >= s.failure_window]:
                del self._failures[key]

    def succeeded(self, keys: tuple[str, ...]) -> None:
        """A good login forgets its (user, address) failures (not the address's others)."""
        for key, _ in _buckets(keys, self.settings.max_failures):
            if "|" in key or not key.startswith("ip:"):
                self._failures.pop(key, None)

    # ------------------------------------------------------------------ sessions
    def create(self, user: str, role: str) -> Session:
        now = self.clock()
        self._expire(now)
        session = Session(
            sid=secrets.token_urlsafe(32),
            user=user,
            role=role,
            csrf=secrets.token_urlsafe(32),
            created=now,
            last_seen=now,
        )
        self._sessions[session.sid] = session
        return session

    def get(self, sid: str | None, *, touch: bool = True) -> Session | None:
        """The live session ``sid`` (its idle timer restarted when ``touch``), or ``None``."""
        if not sid:
            return None
        now = self.clock()
        session = self._sessions.get(sid)
        if session is None:
            return None
        if self._expired(session, now):
            del self._sessions[sid]
            return None
        if touch:
            session = replace(session, last_seen=now)
            self._sessions[sid] = session
        return session

    def drop(self, sid: str | None) -> None:
        if sid:
            self._sessions.pop(sid, None)

    def drop_user(self, user: str) -> None:
        for sid in [k for k, s in self._sessions.items() if s.user == user]:
            del self._sessions[sid]

    def expires_in(self, session: Session) -> float:
        now = self.clock()
        s = self.settings
        return max(
            0.0,
            min(session.last_seen + s.idle_timeout, session.created + s.absolute_timeout) - now,
        )

    def _expired(self, session: Session, now: float) -> bool:
        s = self.settings
        return (
            now - session.last_seen >= s.idle_timeout
            or now - session.created >= s.absolute_timeout
        )

    def _expire(self, now: float) -> None:
        for sid in [k for k, v in self._sessions.items() if self._expired(v, now)]:
            del self._sessions[sid]

    def __len__(self) -> int:
        return len(self._sessions)
