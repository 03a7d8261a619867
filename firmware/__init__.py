"""jantaku-ctl: the reference firmware of the controller board inside the table.

MicroPython for a Raspberry Pi Pico (RP2040; RP2350 where noted) and, unchanged, CPython: the
emulator in ``hil/table_controller.py`` runs these modules on simulated hardware
(:mod:`firmware.sim`). Protocol: docs/protocol/table-link.md; wiring, flashing: docs/firmware.md.

Every module here must compile with ``mpy-cross`` and run under MicroPython: no ``__future__``,
no dataclasses or enums, ``typing`` only under ``TYPE_CHECKING``, annotations that CPython 3.11
can evaluate (``int | None``, ``list[int]``) or strings.
"""

NAME = "jantaku-ctl"
VERSION = "1.0.0"
#: what ``welcome`` carries (docs/firmware.md: "jantaku-ctl <semver> <platform>", <= 32 bytes)
FIRMWARE = NAME + " " + VERSION


def firmware_string(platform: str) -> str:
    return FIRMWARE + " " + platform
