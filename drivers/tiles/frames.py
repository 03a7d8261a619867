"""Camera frames: the :class:`FrameSource` interface and its two real implementations.

A frame source returns RGB frames (H × W × 3 ``uint8``) with the time they were taken, blocking
until one is ready; the camera pipeline calls it from a worker thread. Implementations:

* :class:`Picamera2Source` — a Raspberry Pi camera through picamera2 (Debian package
  ``python3-picamera2`` on Raspberry Pi OS; not on PyPI for the daemon's venv: create the venv
  with ``--system-site-packages`` on the Pi);
* :class:`OpenCvSource` — V4L2 webcams (``/dev/video0``), video files and image sequences through
  OpenCV's ``VideoCapture`` (``opencv-python-headless``);
* ``hil.camera_emulator.ComposedFrameSource`` — composed frames for tests.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from drivers.tiles.errors import FrameSourceError


@dataclass(frozen=True, slots=True)
class Frame:
    image: NDArray[np.uint8]  # H × W × 3, RGB
    t_ns: int


class FrameSource(Protocol):
    def read(self) -> Frame:
        """The next frame; raises :class:`FrameSourceError` when the camera has gone."""
        ...

    def close(self) -> None: ...


class OpenCvSource:
    """``device`` is a V4L2 index (0 → /dev/video0), a device path, a video file or an image
    sequence pattern (``frames/%03d.png``)."""

    def __init__(self, device: int | str, *, width: int | None = None, height: int | None = None,
                 clock: Callable[[], int] = time.monotonic_ns) -> None:
        try:
            import cv2
        except ImportError as exc:
            raise FrameSourceError(f"OpenCvSource needs opencv-python-headless: {exc}") from exc
        self._cv2: Any = cv2
        self._cap: Any = cv2.VideoCapture(device)
        if not self._cap.isOpened():
            raise FrameSourceError(f"cannot open camera {device!r} with OpenCV")
        if width and height:
            self._cap.set(cv2.CAP_PROP_FRAME_WIDTH, width)
            self._cap.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
        self._device = device
        self._clock = clock

    def read(self) -> Frame:
        ok, bgr = self._cap.read()
        t = self._clock()
        if not ok or bgr is None:
            raise FrameSourceError(f"camera {self._device!r} delivered no frame")
        rgb = self._cv2.cvtColor(bgr, self._cv2.COLOR_BGR2RGB)
        return Frame(np.ascontiguousarray(rgb, dtype=np.uint8), t)

    def close(self) -> None:
        self._cap.release()


class Picamera2Source:
    """The Raspberry Pi camera. picamera2's ``RGB888`` format is B, G, R in memory (libcamera
    names formats by their little-endian word), hence the channel flip."""

    def __init__(self, *, width: int = 1280, height: int = 720, camera: int = 0,
                 clock: Callable[[], int] = time.monotonic_ns) -> None:
        try:
            from picamera2 import Picamera2  # type: ignore[import-not-found]
        except ImportError as exc:
            raise FrameSourceError(f"Picamera2Source needs python3-picamera2: {exc}") from exc
        try:
            self._cam: Any = Picamera2(camera)
            config = self._cam.create_video_configuration(
                main={"size": (width, height), "format": "RGB888"}
            )
            self._cam.configure(config)
            self._cam.start()
        except Exception as exc:  # picamera2/libcamera raise RuntimeError and their own types
            raise FrameSourceError(f"cannot start Pi camera {camera}: {exc}") from exc
        self._clock = clock

    def read(self) -> Frame:
        try:
            bgr = self._cam.capture_array("main")
        except Exception as exc:
            raise FrameSourceError(f"Pi camera stopped: {exc}") from exc
        return Frame(np.ascontiguousarray(bgr[:, :, 2::-1], dtype=np.uint8), self._clock())

    def close(self) -> None:
        self._cam.stop()
        self._cam.close()


def open_source(spec: str, *, width: int = 1280, height: int = 720) -> FrameSource:
    """The source a config names: ``picamera2``, ``opencv:0`` (a V4L2 index), or
    ``opencv:/dev/video0`` / ``opencv:file.mp4`` / ``opencv:frames/%03d.png``."""
    if spec == "picamera2":
        return Picamera2Source(width=width, height=height)
    kind, _, target = spec.partition(":")
    if kind == "opencv" and target:
        device: int | str = int(target) if target.isdigit() else target
        return OpenCvSource(device, width=width, height=height)
    raise FrameSourceError(
        f"camera source {spec!r}: expected 'picamera2', 'opencv:INDEX' or 'opencv:PATH'"
    )
