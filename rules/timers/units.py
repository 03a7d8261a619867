"""Time as the clocks count it: integer nanoseconds (exact sums on every machine), and the window in
which a button press and a sensor event are one discard."""

from __future__ import annotations

from typing import Final

NS_PER_SECOND: Final = 1_000_000_000

#: A button press and a sensor event for the same discard arrive this close together at most; the
#: second of the pair is a duplicate (see :func:`step`, discard). Not a ruleset value: it is a
#: property of our hardware (sensor latency + the time a player takes to hit the clock).
PAIR_WINDOW_SECONDS: Final = 2.0


def seconds_to_ns(seconds: float) -> int:
    """Seconds (float) → integer nanoseconds, rounded to the nearest nanosecond."""
    return round(seconds * NS_PER_SECOND)


def ns_to_seconds(ns: int, digits: int = 3) -> float:
    """Integer nanoseconds → seconds rounded to ``digits`` decimals (milliseconds by default)."""
    return round(ns / NS_PER_SECOND, digits)


PAIR_WINDOW_NS: Final = seconds_to_ns(PAIR_WINDOW_SECONDS)
