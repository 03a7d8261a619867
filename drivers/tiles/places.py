"""Where a tile sensor sees tiles: a zone of the table, at a seat or shared.

The table's sensing surfaces (``../shared/spec/table-geometry.md``): each seat has a hand rack, a
river (discards) and a meld area at its right; the dora indicator spot belongs to no seat.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from drivers.tiles.errors import SensorConfigError
from rules.seats import Seat


class Zone(Enum):
    HAND = "hand"
    RIVER = "river"
    MELDS = "melds"
    DORA = "dora"

    @property
    def has_seat(self) -> bool:
        return self is not Zone.DORA


@dataclass(frozen=True, slots=True)
class Place:
    """A zone, with its seat when the zone belongs to one (every zone but the dora spot)."""

    zone: Zone
    seat: Seat | None = None

    def __post_init__(self) -> None:
        if self.zone.has_seat and self.seat is None:
            raise SensorConfigError(f"zone {self.zone.value!r} needs a seat")
        if not self.zone.has_seat and self.seat is not None:
            raise SensorConfigError(f"zone {self.zone.value!r} belongs to no seat, got seat "
                                    f"{self.seat}")

    @classmethod
    def parse(cls, zone: str, seat: int | None) -> Place:
        try:
            z = Zone(zone)
        except ValueError:
            names = ", ".join(repr(z.value) for z in Zone)
            raise SensorConfigError(f"unknown zone {zone!r} (expected one of {names})") from None
        return cls(z, None if seat is None else Seat.of(seat))

    def __str__(self) -> str:
        if self.seat is None:
            return self.zone.value
        return f"seat {self.seat.value} {self.zone.value}"

    def as_json(self) -> dict[str, object]:
        return {"zone": self.zone.value, "seat": None if self.seat is None else self.seat.value}
