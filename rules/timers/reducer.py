"""The clocks as a pure reducer: ``step(state, input) -> (state, events)``, and the replay
and restart folds built on it (the daemon restores through the same fold it runs live)."""

from __future__ import annotations

from collections.abc import Iterable

from rules.evolve import replace
from rules.seats import SEATS, Seat
from rules.timers.events import (
    DuplicateDiscard,
    Penalty,
    PenaltyKind,
    SevereOvertime,
    TimerEvent,
    TimerRejected,
    TurnEnded,
    TurnEndReason,
)
from rules.timers.inputs import (
    Call,
    Deal,
    Discard,
    End,
    Kan,
    Pause,
    Restart,
    Resume,
    Source,
    TimerInput,
)
from rules.timers.settings import Mode, RestartPolicy, TimerRules
from rules.timers.state import (
    CallableDiscard,
    DiscardReport,
    Phase,
    TimerState,
    Turn,
    TurnStart,
    new_hand,
)
from rules.timers.units import PAIR_WINDOW_NS


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def charged_ns(start_h: int, end_h: int, grace_ns: int) -> int:
    """What a turn over ``[start_h, end_h)`` of the hand clock costs: the part after the grace."""
    return max(0, end_h - max(start_h, grace_ns))


def _close_turn(
    state: TimerState, t_ns: int, h: int, reason: TurnEndReason
) -> tuple[TimerState, list[TimerEvent]]:
    """End the running turn at hand clock ``h``: charge it (DISCARD, KAN) or void it."""
    turn = state.turn
    assert turn is not None
    rules = state.rules
    if reason in (TurnEndReason.CALLED, TurnEndReason.HAND_END):
        return state, [TurnEnded(t_ns, turn.seat, reason, 0, False)]
    cost = charged_ns(turn.start_h, h, rules.grace_ns)
    clock = state.seats[turn.seat]
    used = clock.used_ns + cost
    hand_over = max(0, used - rules.per_hand_ns)
    events: list[TimerEvent] = [TurnEnded(t_ns, turn.seat, reason, cost, True)]
    penalties: list[Penalty] = []
    if rules.timer_mode is Mode.PENALTY:
        inc = rules.increment_ns
        turn_over = cost - rules.per_turn_ns
        if turn_over > 0:  # W 打牌时限-2: per started increment, each play on its own
            points = _ceil_div(turn_over, inc) * rules.turn_penalty_points
            penalties.append(Penalty(t_ns, turn.seat, PenaltyKind.TURN, turn_over, points))
        accrued = hand_over - clock.hand_overtime_ns
        if accrued > 0:  # W 打牌时限-1, and -5: both at once
            started = _ceil_div(hand_over, inc) - _ceil_div(clock.hand_overtime_ns, inc)
            points = started * rules.hand_penalty_points
            penalties.append(Penalty(t_ns, turn.seat, PenaltyKind.HAND, accrued, points))
    events.extend(penalties)
    new_clock = replace(
        clock,
        used_ns=used,
        turns=clock.turns + 1,
        turn_times_ns=(*clock.turn_times_ns, cost),
        hand_overtime_ns=hand_over,
        penalties=(*clock.penalties, *penalties),
    )
    if (
        rules.timer_mode is Mode.PENALTY
        and not new_clock.severe
        and new_clock.points > rules.severe_threshold_points
    ):  # W 打牌时限-7: "超过" = strictly more than
        new_clock = replace(new_clock, severe=True)
        events.append(SevereOvertime(t_ns, turn.seat, new_clock.points))
    seats = tuple(
        new_clock if s == turn.seat else c for s, c in zip(SEATS, state.seats, strict=True)
    )
    return replace(state, seats=seats), events


def _reject(
    state: TimerState, inp: TimerInput, reason: str
) -> tuple[TimerState, tuple[TimerEvent, ...]]:
    return state, (TimerRejected(inp.t_ns, inp, reason),)


