"""What the clocks are told: deals, discards (button or sensor), calls, kans, pauses, the
hand's end and a restart, each stamped with its own time."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from rules.seats import Seat


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
