"""The pure tracking fold (daemon/tracking): device items → the records to log, and ``Held``.

Built on the real reducer (tests/daemon/track_kit.py): each input a step makes is applied before
the next step is translated, as the daemon's shell does. Walls are arranged so each case happens
at a known ring index; every other tile is in ring order.
"""

from __future__ import annotations

import random

import pytest
from track_kit import DORA, Table, game_start, hand, melds, read, river, simulated_items

from daemon.tracking.held import Held, restore
from daemon.tracking.records import KIND_INPUT, KIND_MARKER, KIND_TIMER, Entry
from daemon.tracking.track import Setup
from drivers.link import messages as m
from drivers.link.messages import SeatKey
from hil.rig import physical_manifest
from hil.simulator import GameSimulator
from rules import inputs as ri
from rules.ruleset import load_ruleset
from rules.seats import SEATS, Seat
from rules.tiles import Tile
from rules.wall import Layer, Wall, break_from_dice

DICE = (3, 4)


def _wall(placed: dict[int, Tile]) -> tuple[Tile, ...]:
    """A ring-ordered wall: ``placed`` at their ring indices, the other tiles in id order."""
    rest = iter(t for t in (Tile(i) for i in range(136)) if t not in placed.values())
    return tuple(placed.get(i) or next(rest) for i in range(136))


def _first_draw(ruleset: str) -> int:
    t, _ = _dealt(ruleset, {})
    h = t.state.hand
    assert h is not None
    return h.next_live


def _dealt(ruleset: str, placed: dict[int, Tile],
           manifest: bool = True) -> tuple[Table, tuple[Tile, ...]]:
    """A sensor table after the deal, dealer seat 0."""
    wall = _wall(placed)
    rs = load_ruleset(ruleset)
    rolls = (DICE, DICE) if rs.wall.break_method == "two_rolls" else (DICE,)
    brk = break_from_dice(rs, Seat.S0, rolls)
    ring = Wall(brk)
    t = Table()
    t.feed(game_start(ruleset))
    t.feed_all([m.StartPressed(), m.WallRaised()])
    if manifest:
        t.feed(m.WallManifest(physical_manifest(wall, ring, aka=True)))
    pos = ring.position(Wall.DORA)
    layer = m.Layer.TOP if pos.layer is Layer.TOP else m.Layer.BOTTOM
    t.feed_all([*(m.Dice(r) for r in rolls), m.BreakOpened(int(brk.seat), brk.count)])
    if rs.dora.indicator:
        t.feed_all([m.IndicatorTurned(int(pos.seat), pos.stack, layer),
                    read(DORA, wall[Wall.DORA])])
    jump = rs.wall.dealer_fourteenth == "jump"
    for s, idx in Wall.deal_indices(Seat.S0).items():
        t.feed_all([read(hand(s), wall[i]) for i in idx if jump or i != 52])
    h = t.state.hand
    assert h is not None and h.dealt, t.log[-3:]
    assert not rs.dora.indicator or h.indicators[0].tile == wall[Wall.DORA]
    return t, wall


def _only(entries: list[Entry]) -> Entry:
    assert len(entries) == 1, entries
    return entries[0]


def _input(entries: list[Entry]) -> ri.Input:
    e = _only(entries)
    assert e.kind == KIND_INPUT, e
    return ri.input_from_json(e.as_json())


def _rejected(entries: list[Entry]) -> str:
    e = _only(entries)
    assert e.kind == KIND_MARKER and e.as_json()["type"] == "tile_rejected", e
    return str(e.as_json()["reason"])


def _turn(t: Table, seat: int, wall: tuple[Tile, ...]) -> Tile:
    """``seat`` draws the next live tile and discards it (tsumogiri)."""
    h = t.state.hand
    assert h is not None
    tile = wall[h.next_live]
    assert _input(t.feed(read(hand(seat), tile))) == ri.Draw(seat=Seat(seat), tile=tile)
    got = _input(t.feed(read(river(seat), tile)))
    assert got == ri.Discard(seat=Seat(seat), tile=tile, riichi=False, tsumogiri=True)
    return tile


