"""Each tenpai hand's waits and how many of each are still unseen: the spectator feed's "wait
and tiles left" line (pure; the delayed feed shows it, never the live one).

A wait is a kind that completes the hand's concealed part (``rules.hand_shape.waits``; a kind
whose four copies the hand holds itself is none, M 3-11-2). *Unseen* counts the copies of the
kind nobody can see, from the delayed feed's point of view, which shows every hand: four minus
the copies in any seat's concealed tiles, rivers, melds and the dora indicators. A called tile
is counted once, in its meld (its river entry is marked ``called``).
"""

from __future__ import annotations

from typing import Any

from rules.hand_shape import counts_of, waits
from rules.seats import Seat
from rules.table_state import HandState
from rules.tiles import Kind, Tile


def seen_counts(h: HandState) -> tuple[int, ...]:
    """Copies of each kind that are visible somewhere (known concealed hands included)."""
    tiles: list[Tile] = []
    for st in h.seats:
        if st.concealed is not None:
            tiles.extend(st.concealed)
        tiles.extend(r.tile for r in st.river if r.tile is not None and not r.called)
        for m in st.melds:
            tiles.extend(m.tiles)
    tiles.extend(i.tile for i in h.indicators if i.tile is not None)
    return counts_of(tiles)


def held_counts(h: HandState, seat: Seat) -> tuple[int, ...]:
    st = h.seats[seat]
    tiles = list(st.concealed or ())
    for m in st.melds:
        tiles.extend(m.tiles)
    return counts_of(tiles)


def seat_waits(h: HandState, seat: Seat, aka: bool = True) -> list[dict[str, Any]] | None:
    """``[{kind, tile, unseen}]`` for a tenpai hand, ``[]`` for a hand that is not; ``None``
    when the concealed tiles are unknown or the seat holds 14 (it is about to discard)."""
    del aka  # waits are kinds: a red five waits as a five
    st = h.seats[seat]
    if st.concealed is None or len(st.concealed) % 3 != 1:
        return None
    kinds = waits(counts_of(st.concealed), held_counts(h, seat))
    seen = seen_counts(h)
    return [{"kind": k, "tile": Kind(k).mjai, "unseen": max(0, 4 - seen[k])} for k in kinds]
