"""Enrolment of a tile set's tags (drivers/tiles/enroll.py): guided order, refusals, resume."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drivers.tiles.enroll import Enrolment, describe, load, save
from drivers.tiles.errors import EnrolmentError
from rules.tiles import ALL_TILES, Tile


def tag(i: int) -> str:
    return f"E004{i:06X}"


def test_guided_order_is_tile_id_order_and_names_the_red_fives() -> None:
    state = Enrolment(aka=True)
    asked = []
    for i in range(20):
        nxt = state.next_tile()
        assert nxt is not None
        asked.append(describe(nxt, state.aka))
        state = state.scan(tag(i))
    assert asked[0] == "1m copy 1 of 4 [tile 0]"
    assert asked[16] == "5m (red) [tile 16]"
    assert asked[17] == "5m copy 2 of 4 [tile 17]"
    assert describe(Tile(16), aka=False) == "5m copy 1 of 4 [tile 16]"
    assert state.by_tile[Tile(19)] == tag(19)


def test_a_full_set_completes_and_becomes_a_registry() -> None:
    state = Enrolment()
    for i in range(136):
        state = state.scan(tag(i))
    assert state.complete and state.next_tile() is None
    reg = state.registry()
    assert reg.complete and reg.tile(tag(135)) == Tile(135)
    with pytest.raises(EnrolmentError, match="complete"):
        state.scan("FFFFFFFF")


def test_the_same_tag_twice_is_refused_naming_both_tiles() -> None:
    state = Enrolment().scan("04A1B2C3").scan("04A1B2C4")
    with pytest.raises(EnrolmentError) as exc:
        state.scan("04:a1:b2:c3")
    msg = str(exc.value)
    assert "04A1B2C3 is already enrolled for 1m copy 1 of 4 [tile 0]" in msg
    assert "refused for 1m copy 3 of 4 [tile 2]" in msg
    assert state.next_tile() == Tile(2)  # nothing changed


def test_a_second_tag_for_an_enrolled_tile_is_refused() -> None:
    state = Enrolment().scan("0A0B0C0D", Tile(100))
    with pytest.raises(EnrolmentError, match=r"\[tile 100\] already has tag 0A0B0C0D"):
        state.scan("0A0B0C0E", Tile(100))
    assert state.forget("0A0B0C0D").scan("0A0B0C0E", Tile(100)).by_tile[Tile(100)] == "0A0B0C0E"
    assert state.next_tile() == Tile(0)


def test_bad_tags_are_refused() -> None:
    with pytest.raises(EnrolmentError, match="not a tag id"):
        Enrolment().scan("hello")
    with pytest.raises(EnrolmentError, match="not enrolled"):
        Enrolment().forget("0A0B")


def test_state_file_round_trips_and_resumes(tmp_path: Path) -> None:
    path = tmp_path / "set-a.json"
    state = Enrolment(aka=False)
    for i in range(50):
        state = state.scan(tag(i))
        save(state, path)
    resumed = load(path)
    assert resumed == state and resumed.next_tile() == Tile(50) and not resumed.aka
    doc = json.loads(path.read_text())
    assert doc["format"] == "jantaku-tile-enrolment" and doc["tags"][tag(7)] == 7
    assert not (tmp_path / "set-a.json.tmp").exists()


@pytest.mark.parametrize(
    ("doc", "why"),
    [
        ({"format": "x"}, "not a jantaku-tile-enrolment"),
        ({"format": "jantaku-tile-enrolment", "version": 9, "aka": True, "tags": {}}, "version"),
        ({"format": "jantaku-tile-enrolment", "version": 1, "aka": True, "tags": {"0A0B": 136}},
         "0..135"),
        ({"format": "jantaku-tile-enrolment", "version": 1, "aka": True,
          "tags": {"0A0B": 1, "0A0C": 1}}, "already has tag"),
    ],
)
def test_a_corrupt_state_file_is_refused_with_its_path(tmp_path: Path, doc: object,
                                                       why: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(EnrolmentError, match=why) as exc:
        load(path)
    assert str(path) in str(exc.value)


@given(st.lists(st.integers(0, 300), max_size=200))
def test_enrolment_never_gives_one_tag_two_tiles_or_one_tile_two_tags(scans: list[int]) -> None:
    state = Enrolment()
    for s in scans:
        with contextlib.suppress(EnrolmentError):
            state = state.scan(tag(s))
    assert len(set(state.tags.values())) == len(state.tags)
    # guided order: the enrolled tiles are exactly the first N
    assert sorted(t.id for t in state.tags.values()) == [t.id for t in ALL_TILES[: len(state.tags)]]
    assert len(state.tags) == min(len(set(scans)), 136)
