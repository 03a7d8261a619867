"""Tags → tile reads (drivers/tiles/sensor.py, location.py): debounce, unknown, impossible."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.tiles.events import Rejection, RejectReason, TagSeen, TileRead
from drivers.tiles.location import Locations, may_move
from drivers.tiles.places import Place, Zone
from drivers.tiles.registry import TagRegistry, normalize_tag
from drivers.tiles.sensor import TileSensor
from rules.seats import Seat
from rules.tiles import Tile

MS = 1_000_000
TAGS = {f"{0xE0040000 + i:08X}": Tile(i) for i in range(136)}
TAG_OF = {tile: tag for tag, tile in TAGS.items()}
PLACES = {
    **{f"hand{s}": Place(Zone.HAND, Seat(s)) for s in range(4)},
    **{f"river{s}": Place(Zone.RIVER, Seat(s)) for s in range(4)},
    **{f"melds{s}": Place(Zone.MELDS, Seat(s)) for s in range(4)},
    "dora": Place(Zone.DORA),
}


def sensor(window_ns: int = 1000 * MS) -> TileSensor:
    return TileSensor(TagRegistry(TAGS), PLACES, window_ns)


Result = list[TileRead | Rejection]


def feed(s: TileSensor, *seen: tuple[str, int, int]) -> tuple[TileSensor, Result]:
    out = []
    for reader, tile_id, t in seen:
        s, r = s.feed(TagSeen(reader, TAG_OF[Tile(tile_id)], t))
        out.append(r)
    return s, out


def test_a_discard_then_a_call_are_reads_with_their_previous_place() -> None:
    s, out = feed(sensor(), ("hand0", 5, 0), ("river0", 5, 2000 * MS), ("melds1", 5, 4000 * MS))
    assert all(isinstance(r, TileRead) for r in out)
    reads = [r for r in out if isinstance(r, TileRead)]
    assert [r.place for r in reads] == [PLACES["hand0"], PLACES["river0"], PLACES["melds1"]]
    assert [r.previous for r in reads] == [None, PLACES["hand0"], PLACES["river0"]]
    assert s.locations.where(Tile(5)) == PLACES["melds1"]


def test_a_resting_tile_read_over_and_over_is_one_read() -> None:
    s = sensor(1000 * MS)
    out = []
    for i in range(20):  # a reader re-reading a tile every 300 ms for 6 s
        s, r = s.feed(TagSeen("river2", TAG_OF[Tile(40)], i * 300 * MS))
        out.append(r)
    assert isinstance(out[0], TileRead)
    assert all(isinstance(r, Rejection) and r.reason is RejectReason.REPEAT for r in out[1:])
    # lifted and put back after the window: a new placement at the same place
    s, r = s.feed(TagSeen("river2", TAG_OF[Tile(40)], 19 * 300 * MS + 1500 * MS))
    assert isinstance(r, TileRead) and r.previous == r.place


def test_the_same_tag_on_two_readers_is_not_a_repeat_but_may_be_impossible() -> None:
    _, out = feed(sensor(), ("hand1", 7, 0), ("hand2", 7, 10 * MS))
    assert isinstance(out[0], TileRead)
    assert isinstance(out[1], Rejection) and out[1].reason is RejectReason.IMPOSSIBLE
    assert "seat 1 hand" in out[1].detail and "seat 2 hand" in out[1].detail
    assert out[1].tile == Tile(7)


def test_an_impossible_read_leaves_the_tile_where_it_was() -> None:
    s, out = feed(sensor(), ("hand0", 9, 0), ("river0", 9, 2000 * MS), ("hand0", 9, 4000 * MS),
                  ("river3", 9, 6000 * MS), ("melds0", 9, 8000 * MS), ("dora", 9, 9000 * MS))
    assert [type(r) for r in out] == [TileRead, TileRead] + [Rejection] * 4
    assert all(r.reason is RejectReason.IMPOSSIBLE for r in out[2:] if isinstance(r, Rejection))
    assert s.locations.where(Tile(9)) == PLACES["river0"]


def test_unknown_tags_and_unmapped_readers_are_rejected_with_reasons() -> None:
    s = sensor()
    s, r = s.feed(TagSeen("hand0", "DEADBEEF", 0))
    assert isinstance(r, Rejection) and r.reason is RejectReason.UNKNOWN_TAG and r.tile is None
    assert "DEADBEEF" in r.detail
    s, r = s.feed(TagSeen("under-the-table", TAG_OF[Tile(0)], 0))
    assert isinstance(r, Rejection) and r.reason is RejectReason.UNMAPPED_READER
    assert s.locations.places == {}


def test_reset_starts_a_new_hand() -> None:
    s, _ = feed(sensor(), ("river0", 3, 0))
    s = s.reset()
    s, r = s.feed(TagSeen("hand2", TAG_OF[Tile(3)], 10 * MS))
    assert isinstance(r, TileRead) and r.previous is None


def test_moves_are_the_documented_ones() -> None:
    hand0, river0, river1 = PLACES["hand0"], PLACES["river0"], PLACES["river1"]
    assert may_move(hand0, river0) and not may_move(hand0, river1)
    assert may_move(river0, PLACES["melds1"]) and not may_move(river0, PLACES["melds0"])
    assert not may_move(PLACES["dora"], hand0) and may_move(PLACES["dora"], PLACES["dora"])


def test_tag_normalisation_and_registry_refuses_two_tags_for_one_tile() -> None:
    assert normalize_tag(" 04:a1:b2-c3 ") == "04A1B2C3"
    for bad in ("", "04G1", "xyz"):
        try:
            normalize_tag(bad)
        except ValueError as exc:
            assert repr(bad) in str(exc)
        else:
            raise AssertionError(bad)
    try:
        TagRegistry({"0A0B": Tile(1), "0C0D": Tile(1)})
    except ValueError as exc:
        assert "tile 1 has two tags" in str(exc)
    else:
        raise AssertionError("accepted two tags for one tile")


readers = st.sampled_from(sorted(PLACES))


@settings(max_examples=200)
@given(st.lists(st.tuples(readers, st.integers(0, 135), st.integers(0, 3000)), max_size=60))
def test_no_read_is_invented_or_lost(steps: list[tuple[str, int, int]]) -> None:
    s = sensor(500 * MS)
    t = 0
    locs: dict[Tile, Place] = {}
    for reader, tile_id, dt in steps:
        t += dt * MS
        tile = Tile(tile_id)
        before = s.locations
        s, r = s.feed(TagSeen(reader, TAG_OF[tile], t))
        if isinstance(r, TileRead):
            assert r.tile == tile and r.place == PLACES[reader] and r.previous == locs.get(tile)
            assert before.check(tile, PLACES[reader]) is None
            locs[tile] = PLACES[reader]
        else:
            assert r.reason in (RejectReason.REPEAT, RejectReason.IMPOSSIBLE)
            assert s.locations == before
        assert dict(s.locations.places) == locs


def test_locations_refuse_an_impossible_move_directly() -> None:
    loc = Locations().move(Tile(1), PLACES["river0"])
    try:
        loc.move(Tile(1), PLACES["hand0"])
    except ValueError as exc:
        assert "cannot move to seat 0 hand" in str(exc)
    else:
        raise AssertionError("moved a river tile into a hand")
    assert loc.at(PLACES["river0"]) == [Tile(1)]
