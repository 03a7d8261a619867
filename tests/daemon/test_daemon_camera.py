"""The camera in the daemon: ``[tiles.camera]`` runs (build_drivers), its vote changes go through
the one fold, and every disagreement with where the reducer says tiles are is a logged
``sensor_disagreement`` marker counted in health -- while nothing moves a tile.

The frames are composed by the camera emulator (hil/camera_emulator.py) and read by the real
default detector (mahjong-detector's ONNX model): the same pipeline as on a venue's camera.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import Callable
from typing import Any

import daemon_kit
import pytest
from conftest import running_service
from test_track_fold import _meld_wall, _turn
from track_kit import melds, read, river

from daemon.camera import CameraDriver
from daemon.config import Config
from daemon.devices import build_drivers
from daemon.tracker import DeviceTracker
from daemon.tracking.held import Held, restore
from daemon.tracking.records import KIND_MARKER
from daemon.tracking.track import track
from drivers.tiles.camera import CameraRead, CameraTiles, CameraZone, run_camera
from drivers.tiles.config import CameraConfig, TilesConfig
from drivers.tiles.detector import load_detector
from drivers.tiles.places import Place, Zone
from drivers.tiles.voting import VoteRule
from hil.camera_emulator import DEFAULT_ZONES, ComposedFrameSource, Shot
from hil.kit import until
from rules.seats import Seat
from rules.tiles import Kind, Tile

ZONES = tuple(
    CameraZone(name, Place.parse("dora" if name == "dora" else "river",
                                 None if name == "dora" else int(name[-1])),
               (r.x, r.y, r.w, r.h))
    for name, r in DEFAULT_ZONES.items()
)
CAMERA = CameraConfig(source="opencv:unused", width=1280, height=720, model=None, classes=None,
                      rule=VoteRule(need=2, window=3, threshold=0.5), zones=ZONES)


def _read(zone: str, place: Place, kind: Kind, count: int) -> CameraRead:
    return CameraRead(zone, place, kind, count > 0, count, 0.9, 1)


# --- the fold: pure ------------------------------------------------------------------------------
def test_a_camera_read_is_checked_against_where_the_tiles_are_and_moves_nothing() -> None:
    t, wall = _meld_wall("mleague", 2, [0, 1], discard=3)
    _turn(t, 0, wall)  # the dealer's discard: 1m (tile 3) in seat 0's river
    agree = track(t.held, t.state, _read("river0", river(0), Kind.M1, 1), t.setup)
    assert agree.entries == () and agree.held == t.held and not agree.more
    made = [track(t.held, t.state, _read("river0", river(0), k, n), t.setup).entries
            for k, n in ((Kind.M1, 2), (Kind.CHUN, 1), (Kind.M1, 0))]
    assert [[(e.kind, e.source, e.as_json()) for e in m] for m in made] == [
        [(KIND_MARKER, "tracker", {"type": "sensor_disagreement", "zone": "river0",
                                    "tile": tile, "camera": c, "rfid": r})]
        for tile, c, r in (("1m", 2, 1), ("C", 1, 0), ("1m", 0, 1))]
    # a marker changes nothing the tracker holds: restore over it is the same value
    entries = [e for m in made for e in m]
    assert restore((e.kind, e.source, e.as_json()) for e in entries) == Held()


def test_a_camera_read_sees_held_meld_tiles_and_closes_no_meld_area() -> None:
    t, wall = _meld_wall("mleague", 2, [0, 1], discard=3)
    _turn(t, 0, wall)
    for i in (0, 1, 3):  # seat 2 lays a pon: held, no input yet
        t.feed(read(melds(2), Tile(i)))
    melds2 = Place(Zone.MELDS, Seat.S2)
    out = track(t.held, t.state, _read("melds2", melds2, Kind.M1, 3), t.setup)
    assert out.entries == () and not out.more and out.held.melds_of(Seat.S2) is not None
    out = track(t.held, t.state, _read("melds2", melds2, Kind.M1, 2), t.setup)
    assert [e.as_json()["rfid"] for e in out.entries] == [3]


# --- the daemon ----------------------------------------------------------------------------------


def test_build_drivers_runs_a_configured_camera_through_the_one_tracker(
    make_config: Callable[..., Config],
) -> None:
    config = dataclasses.replace(make_config(1), tiles=TilesConfig(None, 1500, (), CAMERA))
    drivers = build_drivers(config)
    cameras = [d for d in drivers if isinstance(d, CameraDriver)]
    trackers = [d for d in drivers if isinstance(d, DeviceTracker)]
    assert len(cameras) == len(trackers) == 1 and cameras[0].tracker is trackers[0]


@pytest.fixture(scope="module")
def detector() -> Any:
    return load_detector(min_confidence=0.25)


async def test_camera_disagreements_are_logged_and_counted_and_move_no_tile(
    broker: daemon_kit.Broker, make_config: Callable[..., Config], detector: Any,
) -> None:
    script = daemon_kit.game_inputs(1, ruleset="mleague", seed=3)
    first = next(i for i, b in enumerate(script) if b["type"] == "discard")
    seat, discarded = script[first]["seat"], Tile(script[first]["tile"]).kind
    zone = f"river{seat}"
    shown = [discarded.mjai] + [k for k in ("1m", "5p", "C") if k != discarded.mjai]
    shots = [Shot({zone: shown})] * 4
    # what the camera will read of these frames (the detector is deterministic), and so what
    # must disagree with the reducer's river: every kind but the discarded tile's
    reads: list[CameraRead] = []
    await run_camera(ComposedFrameSource(shots), detector, CameraTiles(ZONES, CAMERA.rule),
                     reads.append)
    expected = [{"type": "sensor_disagreement", "zone": zone, "tile": r.kind.mjai,
                 "camera": r.count, "rfid": int(r.kind is discarded)}
                for r in reads if r.count != int(r.kind is discarded)]
    assert expected, "the detector read none of the extra tiles: nothing to check"
    tracker = DeviceTracker()
    camera = CameraDriver(CAMERA, tracker, source=lambda: ComposedFrameSource(shots),
                          detector=lambda: detector)
    config = make_config(broker.port)
    async with running_service(config, drivers=[tracker]) as service:
        for body in script[: first + 1]:
            await service.submit("input", "table", body)
        logged, snapshot = len(list(service.eventlog.records())), service.core.view()
        task = asyncio.create_task(camera.run(service))  # the frames start after the discard
        try:
            await until(lambda: tracker.camera_reads >= len(reads))
        finally:
            task.cancel()  # (or the script of frames ended: "stopped delivering frames")
            with contextlib.suppress(asyncio.CancelledError, RuntimeError):
                await task
        await until(lambda: tracker.disagreements >= len(expected))
        markers = [r.body for r in service.eventlog.records()
                   if r.body.get("type") == "sensor_disagreement"]
        health = service.health()["links"]
        # nothing moved: no input was logged for the camera, the table is where it was
        assert service.core.view() == snapshot
        assert [r.kind for r in service.eventlog.records()][logged:] == ["marker"] * len(markers)
    assert markers == expected
    assert health["tracker"]["disagreements"] == len(expected)
    assert health["tracker"]["last_disagreement"] == expected[-1]
    assert health["tracker"]["camera_reads"] == len(reads)
