"""The bots' shanten number: the ``mahjong`` package's ``Shanten.calculate_shanten`` (four
players), computed suit by suit with each suit's part cached.

The bots ask for a shanten number a hundred thousand times a game (every discard candidate, every
useful draw after it), and the package's depth-first search over the whole hand was most of the
CPU of a simulated game, so of every test and demo that plays one. Its search never looks across
a suit: the decompositions it tries of a hand are every combination of the ones it tries of each
suit, so the same search run on one suit at a time (:func:`_suit`, a faithful copy of the
package's ``_RegularShanten._run`` on nine tiles, cached: a suit's nine counts recur all game)
and combined gives the same minimum. What a decomposition contributes is summed (melds, partial
sets, pairs) or merged (whether its isolated tiles are all tiles held four times, the one flag the
package's score reads), so the combination keeps only the distinct totals.

Equal to the package on every hand: ``tests/hil/test_bot_shanten.py`` compares them on random
hands of every size, hands of one suit, of quads and of honours.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from hil.errors import HandSizeError

#: a decomposition's isolated tiles: none; all of them tiles held four times; some other
ISOLATED_NONE, ISOLATED_QUADS, ISOLATED_OTHER = 0, 1, 2
#: (melds, partial sets, pairs, isolated state) of a suit's decomposition
Part = tuple[int, int, int, int]

HONOURS = range(27, 34)
KOKUSHI = (0, 8, 9, 17, 18, 26, *HONOURS)


def shanten(tiles34: Sequence[int], closed: bool) -> int:
    """``Shanten.calculate_shanten(tiles34, use_chiitoitsu=closed, use_kokushi=closed)``."""
    n = sum(tiles34)
    if n > 14 or n % 3 == 0:  # the package refuses these too (its ValueError)
        raise HandSizeError(f"no hand has {n} tiles")
    best = _regular(tiles34, n)
    if n >= 13 and closed:
        best = min(best, _chiitoitsu(tiles34), _kokushi(tiles34))
    return best


def _chiitoitsu(tiles34: Sequence[int]) -> int:
    pairs = sum(1 for x in tiles34 if x >= 2)
    if pairs == 7:
        return -1
    kinds = sum(1 for x in tiles34 if x >= 1)
    return 6 - pairs + (7 - kinds if kinds < 7 else 0)


def _kokushi(tiles34: Sequence[int]) -> int:
    held = sum(1 for i in KOKUSHI if tiles34[i])
    doubled = any(tiles34[i] >= 2 for i in KOKUSHI)
    return 13 - held - (1 if doubled else 0)


def _regular(tiles34: Sequence[int], n: int) -> int:
    # the honours, as the package's _remove_honor_and_terminal_man_tiles takes them
    melds, pairs, jidahai = (14 - n) // 3, 0, 0
    isolated = False  # an honour held once or four times (the package's isolated honours)
    only_quads = True  # ... and none of them held once
    for i in HONOURS:
        c = tiles34[i]
        if c == 4:
            melds += 1
            jidahai += 1
            isolated = True
        elif c == 3:
            melds += 1
        elif c == 2:
            pairs += 1
        elif c == 1:
            isolated = True
            only_quads = False
    if jidahai and n % 3 == 2:
        jidahai -= 1
    state = ISOLATED_NONE if not isolated else (ISOLATED_QUADS if only_quads else ISOLATED_OTHER)
    totals: set[Part] = {(melds, 0, pairs, state)}
    for start in (0, 9, 18):
        parts = _suit(tuple(tiles34[start:start + 9]))
        totals = {(m + pm, t + pt, p + pp, max(s, ps))
                  for m, t, p, s in totals for pm, pt, pp, ps in parts}
    return min(_score(m, t, p, s, jidahai) for m, t, p, s in totals)


def _score(melds: int, tatsu: int, pairs: int, state: int, jidahai: int) -> int:
    """The package's ``_update_result`` for one decomposition of the whole hand."""
    ret = 8 - melds * 2 - tatsu - pairs
    kouho = melds + tatsu
    if pairs:
        kouho += pairs - 1
    elif state == ISOLATED_QUADS:  # isolated tiles, every one of them held four times
        ret += 1
    if kouho > 4:
        ret += kouho - 4
    if ret != -1 and ret < jidahai:
        ret = jidahai
    return ret


@functools.cache
def _suit(counts: tuple[int, ...]) -> frozenset[Part]:
    """Every decomposition the package's search tries of one suit (its ``_run`` on these nine
    counts, step for step), as the distinct :data:`Part` totals."""
    search = _SuitSearch(counts)
    search.run(0, 0, 0, 0, 0)
    return frozenset(search.out)


