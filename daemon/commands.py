"""Referee commands: ``jantaku/v1/<table>/cmd/<name>`` → checked → one logged input (or an error).

A command is checked in this order, and the first failure is the reply (nothing is logged or
changed): bounded JSON (daemon/bounded_json.py: 64 KiB, depth 32, no NaN/Infinity, valid
strings) → ``user``, ``ts`` and ``auth.hmac`` present → known user → ``ts`` within the allowed
skew → HMAC signature (daemon/auth.py) → envelope schema (``daemon/schemas/command.json``) →
known command → the user's role allows the command → the command's ``args`` schema. The cheap
checks come first, as in the command gate that screens a flood (daemon/command_gate.py). A
command whose ``(user, id)`` was executed before gets its first reply again
(``"repeated": true``) and is not executed twice.

Each command becomes exactly one input, so every correction is atomic (all four scores at once, a
seat swap with its names and scores): ``new_game`` → ``GameStart``; the referee actions →
``RefereeOverride(action, by=user, args)``; ``pause``/``resume`` → a ``timer`` record (clocks).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Final

from daemon import auth, bounded_json, schema
from daemon.config import COMMANDS, RefereeConfig, RefereeUser
from daemon.errors import CommandError
from daemon.topics import SCHEMA_REPLY

#: command name -> the RefereeOverride action it logs (rules.inputs, docs/inputs.md)
REFEREE_ACTIONS: Final = {
    "set_scores": "set_scores",
    "swap_seats": "swap_seats",
    "confirm_win": "confirm_win",
    "reject_win": "reject_win",
    "accept_violation": "accept_violation",
    "dead_hand": "dead_hand",
    "penalty": "penalty",
    "chombo": "chombo",
    "manual_result": "manual_result",
    "undo": "undo_last",
    "end_game": "end_game",
    "time_limit": "time_limit",
}
TIMER_COMMANDS: Final = ("pause", "resume")


@dataclass(frozen=True, slots=True)
class Command:
    name: str
    id: str
    user: str
    role: str
    ts: float
    args: dict[str, Any]
    client: str | None

    @property
    def source(self) -> str:
        return f"referee:{self.user}"


class EngineRefused(CommandError):
    """The rules engine would reject the command's input: it is not logged (``seq`` stays)."""

    def __init__(self, violations: list[dict[str, Any]]) -> None:
        code = violations[0].get("code") if violations else "?"
        super().__init__("not_applicable", f"the rules engine refused it: {code}")
        self.violations = violations


@dataclass(slots=True)
class CommandStats:
    """Counters for ``health`` (the shell's own mutable tally, not a value type)."""

    refused: Counter[str] = field(default_factory=Counter)
    unanswered: int = 0
    retained: int = 0
    last_internal: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "refused": dict(sorted(self.refused.items())),
            "unanswered": self.unanswered,
            "retained_ignored": self.retained,
            "last_internal_error": self.last_internal,
        }


@dataclass(frozen=True, slots=True)
class Action:
    """What a command logs: ``kind`` ``"input"`` (a rules input's JSON) or ``"timer"``."""

    kind: str
    body: dict[str, Any]


#: ``id``, ``user`` and payload ``client``: the command schema's patterns, matched whole (``$`` in
#: a JSON Schema pattern also matches before a trailing newline, so the schema alone lets
#: ``"abc\n"`` through)
_ID: Final = re.compile(r"[A-Za-z0-9_.:-]{1,64}")
_NAME: Final = re.compile(r"[A-Za-z0-9_.-]{1,64}")
#: a command name as it may be echoed in a reply
_COMMAND: Final = re.compile(r"[a-z_]{1,32}")
#: the longest reply topic level accepted in a v5 response topic
MAX_CLIENT: Final = 128


@dataclass(frozen=True, slots=True)
class Envelope:
    """What may be read of a payload before it is checked, each value validated (or ``None``)."""

    id: str | None
    user: str | None
    client: str | None


def plain_level(text: str) -> bool:
    """One plain MQTT topic level of printable characters: no ``+``, ``#``, ``/``, NUL, controls,
    surrogates or non-characters (``str.isprintable`` is false for all of those but ``+#/``)."""
    return (
        0 < len(text) <= MAX_CLIENT
        and text.isprintable()
        and not any(c in text for c in "+#/")
        and not any(0xFDD0 <= ord(c) <= 0xFDEF or (ord(c) & 0xFFFE) == 0xFFFE for c in text)
    )


def echo_name(name: str) -> str:
    """The command name as a reply may carry it (an unknown, odd name is not echoed)."""
    return name if _COMMAND.fullmatch(name) else "?"


def peek(payload: bytes) -> Envelope:
    """``id``, ``user`` and ``client`` of a payload, where readable and valid, to address an
    error reply (a payload that breaks the bounds gives nothing)."""
    try:
        obj = bounded_json.load(payload)
    except bounded_json.JsonRefused:
        return Envelope(None, None, None)
    if not isinstance(obj, dict):
        return Envelope(None, None, None)

    def s(key: str, pattern: re.Pattern[str]) -> str | None:
        v = obj.get(key)
        return v if isinstance(v, str) and pattern.fullmatch(v) else None

    return Envelope(s("id", _ID), s("user", _NAME), s("client", _NAME))


