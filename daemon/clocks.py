"""The WMC clocks inside the daemon: the clock inputs that follow from logged table inputs.

``rules.timers`` is a pure per-hand reducer of timestamped clock inputs. The daemon does not log
those separately where they follow from a table input (a sensor's discard, a call, a kan's
replacement draw, the end of the hand): :func:`follow` derives them from the logged input and its
monotonic timestamp, so a replay of the log gives the same clocks to the nanosecond. Only what has
no table input of its own is logged as a ``timer`` record: a seat's clock button, the referee's
pause/resume, and the daemon's restart marker.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from enum import Enum
from typing import Any, assert_never

from rules import inputs as ri
from rules import timers as rt
from rules.evolve import replace
from rules.seats import Seat


@dataclass(frozen=True, slots=True)
class Clocks:
    """The running game's clock rules and the current hand's clock state (``None``: no hand)."""

    rules: rt.TimerRules | None = None
    state: rt.TimerState | None = None


def running(clocks: Clocks) -> bool:
    """A clock runs: its view changes with time alone (rules/timers/view.py), so a view of it
    must be rebuilt while no input comes (the web views tick only then)."""
    st = clocks.state
    return st is not None and st.phase is rt.Phase.PLAYING and not st.paused


def timer_rules(ruleset: str) -> rt.TimerRules | None:
    from rules.ruleset import RulesetError, load_ruleset

    try:
        return load_ruleset(ruleset).timers
    except (RulesetError, OSError):
        return None  # the reducer rejects the game start; no clocks either


def _step(clocks: Clocks, inp: rt.TimerInput) -> tuple[Clocks, tuple[rt.TimerEvent, ...]]:
    if clocks.state is None:
        return clocks, ()
    state, events = rt.step(clocks.state, inp)
    return replace(clocks, state=state), events


#: the inputs that move no clock (the last case of :func:`follow`'s match), answered by a set
#: first: a draw, every other input of a hand, went through eleven isinstance calls to get there
_STILL: frozenset[type] = frozenset({
    ri.WallRaised, ri.DiceRolled, ri.BreakOpened, ri.IndicatorShown, ri.UraRevealed, ri.Draw,
    ri.Ankan, ri.Kakan, ri.WinShown, ri.RefereeOverride,
})


def follow(
    clocks: Clocks, inp: ri.Input, t_ns: int, source: str, dealer: int | None
) -> tuple[Clocks, tuple[rt.TimerEvent, ...]]:
    """The clocks after a logged table input (``dealer``: the hand's dealer, for a deal).

    Without clock rules (a ruleset without timers) there is never a hand's clock state, so every
    input but a game start leaves the clocks as they are."""
    if inp.__class__ in _STILL:
        return clocks, ()
    match inp:
        case ri.GameStart():
            return Clocks(rules=timer_rules(inp.ruleset)), ()
        case ri.HandStart():
            return replace(clocks, state=None), ()
        case ri.DealDone():
            if clocks.rules is None:
                return clocks, ()
            fresh = replace(clocks, state=rt.new_hand(clocks.rules))
            return _step(fresh, rt.Deal(t_ns, Seat.of(dealer if dealer is not None else 0)))
        case ri.Discard():
            src = rt.Source.REFEREE if source.startswith("referee") else rt.Source.SENSOR
            return _step(clocks, rt.Discard(t_ns, inp.seat, src))
        case ri.Call():
            return _step(clocks, rt.Call(t_ns, inp.seat))
        case ri.RinshanDraw():
            return _step(clocks, rt.Kan(t_ns, inp.seat))
        case ri.Tsumo() | ri.Ron() | ri.ExhaustiveDraw() | ri.AbortiveDraw():
            if clocks.state is not None and clocks.state.phase is rt.Phase.PLAYING:
                return _step(clocks, rt.End(t_ns))
            return clocks, ()
        case ri.WallRaised() | ri.DiceRolled() | ri.BreakOpened() | ri.IndicatorShown() \
                | ri.UraRevealed() | ri.Draw() | ri.Ankan() | ri.Kakan() | ri.WinShown() \
                | ri.RefereeOverride():  # (_STILL: the same classes)
            # No clock moves: a draw starts no clock (the discard ends the turn), a kan's clock
            # runs from its replacement draw, the referee's pause is a timer record of its own.
            return clocks, ()
        case _:
            assert_never(inp)


def timer_input(body: dict[str, Any], t_ns: int) -> rt.TimerInput | None:
    """A logged ``timer``/``marker`` record as a clock input (``None``: not a clock input)."""
    kind = body.get("type")
    if kind == "pause":
        return rt.Pause(t_ns)
    if kind == "resume":
        return rt.Resume(t_ns)
    if kind == "button":
        return rt.Discard(t_ns, Seat.of(int(body["seat"])), rt.Source.BUTTON)
    if kind == "restart":
        return rt.Restart(t_ns)
    return None


def apply_record(
    clocks: Clocks, body: dict[str, Any], t_ns: int
) -> tuple[Clocks, tuple[rt.TimerEvent, ...]]:
    inp = timer_input(body, t_ns)
    if inp is None:
        return clocks, ()
    return _step(clocks, inp)


#: the MQTT event type of each clock event class (``clock_`` + its name); the JSON Schema of their
#: ``data`` is generated from these classes (daemon/schema_gen.py)
CLOCK_TYPES: dict[type, str] = {
    rt.TurnEnded: "clock_turn_ended",
    rt.Penalty: "clock_penalty",
    rt.SevereOvertime: "clock_severe_overtime",
    rt.DuplicateDiscard: "clock_duplicate_discard",
    rt.TimerRejected: "clock_rejected",
}
#: fields that are not published: the event's time is the envelope's ``ts``; whether a
#: duplicate was the expected other half of a pair decides whether it is published at all
CLOCK_HIDDEN = frozenset({"t_ns", "paired"})


def clock_field(value: Any) -> Any:
    """A clock event field as JSON: enums by value, seats as integers, an input by its kind."""
    if isinstance(value, Seat):
        return int(value)
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, bool | int | str) or value is None:
        return value
    return type(value).__name__.lower()  # TimerRejected.input: the clock input's kind


def event_json(event: rt.TimerEvent) -> dict[str, Any] | None:
    """The MQTT form of a clock event (times in nanoseconds), or ``None`` for the second report
    of a button/sensor pair: one discard reported by both is no news (docs/timers.md)."""
    if isinstance(event, rt.DuplicateDiscard) and event.paired:
        return None
    out: dict[str, Any] = {"type": CLOCK_TYPES[type(event)]}
    for f in fields(event):
        if f.name not in CLOCK_HIDDEN:
            out[f.name] = clock_field(getattr(event, f.name))
    return out


def events_json(events: tuple[rt.TimerEvent, ...]) -> list[dict[str, Any]]:
    if not events:  # (most inputs)
        return []
    return [body for body in map(event_json, events) if body is not None]


def view_json(clocks: Clocks, t_ns: int) -> dict[str, Any]:
    """The retained ``state/timers`` body: the clocks at ``t_ns`` (monotonic)."""
    if clocks.rules is None or clocks.state is None:
        return {"phase": "none", "mode": None if clocks.rules is None else clocks.rules.mode}
    v = rt.clock_view(clocks.state, t_ns)
    return {
        "phase": v.phase.value,
        "mode": clocks.rules.mode,
        "paused": v.paused,
        "hand_ns": v.hand_ns,
        "grace_remaining_ns": v.grace_remaining_ns,
        "running": None if v.running is None else int(v.running),
        "turn_elapsed_ns": v.turn_elapsed_ns,
        "turn_charged_ns": v.turn_charged_ns,
        "seats": [
            {
                "seat": int(s.seat),
                "running": s.running,
                "used_ns": s.used_ns,
                "hand_remaining_ns": s.hand_remaining_ns,
                "turn_remaining_ns": s.turn_remaining_ns,
                "points": s.points,
                "warning": s.warning.value,
            }
            for s in v.seats
        ],
    }
