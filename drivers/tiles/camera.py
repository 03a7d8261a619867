"""The camera pipeline: frames → detections → zones → votes → camera reads.

Zones are rectangles of the (rectified) camera frame, configured per venue: each river, the dora
indicator spot, revealed hands. The detector runs once on the whole frame and each detection goes
to the zone that contains its box's centre (detections outside every zone are dropped: the wall,
the players' hands). Each zone votes on its own (:mod:`drivers.tiles.voting`).

A :class:`CameraRead` is evidence: the kind (no copy, no red five), the zone, and a confidence.
The daemon cross-checks it against the RFID location model and the rules engine; it never moves a
tile on its own.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import TYPE_CHECKING

from drivers.tiles.detection import Detection, TileDetector
from drivers.tiles.errors import FrameSourceError, SensorConfigError
from drivers.tiles.places import Place
from drivers.tiles.voting import VoteRule, ZoneVotes
from rules.tiles import Kind

if TYPE_CHECKING:  # frames need numpy: the camera extra, loaded only where a camera runs
    from drivers.tiles.frames import FrameSource


@dataclass(frozen=True, slots=True)
class CameraZone:
    name: str
    place: Place
    rect: tuple[int, int, int, int]  # x, y, width, height in frame pixels

    def __post_init__(self) -> None:
        x, y, w, h = self.rect
        if w <= 0 or h <= 0 or x < 0 or y < 0:
            raise SensorConfigError(f"zone {self.name!r}: bad rectangle {self.rect}")

    def contains(self, px: float, py: float) -> bool:
        x, y, w, h = self.rect
        return x <= px < x + w and y <= py < y + h


@dataclass(frozen=True, slots=True)
class CameraRead:
    zone: str
    place: Place
    kind: Kind
    appeared: bool
    count: int
    confidence: float
    t_ns: int

    def as_json(self) -> dict[str, object]:
        return {"type": "camera_read", "zone": self.zone, "place": self.place.as_json(),
                "tile": self.kind.mjai, "appeared": self.appeared, "count": self.count,
                "confidence": round(self.confidence, 3), "t_ns": self.t_ns}


def assign(
    detections: Sequence[Detection], zones: Sequence[CameraZone]
) -> dict[str, list[Detection]]:
    out: dict[str, list[Detection]] = {z.name: [] for z in zones}
    for d in detections:
        cx, cy = d.center
        for z in zones:
            if z.contains(cx, cy):
                out[z.name].append(d)
                break
    return out


@dataclass(frozen=True, slots=True)
class CameraTiles:
    """The pure state of the camera pipeline: every zone's votes."""

    zones: tuple[CameraZone, ...]
    rule: VoteRule = field(default_factory=VoteRule)
    votes: Mapping[str, ZoneVotes] = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self) -> None:
        names = [z.name for z in self.zones]
        if len(set(names)) != len(names):
            raise SensorConfigError(f"camera zone names must be unique: {names}")

    def feed(
        self, detections: Sequence[Detection], t_ns: int
    ) -> tuple[CameraTiles, list[CameraRead]]:
        per_zone = assign(detections, self.zones)
        votes = dict(self.votes)
        reads: list[CameraRead] = []
        for z in self.zones:
            state = votes.get(z.name) or ZoneVotes(self.rule)
            state, changes = state.feed(per_zone[z.name])
            votes[z.name] = state
            reads += [CameraRead(z.name, z.place, c.kind, c.appeared, c.count, c.confidence, t_ns)
                      for c in changes]
        return replace(self, votes=MappingProxyType(votes)), reads

    def tiles(self, zone: str) -> list[tuple[Kind, int]]:
        state = self.votes.get(zone)
        return [] if state is None else state.tiles()


async def run_camera(
    source: FrameSource,
    detector: TileDetector,
    state: CameraTiles,
    emit: Callable[[CameraRead], None],
    *,
    frames: int | None = None,
) -> CameraTiles:
    """Read, detect and vote until the source fails (or ``frames`` frames); returns the state.

    The blocking camera read and the CPU-bound detector run in a worker thread so the daemon's
    event loop keeps serving the table link and the timers.
    """
    n = 0
    while frames is None or n < frames:
        try:
            frame = await asyncio.to_thread(source.read)
        except FrameSourceError:
            break
        detections = await asyncio.to_thread(detector.detect, frame.image)
        state, reads = state.feed(detections, frame.t_ns)
        for r in reads:
            emit(r)
        n += 1
    return state
