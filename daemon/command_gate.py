"""The command gate: every message on ``cmd/+`` screened in microseconds before anything is kept.

A flood of bad commands (a lost tablet, a hostile account: 10,000 a second) must cost the table
little and never hold memory. So each message, as the reader cuts it from the socket, is checked
here synchronously, cheapest check first, and only what passes is queued:

1. **size** (at most 64 KiB: the payload of a longer packet is never even buffered,
   daemon/mqtt_lean.py);
2. **JSON** (UTF-8, no NaN, Infinity or 1e400: ``json``'s C parser; a bytes-level screen
   cannot refuse soundly, JSON escapes a key's letters: ``"\\u0075ser"`` is ``user``), an
   object with ``user``, ``ts`` and ``auth.hmac`` of the right types;
3. **user**: one of the config's referee users;
4. **freshness**: ``ts`` within ``referee.max_skew_seconds`` of the table's clock;
5. **signature**: the HMAC (daemon/auth.py), which only the user's key can make.

A refused message is counted by the code of the first check that refused it
(``health.commands.intake.refused``; the reply, built by the desk's full checks, may name a
stricter one: nesting past 32 is ``too_deep`` there, a control character in a string
``bad_json``) and logged through
:class:`~daemon.log_sample.SampledLog` (a few lines a window, then one summary). It is answered
(the desk builds the precise reply, daemon/referee_desk.py) only within a reply budget shared by
all (:attr:`GateLimits.replies_per_s`): a flood gets no flood of replies.

What passes is signed by the user's key: each user has a token bucket (:attr:`GateLimits.
per_user_per_s`, ``per_user_burst``); past it a command is refused ``rate_limited``. A command
``(user, id)`` seen before (a replay of a captured command, or a referee's retry) takes a token
of a bucket of its own, so replays cannot starve the user's new commands. The admitted go to a
bounded queue (:attr:`GateLimits.queue`): when it is full the excess is shed, counted.
"""

from __future__ import annotations

import enum
import hmac
import logging
import time
from collections import Counter, OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

from daemon import auth
from daemon.bounded_json import MAX_BYTES, STRICT
from daemon.config import CommandIntakeConfig, RefereeConfig
from daemon.log_sample import SampledLog

log = logging.getLogger("jantaku.commands")

#: (user, id) pairs remembered for telling a repeat from a new command (bounded: least recent
#: forgotten; a forgotten one's repeat is then found in the event log by the desk)
SEEN_MAX: Final = 4096


class Verdict(enum.Enum):
    ADMIT = "admit"  # signed, fresh, within the user's rate: to the desk
    ANSWER = "answer"  # refused; a reply is due (within the reply budget): to the desk
    DROP = "drop"  # refused or shed, no reply: counted
    RETAINED = "retained"  # a retained copy (never executed)
    EMPTY = "empty"  # an empty payload: a retained command being cleared


@dataclass(frozen=True, slots=True)
class GateLimits:
    """The gate's bounds (docs/mqtt.md "Commands under a flood"; the first five from
    ``[mqtt.commands]``)."""

    #: commands a user may have admitted: a sustained rate and a burst
    per_user_per_s: float = 5.0
    per_user_burst: int = 20
    #: repeats of a command already seen, per user (a retry gets its first reply again)
    repeats_per_s: float = 2.0
    repeats_burst: int = 10
    #: error replies to refused messages, for everyone together
    replies_per_s: float = 20.0
    replies_burst: int = 100
    #: admitted messages waiting for the desk at most (then shed)
    queue: int = 64


#: the limits the daemon runs with unless ``[mqtt.commands]`` says otherwise
DEFAULT_LIMITS: Final = GateLimits()


def limits_of(cfg: CommandIntakeConfig) -> GateLimits:
    """The gate's limits from ``[mqtt.commands]`` (daemon/config)."""
    return GateLimits(per_user_per_s=cfg.per_user_per_second, per_user_burst=cfg.per_user_burst,
                      replies_per_s=cfg.replies_per_second, replies_burst=cfg.replies_burst,
                      queue=cfg.queue)


class Bucket:
    """A token bucket (a mutable tally): ``rate`` tokens a second, at most ``burst``."""

    __slots__ = ("at", "burst", "rate", "tokens")

    def __init__(self, rate: float, burst: int, now: float) -> None:
        self.rate, self.burst, self.tokens, self.at = rate, float(burst), float(burst), now

    def take(self, now: float) -> bool:
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False