class _SuitSearch:
    """The package's ``_RegularShanten._run`` (mahjong 2.1.0, MIT licence, (c) 2017 mahjong
    Python library contributors) on one suit: the same branches in the same order, its counters
    passed down instead of kept on the object, a leaf recorded at the suit's end instead of
    scored at the hand's (the package's own pruning at a complete hand changes no minimum)."""

    def __init__(self, counts: tuple[int, ...]) -> None:
        self.t = [*counts, 0, 0, 0]  # every read past the suit is guarded by a position test
        self.four = sum(1 << k for k in range(9) if counts[k] == 4)
        self.out: set[Part] = set()

    def run(self, d: int, m: int, ta: int, p: int, iso: int) -> None:
        t = self.t
        while d < 9 and not t[d]:
            d += 1
        if d >= 9:
            state = ISOLATED_NONE if not iso else (
                ISOLATED_QUADS if not iso & ~self.four else ISOLATED_OTHER)
            self.out.add((m, ta, p, state))
            return
        if t[d] == 4:
            self._four(d, m, ta, p, iso)
        if t[d] == 3:
            self._three(d, m, ta, p, iso)
        if t[d] == 2:
            self._take(d, (2,), 1, m, ta, p + 1, iso)
            if d < 7 and t[d + 2] and t[d + 1]:
                self._take(d, (1, 1, 1), 0, m + 1, ta, p, iso)
        if t[d] == 1:
            self._one(d, m, ta, p, iso)

    def _take(self, d: int, shape: tuple[int, ...], step: int, m: int, ta: int, p: int,
              iso: int) -> None:
        """Take ``shape`` (counts from ``d`` on) out, search on from ``d + step``, put it back."""
        t = self.t
        for k, c in enumerate(shape):
            t[d + k] -= c
        self.run(d + step, m, ta, p, iso)
        for k, c in enumerate(shape):
            t[d + k] += c

    def _partials(self, d: int, m: int, ta: int, p: int, iso: int, *, run: bool) -> None:
        """The package's pattern after a set or a pair at ``d``: a run (searched from ``d`` or
        on, ``run``), or the two partial sets, when the neighbours are there."""
        t = self.t
        if d < 7 and t[d + 2]:
            if t[d + 1]:
                self._take(d, (1, 1, 1), 0 if run else 1, m + 1, ta, p, iso)
            self._take(d, (1, 0, 1), 1, m, ta + 1, p, iso)
        if d < 8 and t[d + 1]:
            self._take(d, (1, 1), 1, m, ta + 1, p, iso)

    def _four(self, d: int, m: int, ta: int, p: int, iso: int) -> None:
        t = self.t
        t[d] -= 3  # a set, then what the fourth tile makes
        self._partials(d, m + 1, ta, p, iso, run=False)
        self._take(d, (1,), 1, m + 1, ta, p, iso | 1 << d)
        t[d] += 3
        t[d] -= 2  # a pair, then what the other two make
        self._partials(d, m, ta, p + 1, iso, run=True)
        t[d] += 2

    def _three(self, d: int, m: int, ta: int, p: int, iso: int) -> None:
        t = self.t
        self._take(d, (3,), 1, m + 1, ta, p, iso)
        t[d] -= 2  # a pair, then a run or the partial sets of the third tile
        if d < 7 and t[d + 1] and t[d + 2]:
            self._take(d, (1, 1, 1), 1, m + 1, ta, p + 1, iso)
        else:
            if d < 7 and t[d + 2]:
                self._take(d, (1, 0, 1), 1, m, ta + 1, p + 1, iso)
            if d < 8 and t[d + 1]:
                self._take(d, (1, 1), 1, m, ta + 1, p + 1, iso)
        t[d] += 2
        if d < 7 and t[d + 2] >= 2 and t[d + 1] >= 2:
            self._take(d, (2, 2, 2), 0, m + 2, ta, p, iso)

    def _one(self, d: int, m: int, ta: int, p: int, iso: int) -> None:
        t = self.t
        if d < 6 and t[d + 1] == 1 and t[d + 2] and t[d + 3] != 4:
            self._take(d, (1, 1, 1), 2, m + 1, ta, p, iso)
            return
        self._take(d, (1,), 1, m, ta, p, iso | 1 << d)
        self._partials(d, m, ta, p, iso, run=False)
