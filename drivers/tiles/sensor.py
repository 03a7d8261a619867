"""Tags → tile reads (pure): the enrolled registry, a debouncer and the location model.

For each :class:`TagSeen`, in this order:

1. the reader must have a place in the config, else ``unmapped-reader``;
2. the same tag on the same reader within ``window_ns`` of its previous sighting is the same
   placement (readers re-read a tag that stays in their field): ``repeat``. The window slides —
   every sighting extends it — so a tile lying on a reader is one read however long it lies there;
3. the tag must be enrolled, else ``unknown-tag`` (a tile of another set, a misread UID);
4. the tile must be able to reach the reader's place (:mod:`drivers.tiles.location`), else
   ``impossible``, and the model keeps the tile where it was;
5. otherwise a :class:`TileRead`, and the tile is now at that place.

Step 4 needs a location model. With ``locations=None`` the sensor has none: every enrolled tag is a
read with ``previous=None``, and the consumer judges where the tile can be (the daemon's tracker
derives locations from the rules state, daemon/tracking/held.py: tile locations have one owner).

Rejections carry the reason and the tag; nothing is ever guessed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Final

from drivers.tiles.events import Rejection, RejectReason, TagSeen, TileRead
from drivers.tiles.location import Locations
from drivers.tiles.places import Place
from drivers.tiles.registry import TagRegistry

DEFAULT_WINDOW_NS: Final = 1_500_000_000  # readers re-read a resting tag every 0.2..1 s


@dataclass(frozen=True, slots=True)
class TileSensor:
    registry: TagRegistry
    places: Mapping[str, Place]  # reader name → place
    window_ns: int = DEFAULT_WINDOW_NS
    locations: Locations | None = field(default_factory=Locations)  # None: the consumer's
    last_seen: Mapping[tuple[str, str], int] = field(default_factory=lambda: MappingProxyType({}))

    def feed(self, seen: TagSeen) -> tuple[TileSensor, TileRead | Rejection]:
        def reject(reason: RejectReason, detail: str) -> Rejection:
            return Rejection(seen.reader, seen.tag, reason, detail, seen.t_ns,
                             self.registry.tile(seen.tag))

        place = self.places.get(seen.reader)
        if place is None:
            return self, reject(RejectReason.UNMAPPED_READER,
                                f"reader {seen.reader!r} has no place in the config")
        key = (seen.reader, seen.tag)
        previous_t = self.last_seen.get(key)
        last_seen = dict(self.last_seen)
        last_seen[key] = seen.t_ns if previous_t is None else max(previous_t, seen.t_ns)
        state = replace(self, last_seen=MappingProxyType(last_seen))
        if previous_t is not None and seen.t_ns - previous_t < self.window_ns:
            ms = (seen.t_ns - previous_t) / 1e6
            return state, reject(RejectReason.REPEAT,
                                 f"same tag on {seen.reader!r} {ms:.0f} ms after the last read")
        tile = self.registry.tile(seen.tag)
        if tile is None:
            return state, reject(RejectReason.UNKNOWN_TAG,
                                 f"tag {seen.tag} is not in the enrolled tile set")
        if self.locations is None:
            return state, TileRead(seen.reader, seen.tag, tile, place, None, seen.t_ns)
        why = self.locations.check(tile, place)
        if why is not None:
            return state, reject(RejectReason.IMPOSSIBLE, why)
        read = TileRead(seen.reader, seen.tag, tile, place, self.locations.where(tile), seen.t_ns)
        return replace(state, locations=self.locations.move(tile, place)), read

    def reset(self) -> TileSensor:
        """A new hand: every tile back in the wall, the debouncer forgets."""
        locations = None if self.locations is None else self.locations.reset()
        return replace(self, locations=locations, last_seen=MappingProxyType({}))
