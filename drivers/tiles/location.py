"""Where every tile is, as far as the tile sensors know (pure).

A tile is unseen after a reset (a new hand: the table shuffles everything back into the wall) and
then at the last place a reader saw it. Not every move is possible in play; the ones that are form
:data:`MOVES`, data rather than code:

* a dealt or drawn tile goes to a hand; an unseen tile can appear anywhere (the sensors do not see
  the wall, and a hand rack reader may miss the draw);
* from a hand: discarded to the same seat's river, or melded by the same seat (ankan, kakan);
* from a river: called into another seat's melds (chi, pon, daiminkan take the discard);
* a tile read again where it already is: the same place (a tile lifted and put back).

Anything else — a river tile in a hand, a tile in two hands, the dora indicator moving — is an
impossible read: the model keeps the tile where it was and the sensor reports the read with a
reason. Misreads must not move tiles.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from types import MappingProxyType
from typing import Final

from drivers.tiles.errors import SensorConfigError
from drivers.tiles.places import Place, Zone
from rules.tiles import BY_ID, Tile


class SeatRelation(Enum):
    SAME = "same"
    OTHER = "other"


@dataclass(frozen=True, slots=True)
class Move:
    source: Zone
    target: Zone
    seats: SeatRelation | None  # None: either zone has no seat


MOVES: Final[frozenset[Move]] = frozenset(
    {
        Move(Zone.HAND, Zone.HAND, SeatRelation.SAME),
        Move(Zone.HAND, Zone.RIVER, SeatRelation.SAME),
        Move(Zone.HAND, Zone.MELDS, SeatRelation.SAME),
        Move(Zone.RIVER, Zone.RIVER, SeatRelation.SAME),
        Move(Zone.RIVER, Zone.MELDS, SeatRelation.OTHER),
        Move(Zone.MELDS, Zone.MELDS, SeatRelation.SAME),
        Move(Zone.DORA, Zone.DORA, None),
    }
)


def may_move(source: Place, target: Place, moves: frozenset[Move] = MOVES) -> bool:
    if source.seat is None or target.seat is None:
        relation = None
    else:
        relation = SeatRelation.SAME if source.seat == target.seat else SeatRelation.OTHER
    return Move(source.zone, target.zone, relation) in moves


@dataclass(frozen=True, slots=True)
class Locations:
    """Immutable map tile → place; :meth:`move` returns the next state or says why not."""

    places: Mapping[Tile, Place] = field(default_factory=lambda: MappingProxyType({}))
    moves: frozenset[Move] = MOVES

    def where(self, tile: Tile) -> Place | None:
        return self.places.get(tile)

    def check(self, tile: Tile, target: Place) -> str | None:
        """None if ``tile`` may be read at ``target``; else why not."""
        source = self.places.get(tile)
        if source is None or may_move(source, target, self.moves):
            return None
        return f"{tile.kind.mjai} (tile {tile.id}) is at {source}; it cannot move to {target}"

    def move(self, tile: Tile, target: Place) -> Locations:
        why = self.check(tile, target)
        if why is not None:
            raise SensorConfigError(why)
        places = dict(self.places)
        places[tile] = target
        return Locations(MappingProxyType(places), self.moves)

    def at(self, place: Place) -> list[Tile]:
        return sorted((t for t, p in self.places.items() if p == place), key=BY_ID)

    def reset(self) -> Locations:
        return Locations(MappingProxyType({}), self.moves)
