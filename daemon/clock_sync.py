"""Is the wall clock synchronised? A warning for ``health`` while it is not.

A Raspberry Pi has no real-time clock: after a power cut it boots at the last saved time (or
1970) until NTP answers, and until then signed referee commands look stale and are refused
(``referee.max_skew_seconds``) and event timestamps are wrong. The unit orders itself after
``time-sync.target`` (docs/install.md, ``systemd-time-wait-sync``), but that target does not wait
unless the wait service is enabled, and a venue network may have no NTP at all, so the daemon also
says so: ``health.clock`` carries ``synchronized`` and a ``warning`` until the clock is synced.

How it is detected, in order (the first that answers wins):

1. ``timesync``: ``/run/systemd/timesync/synchronized`` exists — systemd-timesyncd touches it
   once it has synchronised the clock (the file systemd-time-wait-sync waits for);
2. ``kernel``: ``adjtimex(2)`` read-only (modes 0) returns ``TIME_ERROR`` while the kernel's
   ``STA_UNSYNC`` flag is set, which every NTP client (timesyncd, chrony, ntpd) clears once it
   disciplines the clock; the unit's ``ProtectClock=yes`` seccomp filter refuses the call (EPERM),
   and then the next probe answers;
3. ``timesync``: the directory ``/run/systemd/timesync/`` exists but not the file: timesyncd runs
   and has not synchronised yet.

Otherwise the state is unknown (no warning: nothing says the clock is wrong). The probes are
injectable for tests: ``JANTAKU_CLOCK_PROBES`` (comma-separated, default ``timesync,kernel``)
and ``JANTAKU_TIMESYNC_DIR`` (default ``/run/systemd/timesync``).
"""

from __future__ import annotations

import ctypes
import enum
import functools
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

TIMESYNC_DIR = Path("/run/systemd/timesync")
TIME_ERROR = 5  # adjtimex(2): the clock is not synchronised (STA_UNSYNC and friends)
_TIMEX_BYTES = 512  # struct timex is 208 bytes on 64-bit Linux; only ``modes`` (first) is set


class ClockSync(enum.Enum):
    SYNCHRONIZED = "synchronized"
    UNSYNCHRONIZED = "unsynchronized"
    UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class ClockReading:
    state: ClockSync
    source: str  # "timesync", "kernel" or "none"

    def as_json(self) -> dict[str, object]:
        synced = {ClockSync.SYNCHRONIZED: True, ClockSync.UNSYNCHRONIZED: False}.get(self.state)
        warning = None
        if self.state is ClockSync.UNSYNCHRONIZED:
            warning = ("wall clock not synchronised (no NTP yet): timestamps may be wrong and "
                       "signed referee commands may be refused as stale")
        return {"synchronized": synced, "source": self.source, "warning": warning}


Probe = Callable[[], ClockSync | None]  # None: this probe cannot tell


def timesync_file(directory: Path) -> ClockSync | None:
    return ClockSync.SYNCHRONIZED if (directory / "synchronized").exists() else None


def timesync_dir(directory: Path) -> ClockSync | None:
    return ClockSync.UNSYNCHRONIZED if directory.is_dir() else None


@functools.cache
def _adjtimex() -> Callable[[Any], int] | None:
    """libc's ``adjtimex``, looked up once. The health path calls :func:`kernel` on every
    build: ``ctypes.util.find_library`` runs ``ldconfig``/``gcc`` in a child process, so it
    failed (EMFILE) and killed the health task when a crowd of connections had used every
    descriptor. The process's own symbol table (``CDLL(None)``) holds libc's
    symbols already: no search, no file opened."""
    try:
        fn: Callable[[Any], int] = ctypes.CDLL(None, use_errno=True).adjtimex
    except (OSError, AttributeError):
        return None
    return fn


def kernel() -> ClockSync | None:
    adjtimex = _adjtimex()
    if adjtimex is None:
        return None
    buf = ctypes.create_string_buffer(_TIMEX_BYTES)  # zeroed: modes = 0 reads, changes nothing
    result = int(adjtimex(buf))
    if result < 0:  # EPERM under ProtectClock=yes / a seccomp filter
        return None
    return ClockSync.UNSYNCHRONIZED if result == TIME_ERROR else ClockSync.SYNCHRONIZED


def probes_from_env() -> list[tuple[str, Probe]]:
    directory = Path(os.environ.get("JANTAKU_TIMESYNC_DIR", str(TIMESYNC_DIR)))
    names = os.environ.get("JANTAKU_CLOCK_PROBES", "timesync,kernel").split(",")
    out: list[tuple[str, Probe]] = []
    if "timesync" in names:
        out.append(("timesync", lambda: timesync_file(directory)))
    if "kernel" in names:
        out.append(("kernel", kernel))
    if "timesync" in names:
        out.append(("timesync", lambda: timesync_dir(directory)))
    return out


def read_clock(probes: Sequence[tuple[str, Probe]] | None = None) -> ClockReading:
    for source, probe in probes_from_env() if probes is None else probes:
        state = probe()
        if state is not None:
            return ClockReading(state, source)
    return ClockReading(ClockSync.UNKNOWN, "none")
