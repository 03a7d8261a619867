"""Camera evidence against where the tiles are (pure).

The camera names kinds, the RFID readers name physical tiles; per camera zone, the kinds the
camera's vote holds are compared with the kinds of the tiles the one owner of tile locations has
at that zone's place (in the daemon: the reducer's ``located`` plus what the tracker holds,
``daemon.tracking.held.at``; this module only takes a function from a place to its kinds). Every
difference is returned with both counts -- for the referee console and the log -- and decides
nothing: the RFID read, the rules engine and the referee do.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from drivers.tiles.camera import CameraRead, CameraTiles
from drivers.tiles.places import Place
from rules.tiles import Kind

#: the kinds of the tiles at a place, one per tile (copies repeat)
KindsAt = Callable[[Place], Iterable[Kind]]


@dataclass(frozen=True, slots=True)
class Disagreement:
    zone: str
    kind: Kind
    camera: int  # copies of the kind the camera's vote holds in the zone
    rfid: int  # copies the location owner has at the zone's place

    def as_json(self) -> dict[str, object]:
        return {"type": "sensor_disagreement", "zone": self.zone, "tile": self.kind.mjai,
                "camera": self.camera, "rfid": self.rfid}


def cross_check(camera: CameraTiles, at: KindsAt) -> list[Disagreement]:
    """Every kind of every zone whose counts differ, by zone then kind."""
    out: list[Disagreement] = []
    for zone in camera.zones:
        seen = Counter(dict(camera.tiles(zone.name)))
        held = Counter(at(zone.place))
        for kind in sorted(set(seen) | set(held)):
            if seen[kind] != held[kind]:
                out.append(Disagreement(zone.name, kind, seen[kind], held[kind]))
    return out


def disagreement(read: CameraRead, kinds: Iterable[Kind]) -> Disagreement | None:
    """One camera read against the kinds at its zone's place: the read's kind only (its count is
    the zone's stable count of that kind after the change)."""
    held = sum(1 for k in kinds if k == read.kind)
    return None if held == read.count else Disagreement(read.zone, read.kind, read.count, held)
