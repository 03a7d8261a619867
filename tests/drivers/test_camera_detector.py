"""The camera pipeline with the real default detector (mahjong-detector's ONNX model) on frames
composed from FluffyStuff's tile images (hil/tile_images.py). Few frames: the suite stays fast.

Needs onnxruntime, mahjong-detector, pymdownx-mahjong, cairosvg, opencv-python-headless: these
tests fail (never skip) without them.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from drivers.tiles.camera import CameraRead, CameraTiles, CameraZone, run_camera
from drivers.tiles.detector import Detection, OnnxTileDetector, default_model, load_detector
from drivers.tiles.errors import DetectorError, FrameSourceError
from drivers.tiles.frames import OpenCvSource
from drivers.tiles.places import Place
from drivers.tiles.voting import VoteRule
from hil.camera_emulator import DEFAULT_ZONES, ComposedFrameSource, Shot, render_shot
from hil.tile_images import Placed
from rules.tiles import ALL_TILES, Kind

RULE = VoteRule(need=3, window=5, threshold=0.5)
ZONES = tuple(
    CameraZone(name, Place.parse("dora" if name == "dora" else "river",
                                 None if name == "dora" else int(name[-1])),
               (r.x, r.y, r.w, r.h))
    for name, r in DEFAULT_ZONES.items()
)


def random_shot(seed: int) -> Shot:
    rng = random.Random(seed)
    names = [t.mjai(aka=False) for t in ALL_TILES]
    contents = {f"river{s}": [rng.choice(names) for _ in range(rng.randint(5, 11))]
                for s in range(4)}
    contents["dora"] = [rng.choice(names)]
    return Shot(contents)


@pytest.fixture(scope="module")
def detector() -> OnnxTileDetector:
    return load_detector(min_confidence=0.25)


def score(dets: list[Detection], truth: list[Placed], threshold: float) -> tuple[int, int, int]:
    """(right, wrong, extra) matching each detection to the tile whose face holds its centre."""
    right = wrong = extra = 0
    used: set[Placed] = set()
    for d in dets:
        if d.confidence < threshold:
            continue
        cx, cy = d.center
        hit = [p for p in truth if p.box[0] <= cx <= p.box[2] and p.box[1] <= cy <= p.box[3]]
        if not hit or hit[0] in used:
            extra += 1
            continue
        used.add(hit[0])
        if Kind.from_mjai(hit[0].mjai) == d.kind:
            right += 1
        else:
            wrong += 1
    return right, wrong, extra


def test_the_default_model_is_the_wheels_with_34_classes_in_mjai() -> None:
    path, classes = default_model()
    assert path.name == "model.onnx" and path.exists()
    assert sorted(classes) == list(Kind)
    assert classes[:3] == (Kind.M1, Kind.P1, Kind.S1)
    assert classes[-7:] == (Kind.CHUN, Kind.HAKU, Kind.HATSU, Kind.SOUTH, Kind.NORTH,
                            Kind.WEST, Kind.EAST)


def test_detector_reads_most_tiles_of_composed_frames(detector: OnnxTileDetector) -> None:
    right = wrong = extra = total = 0
    for seed in (1, 2):
        frame, truth = render_shot(random_shot(seed))
        dets = detector.detect(frame.image)
        assert all(d.confidence > 0.25 for d in dets)
        r, w, e = score(dets, truth, 0.5)
        right, wrong, extra, total = right + r, wrong + w, extra + e, total + len(truth)
    # measured 60-70% right on such frames (docs/tiles.md); a broken class map or preprocessing
    # falls to a few percent
    assert right >= 0.5 * total, (right, wrong, extra, total)
    assert wrong < right / 3 and extra <= 2


def test_a_higher_threshold_keeps_fewer_but_surer_detections(detector: OnnxTileDetector) -> None:
    frame, truth = render_shot(random_shot(3))
    dets = detector.detect(frame.image)
    r50, w50, _ = score(dets, truth, 0.5)
    r90, w90, _ = score(dets, truth, 0.9)
    assert r90 + w90 < r50 + w50
    assert w90 / max(1, r90 + w90) <= w50 / max(1, r50 + w50)
    assert score(dets, truth, 1.01) == (0, 0, 0)


def stable(state: CameraTiles) -> dict[str, list[tuple[Kind, int]]]:
    return {z.name: state.tiles(z.name) for z in ZONES}


def expected_from(dets: list[Detection]) -> dict[str, list[tuple[Kind, int]]]:
    """What voting must settle on when clean frames win: the clean frame's detections."""
    state = CameraTiles(ZONES, VoteRule(need=1, window=1, threshold=RULE.threshold))
    state, _ = state.feed(dets, 0)
    return stable(state)


