"""What a tile detector returns, and the detector interface: plain values, no array library.

Split from :mod:`drivers.tiles.detector` so that the camera's zones, votes and config
(:mod:`drivers.tiles.camera`, :mod:`drivers.tiles.voting`, :mod:`drivers.tiles.config`) import
without numpy: the camera stack is the ``camera`` extra, and a daemon without a camera never
loads it (docs/install.md, "The camera extra").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from rules.tiles import Kind

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    Frame = NDArray[np.uint8]  # H × W × 3, RGB


@dataclass(frozen=True, slots=True)
class Detection:
    kind: Kind
    confidence: float
    box: tuple[int, int, int, int]  # x1, y1, x2, y2 in frame pixels

    @property
    def center(self) -> tuple[float, float]:
        return (self.box[0] + self.box[2]) / 2, (self.box[1] + self.box[3]) / 2

    def as_json(self) -> dict[str, object]:
        return {"tile": self.kind.mjai, "confidence": round(self.confidence, 3),
                "box": list(self.box)}


class TileDetector(Protocol):
    def detect(self, frame: Frame) -> list[Detection]: ...
