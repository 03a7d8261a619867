"""Errors of the GPIO devices (buttons, LEDs, buzzer, debouncer). The base is under the root
:class:`rules.errors.JantakuError`; each leaf also subclasses a builtin."""

from __future__ import annotations

from rules.errors import JantakuError


class GpioError(JantakuError):
    """Root of every GPIO device error."""


class GpioConfigError(GpioError, ValueError):
    """A pin list or timing of a GPIO device that cannot be used; the message says which."""
