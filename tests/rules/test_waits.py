"""Tenpai waits with the tiles still unseen (rules/waits.py), for the delayed spectator feed
(issue 19 item 3): hand-computed cases, and the view keeps them in its private part only."""

from __future__ import annotations

from dataclasses import replace

from rules.outcome import Meld
from rules.seats import Seat, Wind
from rules.table_state import HandState, Indicator, RiverTile, SeatState
from rules.table_view import table_view
from rules.tiles import Tile
from rules.waits import seat_waits


def t(kind: int, copy: int = 0) -> Tile:
    return Tile(kind * 4 + copy)


M9, P3, P6, E = 8, 11, 14, 27


def hand(seats: tuple[SeatState, ...], indicators: tuple[Indicator, ...] = ()) -> HandState:
    return HandState(number=1, dealer=Seat.S0, round_wind=Wind.EAST, hand_in_round=0, honba=0,
                     deposits=0, scores=(25000, 25000, 25000, 25000),
                     seats=(seats[0], seats[1], seats[2], seats[3]), located=(),
                     step="draw", indicators=indicators, dealt=True)


# 123m 456p 789s EEE + 9m: a tanki wait on 9m
TANKI = (t(0), t(1), t(2), t(12), t(13), t(14), t(24), t(25), t(26), t(E), t(E, 1), t(E, 2),
         t(M9))


def test_a_tanki_wait_counts_every_visible_copy_once() -> None:
    """Seen 9m: the hand's own, one in seat 1's river, one turned as a dora indicator: 1 left.
    A 9m claimed from seat 3's river into seat 2's pon counts once (the river entry is marked
    called): with it, all four are seen."""
    seats = (SeatState(concealed=TANKI, count=13),
             SeatState(river=(RiverTile(t(M9, 1)),)),
             SeatState(), SeatState())
    h = hand(seats, (Indicator(None, t(M9, 2)),))
    assert seat_waits(h, Seat.S0) == [{"kind": M9, "tile": "9m", "unseen": 1}]
    pon = Meld("pon", (t(P3), t(P3, 1), t(M9, 3)), t(M9, 3), Seat.S3)
    h2 = replace(h, seats=(seats[0], seats[1], SeatState(melds=(pon,)),
                           SeatState(river=(RiverTile(t(M9, 3), called=True),))))
    assert seat_waits(h2, Seat.S0) == [{"kind": M9, "tile": "9m", "unseen": 0}]


def test_a_two_sided_wait_and_other_hands_count_as_seen() -> None:
    """123m 789m 456s EE + 4p5p waits on 3p and 6p. Seat 2's concealed 3p 3p (the delayed feed
    shows every hand) leave two 3p; no 6p seen: four."""
    concealed = (t(0), t(1), t(2), t(6), t(7), t(8), t(21), t(22), t(23), t(E), t(E, 1),
                 t(12), t(13))
    seats = (SeatState(concealed=concealed, count=13), SeatState(),
             SeatState(concealed=(t(P3), t(P3, 1)), count=2), SeatState())
    assert seat_waits(hand(seats), Seat.S0) == [
        {"kind": P3, "tile": "3p", "unseen": 2}, {"kind": P6, "tile": "6p", "unseen": 4}]


def test_noten_unknown_and_fourteen_tiles() -> None:
    noten = (t(0), t(4), t(9), t(13), t(18), t(22), t(27), t(28), t(29), t(30), t(31), t(32),
             t(33))
    seats = (SeatState(concealed=noten, count=13), SeatState(count=13),
             SeatState(concealed=(*TANKI, t(5)), count=14), SeatState())
    h = hand(seats)
    assert seat_waits(h, Seat.S0) == []
    assert seat_waits(h, Seat.S1) is None  # no sensors: the tiles are not known
    assert seat_waits(h, Seat.S2) is None  # about to discard


def test_waits_are_private_and_reach_only_the_spectator_feed() -> None:
    """A real game: once a seat is tenpai its waits are in the view's private part, the live
    overlay view has none, the spectator view (hands=True) shows them."""
    from daemon.web.view import overlay_view
    from hil.simulator import GameSimulator

    sim = GameSimulator("mleague", seed=1, hands=1)
    for _ in sim.steps():
        view = table_view(sim.state)
        private = [s["waits"] for s in view["private"]["seats"]]
        if any(private):
            break
    else:
        raise AssertionError("nobody got tenpai")
    assert all("waits" not in s for s in view["seats"])
    live = overlay_view(view, table="t")
    spectator = overlay_view(view, table="t", hands=True)
    assert all(s["waits"] is None and s["hand"] is None for s in live["seats"])
    assert [s["waits"] for s in spectator["seats"]] == private
