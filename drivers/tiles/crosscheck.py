"""Camera evidence against the RFID location model (pure).

The camera names kinds, the RFID readers name physical tiles; per camera zone, the kinds the
camera's vote holds are compared with the kinds of the tiles the location model has at that
zone's place. Every difference is returned with both counts — for the referee console and the
log — and decides nothing: the RFID read, the rules engine and the referee do.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from drivers.tiles.camera import CameraTiles
from drivers.tiles.location import Locations
from rules.tiles import Kind


@dataclass(frozen=True, slots=True)
class Disagreement:
    zone: str
    kind: Kind
    camera: int  # copies of the kind the camera's vote holds in the zone
    rfid: int  # copies the location model has at the zone's place

    def as_json(self) -> dict[str, object]:
        return {"type": "sensor_disagreement", "zone": self.zone, "tile": self.kind.mjai,
                "camera": self.camera, "rfid": self.rfid}


def cross_check(camera: CameraTiles, locations: Locations) -> list[Disagreement]:
    out: list[Disagreement] = []
    for zone in camera.zones:
        seen = Counter(dict(camera.tiles(zone.name)))
        held = Counter(t.kind for t in locations.at(zone.place))
        for kind in sorted(set(seen) | set(held)):
            if seen[kind] != held[kind]:
                out.append(Disagreement(zone.name, kind, seen[kind], held[kind]))
    return out