def test_voting_rides_out_occlusion_and_blur_and_notices_a_missing_tile(
    detector: OnnxTileDetector,
) -> None:
    shot = random_shot(4)
    clean, truth = render_shot(shot)
    clean_dets = detector.detect(clean.image)
    expected = expected_from(clean_dets)
    assert sum(n for tiles in expected.values() for _, n in tiles) >= len(truth) // 2

    r1 = DEFAULT_ZONES["river1"]
    hand_over_river1 = Shot(shot.contents, occlude=((r1.x + 40, r1.y - 30, r1.x + 330, r1.y + 90),))
    blurred = Shot(shot.contents, blur=4.0)
    state = CameraTiles(ZONES, RULE)
    reads_per_frame = []
    for s in (shot, shot, shot, hand_over_river1, blurred):
        frame, _ = render_shot(s)
        state, reads = state.feed(detector.detect(frame.image), 0)
        reads_per_frame.append(reads)
    assert reads_per_frame[:2] == [[], []]
    assert {(r.zone, r.kind) for r in reads_per_frame[2]} == {
        (zone, k) for zone, tiles in expected.items() for k, _ in tiles}
    assert reads_per_frame[3:] == [[], []]  # the hand and the blur changed nothing
    assert stable(state) == expected

    # the faulty frames alone do lose tiles: that is what the vote protects against
    occluded_only = expected_from(detector.detect(render_shot(hand_over_river1)[0].image))
    assert occluded_only["river1"] != expected["river1"]

    # a tile that stays missing: once it loses the vote, it vanishes (and only it)
    victim = next(p for p in truth if p.zone == "river2"
                  and any(d.kind == Kind.from_mjai(p.mjai) and d.confidence >= RULE.threshold
                          and p.box[0] <= d.center[0] <= p.box[2] for d in clean_dets))
    gone = Shot(shot.contents, missing=frozenset({("river2", victim.index)}))
    gone_dets = detector.detect(render_shot(gone)[0].image)
    vanished = []
    for _ in range(3):
        state, reads = state.feed(gone_dets, 0)
        vanished += reads
    assert (victim.zone, Kind.from_mjai(victim.mjai), False) in {
        (r.zone, r.kind, r.appeared) for r in vanished}
    assert stable(state) == expected_from(gone_dets)


async def test_run_camera_over_the_emulator_reports_once_per_tile(
    detector: OnnxTileDetector,
) -> None:
    shot = Shot({"river0": ["1m", "9p", "E", "C", "3s"], "dora": ["5p"]})
    t = iter(range(1000, 10**6, 1000))
    source = ComposedFrameSource([shot] * 4, clock=lambda: next(t))
    got: list[CameraRead] = []
    state = await run_camera(source, detector, CameraTiles(ZONES, VoteRule(3, 4, 0.5)), got.append)
    with pytest.raises(FrameSourceError, match="script of 4 frames ended"):
        source.read()
    assert got, "nothing reported"
    assert {r.t_ns for r in got} == {3000}  # all on the third frame, none before or after
    assert all(r.appeared and r.confidence >= 0.5 for r in got)
    assert sorted((r.zone, r.kind) for r in got) == sorted(
        (z, k) for z in ("river0", "dora") for k, _ in state.tiles(z))


def test_opencv_source_reads_frames_in_rgb(tmp_path: Path) -> None:
    frames = [render_shot(random_shot(seed))[0].image for seed in (5, 6)]
    for i, img in enumerate(frames):
        Image.fromarray(img).save(tmp_path / f"{i:03d}.png")
    from drivers.tiles.frames import open_source

    with pytest.raises(FrameSourceError, match="expected 'picamera2'"):
        open_source("v4l2:0")
    opened = open_source(f"opencv:{tmp_path / '%03d.png'}")
    assert np.array_equal(opened.read().image, frames[0])
    opened.close()
    source = OpenCvSource(str(tmp_path / "%03d.png"), clock=lambda: 7)
    try:
        for img in frames:
            got = source.read()
            assert got.t_ns == 7 and got.image.dtype == np.uint8
            assert np.array_equal(got.image, img)  # lossless and RGB, not BGR
        with pytest.raises(FrameSourceError, match="no frame"):
            source.read()
    finally:
        source.close()
    with pytest.raises(FrameSourceError, match="cannot open"):
        OpenCvSource(str(tmp_path / "missing-%03d.png"))


def test_bad_models_and_frames_are_refused(tmp_path: Path, detector: OnnxTileDetector) -> None:
    path, classes = default_model()
    with pytest.raises(DetectorError, match="scores 34 classes but 3 names"):
        OnnxTileDetector(path, classes[:3])
    junk = tmp_path / "junk.onnx"
    junk.write_bytes(b"not a model")
    with pytest.raises(DetectorError, match="cannot load ONNX model"):
        OnnxTileDetector(junk, classes)
    with pytest.raises(DetectorError, match="needs its class names"):
        load_detector(junk)
    with pytest.raises(DetectorError, match="H×W×3 uint8"):
        detector.detect(np.zeros((10, 10), dtype=np.uint8))
