"""Errors of the hardware-in-the-loop kit (simulator, scenarios). The base is under the root
:class:`rules.errors.JantakuError`; each leaf also subclasses a builtin."""

from __future__ import annotations

from rules.errors import JantakuError


class HilError(JantakuError):
    """Base of every HIL error."""


class SimulationError(HilError, RuntimeError):
    """The reducer rejected an action the simulator believed legal: a bug on one side."""


class ScenarioError(HilError, ValueError):
    """A scenario file that cannot be run: the message names the file, the key and why."""


class EmulatorError(HilError, RuntimeError):
    """An emulated device asked to do what the real one could not (read while unplugged)."""


class EmulatorUsageError(HilError, ValueError):
    """A test or scenario asked an emulator for something it cannot do (no frame to duplicate)."""


class ProcessStartError(HilError, RuntimeError):
    """A process the kit starts (``jantaku run``, ``mosquitto``) did not come up or refused."""


class UsbLookupError(HilError, IndexError):
    """The emulated USB device has no such configuration, interface or endpoint (as pyusb's)."""


class HandSizeError(HilError, ValueError):
    """A bot asked for the shanten of a hand no hand has (more than 14 tiles, or 3n)."""


class EmulatorTimeout(HilError, TimeoutError):
    """What the kit waited for (inputs logged, a port reopened) did not happen in time."""


class MissingToolError(HilError, FileNotFoundError):
    """A program or package the kit needs (mosquitto, the tile artwork) is not installed."""


class BoardError(HilError, RuntimeError):
    """The emulated RP2040 board (hil/rp2040_board.py) did not do what was awaited."""


class PeerClosed(HilError, EOFError):
    """The client of an emulated server (hil/nagle_broker.py) closed its end mid-packet."""
