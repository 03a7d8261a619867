"""The envelopes' ``ts`` (daemon/table.py ``iso``): formatted from a per-second cache, it must be
the very bytes ``datetime.fromtimestamp(ns / 1e9, UTC).isoformat(timespec="milliseconds")``
gives (replay and record goldens compare them), rounding at the microsecond included."""

from __future__ import annotations

import random
from datetime import UTC, datetime

from daemon.table import iso


def _reference(wall_ns: int) -> str:
    return datetime.fromtimestamp(wall_ns / 1e9, UTC).isoformat(
        timespec="milliseconds").replace("+00:00", "Z")


def test_iso_is_the_datetime_formatting_to_the_byte() -> None:
    rnd = random.Random(30)
    seconds = [0, 1, 946_684_799, 1_764_900_000, 1_764_907_199, 4_102_444_799]
    # the fractions where rounding to the microsecond carries into the millisecond or second
    fractions = [0, 1, 499, 500, 501, 999_499, 999_500, 999_501, 999_999_499, 999_999_500,
                 999_999_501, 999_999_999]
    stamps = [s * 1_000_000_000 + f for s in seconds for f in fractions]
    stamps += [rnd.randrange(0, 4_102_444_800 * 10**9) for _ in range(20_000)]
    base = 1_764_900_000 * 10**9
    stamps += [base + rnd.randrange(0, 3 * 10**9) for _ in range(20_000)]  # the cache's path
    # either side of where the integer's millisecond is taken (1 µs from a millisecond's edge),
    # now and near 2**32 s, where the float is coarsest
    for top in (1_764_900_000, 2**32 - 2):
        for _ in range(2_000):
            ms = top * 10**9 + rnd.randrange(0, 2 * 10**9, 1_000_000)
            stamps += [ms + d for d in (998, 999, 1_000, 1_001, 998_999, 999_000, 999_001)]
    for ns in stamps:
        assert iso(ns) == _reference(ns), ns