@dataclass(slots=True)
class GateStats:
    """Counters for ``health.commands.intake`` (the shell's mutable tally)."""

    received: int = 0
    admitted: int = 0
    answered: int = 0
    refused: Counter[str] = field(default_factory=Counter)
    shed: Counter[str] = field(default_factory=Counter)
    retained: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "received": self.received,
            "admitted": self.admitted,
            "refused": dict(sorted(self.refused.items())),
            "answered": self.answered,
            "shed": dict(sorted(self.shed.items())),
            "retained": self.retained,
        }


class CommandGate:
    """Screens each message (:meth:`screen`); owns the buckets, the seen ids and the counters."""

    def __init__(self, base: str, referee: RefereeConfig, *, limits: GateLimits = DEFAULT_LIMITS,
                 wall: Callable[[], float] = time.time,
                 mono: Callable[[], float] = time.monotonic) -> None:
        self.prefix = f"{base}/cmd/".encode()
        self.limits, self.wall, self.mono = limits, wall, mono
        self.skew = referee.max_skew_seconds
        self.keys = {u.name: auth.parse_key(u.key.reveal())[1] for u in referee.users}
        now = mono()
        self._users = {u: Bucket(limits.per_user_per_s, limits.per_user_burst, now)
                       for u in self.keys}
        self._repeats = {u: Bucket(limits.repeats_per_s, limits.repeats_burst, now)
                         for u in self.keys}
        self._replies = Bucket(limits.replies_per_s, limits.replies_burst, now)
        self._seen: OrderedDict[tuple[str, str], None] = OrderedDict()
        self.stats = GateStats()
        self.log = SampledLog(log, "refused commands", mono=mono)

    def screen(self, topic: bytes, payload: bytes, retain: bool, size: int) -> tuple[Verdict, str]:
        """The verdict on one message, and its refusal code (``""`` if none)."""
        self.stats.received += 1
        if retain:
            if not size:
                return Verdict.EMPTY, ""
            self.stats.retained += 1
            return Verdict.RETAINED, ""
        if not size:
            return Verdict.EMPTY, ""
        code = self._check(topic, payload, size)
        if code:
            return self._refuse(code)
        return Verdict.ADMIT, ""

    def _check(self, topic: bytes, payload: bytes, size: int) -> str:
        """``""`` for a signed, fresh command within its user's rate; else the refusal code."""
        if not topic.startswith(self.prefix):
            return "not_a_command"
        if size > MAX_BYTES:
            return "too_large"
        try:
            obj = STRICT.decode(payload.decode("utf-8"))
        except (ValueError, RecursionError):
            return "bad_json"
        if not isinstance(obj, dict):
            return "bad_schema"
        user, ts, sig = obj.get("user"), obj.get("ts"), obj.get("auth")
        sig = sig.get("hmac") if isinstance(sig, dict) else None
        if not isinstance(user, str) or not isinstance(sig, str) or isinstance(ts, bool) \
                or not isinstance(ts, int | float):
            return "bad_schema"
        key = self.keys.get(user)
        if key is None:
            return "unknown_user"
        if not abs(self.wall() - ts) <= self.skew:  # NaN is not fresh either
            return "stale"
        try:
            body = auth.canonical(obj)
        except (ValueError, RecursionError):  # a lone surrogate; nesting json.loads took
            return "bad_json"
        mac = hmac.new(key, topic + b"\n" + body, "sha256").hexdigest()
        if not hmac.compare_digest(mac, sig):
            return "bad_signature"
        return self._rate(user, obj.get("id"))

    def _rate(self, user: str, cid: object) -> str:
        now = self.mono()
        pair = (user, cid if isinstance(cid, str) else "")
        if pair in self._seen:
            self._seen.move_to_end(pair)
            if self._repeats[user].take(now):
                return ""
            self.stats.shed["repeated"] += 1
            return "repeated"
        if not self._users[user].take(now):
            return "rate_limited"
        self._seen[pair] = None
        if len(self._seen) > SEEN_MAX:
            self._seen.popitem(last=False)
        return ""

    def _refuse(self, code: str) -> tuple[Verdict, str]:
        if code == "repeated":  # counted as shed: a repeat beyond its budget gets no reply
            return Verdict.DROP, code
        self.stats.refused[code] += 1
        self.log.warning(code, "command refused by the gate: %s", code,
                         extra={"fields": {"code": code}})
        if code != "not_a_command" and self._replies.take(self.mono()):
            self.stats.answered += 1
            return Verdict.ANSWER, code
        self.stats.shed["reply_budget"] += 1
        return Verdict.DROP, code

    def admitted(self) -> None:
        self.stats.admitted += 1

    def shed(self, why: str) -> None:
        self.stats.shed[why] += 1
