"""WMC per-play and per-hand clocks, as a pure reducer of timestamped inputs (W 打牌时限 1-8).

Nothing here reads a clock: every input carries its own time, an integer of nanoseconds on the
daemon's monotonic clock (``time.monotonic_ns``). Integers keep sums exact, so the same inputs
always give the same charges, to the nanosecond, on every machine (``docs/timers.md``).

The hand clock ``h`` is the time since the deal with the referee's pauses taken out. A turn is the
interval ``[start_h, end_h)`` of one seat's clock; what it costs the seat ("charged") is that
interval minus the grace period ``[0, grace)`` of the hand clock (W 打牌时限-4).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from types import MappingProxyType
from typing import Final

from rules.errors import RulesError
from rules.evolve import replace
from rules.seats import SEATS, Seat

NS_PER_SECOND: Final = 1_000_000_000

#: A button press and a sensor event for the same discard arrive this close together at most; the
#: second of the pair is a duplicate (see :func:`step`, discard). Not a ruleset value: it is a
#: property of our hardware (sensor latency + the time a player takes to hit the clock).
PAIR_WINDOW_SECONDS: Final = 2.0


def seconds_to_ns(seconds: float) -> int:
    """Seconds (float) → integer nanoseconds, rounded to the nearest nanosecond."""
    return round(seconds * NS_PER_SECOND)


def ns_to_seconds(ns: int, digits: int = 3) -> float:
    """Integer nanoseconds → seconds rounded to ``digits`` decimals (milliseconds by default)."""
    return round(ns / NS_PER_SECOND, digits)


PAIR_WINDOW_NS: Final = seconds_to_ns(PAIR_WINDOW_SECONDS)


# --------------------------------------------------------------------------- rules


class Mode(Enum):
    OFF = "off"  # no clocks shown, no warnings, no penalties (time is still accounted)
    MONITOR = "monitor"  # thinking-time statistics and warnings, never a penalty
    PENALTY = "penalty"  # W 打牌时限: penalties as events


class RestartPolicy(Enum):
    # The clocks stop at the last logged input and run again from the daemon's restart marker:
    # the outage is charged to nobody.
    PAUSE = "pause"
    # As "pause", but the hand stays paused after the restart until the referee resumes it.
    HOLD = "hold"


class TimerRulesError(RulesError, ValueError):
    """A ``[timers]`` table whose values cannot drive the clocks; names the key and the value."""


#: Defaults for the WMC ruleset. 180/15/15 are the organiser's summary (RULESETS.md section 3);
#: the increment, the points and the severe threshold were lost from our copy of W 打牌时限-1,2,7
#: ("每,,秒 … 罚扣,分", "超过,,分"): these are our choices, which a venue must confirm
#: (docs/timers.md, "Values a venue must confirm").
WMC_DEFAULTS: Final[Mapping[str, str | float | int]] = MappingProxyType(
    {
        "mode": "penalty",
        "per_hand_seconds": 180.0,  # W 打牌时限-1, restored: 3 minutes
        "per_turn_seconds": 15.0,  # W 打牌时限-2, restored: 15 s
        "grace_seconds": 15.0,  # W 打牌时限-4, restored: 15 s
        "penalty_increment_seconds": 10.0,  # W 打牌时限-1,2: lost (two digits)
        "turn_penalty_points": 5,  # W 打牌时限-2: lost (one digit)
        "hand_penalty_points": 5,  # W 打牌时限-1: lost (one digit)
        "severe_threshold_points": 30,  # W 打牌时限-7: lost (two digits)
        "warning_seconds": 5.0,  # ours: not a rule, the display's warning
        "restart_policy": "pause",  # ours: not a rule
    }
)


@dataclass(frozen=True, slots=True)
class TimerRules:
    """The ruleset's ``[timers]`` table (field names are the TOML keys)."""

    mode: str
    per_hand_seconds: float
    per_turn_seconds: float
    grace_seconds: float
    penalty_increment_seconds: float
    turn_penalty_points: int
    hand_penalty_points: int
    severe_threshold_points: int
    warning_seconds: float
    restart_policy: str

    def __post_init__(self) -> None:
        modes = [m.value for m in Mode]
        if self.mode not in modes:
            raise TimerRulesError(f"timers mode: expected one of {modes}, got {self.mode!r}")
        policies = [p.value for p in RestartPolicy]
        if self.restart_policy not in policies:
            raise TimerRulesError(
                f"timers restart_policy: expected one of {policies}, got {self.restart_policy!r}"
            )
        for name, positive in (
            ("per_hand_seconds", True),
            ("per_turn_seconds", True),
            ("grace_seconds", False),
            ("penalty_increment_seconds", True),
            ("warning_seconds", False),
        ):
            value = getattr(self, name)
            if (
                isinstance(value, bool)
                or not isinstance(value, int | float)
                or not math.isfinite(value)
                or value < 0
                or (positive and value == 0)
            ):
                what = "a finite number > 0" if positive else "a finite number >= 0"
                raise TimerRulesError(f"timers {name}: expected {what}, got {value!r}")
        for name in ("turn_penalty_points", "hand_penalty_points", "severe_threshold_points"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise TimerRulesError(f"timers {name}: expected an integer >= 0, got {value!r}")

    @property
    def timer_mode(self) -> Mode:
        return Mode(self.mode)

    @property
    def policy(self) -> RestartPolicy:
        return RestartPolicy(self.restart_policy)

    @property
    def per_hand_ns(self) -> int:
        return seconds_to_ns(self.per_hand_seconds)

    @property
    def per_turn_ns(self) -> int:
        return seconds_to_ns(self.per_turn_seconds)

    @property
    def grace_ns(self) -> int:
        return seconds_to_ns(self.grace_seconds)

    @property
    def increment_ns(self) -> int:
        return max(1, seconds_to_ns(self.penalty_increment_seconds))

    @property
    def warning_ns(self) -> int:
        return seconds_to_ns(self.warning_seconds)


def wmc_rules(**overrides: str | float | int) -> TimerRules:
    """The WMC defaults, with some values replaced (tests, venue tools)."""
    table = {**WMC_DEFAULTS, **overrides}
    return TimerRules(**table)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- inputs


class Source(Enum):
    """Where a discard input came from. Only a button/sensor pair can be deduplicated."""

    BUTTON = "button"  # the seat's chess-clock button
    SENSOR = "sensor"  # the tile sensors saw the discard land
    REFEREE = "referee"  # entered by hand or imported from a record: never a duplicate


@dataclass(frozen=True, slots=True)
class Deal:
    """The deal is complete: the dealer's first turn starts (he discards first, W 打牌-1)."""

    t_ns: int
    dealer: Seat = Seat.S0


@dataclass(frozen=True, slots=True)
class Discard:
    """``seat`` discarded (and, after a call, exposed the meld): its turn ends, the next starts."""

    t_ns: int
    seat: Seat
    source: Source = Source.REFEREE


@dataclass(frozen=True, slots=True)
class Call:
    """``seat`` claims the last discard (chi, pon, daiminkan): its clock runs from that discard."""

    t_ns: int
    seat: Seat


@dataclass(frozen=True, slots=True)
class Kan:
    """``seat`` has drawn a kan's replacement tile: that is a new turn (W 打牌时限-3)."""

    t_ns: int
    seat: Seat


@dataclass(frozen=True, slots=True)
class Pause:
    """The referee stops all clocks."""

    t_ns: int


@dataclass(frozen=True, slots=True)
class Resume:
    """The referee restarts the clocks."""

    t_ns: int


@dataclass(frozen=True, slots=True)
class End:
    """The hand is over (a win, or the exhaustive draw)."""

    t_ns: int


@dataclass(frozen=True, slots=True)
class Restart:
    """The daemon started again mid-hand. ``t_ns`` and later inputs may be on a new time base."""

    t_ns: int


TimerInput = Deal | Discard | Call | Kan | Pause | Resume | End | Restart


# --------------------------------------------------------------------------- events


class PenaltyKind(Enum):
    TURN = "turn"  # W 打牌时限-2
    HAND = "hand"  # W 打牌时限-1


class TurnEndReason(Enum):
    DISCARD = "discard"
    KAN = "kan"
    CALLED = "called"  # void: another seat called the discard this turn started from
    HAND_END = "hand_end"  # void: the hand ended before this seat discarded


@dataclass(frozen=True, slots=True)
class TurnEnded:
    t_ns: int
    seat: Seat
    reason: TurnEndReason
    charged_ns: int  # 0 for a void turn
    counted: bool  # a timed turn (ended by a discard or a kan)


@dataclass(frozen=True, slots=True)
class Penalty:
    """``overtime_ns``: for TURN, the turn's time over the per-turn limit; for HAND, the part of
    this turn that fell beyond the seat's per-hand budget. ``points``: the increments this event
    started, times the points per increment (may be 0 when a hand increment was already started).
    """

    t_ns: int
    seat: Seat
    kind: PenaltyKind
    overtime_ns: int
    points: int


@dataclass(frozen=True, slots=True)
class SevereOvertime:
    """More than ``severe_threshold_points`` in one hand (W 打牌时限-7): forfeit unless excused."""

    t_ns: int
    seat: Seat
    points: int


@dataclass(frozen=True, slots=True)
class DuplicateDiscard:
    """A second report of a discard, no effect on the clocks. ``paired``: the expected other half
    of a button/sensor pair (button after sensor, or sensor after button); otherwise a real
    duplicate: the same source reported the same discard again within the pair window (a clock
    button hit twice)."""

    t_ns: int
    seat: Seat
    source: Source
    paired: bool = True


@dataclass(frozen=True, slots=True)
class Rejected:
    """An input that does not fit the state; the state is unchanged."""

    t_ns: int
    input: TimerInput
    reason: str


TimerEvent = TurnEnded | Penalty | SevereOvertime | DuplicateDiscard | Rejected


# --------------------------------------------------------------------------- state


class Phase(Enum):
    BEFORE_DEAL = "before_deal"
    PLAYING = "playing"
    ENDED = "ended"


class TurnStart(Enum):
    DEAL = "deal"  # the dealer's first turn, no draw
    DRAW = "draw"  # from the previous player's discard
    CALL = "call"  # from the called discard
    KAN = "kan"  # from the replacement draw


@dataclass(frozen=True, slots=True)
class Turn:
    seat: Seat
    start_h: int  # hand clock at the start
    start: TurnStart


@dataclass(frozen=True, slots=True)
class CallableDiscard:
    """The discard the running turn started from, while it can still be called."""

    seat: Seat
    h: int


@dataclass(frozen=True, slots=True)
class DiscardReport:
    """A seat's last discard as reported, for pairing the button with the sensor."""

    t: int  # internal time
    source: Source
    paired: bool


@dataclass(frozen=True, slots=True)
class SeatClock:
    used_ns: int = 0
    turns: int = 0
    turn_times_ns: tuple[int, ...] = ()  # charged time of each counted turn, in order
    hand_overtime_ns: int = 0  # max(0, used - per_hand), kept in every mode
    penalties: tuple[Penalty, ...] = ()
    severe: bool = False

    @property
    def points(self) -> int:
        return sum(p.points for p in self.penalties)


@dataclass(frozen=True, slots=True)
class TimerState:
    """One hand's clocks. Build with :func:`new_hand`, advance with :func:`step`."""

    rules: TimerRules
    phase: Phase = Phase.BEFORE_DEAL
    dealer: Seat = Seat.S0
    offset_ns: int = 0  # internal time = input t + offset (changes only at a Restart)
    deal_ns: int = 0  # internal time of the deal
    last_ns: int | None = None  # internal time of the last accepted input
    paused_ns: int = 0  # paused time, closed intervals only
    paused_since: int | None = None  # internal time the running pause began
    end_h: int | None = None  # hand clock at the End
    turn: Turn | None = None
    callable: CallableDiscard | None = None
    reports: tuple[DiscardReport | None, ...] = (None, None, None, None)
    seats: tuple[SeatClock, ...] = (SeatClock(), SeatClock(), SeatClock(), SeatClock())

    @property
    def paused(self) -> bool:
        return self.paused_since is not None

    def hand_clock(self, internal_ns: int) -> int:
        """The hand clock at an internal time (frozen while paused and after the End)."""
        if self.phase is Phase.BEFORE_DEAL:
            return 0
        if self.end_h is not None:
            return self.end_h
        now = internal_ns if self.paused_since is None else self.paused_since
        return max(0, now - self.deal_ns - self.paused_ns)


def new_hand(rules: TimerRules) -> TimerState:
    return TimerState(rules=rules)


# --------------------------------------------------------------------------- reducer


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
    return state, (Rejected(inp.t_ns, inp, reason),)


def step(state: TimerState, inp: TimerInput) -> tuple[TimerState, tuple[TimerEvent, ...]]:
    """Apply one input. A bad input gives a :class:`Rejected` event and the state unchanged."""
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


# --------------------------------------------------------------------------- live view


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


# --------------------------------------------------------------------------- statistics


@dataclass(frozen=True, slots=True)
class TurnStats:
    """Thinking-time statistics of one player (riichi "monitor" mode, and the referee's table)."""

    turns: int
    mean_ns: int
    median_ns: int
    max_ns: int
    over_limit: int  # turns charged more than the per-turn limit


def turn_stats(turn_times_ns: Sequence[int], per_turn_ns: int) -> TurnStats:
    """Statistics of charged turn times (one hand's, or several hands' concatenated)."""
    if not turn_times_ns:
        return TurnStats(0, 0, 0, 0, 0)
    return TurnStats(
        turns=len(turn_times_ns),
        mean_ns=round(sum(turn_times_ns) / len(turn_times_ns)),
        median_ns=round(statistics.median(turn_times_ns)),
        max_ns=max(turn_times_ns),
        over_limit=sum(1 for x in turn_times_ns if x > per_turn_ns),
    )


def hand_stats(state: TimerState) -> tuple[TurnStats, ...]:
    """Per seat 0..3, the statistics of the counted turns of this hand."""
    per_turn = state.rules.per_turn_ns
    return tuple(turn_stats(c.turn_times_ns, per_turn) for c in state.seats)
