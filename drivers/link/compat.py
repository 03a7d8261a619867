"""Which controller firmwares this host drives (docs/firmware.md "Versions and compatibility").

Pure. The protocol version in ``welcome`` decides for any maker's controller (§7.1). For the
reference firmware, whose ``welcome.firmware`` reads ``jantaku-ctl <major>.<minor>.<patch>
[<platform>]``, the host also knows its releases: it drives major version :data:`MAJOR` from
:data:`MIN_VERSION` on, and refuses others with a message that says what to flash.
"""

from __future__ import annotations

REFERENCE_FIRMWARE = "jantaku-ctl"
MAJOR = 1
#: the oldest reference firmware this host drives (older ones lack what this host relies on)
MIN_VERSION = (1, 0, 0)


def _version(text: str) -> tuple[int, int, int] | None:
    parts = text.split(".")
    if len(parts) != 3 or not all(p.isdigit() and p.isascii() for p in parts):
        return None
    return (int(parts[0]), int(parts[1]), int(parts[2]))


def firmware_refusal(firmware: str) -> str | None:
    """Why this host will not drive a table whose ``welcome`` says ``firmware`` (None: it will).

    >>> firmware_refusal("jantaku-ctl 1.0.0 rp2040") is None
    True
    >>> firmware_refusal("acme-table 3.1") is None
    True
    """
    name, _, rest = firmware.partition(" ")
    if name != REFERENCE_FIRMWARE:
        return None  # another maker's controller: the protocol version alone decides
    wanted = f"{REFERENCE_FIRMWARE} {MAJOR}.x from {'.'.join(map(str, MIN_VERSION))}"
    version = _version(rest.split(" ", 1)[0])
    if version is None:
        return (f"table firmware {firmware!r} carries no version "
                f"'{REFERENCE_FIRMWARE} MAJOR.MINOR.PATCH'; this host drives {wanted}: "
                f"flash the firmware of this jantaku release (docs/firmware.md)")
    if version < MIN_VERSION:
        return (f"table firmware {firmware!r} is older than "
                f"{'.'.join(map(str, MIN_VERSION))}, the oldest this host drives: update the "
                f"table's firmware (docs/firmware.md)")
    if version[0] > MAJOR:
        return (f"table firmware {firmware!r} is major version {version[0]}, newer than this "
                f"host, which drives {wanted}: flash the firmware of this jantaku release "
                f"(docs/firmware.md)")
    return None
