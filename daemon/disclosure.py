"""What the public may see: one pure projection of events and retained payloads (docs/mqtt.md,
"What is public").

At a real table the public (spectators, the venue network, an undelayed broadcast) sees what a
spectator standing behind no player sees: discards, calls, riichi sticks, indicators, scores,
the hands shown at a win. Concealed until shown: the tile a seat draws, the concealed hands, a
seat's furiten (S §51, M 5-5) and its waits, the wall's contents and the ura indicators (turned
only for a riichi winner: S §24-7, M 2-6-3; :func:`public_outcome`). The rules engine reports
all of it (it must check it), so everything the daemon publishes passes through here first:

* ``events`` gets :func:`public_event` of every event envelope (same ``seq``); the full envelope
  goes to ``private/events``, which only the referee and broadcast-delay roles may read;
* ``state`` gets :func:`public_state` of the view model; the full one is ``private/state``;
* ``health`` gets :func:`public_health` (its ``last_event`` names a type).

An event type this module does not know is concealed (a new engine event stays private until it
is classified here; tests/daemon/test_hostile_disclosure.py fails on an unclassified one).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Final

from rules.events import shown_ura

#: the rules events' tile fields have a twin with the mjai name (rules/events.py)
MJAI_SUFFIX: Final = "_mjai"

#: event types that carry no concealed fact
PUBLIC: Final = frozenset({
    "game_started", "hand_started", "wall_known", "dice_rolled", "break_checked",
    "wall_fallback", "dora_revealed", "indicator_corrected", "indicator_withdrawn", "deal_done",
    "haitei_reached",
    "discard", "call", "kan", "call_cancelled", "riichi_declared", "riichi_accepted",
    "dead_hand", "win_declared", "ron_head_bumped", "win_shown", "ura_revealed",
    "win_awaiting_confirmation", "hand_ended", "game_ended", "referee", "violation_accepted",
    "scores_corrected", "seats_swapped", "dead_hand_lifted", "undone",
    # W 罚张 (W 错鸣-6): the penalty tiles lie face up on the table
    "penalty_tiles",
})
#: event types shown with some fields blanked (``None``): which fields are concealed
REDACTED: Final[dict[str, tuple[str, ...]]] = {
    # the drawn tile: only the drawer sees it (its position in the wall is on the table)
    "draw": ("tile", "tile_mjai"),
    # expected/actual may name concealed tiles, waits or the drawn tile
    # (tile_not_in_hand, riichi_furiten, wrong_tile_drawn, kuikae ...)
    "violation": ("expected", "actual"),
    # the daemon's own notes quote the input they could not use
    "daemon_bad_input": ("error",),
    "daemon_engine_error": ("error",),
}
#: the fields blanked per redacted type, with their mjai twins (built once)
_BLANK: Final[dict[str, frozenset[str]]] = {
    kind: frozenset(hidden) | {k + MJAI_SUFFIX for k in hidden}
    for kind, hidden in REDACTED.items() if hidden
}
#: the type a wholly concealed event has on ``events`` (any type not listed above)
CONCEALED: Final = "concealed"


@dataclass(frozen=True, slots=True)
class Concealed:
    """What ``events`` carries for a wholly concealed event (its ``seq`` kept; daemon/schema_gen
    types its ``data``)."""

    TYPE: ClassVar[str] = CONCEALED

    def to_json(self) -> dict[str, Any]:
        return {"type": self.TYPE}


def public_type(event_type: str) -> str:
    if event_type in PUBLIC or event_type in REDACTED or event_type.startswith("clock_"):
        return event_type
    return CONCEALED


def public_outcome(outcome: Any) -> Any:
    """A hand outcome (``hand_ended.outcome``, the state's ``outcome``) as the public may see it:
    the ura indicators are turned over only when a riichi winner is paid (S §24-7, M 2-6-3), so
    after a draw, a chombo or a win without riichi they stay face down -- the engine knows them
    (a table that read the wall) and scores with them, but nobody at the table has seen them."""
    if not isinstance(outcome, dict):
        return outcome
    context = outcome.get("context")
    if not isinstance(context, dict) or not context.get("ura_indicators") or shown_ura(outcome):
        return outcome
    hidden: dict[str, list[int]] = {"ura_indicators": [], "ura_indicators" + MJAI_SUFFIX: []}
    shown = {k: hidden.get(k, v) for k, v in context.items()}
    return {**outcome, "context": shown}


def public_data(data: dict[str, Any]) -> dict[str, Any]:
    """An event's ``data`` as the public may see it."""
    kind = str(data.get("type", ""))
    shown = public_type(kind)
    if shown == CONCEALED:
        return Concealed().to_json()
    if kind == "hand_ended":
        outcome = public_outcome(data.get("outcome"))
        return data if outcome is data.get("outcome") else {**data, "outcome": outcome}
    blank = _BLANK.get(kind)
    if blank is None:
        return data
    for k in blank:
        if data.get(k) is not None:
            out = dict(data)  # the same keys in the same order, the concealed ones None
            for hidden in blank:
                if hidden in out:
                    out[hidden] = None
            return out
    # nothing to blank (a violation without values, the most common kind): the same object, so
    # the outbox sends the full event's bytes as they are instead of encoding a copy (3 % of the
    # daemon's GIL time under bench/daemon_latency.py went to that copy)
    return data


def public_event(envelope: dict[str, Any]) -> dict[str, Any]:
    """An ``events`` envelope as the public may see it: same ``seq``, ``id``, ``ts`` and input,
    concealed fields ``None``, a wholly concealed event as ``{"type": "concealed"}``."""
    data = envelope.get("data")
    if not isinstance(data, dict):
        return envelope
    shown = public_data(data)
    if shown is data:
        return envelope
    return {**envelope, "type": shown["type"], "data": shown}


def public_view(snap: dict[str, Any]) -> dict[str, Any]:
    """The table's view model without its ``private`` part (concealed hands, drawn tiles,
    furiten, waits: rules/table_view.py), the seats' furiten and the violations' values."""
    out = {k: v for k, v in snap.items() if k != "private"}
    if "outcome" in snap:
        out["outcome"] = public_outcome(snap["outcome"])
    seats = snap.get("seats")
    if isinstance(seats, list):
        out["seats"] = [
            {**s, "furiten": None} if isinstance(s, dict) and "furiten" in s else s
            for s in seats
        ]
    violations = snap.get("open_violations")
    if isinstance(violations, list):
        out["open_violations"] = [
            public_data(v) if isinstance(v, dict) else v for v in violations
        ]
    return out


def public_state(payload: dict[str, Any]) -> dict[str, Any]:
    """The retained ``state`` payload (``state`` holds the view model) as the public may see it."""
    snap = payload.get("state")
    if not isinstance(snap, dict):
        return payload
    return {**payload, "state": public_view(snap)}


def public_health(payload: dict[str, Any]) -> dict[str, Any]:
    last = payload.get("last_event")
    if not isinstance(last, dict) or not isinstance(last.get("type"), str):
        return payload
    return {**payload, "last_event": {**last, "type": public_type(last["type"])}}
