"""The referee console's logins: password check, server-side sessions, failed-login limits.

* **Passwords** are never stored: a referee user's config ``key`` is PBKDF2 of the password
  (daemon/auth.py), so a typed password is checked by deriving the key again with the stored
  iteration count and comparing in constant time. An unknown user costs the same derivation (a
  dummy key), so timing does not tell which user names exist.
* **Sessions** live in memory on the table only (a restart logs everybody out): a random 256-bit
  id in an ``HttpOnly; SameSite=Strict`` cookie (``Secure`` over TLS), an idle expiry and an
  absolute one, and a per-session CSRF token that every state-changing request must echo in the
  ``X-CSRF-Token`` header.
* **Failed logins** are limited per client address and per user name: after ``max_failures``
  failures within ``window`` seconds, further attempts are refused for ``lockout`` seconds (a
  refused attempt does not derive anything, so it cannot be used to burn the table's CPU).

Time comes from an injected monotonic clock (seconds), so expiry is testable without sleeping.
"""

from __future__ import annotations

import hmac
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from daemon import auth
from daemon.config import RefereeUser
from daemon.errors import DaemonError

Clock = Callable[[], float]


@dataclass(frozen=True, slots=True)
class ConsoleSettings:
    """Console policy (the daemon config's ``[console]`` values when the lead wires them)."""

    idle_timeout: float = 30 * 60.0
    absolute_timeout: float = 8 * 3600.0
    max_failures: int = 5
    failure_window: float = 5 * 60.0
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
    times: list[float] = field(default_factory=list)
    locked_until: float = 0.0


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
        """Raise :class:`LoginRefused` if any of ``keys`` (``ip:...``, ``user:...``) is locked."""
        now = self.clock()
        for key in keys:
            f = self._failures.get(key)
            if f is not None and f.locked_until > now:
                wait = f.locked_until - now
                raise LoginRefused(
                    f"too many failed logins; try again in {int(wait) + 1} s", retry_after=wait
                )

    def failed(self, keys: tuple[str, ...]) -> None:
        now = self.clock()
        s = self.settings
        for key in keys:
            f = self._failures.setdefault(key, _Failures())
            f.times = [t for t in f.times if now - t < s.failure_window] + [now]
            if len(f.times) >= s.max_failures:
                f.locked_until = now + s.lockout
                f.times = []
        if len(self._failures) > 10_000:  # a flood of names: forget the idle ones
            for key in [k for k, f in self._failures.items() if f.locked_until <= now]:
                del self._failures[key]

    def succeeded(self, keys: tuple[str, ...]) -> None:
        for key in keys:
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