# --- deals, draws, discards ----------------------------------------------------------------------
@pytest.mark.parametrize("ruleset", ["mleague", "wmc"])
def test_the_deal_is_held_tile_by_tile_then_one_input(ruleset: str) -> None:
    t, wall = _dealt(ruleset, {})
    deals = [e for e in t.log if e.as_json().get("what") == "deal"]
    jump = ruleset == "wmc"
    assert len(deals) == 52 + jump - 1  # the last tile read is the DealDone itself
    done = [e.body for e in t.log if isinstance(e.body, ri.DealDone)]
    assert len(done) == 1 and isinstance(done[0], ri.DealDone) and done[0].hands is not None
    assert [len(x) for x in done[0].hands] == [13 + jump, 13, 13, 13]
    assert t.held.deal == ((), (), (), ())
    assert t.held.fourteenth == (wall[52] if jump else None)


def test_a_fourteenth_tile_on_a_rack_during_the_deal_is_rejected() -> None:
    t = Table()
    t.feed_all([game_start("mleague"), m.StartPressed()])
    t.feed_all([read(hand(1), Tile(i)) for i in range(13)])
    assert _rejected(t.feed(read(hand(1), Tile(13)))) == "too_many_tiles"
    assert len(t.held.deal[1]) == 13


def test_draw_discard_and_a_tile_put_back_in_place() -> None:
    t, wall = _dealt("mleague", {})
    drawn = _turn(t, 0, wall)
    assert t.feed(read(river(0), drawn)) == []  # read again where it lies: nothing happened
    h = t.state.hand
    assert h is not None and h.turn == Seat.S1 and h.step == "draw"


def test_a_misread_draw_disagreeing_with_the_manifest_is_rejected() -> None:
    t, wall = _dealt("mleague", {})
    h = t.state.hand
    assert h is not None
    wrong = next(wall[i] for i in range(120, 130) if wall[i].kind != wall[h.next_live].kind)
    entries = t.feed(read(hand(0), wrong))
    assert _rejected(entries) == "manifest_mismatch"
    assert entries[0].as_json()["ring"] == h.next_live
    assert t.state.hand is h  # no input reached the rules
    _turn(t, 0, wall)  # and the right tile is taken after it


def test_without_a_manifest_the_draw_is_the_reducers_to_judge() -> None:
    t, wall = _dealt("mleague", {}, manifest=False)
    assert isinstance(_input(t.feed(read(hand(0), wall[120]))), ri.Draw)


def test_a_read_no_play_can_make_is_rejected_as_impossible() -> None:
    t, wall = _dealt("mleague", {})
    drawn = _turn(t, 0, wall)
    entries = t.feed(read(hand(1), drawn))  # a river tile back into another hand
    assert _rejected(entries) == "impossible"
    assert "river" in str(entries[0].as_json()["detail"])
    dealt_to_2 = wall[Wall.deal_indices(Seat.S0)[Seat.S2][0]]
    assert _rejected(t.feed(read(hand(3), dealt_to_2))) == "impossible"  # a tile in two hands


def test_a_read_without_a_hand_is_rejected() -> None:
    t = Table()
    t.feed(game_start("mleague"))
    assert _rejected(t.feed(read(hand(0), Tile(5)))) == "no_hand"


# --- the riichi key ------------------------------------------------------------------------------
def test_the_riichi_key_makes_the_next_discard_riichi() -> None:
    t, wall = _dealt("mleague", {})
    assert _rejected(t.feed(m.SeatButton(2, SeatKey.RIICHI))) == "not_own_turn"
    h = t.state.hand
    assert h is not None
    drawn = wall[h.next_live]
    t.feed(read(hand(0), drawn))
    held = _only(t.feed(m.SeatButton(0, SeatKey.RIICHI)))
    assert held.as_json() == {"type": "tracker_hold", "what": "riichi", "seat": 0}
    assert t.held.riichi == {Seat.S0}
    got = _input(t.feed(read(river(0), drawn)))
    assert got == ri.Discard(seat=Seat.S0, tile=drawn, riichi=True, tsumogiri=True)
    assert t.held.riichi == frozenset()


