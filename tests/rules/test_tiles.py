"""Tiles: ids, kinds, and lossless mjai / tenhou.net/6 / 136 conversions, red fives included."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from mahjong.tile import TilesConverter

from hil.hand_notation import parse_compact
from rules.tiles import (
    ALL_TILES,
    BY_ID,
    RED_IDS,
    Kind,
    Tile,
    TileAllocator,
    TileError,
    kinds_to_34,
    parse_mjai,
    parse_tenhou,
)


def test_kind_numbering_matches_the_mahjong_package() -> None:
    names = ([f"{n}m" for n in range(1, 10)] + [f"{n}p" for n in range(1, 10)]
             + [f"{n}s" for n in range(1, 10)] + list("ESWNPFC"))
    assert [k.mjai for k in Kind] == names
    assert [k.tenhou for k in Kind] == (
        list(range(11, 20)) + list(range(21, 30)) + list(range(31, 40)) + list(range(41, 48)))
    # the package's 136 ids: man 0-35, pin 36-71, sou 72-107, honors 108-135
    assert TilesConverter.string_to_136_array(man="1") == [Tile(0).id]
    assert TilesConverter.string_to_136_array(pin="1") == [Kind.P1.value * 4]
    assert TilesConverter.string_to_136_array(honors="7") == [Kind.CHUN.value * 4]


@pytest.mark.parametrize("aka", [True, False])
def test_every_tile_round_trips_through_mjai_and_tenhou(aka: bool) -> None:
    for tile in ALL_TILES:
        kind, red = parse_mjai(tile.mjai(aka))
        assert kind == tile.kind and red == (aka and tile.id in RED_IDS)
        kind2, red2 = parse_tenhou(tile.tenhou(aka))
        assert (kind2, red2) == (kind, red)


def test_red_fives() -> None:
    assert sorted(RED_IDS) == [16, 52, 88]
    assert [Tile(i).mjai() for i in (16, 52, 88)] == ["5mr", "5pr", "5sr"]
    assert [Tile(i).tenhou() for i in (16, 52, 88)] == [51, 52, 53]
    assert [Tile(i).mjai(aka=False) for i in (16, 52, 88)] == ["5m", "5p", "5s"]
    assert [Tile(i).tenhou(aka=False) for i in (16, 52, 88)] == [15, 25, 35]
    assert Tile(17).mjai() == "5m" and not Tile(17).is_red()
    assert parse_tenhou(52) == (Kind.P5, True)
    assert parse_mjai("5sr") == (Kind.S5, True)


@given(st.permutations(list(range(136))), st.booleans())
def test_allocator_reproduces_a_whole_set_losslessly(order: list[int], aka: bool) -> None:
    """mjai names → physical tiles → names: the same names, and 136 distinct ids."""
    names = [Tile(i).mjai(aka) for i in order]
    alloc = TileAllocator(aka=aka)
    tiles = [alloc.take(*parse_mjai(n)) for n in names]
    assert [t.mjai(aka) for t in tiles] == names
    assert sorted(t.id for t in tiles) == list(range(136))
    alloc = TileAllocator(aka=aka)
    back = [alloc.take(*parse_tenhou(Tile(i).tenhou(aka))) for i in order]
    assert [t.tenhou(aka) for t in back] == [Tile(i).tenhou(aka) for i in order]


def test_allocator_refuses_a_fifth_copy_and_a_second_red() -> None:
    alloc = TileAllocator(aka=True)
    for _ in range(3):
        assert not alloc.take(*parse_mjai("5m")).is_red()
    with pytest.raises(TileError, match="no 5m left"):
        alloc.take(*parse_mjai("5m"))
    assert alloc.take(*parse_mjai("5mr")).id == 16
    with pytest.raises(TileError, match="red 5m"):
        alloc.take(*parse_mjai("5mr"))
    plain = TileAllocator(aka=False)
    with pytest.raises(TileError, match="without red fives"):
        plain.take(*parse_mjai("5pr"))
    assert [plain.take(*parse_mjai("5p")).id for _ in range(4)] == [52, 53, 54, 55]
    plain.release(Tile(53))
    assert plain.take(*parse_mjai("5p")).id == 53
    assert len(list(plain.remaining())) == 132


@pytest.mark.parametrize("bad", ["0m", "5x", "10m", "5mr ", "Z", "6mr", "", "?"])
def test_bad_mjai_names(bad: str) -> None:
    with pytest.raises(TileError):
        parse_mjai(bad)


@pytest.mark.parametrize("bad", [10, 20, 48, 50, 54, 0, 99, True])
def test_bad_tenhou_codes(bad: int) -> None:
    with pytest.raises(TileError):
        parse_tenhou(bad)


def test_bad_ids() -> None:
    for bad in (-1, 136, True):
        with pytest.raises(TileError):
            Tile(bad)


def test_compact_notation() -> None:
    got = parse_compact("123m0p55s777z")
    assert got == [(Kind.M1, False), (Kind.M2, False), (Kind.M3, False), (Kind.P5, True),
                   (Kind.S5, False), (Kind.S5, False), (Kind.CHUN, False), (Kind.CHUN, False),
                   (Kind.CHUN, False)]
    for bad in ("12", "8z", "m1"):
        with pytest.raises(TileError):
            parse_compact(bad)


def test_dora_from_indicator_cycles() -> None:
    """S §24-3: the dora is the kind after the indicator: 9→1, E→S→W→N→E, P→F→C→P."""
    assert Kind.M9.dora_from_indicator() == Kind.M1
    assert Kind.P4.dora_from_indicator() == Kind.P5
    assert Kind.NORTH.dora_from_indicator() == Kind.EAST
    assert Kind.WEST.dora_from_indicator() == Kind.NORTH
    assert Kind.CHUN.dora_from_indicator() == Kind.HAKU
    assert Kind.HAKU.dora_from_indicator() == Kind.HATSU


def test_kind_properties_and_counts() -> None:
    assert [k for k in Kind if k.is_yaochu] == [
        Kind.M1, Kind.M9, Kind.P1, Kind.P9, Kind.S1, Kind.S9, Kind.EAST, Kind.SOUTH,
        Kind.WEST, Kind.NORTH, Kind.HAKU, Kind.HATSU, Kind.CHUN]
    assert Kind.P7.number == 7 and Kind.CHUN.number == 7
    counts = kinds_to_34([Tile(0), Tile(1), Tile(135)])
    assert counts[0] == 2 and counts[33] == 1 and sum(counts) == 3


def test_tiles_are_interned_and_keep_their_value_semantics() -> None:
    """One object per tile id (issue 20: equality is identity), through every way a tile is
    made again: the constructor, copies, pickles, ``dataclasses.replace`` and ``rules.evolve``."""
    import copy
    import dataclasses
    import pickle

    from rules.evolve import replace

    for i in (0, 16, 135):
        t = Tile(i)
        assert t is ALL_TILES[i]
        assert copy.copy(t) is t and copy.deepcopy(t) is t
        assert pickle.loads(pickle.dumps(t, protocol=pickle.HIGHEST_PROTOCOL)) is t
        assert dataclasses.replace(t, id=3) is ALL_TILES[3]
        assert replace(t, id=5) is ALL_TILES[5]
        assert hash(t) == hash((i,))  # a dataclass's hash: set order unchanged
    # no order of their own (an ordering method in Python would route every equality test
    # through Python): sorted by id with BY_ID
    assert sorted([Tile(9), Tile(2), Tile(5)], key=BY_ID) == [Tile(2), Tile(5), Tile(9)]
    with pytest.raises(TypeError):
        _ = Tile(3) < Tile(4)  # type: ignore[operator]
    with pytest.raises(TypeError):
        sorted([Tile(9), Tile(2)])  # type: ignore[type-var]
    assert Tile.__eq__ is object.__eq__
    assert not {"__lt__", "__le__", "__gt__", "__ge__", "__eq__"} & set(Tile.__dict__)
    assert Tile(5) != 5  # type: ignore[comparison-overlap]
    assert Tile(5) != Tile(6)
    with pytest.raises(TypeError):
        _ = Tile(1) < 2  # type: ignore[operator]
    with pytest.raises(dataclasses.FrozenInstanceError):
        Tile(1).id = 2  # type: ignore[misc]
    for bad in (-1, 136, True, "1"):
        with pytest.raises(TileError):
            Tile(bad)  # type: ignore[arg-type]


def test_mjai_names_from_the_tables_match_the_notation() -> None:
    for t in ALL_TILES:
        plain = t.kind.mjai
        assert t.mjai(False) == plain
        assert t.mjai(True) == plain + ("r" if t.id in RED_IDS else "")
        assert parse_mjai(t.mjai(True)) == (t.kind, t.id in RED_IDS)
