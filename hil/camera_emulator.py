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

import random
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from PIL import ImageDraw, ImageFilter

from drivers.tiles.errors import FrameSourceError
from drivers.tiles.frames import Frame
from hil.tile_images import Placed, ZoneRect, as_array, compose
from rules.tiles import ALL_TILES, Kind

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


def _random_shot(rng: random.Random) -> Shot:
    names = [t.mjai(aka=False) for t in ALL_TILES]
    contents = {f"river{s}": [rng.choice(names) for _ in range(rng.randint(3, 12))]
                for s in range(4)}
    contents["dora"] = [rng.choice(names)]
    return Shot(contents)


def _multiset_right(got: Mapping[str, Counter[Kind]], truth: list[Placed]) -> int:
    want: dict[str, Counter[Kind]] = {}
    for p in truth:
        want.setdefault(p.zone, Counter())[Kind.from_mjai(p.mjai)] += 1
    return sum(min(n, got.get(z, Counter())[k]) for z, c in want.items() for k, n in c.items())


def measure(frames: int, seed: int) -> dict[str, object]:
    """Accuracy of the default detector on composed table frames (docs/tiles.md)."""
    from drivers.tiles.camera import CameraTiles, CameraZone, assign
    from drivers.tiles.detector import load_detector
    from drivers.tiles.places import Place
    from drivers.tiles.voting import VoteRule

    detector = load_detector(min_confidence=0.25)
    rng = random.Random(seed)
    thresholds = (0.3, 0.5, 0.7, 0.9)
    tally = {t: Counter[str]() for t in thresholds}
    total = 0
    seconds = 0.0
    zones = tuple(CameraZone(n, Place.parse("dora", None) if n == "dora" else
                             Place.parse("river", int(n[-1])), (r.x, r.y, r.w, r.h))
                  for n, r in DEFAULT_ZONES.items())
    single_right = voted_right = 0
    for _ in range(frames):
        shot = _random_shot(rng)
        frame, truth = render_shot(shot)
        t0 = time.perf_counter()
        dets = detector.detect(frame.image)
        seconds += time.perf_counter() - t0
        total += len(truth)
        for th in thresholds:
            used: set[Placed] = set()
            for d in dets:
                if d.confidence < th:
                    continue
                cx, cy = d.center
                hit = [p for p in truth
                       if p.box[0] <= cx <= p.box[2] and p.box[1] <= cy <= p.box[3]]
                if not hit or hit[0] in used:
                    tally[th]["extra"] += 1
                    continue
                used.add(hit[0])
                tally[th]["right" if Kind.from_mjai(hit[0].mjai) == d.kind else "wrong"] += 1
            tally[th]["missed"] += len(truth) - len(used)
        # voting against transient faults: 3 clean frames, one with a hand, one blurred
        x = rng.randrange(300, 800)
        y = rng.choice([r.y for r in DEFAULT_ZONES.values()])
        faulty = [Shot(shot.contents, occlude=((x, y - 30, x + 300, y + 110),)),
                  Shot(shot.contents, blur=4.0)]
        state = CameraTiles(zones, VoteRule(3, 5, 0.5))
        for i, s in enumerate([shot, faulty[0], shot, faulty[1], shot]):
            f_dets = dets if s is shot else detector.detect(render_shot(s)[0].image)
            state, _ = state.feed(f_dets, i)
            per_zone = assign([d for d in f_dets if d.confidence >= 0.5], zones)
            single_right += _multiset_right(
                {z: Counter(d.kind for d in ds) for z, ds in per_zone.items()}, truth)
        voted_right += 5 * _multiset_right(
            {z.name: Counter(dict(state.tiles(z.name))) for z in zones}, truth)
    # a single tile filling the frame (the "large tile" case)
    large_right = 0
    names = [t.mjai(aka=False) for t in ALL_TILES[::4]]
    for name in names:
        img = compose((360, 440), {"z": ZoneRect(20, 20, 320, 400)}, {"z": [name]})[0]
        found = [d for d in detector.detect(as_array(img)) if d.confidence >= 0.5]
        large_right += any(d.kind == Kind.from_mjai(name) for d in found)
    return {
        "frames": frames, "tiles": total, "seconds_per_frame": round(seconds / frames, 3),
        "by_threshold": {str(t): dict(tally[t]) for t in thresholds},
        "faults_single_frame_right": round(single_right / (5 * total), 3),
        "faults_voted_right": round(voted_right / (5 * total), 3),
        "single_large_tile_right": f"{large_right}/{len(names)}",
    }


if __name__ == "__main__":
    import argparse
    import json

    parser = argparse.ArgumentParser(description="measure the default detector on composed frames")
    parser.add_argument("--frames", type=int, default=20)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    print(json.dumps(measure(args.frames, args.seed), indent=1))
