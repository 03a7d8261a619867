"""Errors of the tile sensors. Each leaf also subclasses a builtin, so callers may catch
either; the base is under the root :class:`rules.errors.JantakuError`."""

from __future__ import annotations

from rules.errors import JantakuError


class TileSensorError(JantakuError):
    """Root of every tile-sensor error."""


class SensorConfigError(TileSensorError, ValueError):
    """A sensor configuration (readers, zones, detector) that does not follow docs/tiles.md."""


class EnrolmentError(TileSensorError, ValueError):
    """An enrolment step that was refused (duplicate tag, tile already enrolled, bad state file)."""


class FrameSourceError(TileSensorError, OSError):
    """A camera that could not be opened or stopped delivering frames."""


class DetectorError(TileSensorError, ValueError):
    """A detector model that cannot be loaded or whose output does not have the expected shape."""


class ReaderStoppedError(TileSensorError, RuntimeError):
    """An RFID reader task ended; its supervisor restarts the readers."""
