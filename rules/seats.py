"""Seats and winds (``docs/table-geometry.md``, "Seats").

Seats 0..3 are the four physical sides of the table, numbered in the order of play
(counter-clockwise seen from above). They are fixed to the hardware and never rotate; winds do.
"""

from __future__ import annotations

from enum import IntEnum

from rules.errors import SeatError


class Seat(IntEnum):
    S0 = 0
    S1 = 1
    S2 = 2
    S3 = 3

    @classmethod
    def of(cls, value: int) -> Seat:
        if value.__class__ is int and 0 <= value <= 3:
            return _SEATS[value]  # every record event names a seat: a table, not Seat(...)
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 3:
            raise SeatError(f"seat must be 0..3, got {value!r}")
        return cls(value)

    def plus(self, n: int) -> Seat:
        # a table, not Seat(...), and the int itself, not the enum's ``value`` property: the
        # enum machinery is the slow part of this hot path
        return _SEATS[(self + n) % 4]

    @property
    def shimocha(self) -> Seat:
        """The seat at this seat's right, who plays next (下家)."""
        return self.plus(1)

    def relative(self, other: Seat) -> int:
        """How many places ``other`` is after this seat in play order (0..3)."""
        return (other.value - self.value) % 4

    def wind(self, dealer: Seat) -> Wind:
        return Wind((self.value - dealer.value) % 4)

    def __repr__(self) -> str:
        return f"Seat({self.value})"


_SEATS: tuple[Seat, ...] = tuple(Seat)  # by value: Seat(v) is _SEATS[v]


class Wind(IntEnum):
    EAST = 0
    SOUTH = 1
    WEST = 2
    NORTH = 3

    @property
    def mjai(self) -> str:
        return "ESWN"[self.value]

    @classmethod
    def from_mjai(cls, text: str) -> Wind:
        if text not in ("E", "S", "W", "N"):
            raise SeatError(f"wind must be one of E S W N, got {text!r}")
        return cls("ESWN".index(text))

    def seat(self, dealer: Seat) -> Seat:
        return dealer.plus(self.value)


SEATS: tuple[Seat, ...] = (Seat.S0, Seat.S1, Seat.S2, Seat.S3)


def seat_by_dice(roller: Seat, total: int) -> Seat:
    """The seat a roll counts to: the roller counts as 1, counter-clockwise (S §3, μ §5, W 数骰位).

    So 5, 9 → roller; 2, 6, 10 → right; 3, 7, 11 → opposite; 4, 8, 12 → left.
    """
    return roller.plus(total - 1)
