"""The bots' shanten (hil/players/shanten.py, suit by suit) equals the ``mahjong`` package's
``Shanten.calculate_shanten`` it replaces: any difference would change the bots' games, so every
seeded game the tests and the demo play. Random hands of every size a hand has (3n+1, 3n+2),
drawn from the whole set and from narrow ones (one suit, the honours, the terminals and honours,
a few kinds: quads and sets of four come up), closed and open."""

from __future__ import annotations

import random

import pytest
from mahjong.shanten import Shanten

from hil.players.shanten import shanten

SIZES = (1, 2, 4, 5, 7, 8, 10, 11, 13, 14)
KINDS = {
    "all": list(range(34)),
    "one suit": list(range(9)),
    "two suits": list(range(9, 27)),
    "honours": list(range(27, 34)),
    "few kinds": [0, 1, 2, 3, 27, 28],
    "suit and an honour": [*range(18, 27), 33],
    "terminals and honours": [0, 8, 9, 17, 18, 26, *range(27, 34)],
}


def _hand(rng: random.Random, kinds: list[int]) -> list[int]:
    n = rng.choice(SIZES)
    counts = [0] * 34
    while sum(counts) < n:
        k = rng.choice(kinds)
        if counts[k] < 4:
            counts[k] += 1
    return counts


@pytest.mark.parametrize("name", sorted(KINDS))
def test_the_bots_shanten_is_the_mahjong_package_s(name: str) -> None:
    rng = random.Random(name)
    for _ in range(3000):
        counts = _hand(rng, KINDS[name])
        closed = rng.random() < 0.7
        want = Shanten.calculate_shanten(counts, use_chiitoitsu=closed, use_kokushi=closed)
        assert shanten(counts, closed) == want, (counts, closed)


@pytest.mark.parametrize(("hand", "closed"), [
    ([4, 4, 4, 1] + [0] * 30, True),  # quads taken as isolated tiles: the package's +1
    ([0] * 27 + [4, 4, 3, 2, 1, 0, 0], True),  # honour quads (jidahai)
    ([0] * 27 + [4, 4, 4, 2, 0, 0, 0], False),
    ([1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 1] + [0] * 7 + [1] * 8, True),
    ([2, 2, 2, 2, 2, 2, 1, 1] + [0] * 26, True),  # chiitoitsu tenpai
])
def test_edge_hands(hand: list[int], closed: bool) -> None:
    want = Shanten.calculate_shanten(hand, use_chiitoitsu=closed, use_kokushi=closed)
    assert shanten(hand, closed) == want


def test_a_hand_of_a_size_no_hand_has_is_refused_as_the_package_refuses_it() -> None:
    for counts in ([1, 1, 1] + [0] * 31, [4, 4, 4, 3] + [0] * 30):
        with pytest.raises(ValueError):
            Shanten.calculate_shanten(counts)
        with pytest.raises(ValueError):
            shanten(counts, True)
