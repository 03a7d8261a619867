"""Winning hands written compactly (``"123m406p789s11z"``, 0 = red five, z = honors 1..7 =
E S W N P F C), turned into :class:`~rules.outcome.Win` objects with distinct physical tiles.

For the tests (nothing in the daemon reads this notation, so it lives in the test kit). The
concealed tiles are given *without* the winning tile, which is named apart, as a
referee reads a hand: "this, won on that".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rules.outcome import Meld, MeldKind, Win
from rules.seats import Seat
from rules.tiles import Kind, Tile, TileAllocator, TileError


def parse_compact(text: str) -> list[tuple[Kind, bool]]:
    """``"123m0p55s777z"`` style (0 = red five, z = honors 1..7 = E S W N P F C) → kinds.
    """
    out: list[tuple[Kind, bool]] = []
    digits: list[str] = []
    for ch in text.replace(" ", ""):
        if ch.isdigit():
            digits.append(ch)
            continue
        if ch not in "mpsz" or not digits:
            raise TileError(f"bad compact hand {text!r} at {ch!r}")
        for d in digits:
            n = int(d)
            if ch == "z":
                if not 1 <= n <= 7:
                    raise TileError(f"honor number must be 1..7 in {text!r}")
                out.append((Kind(26 + n), False))
            elif n == 0:
                out.append((Kind("mps".index(ch) * 9 + 4), True))
            else:
                out.append((Kind("mps".index(ch) * 9 + n - 1), False))
        digits = []
    if digits:
        raise TileError(f"compact hand {text!r} ends without a suit letter")
    return out



def take(alloc: TileAllocator, text: str) -> tuple[Tile, ...]:
    """Physical tiles for a compact text, from ``alloc`` (so no tile is used twice)."""
    return tuple(alloc.take(kind, red) for kind, red in parse_compact(text))


def tiles_from_text(text: str, *, aka: bool = True) -> tuple[Tile, ...]:
    return take(TileAllocator(aka=aka), text)


_MELD_SIZE = {"chi": 3, "pon": 3, "daiminkan": 4, "ankan": 4, "kakan": 4}


def win_from_text(
    hand: str,
    win: str,
    *,
    winner: Seat,
    loser: Seat | None = None,
    melds: Sequence[tuple[MeldKind, str]] = (),
    aka: bool = True,
    **flags: Any,
) -> Win:
    """A :class:`Win` from compact texts. ``melds``: (kind, tiles) pairs such as
    ``("pon", "555z")``, ``("ankan", "1111m")``; ``flags``: the other :class:`Win` fields
    (``riichi=True``, ``ippatsu=True``, ``pao=Seat.S2``, ...)."""
    alloc = TileAllocator(aka=aka)
    built: list[Meld] = []
    for kind, text in melds:
        tiles = take(alloc, text)
        if len(tiles) != _MELD_SIZE[kind]:
            raise TileError(f"a {kind} holds {_MELD_SIZE[kind]} tiles, got {text!r}")
        called = None if kind == "ankan" else tiles[0]
        from_seat = None if kind == "ankan" else (loser if loser is not None else winner.plus(3))
        built.append(Meld(kind=kind, tiles=tiles, called=called, from_seat=from_seat))
    concealed = take(alloc, hand)
    (win_tile,) = take(alloc, win)
    return Win(
        winner=winner,
        loser=loser,
        hand=(*concealed, win_tile),
        win_tile=win_tile,
        melds=tuple(built),
        **flags,
    )