def parse(
    name: str, topic: str, payload: bytes, referee: RefereeConfig, now_wall: float
) -> Command:
    """Check a command completely; raises :class:`CommandError` with a stable code.

    The cheap checks come first, in the command gate's order (daemon/command_gate.py): bounds,
    the envelope fields they need, user, freshness, signature; then the schema, the command,
    the role and the args."""
    try:
        obj = bounded_json.load(payload)
    except bounded_json.JsonRefused as exc:
        raise CommandError(exc.code, str(exc)) from None
    user = _signed_by(obj, topic, referee, now_wall)
    problems = schema.refusals("command", obj)
    if not problems:
        envelope = peek(payload)
        if envelope.id is None or envelope.user is None:
            problems = ["id/user: does not match the pattern as a whole"]
        elif "client" in obj and envelope.client is None:
            problems = ["client: does not match the pattern as a whole"]
    if problems:
        raise CommandError("bad_schema", f"command envelope: {problems[0]}")
    if name not in COMMANDS:
        raise CommandError(
            "unknown_command", f"unknown command {echo_name(name)!r} (known: {list(COMMANDS)})"
        )
    allowed = referee.roles.get(user.role, ())
    if name not in allowed:
        raise CommandError("forbidden", f"role {user.role!r} may not {name}")
    problems = schema.refusals("command", obj["args"], f"args_{name}")
    if problems:
        raise CommandError("bad_args", f"{name} args: {problems[0]}")
    return Command(
        name=name,
        id=obj["id"],
        user=user.name,
        role=user.role,
        ts=float(obj["ts"]),
        args=dict(obj["args"]),
        client=obj.get("client"),
    )


def _signed_by(
    obj: Any, topic: str, referee: RefereeConfig, now_wall: float
) -> RefereeUser:
    """The user whose key signed ``obj``, fresh: the gate's checks, in its
    order; what they need of the envelope missing or of the wrong type is ``bad_schema``."""
    sig = obj.get("auth") if isinstance(obj, dict) else None
    if not isinstance(obj, dict) or not isinstance(obj.get("user"), str) \
            or not isinstance(sig, dict) or not isinstance(sig.get("hmac"), str) \
            or isinstance(obj.get("ts"), bool) or not isinstance(obj.get("ts"), int | float):
        raise CommandError("bad_schema", "command envelope: user, ts and auth.hmac are required"
                           " (a string, a number, a string)")
    user = referee.user(obj["user"])
    if user is None:
        raise CommandError("unknown_user", f"no referee user {obj['user']!r} on this table")
    skew = abs(now_wall - float(obj["ts"]))
    if skew > referee.max_skew_seconds:
        raise CommandError(
            "stale",
            f"the command was signed {skew:.0f} s away from the table's clock"
            f" (allowed: {referee.max_skew_seconds:.0f} s)",
        )
    _, key = auth.parse_key(user.key.reveal())
    if not auth.verify(key, topic, obj):
        raise CommandError("bad_signature", "the command's HMAC does not verify for this user")
    return user


def executed_args(name: str, args: dict[str, Any], *, sensorless: bool) -> dict[str, Any]:
    """The args a command runs with (the MQTT path and the console's preview alike). No data
    link: nothing starts a hand, so a new game's hands begin by themselves unless it says
    otherwise (a logged GameStart field: a replay of the log sees the same, docs/console.md)."""
    if name == "new_game" and "auto_hands" not in args and sensorless:
        return {**args, "auto_hands": True}
    return args


def action(cmd: Command) -> Action:
    """The one input a valid command logs."""
    a = cmd.args
    if cmd.name == "new_game":
        body: dict[str, Any] = {
            "type": "game_start",
            "ruleset": a["ruleset"],
            "first_dealer": a["first_dealer"],
            "names": list(a["names"]),
        }
        for key in ("scores", "aka", "rounds", "confirm_wins", "auto_hands"):
            if key in a:
                body[key] = a[key]
        return Action("input", body)
    if cmd.name in TIMER_COMMANDS:
        return Action("timer", {"type": cmd.name, "by": cmd.user, "reason": a.get("reason", "")})
    return Action(
        "input",
        {"type": "referee", "action": REFEREE_ACTIONS[cmd.name], "by": cmd.user, "args": a},
    )


def reply_ok(
    table: str,
    cmd: Command,
    input_seq: int,
    events: list[int],
    violations: list[dict[str, Any]],
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "schema": SCHEMA_REPLY,
        "table": table,
        "command": cmd.name,
        "id": cmd.id,
        "status": "ok",
        "input_seq": input_seq,
        "events": events,
    }
    if violations:
        out["violations"] = violations
    return out


def reply_error(table: str, name: str, cid: str | None, code: str, message: str) -> dict[str, Any]:
    """An error reply; ``name`` is echoed only if it is a plain command name, ``cid`` must come
    from :func:`peek` (validated)."""
    return {
        "schema": SCHEMA_REPLY,
        "table": table,
        "command": echo_name(name),
        "id": cid,
        "status": "error",
        "error": {"code": code, "message": message},
    }
