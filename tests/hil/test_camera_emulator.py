"""The camera emulator and tile images (hil/camera_emulator.py, hil/tile_images.py): every fault
does to the pixels what it says, and the source behaves as a camera."""

from __future__ import annotations

import numpy as np
import pytest

from drivers.tiles.errors import FrameSourceError
from hil.camera_emulator import DEFAULT_ZONES, SKIN, ComposedFrameSource, Shot, render_shot
from hil.tile_images import FACE, TABLE_GREEN, asset_name, assets_dir, render_tile
from rules.tiles import ALL_TILES

SHOT = Shot({"river0": ["1m", "5mr", "E", "C"], "river3": ["9s", "P"], "dora": ["F"]})


def test_asset_names_cover_every_tile_and_the_red_fives() -> None:
    names = {asset_name(t.mjai(aka=True)) for t in ALL_TILES}
    assert len(names) == 34 + 3 and {"0m", "0p", "0s", "1z", "7z"} <= names
    assert all((assets_dir() / f"{n}.svg").exists() for n in names)
    assert asset_name("5m") == "5m" and asset_name("N") == "4z"


def test_a_rendered_tile_has_a_face_a_picture_and_an_edge() -> None:
    img = np.asarray(render_tile("7p", 60))
    assert img.shape == (80 + 8, 60, 4)
    face = img[5:75, 5:55, :3].reshape(-1, 3)
    ivory = np.all(face == FACE, axis=1).mean()
    assert 0.3 < ivory < 0.95  # mostly the tile's face, with the dots drawn on it
    assert img[0, 0, 3] == 0 and img[40, 30, 3] == 255  # rounded corner transparent
    assert not np.array_equal(np.asarray(render_tile("7p", 60)), np.asarray(render_tile("8p", 60)))


def test_truth_boxes_hold_tiles_and_the_rest_is_table() -> None:
    frame, truth = render_shot(SHOT)
    img = frame.image
    assert img.shape == (720, 1280, 3)
    assert [(p.zone, p.index, p.mjai) for p in truth] == [
        ("river0", 0, "1m"), ("river0", 1, "5mr"), ("river0", 2, "E"), ("river0", 3, "C"),
        ("river3", 0, "9s"), ("river3", 1, "P"), ("dora", 0, "F")]
    for p in truth:
        x1, y1, x2, y2 = p.box
        r = DEFAULT_ZONES[p.zone]
        assert r.x <= x1 < x2 <= r.x + r.w and r.y <= y1 < y2 <= r.y + r.h
        assert (img[y1 + 1, (x1 + x2) // 2] == FACE).all()  # the face, above the picture
    assert (img[5, 5] == TABLE_GREEN).all() and (img[700, 1270] == TABLE_GREEN).all()


def test_a_missing_tile_leaves_table_where_it_was_and_nothing_else_changes() -> None:
    clean, truth = render_shot(SHOT)
    gone, gone_truth = render_shot(Shot(SHOT.contents, missing=frozenset({("river0", 2)})))
    box = next(p.box for p in truth if (p.zone, p.index) == ("river0", 2))
    assert [p for p in truth if p.box != box] == gone_truth
    x1, y1, x2, y2 = box
    assert (gone.image[y1 + 2 : y2 - 2, x1 + 2 : x2 - 2] == TABLE_GREEN).all()
    diff = np.argwhere((clean.image != gone.image).any(axis=2))
    assert diff[:, 1].min() >= x1 and diff[:, 1].max() < x2 + 1


def test_occlusion_paints_a_hand_over_its_rectangle_only() -> None:
    rect = (300, 540, 500, 660)
    clean, _ = render_shot(SHOT)
    occ, _ = render_shot(Shot(SHOT.contents, occlude=(rect,)))
    assert (occ.image[600, 400] == SKIN).all()
    changed = np.argwhere((clean.image != occ.image).any(axis=2))
    assert changed[:, 1].min() >= 300 and changed[:, 1].max() <= 500
    assert changed[:, 0].min() >= 540 and changed[:, 0].max() <= 660


def test_blur_softens_edges() -> None:
    clean, _ = render_shot(SHOT)
    blurred, _ = render_shot(Shot(SHOT.contents, blur=3.0))

    def edge_energy(img: np.ndarray) -> float:
        g = img.astype(np.float64).mean(axis=2)
        return float(np.abs(np.diff(g, axis=1)).sum())

    assert edge_energy(blurred.image) < 0.6 * edge_energy(clean.image)


def test_the_source_serves_its_script_then_stops_like_a_camera() -> None:
    t = iter([10, 20, 30])
    other = Shot({"dora": ["1s"]})
    source = ComposedFrameSource([SHOT, other, SHOT], clock=lambda: next(t))
    frames = [source.read() for _ in range(3)]
    assert [f.t_ns for f in frames] == [10, 20, 30]
    assert np.array_equal(frames[0].image, frames[2].image)
    assert not np.array_equal(frames[0].image, frames[1].image)
    with pytest.raises(FrameSourceError, match="ended"):
        source.read()
    source.close()
    with pytest.raises(FrameSourceError, match="closed"):
        source.read()
