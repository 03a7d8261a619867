"""The camera over the table as a daemon driver: frames → votes → camera reads → the tracker.

``[tiles.camera]`` (docs/tiles.md) names a frame source, a detector and the zones. This driver
runs the camera pipeline (:func:`drivers.tiles.camera.run_camera`: the blocking frame read and the
detector in a worker thread) and hands every vote change, a :class:`~drivers.tiles.camera.
CameraRead`, to the device tracker as an item of the one fold (:func:`daemon.tracking.track.
track`). There it is evidence, never truth: compared with where the reducer and the tracker's
``held`` say tiles of its kind are, logged as a ``sensor_disagreement`` marker when the counts
differ (counted in the tracker's health), and never an input: nothing moves a tile.

The camera's votes are not logged and not restored: after a restart the votes start empty and
the camera reports what it sees again (a vote needs ``need`` of ``window`` frames).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from drivers.tiles.camera import CameraRead, CameraTiles, run_camera
from drivers.tiles.errors import FrameSourceError

if TYPE_CHECKING:
    from daemon.service import InputSink
    from daemon.tracker import DeviceTracker
    from drivers.tiles.config import CameraConfig
    from drivers.tiles.detection import TileDetector
    from drivers.tiles.frames import Frame, FrameSource

SourceFactory = Callable[[], "FrameSource"]
DetectorFactory = Callable[[], "TileDetector"]


class _Counted:
    """A frame source that counts its frames (for health: is the camera delivering?)."""

    def __init__(self, source: FrameSource) -> None:
        self.source = source
        self.frames = 0

    def read(self) -> Frame:
        frame = self.source.read()
        self.frames += 1
        return frame

    def close(self) -> None:
        self.source.close()


class CameraDriver:
    """One camera; a source that fails ends the run (the supervisor starts it again)."""

    def __init__(self, camera: CameraConfig, tracker: DeviceTracker, *,
                 source: SourceFactory | None = None, detector: DetectorFactory | None = None,
                 name: str = "camera") -> None:
        self.name = name
        self.camera = camera
        self.tracker = tracker
        self._source = source or (lambda: _open_source(camera))
        self._detector = detector or (lambda: _load_detector(camera))
        self._counted: _Counted | None = None
        self.frames_before = 0  # frames of the runs before this one
        self.reads = 0
        self._status = "starting"

    async def run(self, sink: InputSink) -> None:
        # opening a camera and loading a model block (seconds on a Pi): not on the loop
        source = _Counted(await asyncio.to_thread(self._source))
        try:
            detector = await asyncio.to_thread(self._detector)
            self._counted, self._status = source, "up"
            await run_camera(source, detector, CameraTiles(self.camera.zones, self.camera.rule),
                             self._emit)
        finally:
            self._status = "closed"
            self.frames_before += source.frames
            self._counted = None
            source.close()
        raise FrameSourceError(f"camera {self.camera.source!r} stopped delivering frames")

    def _emit(self, read: CameraRead) -> None:
        self.reads += 1
        self.tracker.feed(read)

    async def show(self, board: dict[str, Any], events: Sequence[dict[str, Any]]) -> None:
        return None

    def health(self) -> dict[str, Any]:
        frames = self.frames_before + (0 if self._counted is None else self._counted.frames)
        return {"kind": "camera", "status": self._status, "source": self.camera.source,
                "frames": frames, "reads": self.reads}


def _open_source(camera: CameraConfig) -> FrameSource:
    from drivers.tiles.frames import open_source

    return open_source(camera.source, width=camera.width, height=camera.height)


def _load_detector(camera: CameraConfig) -> TileDetector:
    from drivers.tiles.detector import load_detector

    return load_detector(camera.model, camera.classes)
