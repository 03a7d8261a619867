"""What a clock button reports: a debounced press with the instant it was seen (pure values).

Kept apart from :mod:`drivers.buttons` (gpiozero) so the daemon's one translation from device to
input (:func:`daemon.tracking.track.track`) can take a press as an item without the GPIO library.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

from rules.seats import Seat


@dataclass(frozen=True, slots=True)
class SeatPress:
    """A seat hit its clock: it has discarded (and exposed its meld, after a call)."""

    t_ns: int  # time.monotonic_ns() at the edge: the instant the clock is charged to
    seat: Seat


@dataclass(frozen=True, slots=True)
class RefereePress:
    """The referee's pause button (toggles pause/resume)."""

    t_ns: int


ButtonPress: TypeAlias = SeatPress | RefereePress