def step(state: TimerState, inp: TimerInput) -> tuple[TimerState, tuple[TimerEvent, ...]]:
    """Apply one input. A bad input gives a :class:`TimerRejected` event and the state unchanged."""
    if not isinstance(inp.t_ns, int) or isinstance(inp.t_ns, bool):
        return _reject(state, inp, f"t_ns must be an integer of nanoseconds, got {inp.t_ns!r}")
    if isinstance(inp, Restart):
        return _restart(state, inp), ()
    now = inp.t_ns + state.offset_ns
    if state.last_ns is not None and now < state.last_ns:
        last = state.last_ns - state.offset_ns
        return _reject(state, inp, f"time goes backwards: {inp.t_ns} ns < last input {last} ns")
    if isinstance(inp, Deal):
        if state.phase is not Phase.BEFORE_DEAL:
            return _reject(state, inp, f"deal in phase {state.phase.value}: one state per hand")
        dealt = replace(
            state,
            phase=Phase.PLAYING,
            dealer=inp.dealer,
            deal_ns=now,
            last_ns=now,
            paused_ns=0,
            paused_since=None,
            turn=Turn(inp.dealer, 0, TurnStart.DEAL),
        )
        return dealt, ()
    if state.phase is not Phase.PLAYING:
        return _reject(state, inp, f"{type(inp).__name__.lower()} in phase {state.phase.value}")
    h = state.hand_clock(now)
    turn = state.turn
    assert turn is not None
    if isinstance(inp, Discard):
        return _discard(state, inp, now, h, turn)
    if isinstance(inp, Call):
        cd = state.callable
        if cd is None:
            return _reject(state, inp, "call: no discard to call (the turn did not start from one)")
        if inp.seat == cd.seat:
            return _reject(state, inp, f"call: seat {int(inp.seat)} cannot call its own discard")
        voided, events = _close_turn(state, inp.t_ns, h, TurnEndReason.CALLED)
        # W 打牌时限-3: a call's clock starts at the called tile's discard.
        called = replace(voided, turn=Turn(inp.seat, cd.h, TurnStart.CALL), last_ns=now)
        return called, tuple(events)
    if isinstance(inp, Kan):
        if inp.seat != turn.seat:
            return _reject(
                state, inp, f"kan by seat {int(inp.seat)} but seat {int(turn.seat)} is on turn"
            )
        closed, events = _close_turn(state, inp.t_ns, h, TurnEndReason.KAN)
        # W 打牌时限-3: after the replacement draw it is another turn.
        kan = replace(closed, turn=Turn(inp.seat, h, TurnStart.KAN), callable=None, last_ns=now)
        return kan, tuple(events)
    if isinstance(inp, Pause):
        if state.paused_since is not None:
            return _reject(state, inp, "pause: the clocks are already paused")
        return replace(state, paused_since=now, last_ns=now), ()
    if isinstance(inp, Resume):
        if state.paused_since is None:
            return _reject(state, inp, "resume: the clocks are not paused")
        paused = state.paused_ns + (now - state.paused_since)
        return replace(state, paused_ns=paused, paused_since=None, last_ns=now), ()
    assert isinstance(inp, End)
    closed, events = _close_turn(state, inp.t_ns, h, TurnEndReason.HAND_END)
    ended = replace(closed, phase=Phase.ENDED, end_h=h, turn=None, callable=None, last_ns=now)
    return ended, tuple(events)


def _discard(
    state: TimerState, inp: Discard, now: int, h: int, turn: Turn
) -> tuple[TimerState, tuple[TimerEvent, ...]]:
    seat = inp.seat
    report = state.reports[seat]
    pairable = (Source.BUTTON, Source.SENSOR)
    if (
        report is not None
        and inp.source in pairable
        and report.source in pairable
        and report.source is not inp.source
        and not report.paired
        and now - report.t <= PAIR_WINDOW_NS
    ):
        # The other half of a button/sensor pair: whichever came first ended the turn.
        reports = _with(state.reports, seat, replace(report, paired=True))
        return replace(state, reports=reports, last_ns=now), (
            DuplicateDiscard(inp.t_ns, seat, inp.source),
        )
    if (
        report is not None
        and seat != turn.seat
        and inp.source is report.source
        and inp.source in pairable
        and now - report.t <= PAIR_WINDOW_NS
    ):
        # The same button (or sensor) again for the discard it already reported: a duplicate,
        # not a discard out of turn.
        return replace(state, last_ns=now), (DuplicateDiscard(inp.t_ns, seat, inp.source, False),)
    if seat != turn.seat:
        return _reject(
            state, inp, f"discard by seat {int(seat)} but seat {int(turn.seat)} is on turn"
        )
    closed, events = _close_turn(state, inp.t_ns, h, TurnEndReason.DISCARD)
    reports = _with(state.reports, seat, DiscardReport(now, inp.source, False))
    nxt = replace(
        closed,
        turn=Turn(seat.shimocha, h, TurnStart.DRAW),  # W 打牌时限-3: from the previous discard
        callable=CallableDiscard(seat, h),
        reports=reports,
        last_ns=now,
    )
    return nxt, tuple(events)


def _with(
    reports: tuple[DiscardReport | None, ...], seat: Seat, report: DiscardReport
) -> tuple[DiscardReport | None, ...]:
    return tuple(report if s == seat else r for s, r in zip(SEATS, reports, strict=True))


def _restart(state: TimerState, inp: Restart) -> TimerState:
    """Rebase the time so that the restart marker falls at the last logged input (no charge for
    the outage); under HOLD the hand also stays paused until the referee resumes."""
    if state.last_ns is None:
        return replace(state, offset_ns=0)
    offset = state.last_ns - inp.t_ns
    rebased = replace(state, offset_ns=offset)
    if (
        state.rules.policy is RestartPolicy.HOLD
        and state.phase is Phase.PLAYING
        and state.paused_since is None
    ):
        rebased = replace(rebased, paused_since=state.last_ns)
    return rebased


def replay(
    rules: TimerRules, inputs: Iterable[TimerInput]
) -> tuple[TimerState, tuple[TimerEvent, ...]]:
    """Fold a hand's inputs from a fresh state; returns the final state and every event."""
    state = new_hand(rules)
    events: list[TimerEvent] = []
    for inp in inputs:
        state, out = step(state, inp)
        events.extend(out)
    return state, tuple(events)


def resume_after_restart(
    rules: TimerRules, logged: Iterable[TimerInput], t_ns: int
) -> tuple[TimerState, tuple[TimerEvent, ...]]:
    """The daemon's restart: replay the hand's logged inputs, then apply ``Restart(t_ns)`` (which
    the daemon must also log, so that a later replay of the log gives the same clocks)."""
    state, events = replay(rules, logged)
    state, more = step(state, Restart(t_ns))
    return state, events + more


def toggle_pause(state: TimerState, t_ns: int) -> Pause | Resume:
    """The referee's single pause button: pause when running, resume when paused."""
    return Resume(t_ns) if state.paused else Pause(t_ns)
