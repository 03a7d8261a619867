"""The firmware's errors as the Pico raises them: each leaf is a FirmwareError and a ValueError
(MicroPython allows one native base: firmware/errors.py). Runs unchanged under CPython and under
MicroPython (tests/firmware/test_firmware_checks.py): :func:`problems` lists what is wrong."""

from firmware import frame as fr
from firmware import messages as m
from firmware.errors import FirmwareConfigError, FirmwareError, FrameError
from firmware.link import Link, Timings


def _raised(f: "object", *args: "object") -> "BaseException | None":
    try:
        f(*args)  # type: ignore[operator]
    except ValueError as exc:  # what a host (mpremote, the HIL tools) catches
        return exc
    return None


def cases() -> "list[tuple[str, BaseException | None, type]]":
    return [
        ("timings", _raised(Timings, 0), FirmwareConfigError),
        ("boot id", _raised(Link, 0, 0, "t"), FirmwareConfigError),
        ("firmware string", _raised(m.welcome, 1, 0, 1, None, "x" * 40), FrameError),
        ("host-only kind", _raised(Link(7, 0, "t").send, 0x01, b"", 0), FrameError),
        ("payload over 1024", _raised(fr.encode_frame, 0x10, b"\x00" * 2000, 0), FrameError),
    ]


def problems() -> "list[str]":
    out = []
    for name, exc, leaf in cases():
        if exc is None:
            out.append(name + ": nothing raised")
        elif not (isinstance(exc, leaf) and isinstance(exc, FirmwareError)):
            out.append(name + ": " + repr(exc))
    return out


def main() -> None:
    """Under MicroPython (run_micropython.mjs calls ``main``)."""
    import sys

    fails = problems()
    print(sys.implementation.name, "errors", fails if fails else "ok")
    if fails:
        raise SystemExit(1)