# --- melds ---------------------------------------------------------------------------------------
def _meld_wall(ruleset: str, seat: int, own: list[int], discard: int,
               later: dict[int, int] | None = None) -> tuple[Table, tuple[Tile, ...]]:
    """``seat`` is dealt tiles ``own``; the dealer draws (and discards) tile ``discard``;
    ``later``: more tiles at live draws after the first (offset → tile id)."""
    first = _first_draw(ruleset)
    deal = Wall.deal_indices(Seat.S0)[Seat(seat)]
    placed = {deal[k]: Tile(i) for k, i in enumerate(own)}
    placed[first] = Tile(discard)
    for off, i in (later or {}).items():
        placed[first + off] = Tile(i)
    return _dealt(ruleset, placed)


@pytest.mark.parametrize(("seat", "own", "kind"), [
    (1, [4, 8], "chi"),  # 1m called with 2m 3m by the next seat
    (2, [0, 1], "pon"),
    (3, [0, 1, 2], "daiminkan"),
])
def test_a_call_from_meld_zone_reads_closes_at_the_next_read(seat: int, own: list[int],
                                                               kind: str) -> None:
    t, wall = _meld_wall("mleague", seat, own, discard=3)
    _turn(t, 0, wall)  # the dealer discards 1m (tile 3)
    for i in own:
        assert _only(t.feed(read(melds(seat), Tile(i)))).as_json()["what"] == "meld"
    t.feed(read(melds(seat), Tile(3)))
    assert t.held.melds_of(Seat(seat)) is not None
    # the next event closes the meld area: first the call, then the event's own record
    entries = t.feed(m.SeatButton(seat, SeatKey.CLOCK))
    assert [e.kind for e in entries] == [KIND_INPUT, KIND_TIMER]
    call = ri.input_from_json(entries[0].as_json())
    assert call == ri.Call(seat=Seat(seat), kind=kind,  # type: ignore[arg-type]
                           tiles=tuple(Tile(i) for i in own))
    h = t.state.hand
    assert h is not None and h.turn == Seat(seat) and t.held.melds == ()
    assert [mm.kind for mm in h.seats[seat].melds] == [kind]


def test_the_call_then_the_read_that_closed_it_on_the_state_after_the_call() -> None:
    t, wall = _meld_wall("mleague", 2, [0, 1], discard=3)
    _turn(t, 0, wall)
    t.feed_all([read(melds(2), Tile(i)) for i in (0, 1, 3)])
    assert t.log[-1].as_json()["what"] == "meld"
    h = t.state.hand
    assert h is not None
    discard = next(tl for tl in h.seats[2].concealed or () if tl.id not in (0, 1))
    entries = t.feed(read(river(2), discard))  # closes the pon, then is its discard
    got = [ri.input_from_json(e.as_json()) for e in entries]
    assert got == [ri.Call(seat=Seat.S2, kind="pon", tiles=(Tile(0), Tile(1))),
                   ri.Discard(seat=Seat.S2, tile=discard, riichi=False, tsumogiri=False)]


def test_not_a_meld_is_rejected_and_the_tiles_are_where_they_were() -> None:
    t, wall = _meld_wall("mleague", 1, [4, 30], discard=3)
    _turn(t, 0, wall)
    t.feed_all([read(melds(1), Tile(i)) for i in (4, 30, 3)])
    entries = t.feed(m.SeatButton(1, SeatKey.CLOCK))
    assert entries[0].as_json()["reason"] == "not_a_meld" and entries[0].as_json()["seat"] == 1
    assert t.held.melds == ()
    from daemon.tracking.held import where
    assert where(t.state, t.held, Tile(4)) == hand(1)  # back on the rack
    assert where(t.state, t.held, Tile(3)) == river(0)  # back in the river


