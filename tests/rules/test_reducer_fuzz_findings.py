"""Regressions for two findings of the 10⁶-input reducer fuzz (bench/fuzz.py --targets reducer):

* undoing a referee's dead-hand ruling must not revive a hand that a rule has killed since;
* a draw the wall manifest places at a tile the sensors already put elsewhere stays unknown
  instead of putting one tile in two places.
"""

from __future__ import annotations

from rules.inputs import (
    DealDone,
    Discard,
    Draw,
    GameStart,
    HandStart,
    RefereeOverride,
    WallRaised,
)
from rules.reducer import new_table, reduce
from rules.seats import Seat
from rules.table_state import TableState
from rules.tiles import Tile
from rules.wall import Wall


def _types(events: tuple[object, ...]) -> list[str]:
    return [e.to_json()["type"] for e in events]  # type: ignore[attr-defined]


def _start(ruleset: str = "saikouisen") -> TableState:
    t = new_table()
    for inp in (GameStart(ruleset=ruleset, first_dealer=Seat.S0), HandStart(), DealDone()):
        t, _ = reduce(t, inp)
    return t


def test_undo_of_a_dead_hand_ruling_does_not_revive_a_sanctioned_hand() -> None:
    t = _start()
    t, ev = reduce(t, RefereeOverride(action="dead_hand", args={"seat": 2}))
    assert t.hand is not None and t.hand.seats[2].dead == "referee"
    # Seat 2 then draws out of turn (the dealer has not discarded): a dead hand by the rules.
    t, ev = reduce(t, Draw(seat=Seat.S2))
    assert "violation" in _types(ev)
    assert t.hand is not None and t.hand.seats[2].dead == "draw_out_of_turn"
    before = t
    t, ev = reduce(t, RefereeOverride(action="undo_last"))
    assert [e.to_json()["code"] for e in ev if e.to_json()["type"] == "violation"] == [
        "undo_not_possible"]
    assert t.hand == before.hand


def test_a_manifest_tile_already_in_a_hand_is_not_drawn_twice() -> None:
    tiles = [Tile(i) for i in range(136)]
    wall = tuple(tiles)
    deal = Wall.deal_indices(Seat.S0)
    hands = [[wall[i] for i in deal[s]] for s in (Seat.S0, Seat.S1, Seat.S2, Seat.S3)]
    # The sensors read seat 1's hand with the tile the manifest puts at the first live draw.
    swapped = hands[1][0]
    hands[1][0] = wall[Wall.FIRST_DRAW]
    t = new_table()
    for inp in (GameStart(ruleset="saikouisen", first_dealer=Seat.S0), HandStart(),
                WallRaised(wall=wall)):
        t, _ = reduce(t, inp)
    t, ev = reduce(t, DealDone(hands=(tuple(hands[0]), tuple(hands[1]), tuple(hands[2]),
                                      tuple(hands[3]))))
    assert "violation" in _types(ev)  # wrong_tile_drawn: the deal disagrees with the manifest
    dealer_discard = hands[0][0]
    t, _ = reduce(t, Discard(seat=Seat.S0, tile=dealer_discard))
    t, ev = reduce(t, Draw(seat=Seat.S1))
    assert t.hand is not None
    st = t.hand.seats[1]
    assert st.count == 14
    # The drawn tile is unknown (the manifest's tile is already in seat 1's hand).
    assert st.concealed is None or list(st.concealed).count(wall[Wall.FIRST_DRAW]) == 1
    assert swapped not in (st.concealed or ())
