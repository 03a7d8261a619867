"""Camera evidence against where the tiles are (pure).

The camera names kinds, the RFID readers name physical tiles; a camera read's kind and count are
compared with the kinds of the tiles the one owner of tile locations has at that zone's place (in
the daemon: the reducer's ``located`` plus what the tracker holds, ``daemon.tracking.held.at``;
this module only takes those kinds). A difference is returned with both counts -- for the
referee console and the log -- and decides nothing: the RFID read, the rules engine and the
referee do.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from drivers.tiles.camera import CameraRead
from rules.tiles import Kind


@dataclass(frozen=True, slots=True)
class Disagreement:
    zone: str
    kind: Kind
    camera: int  # copies of the kind the camera's vote holds in the zone
    rfid: int  # copies the location owner has at the zone's place

    def as_json(self) -> dict[str, object]:
        return {"type": "sensor_disagreement", "zone": self.zone, "tile": self.kind.mjai,
                "camera": self.camera, "rfid": self.rfid}


def disagreement(read: CameraRead, kinds: Iterable[Kind]) -> Disagreement | None:
    """One camera read against the kinds at its zone's place: the read's kind only (its count is
    the zone's stable count of that kind after the change)."""
    held = sum(1 for k in kinds if k == read.kind)
    return None if held == read.count else Disagreement(read.zone, read.kind, read.count, held)
