"""Is the camera stack installed? The ``camera`` extra, asked about without importing it.

opencv, onnxruntime, numpy, Pillow and mahjong-detector weigh ~330 MB and serve only the camera
detector, so a plain ``pip install .`` leaves them out and ``pip install '.[camera]'`` brings them
(docs/install.md). A config or command that needs them is refused up front with one line naming
the extra, before anything starts, instead of an ImportError from a worker thread mid-game.
:func:`importlib.util.find_spec` finds a top-level module without importing it.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Iterable
from importlib.machinery import ModuleSpec

from drivers.tiles.config import CameraConfig
from drivers.tiles.errors import SensorConfigError

EXTRA = "camera"
INSTALL = f"pip install 'jantaku[{EXTRA}]'"

#: import name → the distribution the extra installs
DISTRIBUTIONS = {
    "numpy": "numpy",
    "PIL": "Pillow",
    "onnxruntime": "onnxruntime",
    "cv2": "opencv-python-headless",
    "mahjong_detector": "mahjong-detector",
}

Probe = Callable[[str], ModuleSpec | None]


class CameraStackMissing(SensorConfigError):
    """A camera is configured or asked for but the ``camera`` extra is not installed."""


def detector_modules(*, default_model: bool) -> tuple[str, ...]:
    """What the detector imports: arrays, image preprocessing, the ONNX runtime, and the default
    model's wheel unless a model file is named."""
    base = ("numpy", "PIL", "onnxruntime")
    return (*base, "mahjong_detector") if default_model else base


def camera_modules(camera: CameraConfig) -> tuple[str, ...]:
    """What a configured camera imports: the detector, and OpenCV for ``opencv:`` sources
    (``picamera2`` comes from Raspberry Pi OS, not from the extra)."""
    mods = detector_modules(default_model=camera.model is None)
    return (*mods, "cv2") if camera.source.startswith("opencv:") else mods


def missing(modules: Iterable[str], probe: Probe = importlib.util.find_spec) -> list[str]:
    """The distributions of ``modules`` that are not installed, in order."""
    out: list[str] = []
    for name in modules:
        try:
            found = probe(name) is not None
        except (ImportError, ValueError):  # a broken half-install counts as absent
            found = False
        if not found:
            out.append(DISTRIBUTIONS.get(name, name))
    return out


def require(modules: Iterable[str], what: str, probe: Probe = importlib.util.find_spec) -> None:
    """Raise :class:`CameraStackMissing` (one line) unless every module is installed."""
    absent = missing(modules, probe)
    if absent:
        raise CameraStackMissing(
            f"{what} needs the '{EXTRA}' extra, which is not installed "
            f"(missing {', '.join(absent)}): {INSTALL}"
        )
