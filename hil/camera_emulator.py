"""A camera over the table, emulated: frames composed from tile images, with faults.

:class:`ComposedFrameSource` is a :class:`~drivers.tiles.frames.FrameSource` that serves a script
of :class:`Shot` — what lies in each zone, and the faults of that frame — so the camera pipeline
runs against it exactly as against picamera2 or V4L2. Faults: ``occlude`` (a hand over part of the
table: a skin-coloured rectangle), ``blur`` (focus or motion: Gaussian blur of that radius),
``missing`` (a tile that is not in the frame although it is on the table: ``(zone, index)``).

:data:`DEFAULT_ZONES` is a 1280×720 layout that matches ``examples`` in docs/tiles.md: four river
rows and the dora indicator spot.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from PIL import ImageDraw, ImageFilter

from drivers.tiles.errors import FrameSourceError
from drivers.tiles.frames import Frame
from hil.tile_images import Placed, ZoneRect, as_array, compose

FRAME_SIZE: Final = (1280, 720)
DEFAULT_ZONES: Final[Mapping[str, ZoneRect]] = {
    "river0": ZoneRect(340, 560, 600, 80),
    "river1": ZoneRect(340, 420, 600, 80),
    "river2": ZoneRect(340, 60, 600, 80),
    "river3": ZoneRect(340, 200, 600, 80),
    "dora": ZoneRect(1040, 300, 120, 80),
}
SKIN: Final = (224, 172, 140)


@dataclass(frozen=True, slots=True)
class Shot:
    contents: Mapping[str, Sequence[str]]
    occlude: tuple[tuple[int, int, int, int], ...] = ()  # x1, y1, x2, y2
    blur: float = 0.0
    missing: frozenset[tuple[str, int]] = field(default_factory=frozenset)


def render_shot(shot: Shot, zones: Mapping[str, ZoneRect] = DEFAULT_ZONES,
                size: tuple[int, int] = FRAME_SIZE) -> tuple[Frame, list[Placed]]:
    shown = {
        zone: [None if (zone, i) in shot.missing else t for i, t in enumerate(tiles)]
        for zone, tiles in shot.contents.items()
    }
    img, truth = compose(size, zones, shown)
    if shot.occlude:
        draw = ImageDraw.Draw(img)
        for rect in shot.occlude:
            draw.rounded_rectangle(rect, 18, SKIN)
    if shot.blur:
        img = img.filter(ImageFilter.GaussianBlur(shot.blur))
    return Frame(as_array(img), 0), truth


class ComposedFrameSource:
    """Serves the shots in order, then raises FrameSourceError (the camera stopped)."""

    def __init__(
        self,
        shots: Sequence[Shot],
        zones: Mapping[str, ZoneRect] = DEFAULT_ZONES,
        *,
        size: tuple[int, int] = FRAME_SIZE,
        clock: Callable[[], int] = time.monotonic_ns,
    ) -> None:
        self._shots = list(shots)
        self._zones = zones
        self._size = size
        self._clock = clock
        self._next = 0
        self._cache: dict[int, Frame] = {}
        self.closed = False

    def read(self) -> Frame:
        if self.closed:
            raise FrameSourceError("camera emulator is closed")
        if self._next >= len(self._shots):
            raise FrameSourceError(f"camera emulator: script of {len(self._shots)} frames ended")
        shot = self._shots[self._next]
        key = id(shot)
        if key not in self._cache:
            self._cache[key] = render_shot(shot, self._zones, self._size)[0]
        self._next += 1
        return Frame(self._cache[key].image, self._clock())

    def close(self) -> None:
        self.closed = True
