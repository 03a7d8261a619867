"""What the runner compares: the daemon's rules events against the simulator's reference run,
equal types, seats, tiles and scores, event by event (docs/hil.md, *What is compared*)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from rules.events import Event

#: Events a sensor table cannot produce identically, by design (docs/hil.md): the link's wall
#: manifest has kinds, not tile ids, so the daemon's wall is not id-known (no ``wall_known``) and
#: a riichi win's ura indicators are shown and read (``ura_revealed``) instead of looked up.
NOT_COMPARED = frozenset({"wall_known", "ura_revealed"})


def rules_event_types() -> frozenset[str]:
    out: set[str] = set()
    todo: list[type[Any]] = [Event]
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        name = getattr(cls, "TYPE", None)
        if isinstance(name, str):
            out.add(name)
    return frozenset(out)


RULES_EVENTS = rules_event_types()

def comparable(events: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    return [_normalised(e) for e in events
            if e.get("type") in RULES_EVENTS and e["type"] not in NOT_COMPARED]


def _normalised(event: dict[str, Any]) -> dict[str, Any]:
    """The ura indicators of a hand without a riichi win: the simulator's reducer, knowing the
    wall's ids, lists them in the outcome's context; nobody turns them over at a real table, so
    the daemon cannot (they score nothing: S §24-7)."""
    outcome = event.get("outcome")
    if event.get("type") != "hand_ended" or not isinstance(outcome, dict):
        return event
    wins = outcome.get("wins") or []
    if any(isinstance(w, dict) and w.get("riichi") for w in wins):
        return event
    context = dict(outcome.get("context") or {})
    context.pop("ura_indicators", None)
    context.pop("ura_indicators_mjai", None)
    return {**event, "outcome": {**outcome, "context": context}}


def renumbered(daemon: list[dict[str, Any]], sim: Sequence[dict[str, Any]]
               ) -> list[dict[str, Any]]:
    """The daemon's game and hand numbers count the table's life (its event log holds every game
    it played); a simulator starts at 1. Both are shifted to the simulator's first numbers."""
    def first(events: Sequence[dict[str, Any]], kind: str, key: str) -> int | None:
        return next((int(e[key]) for e in events if e.get("type") == kind), None)

    shifts: dict[str, int] = {}
    for kind, key in (("game_started", "game"), ("hand_started", "hand")):
        a, b = first(daemon, kind, key), first(sim, kind, key)
        if a is not None and b is not None:
            shifts[key] = a - b
    out = []
    for e in daemon:
        if e.get("type") in ("game_started", "game_ended", "hand_started", "hand_ended"):
            e = dict(e)
            for key, shift in shifts.items():
                if isinstance(e.get(key), int):
                    e[key] -= shift
        out.append(e)
    return out


def first_difference(a: Sequence[dict[str, Any]], b: Sequence[dict[str, Any]]) -> str | None:
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return f"event {i}: simulator {json.dumps(x)} != daemon {json.dumps(y)}"
    if len(a) != len(b):
        longer, name = (a, "simulator") if len(a) > len(b) else (b, "daemon")
        extra = longer[min(len(a), len(b))]
        return f"{name} has {abs(len(a) - len(b))} more events, first: {json.dumps(extra)}"
    return None
