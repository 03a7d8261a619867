"""Voting over frames (drivers/tiles/voting.py) and zone assignment (camera.py), pure."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.tiles.camera import CameraTiles, CameraZone, assign
from drivers.tiles.detector import Detection
from drivers.tiles.places import Place, Zone
from drivers.tiles.voting import Change, VoteRule, ZoneVotes
from rules.seats import Seat
from rules.tiles import Kind


def det(kind: Kind, conf: float, x: int = 10, y: int = 10) -> Detection:
    return Detection(kind, conf, (x, y, x + 30, y + 40))


def run(rule: VoteRule, frames: list[list[Detection]]) -> tuple[ZoneVotes, list[list[Change]]]:
    state = ZoneVotes(rule)
    out = []
    for f in frames:
        state, changes = state.feed(f)
        out.append(changes)
    return state, out


def test_a_tile_is_reported_on_its_nth_winning_frame_with_the_mean_confidence() -> None:
    rule = VoteRule(need=3, window=5, threshold=0.5)
    frames = [[det(Kind.M1, 0.9)], [], [det(Kind.M1, 0.7)], [det(Kind.M1, 0.8)]]
    state, changes = run(rule, frames)
    assert changes[:3] == [[], [], []]
    (c,) = changes[3]
    assert (c.kind, c.appeared, c.count) == (Kind.M1, True, 1)
    assert c.confidence == pytest.approx(0.8)
    assert state.tiles() == [(Kind.M1, 1)]


def test_detections_below_the_threshold_never_vote() -> None:
    rule = VoteRule(need=2, window=3, threshold=0.6)
    state, changes = run(rule, [[det(Kind.P5, 0.59)]] * 5)
    assert state.tiles() == [] and all(c == [] for c in changes)


def test_copies_of_a_kind_are_counted() -> None:
    rule = VoteRule(need=2, window=3, threshold=0.5)
    two = [det(Kind.EAST, 0.9), det(Kind.EAST, 0.6, x=50)]
    state, changes = run(rule, [two, [det(Kind.EAST, 0.9)], two])
    assert changes[1] == [Change(Kind.EAST, True, 1, pytest.approx(0.9))]  # type: ignore[arg-type]
    assert changes[2] == [Change(Kind.EAST, True, 2, pytest.approx(0.6))]  # type: ignore[arg-type]
    assert state.tiles() == [(Kind.EAST, 2)]


def test_a_tile_vanishes_when_it_loses_the_vote() -> None:
    rule = VoteRule(need=2, window=3, threshold=0.5)
    state, changes = run(rule, [[det(Kind.S9, 0.8)]] * 3 + [[], []])
    assert changes[3] == []  # 2 of the last 3 frames still have it
    (c,) = changes[4]
    assert (c.kind, c.appeared, c.count) == (Kind.S9, False, 0)
    assert state.tiles() == []


def test_bad_rules_are_refused() -> None:
    with pytest.raises(ValueError, match=r"need must be 1\.\.window"):
        VoteRule(need=4, window=3)
    with pytest.raises(ValueError, match="threshold"):
        VoteRule(threshold=1.5)


kinds = st.sampled_from([Kind.M1, Kind.P5, Kind.S9, Kind.CHUN])
frames_st = st.lists(st.tuples(kinds, st.floats(0, 1)), max_size=5)


@settings(max_examples=200)
@given(frames_st, st.lists(frames_st, min_size=1, max_size=2), st.integers(0, 3))
def test_a_minority_of_bad_frames_changes_nothing(
    good: list[tuple[Kind, float]], bad: list[list[tuple[Kind, float]]], where: int
) -> None:
    rule = VoteRule(need=3, window=5, threshold=0.5)
    clean = [det(k, c) for k, c in good]
    state, _ = run(rule, [clean] * 5)
    expected = state.tiles()
    truth: dict[Kind, int] = {}
    for k, c in good:
        if c >= 0.5:
            truth[k] = truth.get(k, 0) + 1
    assert expected == sorted(truth.items())
    frames = [clean] * 3
    for i, b in enumerate(bad):  # up to 2 faulty frames anywhere among 3 good ones
        frames.insert(min(where + i, len(frames)), [det(k, c) for k, c in b])
    for f in frames:
        state, changes = state.feed(f)
        assert changes == []
    assert state.tiles() == expected


def test_assign_uses_box_centres_and_drops_detections_outside_every_zone() -> None:
    zones = [CameraZone("river0", Place(Zone.RIVER, Seat(0)), (0, 0, 100, 50)),
             CameraZone("dora", Place(Zone.DORA), (200, 0, 50, 50))]
    inside = det(Kind.M1, 0.9, x=60, y=0)  # centre (75, 20)
    straddling = det(Kind.M2, 0.9, x=90, y=0)  # centre (105, 20): in no zone
    dora = det(Kind.CHUN, 0.9, x=205, y=0)
    got = assign([inside, straddling, dora], zones)
    assert got == {"river0": [inside], "dora": [dora]}


def test_camera_tiles_reports_per_zone_with_places() -> None:
    zones = (CameraZone("river0", Place(Zone.RIVER, Seat(0)), (0, 0, 100, 50)),
             CameraZone("river1", Place(Zone.RIVER, Seat(1)), (0, 100, 100, 50)))
    state = CameraTiles(zones, VoteRule(need=1, window=1, threshold=0.5))
    state, reads = state.feed([det(Kind.M1, 0.9), det(Kind.M2, 0.8, y=110)], 42)
    assert [(r.zone, r.place.seat, r.kind, r.appeared, r.t_ns) for r in reads] == [
        ("river0", Seat(0), Kind.M1, True, 42), ("river1", Seat(1), Kind.M2, True, 42)]
    assert state.tiles("river1") == [(Kind.M2, 1)]
    assert reads[0].as_json()["tile"] == "1m"