def test_ankan_and_kakan_from_meld_zone_reads() -> None:
    # the dealer is dealt three 9p (tiles 68..70) and draws the fourth: ankan
    t, wall = _meld_wall("mleague", 0, [68, 69, 70], discard=71)
    h = t.state.hand
    assert h is not None
    t.feed(read(hand(0), Tile(71)))
    t.feed_all([read(melds(0), Tile(i)) for i in (68, 69, 70, 71)])
    ankan = _input([e for e in t.feed(read(hand(0), wall[Wall.RINSHAN[0]]))
                    if e.as_json().get("type") == "ankan"])
    assert ankan == ri.Ankan(seat=Seat.S0, tiles=(Tile(68), Tile(69), Tile(70), Tile(71)))
    h = t.state.hand
    assert h is not None and h.seats[0].melds[0].kind == "ankan"
    assert [e.as_json()["type"] for e in t.log[-1:]] == ["rinshan_draw"]

    # seat 2 pons 1m (tiles 0, 1 + the dealer's 3), then draws the fourth (tile 2): kakan
    t, wall = _meld_wall("mleague", 2, [0, 1], discard=3, later={4: 2})
    _turn(t, 0, wall)
    t.feed_all([read(melds(2), Tile(i)) for i in (0, 1, 3)])
    spare = next(tl for tl in (t.state.hand.seats[2].concealed or ()) if tl.id not in (0, 1))
    t.feed(read(river(2), spare))
    for s in (3, 0, 1):
        _turn(t, s, wall)
    assert isinstance(_input(t.feed(read(hand(2), Tile(2)))), ri.Draw)
    t.feed(read(melds(2), Tile(2)))
    entries = t.feed(m.SeatButton(2, SeatKey.CLOCK))
    assert ri.input_from_json(entries[0].as_json()) == ri.Kakan(seat=Seat.S2, tile=Tile(2))


# --- dora and ura --------------------------------------------------------------------------------
def test_the_indicator_face_read_before_its_position_is_held() -> None:
    t = Table()
    t.feed_all([game_start("mleague"), m.StartPressed(), m.Dice(DICE)])
    assert _only(t.feed(read(DORA, Tile(77)))).as_json() == {
        "type": "tracker_hold", "what": "indicator_tile", "tile": 77}
    got = _input(t.feed(m.IndicatorTurned(1, 4, m.Layer.TOP)))
    assert isinstance(got, ri.IndicatorShown) and got.tile == Tile(77)
    assert t.held.indicator_tile is None


def test_ura_indicators_after_a_riichi_win_and_none_without() -> None:
    for rs in ("mleague", "wmc"):
        for seed in range(12):
            steps = [s.input for s in GameSimulator(rs, seed, hands=4).steps()]
            if not any(isinstance(i, ri.Discard) and i.riichi for i in steps):
                continue
            t = Table()
            t.feed_all(list(simulated_items(rs, seed, hands=4)))
            ura = [i for i in t.inputs() if isinstance(i, ri.UraRevealed)]
            assert not ura or rs == "mleague"  # WMC has no ura (no riichi)
            if ura:
                assert all(u.tiles for u in ura)
                return
    pytest.fail("no riichi win with ura in the simulated games")


