"""Wall geometry, exactly as ``../shared/spec/table-geometry.md`` fixes it.

Positions are ``(seat, stack, layer)``: the wall in front of ``seat``, stacks 1..17 counted from
that seat's right-hand end, ``top`` or ``bottom``. The *ring* is the order in which tiles leave
the wall: ring index ``i`` (0..135) is ring stack ``i // 2``, top when ``i`` is even, and ring stack
``r`` is ``G((t + r) mod 68)`` with ``G(j) = (seat (b - j // 17) mod 4, stack j % 17 + 1)``, where
``b`` is the breaking seat and ``t`` the count of stacks left on the break's right.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from rules.errors import RulesError
from rules.ruleset import Ruleset
from rules.seats import SEATS, Seat, Wind, seat_by_dice

STACKS_PER_WALL = 17
RING_STACKS = 68
TILES = 136


class WallError(RulesError, ValueError):
    """Dice, a break or a position that the geometry cannot accept."""


class Layer(StrEnum):
    TOP = "top"
    BOTTOM = "bottom"


@dataclass(frozen=True, slots=True, order=True)
class Position:
    seat: Seat
    stack: int
    layer: Layer

    def __post_init__(self) -> None:
        if not 1 <= self.stack <= STACKS_PER_WALL:
            raise WallError(f"stack must be 1..17, got {self.stack!r}")

    def to_json(self) -> dict[str, Any]:
        return {"seat": int(self.seat), "stack": self.stack, "layer": self.layer.value}

    @classmethod
    def from_json(cls, obj: Any) -> Position:
        try:
            stack = obj["stack"]
            if isinstance(stack, bool) or not isinstance(stack, int):
                # 2.5 or "3" or true are no stack numbers: never round them into one
                raise WallError(f"stack must be an integer, got {stack!r}")
            return cls(Seat.of(obj["seat"]), stack, Layer(obj["layer"]))
        except (KeyError, TypeError, ValueError) as exc:
            raise WallError(f"bad position {obj!r}: {exc}") from exc


@dataclass(frozen=True, slots=True)
class Break:
    """Where the wall is opened: ``count`` stacks are left on the right of ``seat``'s wall.

    ``count`` is 2..12 for one roll, 4..24 for WMC's two rolls (past 17 the count runs on into
    the wall of the breaker's left neighbour, W 开门-4), and 1..17 for a table's own break.
    """

    seat: Seat
    count: int

    def __post_init__(self) -> None:
        if not 1 <= self.count <= 24:
            raise WallError(f"break count must be 1..24, got {self.count!r}")

    def to_json(self) -> dict[str, int]:
        return {"seat": int(self.seat), "count": self.count}


def _check_die(value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 6:
        raise WallError(f"a die shows 1..6, got {value!r}")


def break_from_dice(
    ruleset: Ruleset, dealer: Seat, rolls: tuple[tuple[int, int], ...]
) -> Break:
    """The break the dice call for under ``ruleset``.

    One roll (S §28-3(3), §11; μ §14; M's table rolls once too): the dealer's roll picks the wall
    and is the count. Two rolls (W 开门-1..4): the dealer's roll picks the opener, the opener rolls
    again and the sum of both rolls is the count.
    """
    for roll in rolls:
        if len(roll) != 2:
            raise WallError(f"a roll is two dice, got {roll!r}")
        for die in roll:
            _check_die(die)
    needed = 2 if ruleset.wall.break_method == "two_rolls" else 1
    if len(rolls) != needed:
        raise WallError(
            f"ruleset {ruleset.name} takes {needed} roll{'s' if needed > 1 else ''} "
            f"({'dealer, then breaker' if needed == 2 else 'the dealer'}), got {len(rolls)}"
        )
    first = sum(rolls[0])
    breaker = seat_by_dice(dealer, first)
    if needed == 1:
        return Break(breaker, first)
    return Break(breaker, first + sum(rolls[1]))


def fallback_break_no_indicator(dealer: Seat) -> Break:
    """M 3-4-6: wall raised, nothing opened or shown — the dealer breaks at 自7."""
    return Break(dealer, 7)


def fallback_break_from_indicator(indicator: Position) -> Break:
    """M 3-4-5: wall raised, indicator shown, no break — break at the 3rd stack to the left of
    the indicator (the indicator's stack counts as the 1st), which leaves the indicator as the
    3rd stack of the dead wall, where M 2-6-6 puts it."""
    seat, stack = indicator.seat, indicator.stack + 2
    if stack > STACKS_PER_WALL:
        seat, stack = seat.plus(-1), stack - STACKS_PER_WALL
    return Break(seat, stack)


def _g(b: Seat, j: int) -> tuple[Seat, int]:
    return b.plus(-(j // STACKS_PER_WALL)), j % STACKS_PER_WALL + 1


@dataclass(frozen=True, slots=True)
class Wall:
    """The ring for one break, with the dead-wall positions of a ruleset."""

    brk: Break
    dead_wall_tiles: int = 14

    def __post_init__(self) -> None:
        if self.dead_wall_tiles != 14:
            # Every rulebook we carry uses 14 (S §12, M 2-2, μ §19(2)); W lost the digit.
            raise WallError(f"dead wall of {self.dead_wall_tiles} tiles is not supported (14)")

    def position(self, index: int) -> Position:
        if not 0 <= index < TILES:
            raise WallError(f"ring index must be 0..135, got {index!r}")
        seat, stack = _g(self.brk.seat, (self.brk.count + index // 2) % RING_STACKS)
        return Position(seat, stack, Layer.TOP if index % 2 == 0 else Layer.BOTTOM)

    def index(self, position: Position) -> int:
        j = ((self.brk.seat - position.seat) % 4) * STACKS_PER_WALL + position.stack - 1
        ring_stack = (j - self.brk.count) % RING_STACKS
        return ring_stack * 2 + (0 if position.layer is Layer.TOP else 1)

    def ring(self) -> list[Position]:
        return [self.position(i) for i in range(TILES)]

    # --- the deal (S §34, μ §14, W 配牌; geometry "Deal") ---------------------------------
    @staticmethod
    def deal_indices(dealer: Seat) -> dict[Seat, list[int]]:
        out: dict[Seat, list[int]] = {s: [] for s in SEATS}
        for rnd in range(3):
            for k in range(4):
                seat = dealer.plus(k)
                base = 16 * rnd + 4 * k
                out[seat].extend(range(base, base + 4))
        for k in range(4):
            out[dealer.plus(k)].append(48 + k)
        out[dealer].append(52)
        return {s: sorted(v) for s, v in out.items()}

    FIRST_DRAW = 53
    """The first live draw after the deal (South's, after East's first discard)."""

    @property
    def live_end(self) -> int:
        """Ring index after the last live tile with no kans (122 with a 14-tile dead wall)."""
        return TILES - self.dead_wall_tiles

    def haitei(self, kans: int = 0) -> int:
        """The last live tile: each kan moves the current haitei into the dead wall (S §12-1)."""
        if not 0 <= kans <= 4:
            raise WallError(f"kans must be 0..4, got {kans!r}")
        return self.live_end - 1 - kans

    # Dead wall, counted from the ring's end (geometry "Dead wall"):
    RINSHAN = (134, 135, 132, 133)  # S §12-2,3, M 2-5
    DORA = 130  # S §24-2, μ §16, M 2-6-6
    KAN_DORA = (128, 126, 124, 122)  # S §24-5, M 2-6-2
    URA = (131, 129, 127, 125, 123)  # S §24-7, M 2-6-3


def dora_indicator_indices(ruleset: Ruleset) -> list[int]:
    """Ring indices of every indicator the ruleset can turn, in reveal order."""
    if not ruleset.dora.indicator:
        return []
    out = [Wall.DORA]
    if ruleset.dora.kan_dora:
        out.extend(Wall.KAN_DORA)
    return out


def ura_indicator_indices(ruleset: Ruleset) -> list[int]:
    if not (ruleset.dora.indicator and ruleset.dora.ura):
        return []
    if ruleset.dora.kan_dora and ruleset.dora.kan_ura:
        return list(Wall.URA)
    return [Wall.URA[0]]


def wall_report(
    ruleset: Ruleset, dealer: Seat, rolls: tuple[tuple[int, int], ...], kans: int = 0
) -> dict[str, Any]:
    """The ``jantaku wall`` JSON object (a stable contract for tools outside the project)."""
    if isinstance(kans, bool) or not isinstance(kans, int) or not 0 <= kans <= 4:
        raise WallError(f"kans must be 0..4, got {kans!r}")
    if kans > ruleset.calls.max_kans:
        raise WallError(f"ruleset {ruleset.name} allows at most {ruleset.calls.max_kans} kans")
    brk = break_from_dice(ruleset, dealer, rolls)
    wall = Wall(brk, ruleset.wall.dead_wall_tiles)
    return {
        "ruleset": ruleset.name,
        "dealer": int(dealer),
        "winds": {str(int(s)): s.wind(dealer).mjai for s in SEATS},
        "break": brk.to_json(),
        "ring": [p.to_json() for p in wall.ring()],
        "deal": {str(int(s)): v for s, v in Wall.deal_indices(dealer).items()},
        "first_draw": Wall.FIRST_DRAW,
        "haitei": wall.haitei(kans),
        "dora_indicators": dora_indicator_indices(ruleset),
        "ura_indicators": ura_indicator_indices(ruleset),
        "rinshan": list(Wall.RINSHAN),
    }


__all__ = [
    "Break",
    "Layer",
    "Position",
    "Wall",
    "WallError",
    "Wind",
    "break_from_dice",
    "dora_indicator_indices",
    "fallback_break_from_indicator",
    "fallback_break_no_indicator",
    "ura_indicator_indices",
    "wall_report",
]
