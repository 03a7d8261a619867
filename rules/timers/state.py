"""The clocks' state: the phase, whose turn, each seat's charged time, the hand clock."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from rules.seats import Seat
from rules.timers.events import Penalty
from rules.timers.inputs import Source
from rules.timers.settings import TimerRules


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
