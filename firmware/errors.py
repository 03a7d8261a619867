"""The firmware's errors: one root, two leaves, raised where the board is set up wrong or asked
to send what the link cannot carry.

The host's tree (``rules.errors.JantakuError``, docs/engineering.md) cannot be imported on the
chip, and MicroPython allows a class only one native base, so the firmware's root is a
``ValueError`` itself: every firmware failure is a bad value (a config key, a wiring, a timing, a
payload), and a host that catches ``ValueError`` (mpremote's REPL, the HIL tools) still catches
each leaf.
"""


class FirmwareError(ValueError):
    """The root of the firmware's errors."""


class FirmwareConfigError(FirmwareError):
    """config.json, the board's wiring or the link's timings cannot run (docs/firmware.md)."""


class FrameError(FirmwareError):
    """A frame or message the link cannot carry: an unknown or host-only kind, a payload the
    protocol refuses, a payload or firmware string too long, a sequence number out of range
    (docs/protocol/table-link.md)."""
