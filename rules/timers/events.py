"""What the clocks say: turns ended, penalties, severe overtime, duplicate
discards, refused inputs."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from rules.seats import Seat
from rules.timers.inputs import Source, TimerInput


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
class TimerRejected:
    """An input that does not fit the state; the state is unchanged."""

    t_ns: int
    input: TimerInput
    reason: str


TimerEvent = TurnEnded | Penalty | SevereOvertime | DuplicateDiscard | TimerRejected
