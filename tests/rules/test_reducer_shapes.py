"""rules/hand_shape.py against the ``mahjong`` package (agari, shanten) on random hands, and the
kan-after-riichi test on the textbook cases."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mahjong.agari import Agari
from mahjong.shanten import Shanten

from hil.hand_notation import parse_compact
from rules import hand_shape
from rules.hand_shape import Block, ankan_keeps_hand, counts_of_kinds, decompositions
from rules.tiles import Kind


def c(text: str) -> hand_shape.Counts:
    return counts_of_kinds(k.value for k, _ in parse_compact(text))


# random hands: draw n kinds from a 136-tile multiset (at most 4 per kind)
def hands(n: int) -> st.SearchStrategy[hand_shape.Counts]:
    return st.permutations(list(range(136))).map(
        lambda p: counts_of_kinds(i // 4 for i in p[:n]))


# structured hands are far likelier to be complete or tenpai than random draws
def structured(n_sets: int) -> st.SearchStrategy[hand_shape.Counts]:
    block = st.one_of(
        st.integers(0, 33).map(lambda k: [k, k, k]),
        st.integers(0, 26).filter(lambda k: k % 9 <= 6).map(lambda k: [k, k + 1, k + 2]),
    )
    return st.tuples(st.lists(block, min_size=n_sets, max_size=n_sets),
                     st.integers(0, 33)).map(
        lambda t: counts_of_kinds([*[k for b in t[0] for k in b], t[1], t[1]]))


@settings(max_examples=300)
@given(st.one_of(hands(14), structured(4), hands(11), structured(3)))
def test_complete_agrees_with_the_package(counts: hand_shape.Counts) -> None:
    if max(counts) > 4:
        return
    assert hand_shape.is_complete(counts) == Agari.is_agari(list(counts))


@settings(max_examples=300)
@given(st.one_of(hands(13), structured(4).map(lambda c: _minus_one(c)), hands(10)))
def test_tenpai_agrees_with_shanten(counts: hand_shape.Counts) -> None:
    if max(counts) > 4:
        return
    pkg_tenpai = Shanten.calculate_shanten(list(counts)) == 0
    waits = hand_shape.waits(counts)
    if waits:
        assert pkg_tenpai
        for w in waits:
            plus = list(counts)
            plus[w] += 1
            assert Agari.is_agari(plus)
    elif pkg_tenpai:
        # the package counts a wait on a fifth tile; we do not (M 3-11-2)
        assert all(counts[k] == 4 for k in range(34) if _completes(counts, k))


def _minus_one(counts: hand_shape.Counts) -> hand_shape.Counts:
    lst = list(counts)
    k = max(range(34), key=lambda i: (lst[i], i))
    lst[k] -= 1
    return tuple(lst)


def _completes(counts: hand_shape.Counts, k: int) -> bool:
    plus = list(counts)
    plus[k] += 1
    return Agari.is_agari(plus)


def test_decompositions_list_every_reading() -> None:
    decs = decompositions(c("11122233344455m"))
    assert len(decs) >= 2
    assert all(any(b.kind == "pair" for b in d) for d in decs)
    assert (Block("pair", Kind.M5.value), Block("triplet", 0), Block("triplet", 1),
            Block("triplet", 2), Block("triplet", 3)) in decs
    assert decompositions(c("123m")) == ()


def test_special_shapes() -> None:
    assert hand_shape.is_seven_pairs(c("1122m3344p5566s77z"))
    assert hand_shape.is_kokushi(c("19m19p19s12345677z"))
    assert hand_shape.waits(c("19m19p19s1234567z")) == tuple(
        k.value for k in Kind if k.is_yaochu)
    assert hand_shape.yaochu_kinds(c("19m19p19s123z456m")) == 9


def test_all_four_held_is_no_wait() -> None:
    # 1111m + 234p 567p 789s: only a 5th 1m would "complete" a 1m tanki: not tenpai
    assert hand_shape.waits(c("1111m234p567p789s")) == ()
    assert hand_shape.waits(c("111m234p567p789s2z")) == (Kind.SOUTH.value,)


@pytest.mark.parametrize(
    ("hand", "drawn", "kind", "mode", "ok"),
    [
        ("111m234p567p789s2z", "1m", "1m", "strict", True),
        ("111m234p567p789s2z", "1m", "1m", "never", False),
        ("111m234p567p789s2z", "2z", "1m", "wait", False),  # not with the drawn tile
        ("1112m567p789s222z", "1m", "1m", "wait", False),  # 2m/3m → 2m only
        ("11122233m789s22z", "1m", "1m", "wait", True),  # wait 3m, 2z either way
        ("11122233m789s22z", "1m", "1m", "composition", False),  # 123m x3 reading
        ("11122233m789s22z", "1m", "1m", "strict", False),
        ("3334m567p789s222z", "3m", "3m", "wait", False),
    ],
)
def test_ankan_after_riichi(hand: str, drawn: str, kind: str, mode: hand_shape.AnkanAfterRiichi,
                            ok: bool) -> None:
    d = parse_compact(drawn)[0][0].value
    k = parse_compact(kind)[0][0].value
    assert ankan_keeps_hand(mode, c(hand), d, k)[0] is ok


def _suit_vectors(n: int, total: int) -> list[tuple[int, ...]]:
    if n == 0:
        return [()] if total == 0 else []
    return [(x, *rest) for x in range(min(4, total) + 1)
            for rest in _suit_vectors(n - 1, total - x)]


@pytest.mark.parametrize("total", [2, 5, 11, 14])
def test_suit_by_suit_completeness_equals_listing_decompositions(total: int) -> None:
    """``is_complete`` decides suit by suit (issue 20); listing every decomposition is the
    definition: every hand of ``total`` tiles in one suit, and in honors (mixed hands: below)."""
    for v in _suit_vectors(9, total):
        t = (*v, *(0,) * 25)
        assert hand_shape._is_standard(t) == bool(decompositions(t)), t
    for v in _suit_vectors(7, total):
        t = (0,) * 27 + v
        assert hand_shape._is_standard(t) == bool(decompositions(t)), t


@settings(max_examples=300)
@given(st.one_of(hands(14), structured(4), hands(11), structured(3), hands(13)))
def test_standard_shape_on_mixed_hands(counts: hand_shape.Counts) -> None:
    assert hand_shape._is_standard(counts) == bool(decompositions(counts))


@settings(max_examples=200)
@given(st.permutations(list(range(136))), st.sampled_from([1, 4, 7, 10, 13]))
def test_completes_is_is_complete_of_the_counts(perm: list[int], n: int) -> None:
    from rules.tiles import ALL_TILES, BY_ID

    tiles = tuple(sorted((ALL_TILES[i] for i in perm[:n]), key=BY_ID))
    tile = ALL_TILES[perm[n]]
    assert hand_shape.completes(tiles, tile) == hand_shape.is_complete(
        hand_shape.counts_of((*tiles, tile)))
