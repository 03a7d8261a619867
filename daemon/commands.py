"""Referee commands: ``jantaku/v1/<table>/cmd/<name>`` → checked → one logged input (or an error).

A command is checked in this order, and the first failure is the reply (nothing is logged or
changed): JSON → envelope schema (``daemon/schemas/command.json``) → known command → known user →
HMAC signature (daemon/auth.py) → ``ts`` within the allowed skew → the user's role allows the
command → the command's ``args`` schema. A command whose ``(user, id)`` was executed before gets its
first reply again (``"repeated": true``) and is not executed twice.

Each command becomes exactly one input, so every correction is atomic (all four scores at once, a
seat swap with its names and scores): ``new_game`` → ``GameStart``; the referee actions →
``RefereeOverride(action, by=user, args)``; ``pause``/``resume`` → a ``timer`` record (clocks).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Final

from daemon import auth, schema
from daemon.config import COMMANDS, RefereeConfig
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


@dataclass(frozen=True, slots=True)
class Action:
    """What a command logs: ``kind`` ``"input"`` (a rules input's JSON) or ``"timer"``."""

    kind: str
    body: dict[str, Any]


def peek(payload: bytes) -> tuple[str | None, str | None, str | None]:
    """``(id, user, client)`` of a payload, if readable, to address an error reply."""
    try:
        obj = json.loads(payload)
    except (ValueError, UnicodeDecodeError):
        return None, None, None
    if not isinstance(obj, dict):
        return None, None, None

    def s(key: str) -> str | None:
        v = obj.get(key)
        return v if isinstance(v, str) and len(v) <= 64 else None

    return s("id"), s("user"), s("client")


def parse(
    name: str, topic: str, payload: bytes, referee: RefereeConfig, now_wall: float
) -> Command:
    """Check a command completely; raises :class:`CommandError` with a stable code."""
    try:
        obj = json.loads(payload)
    except (ValueError, UnicodeDecodeError) as exc:
        raise CommandError("bad_json", f"the payload is not JSON: {exc}") from None
    problems = schema.errors("command", obj)
    if problems:
        raise CommandError("bad_schema", f"command envelope: {problems[0]}")
    if name not in COMMANDS:
        raise CommandError("unknown_command", f"unknown command {name!r} (known: {list(COMMANDS)})")
    user = referee.user(obj["user"])
    if user is None:
        raise CommandError("unknown_user", f"no referee user {obj['user']!r} on this table")
    _, key = auth.parse_key(user.key.reveal())
    if not auth.verify(key, topic, obj):
        raise CommandError("bad_signature", "the command's HMAC does not verify for this user")
    skew = abs(now_wall - float(obj["ts"]))
    if skew > referee.max_skew_seconds:
        raise CommandError(
            "stale",
            f"the command was signed {skew:.0f} s away from the table's clock"
            f" (allowed: {referee.max_skew_seconds:.0f} s)",
        )
    allowed = referee.roles.get(user.role, ())
    if name not in allowed:
        raise CommandError("forbidden", f"role {user.role!r} may not {name}")
    problems = schema.errors("command", obj["args"], f"args_{name}")
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
    return {
        "schema": SCHEMA_REPLY,
        "table": table,
        "command": name,
        "id": cid,
        "status": "error",
        "error": {"code": code, "message": message},
    }
