"""The real ``jantaku run`` with a ``[tiles.camera]`` whose source is a recorded clip (PNG files
through OpenCV, ``opencv:DIR/%03d.png``) and the real default detector: the config's camera runs,
its reads reach the one fold, and with no game every tile it sees disagrees with where the tiles
are (nowhere yet) -- logged as ``sensor_disagreement`` markers, never as an input.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import daemon_kit
import outside
from PIL import Image

from daemon.errors import EventLogError
from daemon.eventlog import EventLog
from drivers.tiles.camera import CameraRead, CameraTiles, CameraZone, run_camera
from drivers.tiles.detector import load_detector
from drivers.tiles.frames import OpenCvSource
from drivers.tiles.places import Place, Zone
from drivers.tiles.voting import VoteRule
from hil.camera_emulator import DEFAULT_ZONES, Shot, render_shot
from rules.seats import Seat

RIVER0 = DEFAULT_ZONES["river0"]
CAMERA_TOML = """
[tiles.camera]
source = "opencv:{frames}/%03d.png"
need = 2
window = 3
threshold = 0.5

[[tiles.camera.zones]]
name = "river0"
seat = 0
zone = "river"
rect = [{x}, {y}, {w}, {h}]
"""


def _records(db: Path) -> list[tuple[str, str, dict[str, object]]]:
    if not db.exists():
        return []
    try:
        log = EventLog(db, "", readonly=True)
    except EventLogError:  # the daemon is creating it (no meta row yet): nothing logged
        return []
    try:
        return [(r.kind, r.source, r.body) for r in log.records()]
    finally:
        log.close()


async def test_a_configured_camera_runs_in_jantaku_run_and_logs_only_disagreements(
    tmp_path: Path, broker: daemon_kit.Broker
) -> None:
    frames = tmp_path / "frames"
    frames.mkdir()
    frame, _ = render_shot(Shot({"river0": ["1m", "5p", "C"]}))
    for i in range(4):
        Image.fromarray(frame.image).save(frames / f"{i:03d}.png")
    # what the daemon's pipeline will read of the clip: the same source, detector and votes
    zone = CameraZone("river0", Place(Zone.RIVER, Seat.S0), (RIVER0.x, RIVER0.y, RIVER0.w,
                                                             RIVER0.h))
    reads: list[CameraRead] = []
    await run_camera(OpenCvSource(f"{frames}/%03d.png"), load_detector(),
                     CameraTiles((zone,), VoteRule(2, 3, 0.5)), reads.append)
    expected = [{"type": "sensor_disagreement", "zone": "river0", "tile": r.kind.mjai,
                 "camera": r.count, "rfid": 0} for r in reads]
    assert expected, "the detector read nothing of the clip: nothing to check"

    db, cfg = tmp_path / "table.sqlite", tmp_path / "table.toml"
    cfg.write_text(daemon_kit.config_text(table=daemon_kit.unique_table("cam"), db=db,
                                          port=broker.port)
                   + CAMERA_TOML.format(frames=frames, x=RIVER0.x, y=RIVER0.y, w=RIVER0.w,
                                        h=RIVER0.h))
    daemon = outside.Daemon(cfg, tmp_path / "daemon.log")
    try:
        daemon.start()
        async with asyncio.timeout(120):
            while sum(1 for k, _, b in _records(db)
                      if b.get("type") == "sensor_disagreement") < len(expected):
                assert daemon.alive, (tmp_path / "daemon.log").read_text()[-2000:]
                await asyncio.sleep(0.2)
        assert daemon.terminate() == 0
    finally:
        if daemon.alive:
            daemon.kill9()
    records = [r for r in _records(db) if r[1] != "daemon"]
    markers = [b for k, s, b in records if (k, s) == ("marker", "tracker")]
    # the clip ends, the supervisor starts the camera again: the same reads again, in order
    assert markers[: len(expected)] == expected
    assert all(m in expected for m in markers)
    assert all(k == "marker" for k, _, _ in records)  # no input: nothing moved
