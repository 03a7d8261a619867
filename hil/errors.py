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


class BoardError(HilError, RuntimeError):
    """The emulated RP2040 board (hil/rp2040_board.py) did not do what was awaited."""
