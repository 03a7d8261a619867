"""Hand shapes: complete hands, decompositions, waits and tenpai, on 34-kind count vectors.

Pure helpers for the hand reducer: a win must be a complete shape, tenpai at a draw is checked
where the tiles are known, and a kan after riichi must keep the wait (and, where the ruleset asks,
the set composition: S §43-11, M 4-5-2 / 4-8-8). The ``mahjong`` package's shanten and agari
code cross-checks these in the tests; decompositions of the concealed part (any number of melds
beside it) are enumerated here because the package only divides full 14-tile hands.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from operator import attrgetter, itemgetter
from typing import Literal

from mahjong.shanten import Shanten

from rules.tiles import Kind, Tile

Counts = tuple[int, ...]
BlockKind = Literal["pair", "triplet", "sequence"]

YAOCHU: tuple[int, ...] = tuple(k.value for k in Kind if k.is_yaochu)


@dataclass(frozen=True, slots=True, order=True)
class Block:
    kind: BlockKind
    first: int  # the 34-kind of the block's lowest tile


def counts_of(tiles: Iterable[Tile]) -> Counts:
    c = [0] * 34
    for t in tiles:
        c[t.id >> 2] += 1
    return tuple(c)


_ID = attrgetter("id")
#: ``bytes.translate`` table from a tile id to its kind (ids stop at 135; the rest is padding)
_KIND_OF_ID = bytes(i >> 2 for i in range(136)) + bytes(256 - 136)


#: one byte, the kind of each tile id
_KIND_BYTE = tuple(bytes((i >> 2,)) for i in range(136))
#: id(hand) -> (hand, its kinds as bytes), for hands held as tuples: a hand stays the same
#: object until it changes, and the three other seats' discards each ask about it. The entry
#: holds the hand, so its id is not reused while the entry lives; bounded by clearing.
_KINDS_OF: dict[int, tuple[Sequence[Tile], bytes]] = {}
_KINDS_KEPT = 1024


#: the answers of :func:`completes` by the kinds asked about (the hand's, then the tile's):
#: a dict rather than ``lru_cache``, whose key tuple and recency list cost as much as the look-up
#: (three look-ups a discard); bounded by clearing
_COMPLETE: dict[bytes, bool] = {}
_COMPLETE_KEPT = 65536


def completes(tiles: Sequence[Tile], tile: Tile) -> bool:
    """``is_complete(counts_of((*tiles, tile)))``: kept by the tiles' kinds as bytes, which C
    makes from the tiles without a Python loop (every discard asks it of three hands)."""
    kept = _KINDS_OF.get(id(tiles))
    key = (kept[1] if kept is not None and kept[0] is tiles else _kinds(tiles)) + _KIND_BYTE[
        tile.id]
    done = _COMPLETE.get(key)
    return _completes_new(key) if done is None else done


def _kinds(tiles: Sequence[Tile]) -> bytes:
    """The kinds of ``tiles`` as bytes, kept for a tuple (see :data:`_KINDS_OF`)."""
    kinds = bytes(map(_ID, tiles)).translate(_KIND_OF_ID)
    if tiles.__class__ is tuple:
        if len(_KINDS_OF) >= _KINDS_KEPT:
            _KINDS_OF.clear()
        _KINDS_OF[id(tiles)] = (tiles, kinds)
    return kinds


def _completes_new(key: bytes) -> bool:
    if len(_COMPLETE) >= _COMPLETE_KEPT:
        _COMPLETE.clear()
    done = _COMPLETE[key] = is_complete(counts_of_kinds(key))
    return done


def counts_of_kinds(kinds: Iterable[int]) -> Counts:
    c = [0] * 34
    for k in kinds:
        c[k] += 1
    return tuple(c)


def _add(counts: Counts, kind: int, n: int = 1) -> Counts:
    c = list(counts)
    c[kind] += n
    return tuple(c)


@lru_cache(maxsize=65536)
def _sets(counts: Counts) -> tuple[tuple[Block, ...], ...]:
    """Every way to split ``counts`` into triplets and sequences (no pair)."""
    i = next((k for k, n in enumerate(counts) if n), -1)
    if i < 0:
        return ((),)
    out: list[tuple[Block, ...]] = []
    if counts[i] >= 3:
        for rest in _sets(_add(counts, i, -3)):
            out.append((Block("triplet", i), *rest))
    if i < 27 and i % 9 <= 6 and counts[i + 1] and counts[i + 2]:
        c = list(counts)
        c[i] -= 1
        c[i + 1] -= 1
        c[i + 2] -= 1
        for rest in _sets(tuple(c)):
            out.append((Block("sequence", i), *rest))
    return tuple(out)


@lru_cache(maxsize=16384)
def decompositions(counts: Counts) -> tuple[tuple[Block, ...], ...]:
    """All standard decompositions (sets + one pair) of a concealed part of 3n+2 tiles, each
    sorted, in a deterministic order. Seven pairs and kokushi are not listed (see
    :func:`is_complete`)."""
    if sum(counts) % 3 != 2:
        return ()
    out: set[tuple[Block, ...]] = set()
    for k in range(34):
        if counts[k] >= 2:
            for rest in _sets(_add(counts, k, -2)):
                out.add(tuple(sorted((Block("pair", k), *rest))))
    return tuple(sorted(out))


def is_seven_pairs(counts: Counts) -> bool:
    return sum(counts) == 14 and counts.count(2) == 7  # (C counts, not a generator)


_YAOCHU_COUNTS = itemgetter(*YAOCHU)


def is_kokushi(counts: Counts) -> bool:
    if sum(counts) != 14:
        return False
    yaochu: tuple[int, ...] = _YAOCHU_COUNTS(counts)  # every terminal and honor, one C call
    return 0 not in yaochu and sum(yaochu) == 14


@lru_cache(maxsize=65536)
def is_complete(counts: Counts) -> bool:
    """A winning shape for the concealed part (melds beside it are complete sets). A kind
    more than four times is none (callers rely on it: a fifth copy never completes a hand)."""
    if counts and (max(counts) > 4 or min(counts) < 0):  # (C, not a generator: the cold path)
        return False
    return _is_standard(counts) or is_seven_pairs(counts) or is_kokushi(counts)


def _is_standard(counts: Counts) -> bool:
    """``bool(decompositions(counts))`` without listing them (a draw asks this of every hand
    it passes, mostly hands that are not complete): sets never span two suits, so the hand is
    complete when the one suit holding 3n+2 tiles splits into sets and a pair and every other
    suit into sets. Each suit's answer is kept by its own nine counts, which recur far more
    often than whole hands."""
    pair_suit = -1
    for g in range(4):
        r = sum(counts[9 * g:9 * g + 9]) % 3
        if r == 1 or (r == 2 and pair_suit >= 0):
            return False
        if r == 2:
            pair_suit = g
    if pair_suit < 0:
        return False
    return all(_suit_splits(counts[9 * g:9 * g + 9], g == 3, g == pair_suit) for g in range(4))


@lru_cache(maxsize=16384)
def _suit_splits(suit: Counts, honors: bool, pair: bool) -> bool:
    """Do one suit's counts split into sets (and one pair, with ``pair``)?"""
    if pair:
        return any(n >= 2 and _suit_splits(_add(suit, k, -2), honors, False)
                   for k, n in enumerate(suit))
    if honors:
        return all(n % 3 == 0 for n in suit)
    c = list(suit)
    for i in range(9):
        # The tiles of the lowest kind left that are not a triplet start sequences (three
        # sequences from one kind are three triplets, so this loses no reading).
        r = c[i] % 3
        if r:
            if i > 6 or c[i + 1] < r or c[i + 2] < r:
                return False
            c[i + 1] -= r
            c[i + 2] -= r
    return True