# --- seat keys, with and without readers ---------------------------------------------------------
@pytest.mark.parametrize("sensed", [False, True], ids=["no-readers", "readers"])
def test_seat_keys_mean_their_label_whatever_sensors_the_table_has(sensed: bool) -> None:
    t = Table(setup=Setup(sensed=sensed))
    t.feed_all([game_start("wmc", dealer=1), m.StartPressed(), m.Dice((3, 4)), m.Dice((2, 2))])
    got = t.feed_all([m.SeatButton(s, k) for s, k in (
        (1, SeatKey.CLOCK), (2, SeatKey.TSUMO), (3, SeatKey.RON), (0, 200),
        (0, SeatKey.NINE_TERMINALS))])
    assert [(e.kind, e.source) for e in got] == [
        (KIND_TIMER, "button:1"), (KIND_INPUT, "seat:2"), (KIND_INPUT, "seat:3"),
        (KIND_MARKER, "tracker"), (KIND_INPUT, "seat:0")]
    assert got[0].as_json() == {"type": "button", "seat": 1}
    assert got[3].as_json()["reason"] == "no_such_key"
    assert ri.input_from_json(got[4].as_json()) == ri.AbortiveDraw(kind="nine_terminals",
                                                                    seat=Seat.S0)
    dice = [i for i in t.inputs() if isinstance(i, ri.DiceRolled)]
    assert [d.seat for d in dice] == [Seat.S1, Seat.S3]  # W 开门-2: the breaker rolls second


@pytest.mark.parametrize("sensed", [False, True], ids=["no-readers", "readers"])
def test_the_turned_indicator_without_readers_is_the_input(sensed: bool) -> None:
    t = Table(setup=Setup(sensed=sensed))
    t.feed_all([game_start("mleague"), m.StartPressed()])
    entries = t.feed(m.IndicatorTurned(1, 4, m.Layer.TOP))
    assert (entries[0].kind == KIND_INPUT) is not sensed


def test_tenpai_answers_at_an_exhaustive_draw() -> None:
    t, _ = _dealt("mleague", {})
    assert _rejected(t.feed(m.SeatButton(1, SeatKey.TENPAI))) == "wall_not_exhausted"


# --- restore = the same fold ---------------------------------------------------------------------
class _Recorder(Table):
    """The live table, keeping ``Held`` after every step with the log length at that point."""

    def __init__(self) -> None:
        super().__init__()
        self.cuts: list[tuple[int, Held]] = [(0, Held())]

    def stepped(self) -> None:
        self.cuts.append((len(self.log), self.held))


@pytest.mark.parametrize(("ruleset", "seed"), [("mleague", 0), ("wmc", 1), ("tenhou", 7)])
def test_restored_held_equals_live_held_at_random_cut_points(ruleset: str, seed: int) -> None:
    live = _Recorder()
    items = list(simulated_items(ruleset, seed, hands=3))
    live.feed_all(items)
    assert not [e for e in live.log if e.as_json().get("type") == "tile_rejected"]
    rng = random.Random(seed)
    cuts = rng.sample(live.cuts, 150) + [c for c in live.cuts if c[1].melds][:20]
    interesting = 0
    for n, held in cuts:
        restored = restore((e.kind, e.source, e.as_json()) for e in live.log[:n])
        assert restored == held, n
        interesting += held != Held(manifest=held.manifest, fourteenth=held.fourteenth)
    assert interesting > 10  # deals, melds, riichi keys, indicators held at the cuts


def test_a_restart_mid_deal_and_mid_meld_plays_on_as_if_nothing_happened() -> None:
    items = list(simulated_items("mleague", 0, hands=2))
    whole = Table()
    whole.feed_all(items)
    rng = random.Random(3)
    for k in rng.sample(range(1, len(items)), 25):
        first = Table()
        first.feed_all(items[:k])
        again = Table(state=first.state)  # the core's state: the fold of the logged inputs
        again.held = restore((e.kind, e.source, e.as_json()) for e in first.log)
        again.feed_all(items[k:])
        assert first.log + again.log == whole.log, k


def test_records_of_other_sources_change_nothing() -> None:
    held = restore([("input", "referee:alice", {"type": "hand_start"}),
                    ("marker", "tracker", {"type": "tracker_hold", "what": "riichi", "seat": 2})])
    assert held.riichi == {Seat.S2}
    assert restore([("input", "referee:x", {"type": "discard", "seat": 2})]) == Held()
    assert all(s in SEATS for s in held.riichi)
