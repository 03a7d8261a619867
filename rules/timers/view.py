"""The live view of the clocks at a moment: what the displays, the overlay and the console show."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from rules.seats import SEATS, Seat
from rules.timers.reducer import charged_ns
from rules.timers.settings import Mode
from rules.timers.state import Phase, TimerState


class WarningLevel(Enum):
    NONE = "none"
    LOW = "low"  # the running seat has warning_seconds or less before a penalty limit
    OVER = "over"  # past the per-turn or the per-hand limit


@dataclass(frozen=True, slots=True)
class SeatView:
    seat: Seat
    running: bool
    used_ns: int  # including the running turn's charge so far
    hand_remaining_ns: int  # per_hand - used; negative when over
    turn_remaining_ns: int | None  # the running seat only; negative when over
    points: int  # penalty points already given this hand
    warning: WarningLevel


@dataclass(frozen=True, slots=True)
class ClockView:
    t_ns: int
    phase: Phase
    paused: bool
    hand_ns: int  # hand clock
    grace_remaining_ns: int
    running: Seat | None
    turn_elapsed_ns: int  # hand-clock time since the running turn started (grace included)
    turn_charged_ns: int  # what the running turn costs so far
    seats: tuple[SeatView, ...]


def clock_view(state: TimerState, t_ns: int) -> ClockView:
    """The clocks at time ``t_ns`` (the caller's monotonic time, same base as the inputs). A time
    before the last input is read as the last input's (the display never runs backwards)."""
    rules = state.rules
    now = t_ns + state.offset_ns
    if state.last_ns is not None:
        now = max(now, state.last_ns)
    h = state.hand_clock(now)
    turn = state.turn if state.phase is Phase.PLAYING else None
    elapsed = charged = 0
    if turn is not None:
        elapsed = max(0, h - turn.start_h)
        charged = charged_ns(turn.start_h, h, rules.grace_ns)
    views: list[SeatView] = []
    for seat, clock in zip(SEATS, state.seats, strict=True):
        running = turn is not None and turn.seat == seat
        used = clock.used_ns + (charged if running else 0)
        hand_left = rules.per_hand_ns - used
        turn_left = rules.per_turn_ns - charged if running else None
        level = WarningLevel.NONE
        if running and turn_left is not None and rules.timer_mode is not Mode.OFF:
            left = min(turn_left, hand_left)
            if left < 0:
                level = WarningLevel.OVER
            elif left <= rules.warning_ns:
                level = WarningLevel.LOW
        views.append(SeatView(seat, running, used, hand_left, turn_left, clock.points, level))
    grace_left = max(0, rules.grace_ns - h) if state.phase is Phase.PLAYING else 0
    return ClockView(
        t_ns=t_ns,
        phase=state.phase,
        paused=state.paused,
        hand_ns=h,
        grace_remaining_ns=grace_left,
        running=None if turn is None else turn.seat,
        turn_elapsed_ns=elapsed,
        turn_charged_ns=charged,
        seats=tuple(views),
    )