@lru_cache(maxsize=16384)
def waits(counts: Counts, held: Counts | None = None) -> tuple[int, ...]:
    """Kinds that complete a concealed part of 3n+1 tiles. A kind whose four copies are all in
    the hand and its melds (``held``) is no wait (M 3-11-2)."""
    if sum(counts) % 3 != 1:
        return ()
    held = held if held is not None else counts
    return tuple(k for k in range(34) if held[k] < 4 and is_complete(_add(counts, k)))


def wins_on(counts: Counts, kind: int, held: Counts | None = None) -> bool:
    """Does ``kind`` complete the concealed part (3n+1 tiles)? One check, not all waits."""
    held = held if held is not None else counts
    return sum(counts) % 3 == 1 and held[kind] < 4 and is_complete(_add(counts, kind))


@lru_cache(maxsize=65536)
def shanten(counts: Counts) -> int:
    """The ``mahjong`` package's shanten number (-1 complete, 0 tenpai)."""
    return int(Shanten.calculate_shanten(list(counts)))


def yaochu_kinds(counts: Counts) -> int:
    """Distinct terminal and honor kinds (nine terminals abort, tenhou rules)."""
    return sum(1 for k in YAOCHU if counts[k])


AnkanAfterRiichi = Literal["strict", "composition", "wait", "never"]


def ankan_keeps_hand(
    mode: AnkanAfterRiichi, before: Counts, drawn: int, kind: int
) -> tuple[bool, str]:
    """May a riichi hand (``before`` = its 13 concealed tiles before the draw) declare an ankan
    of ``kind`` after drawing ``drawn``? Returns ``(allowed, why)``.

    * ``never`` (C-sum, μ §51(10)): no kan after riichi.
    * every other mode: only with the drawn tile (S §43-11; M 4-8-8), and the wait must stay the
      same (Tenhou: ``wait``);
    * ``composition`` (M 4-5-2, 4-8-8) and ``strict`` (S §43-11): in every reading of every
      winning hand the kan's tiles are a triplet, so the sets are unchanged. [I] ``strict`` also
      asks the yaku to stay the same: with the sets and the wait unchanged, the kan itself is the
      only change (sankantsu/suukantsu are judged by the scorer, not here).
    """
    if mode == "never":
        return False, "no kan after riichi"
    if drawn != kind:
        return False, "only the drawn tile may complete a kan after riichi"
    if before[kind] != 3:
        return False, "the hand does not hold three of the drawn tile"
    # A kind whose four copies the player now holds (the drawn one included) is no wait.
    held = _add(before, drawn)
    w_before = waits(before, held)
    if not w_before:
        return False, "the riichi hand is not tenpai"
    after = _add(before, kind, -3)
    w_after = waits(after, held)
    if w_after != w_before:
        return False, f"the wait changes from {_names(w_before)} to {_names(w_after)}"
    if mode == "wait":
        return True, "wait unchanged"
    for w in w_before:
        full = _add(before, w)
        if is_seven_pairs(full) or is_kokushi(full):
            return False, "the kan breaks a seven-pairs or kokushi reading"
        for dec in decompositions(full):
            if Block("triplet", kind) not in dec:
                return False, f"with {Kind(w).mjai} the {Kind(kind).mjai} are not a triplet"
    return True, "sets and wait unchanged"


def _names(kinds: Sequence[int]) -> str:
    return " ".join(Kind(k).mjai for k in kinds) or "none"
