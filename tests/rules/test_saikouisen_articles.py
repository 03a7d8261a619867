"""Saikouisen (S) articles the reducer enforces, each exercised under the ``saikouisen`` ruleset:
turn order, calls and their priority, riichi, furiten, the sea floor, the game's end."""

from __future__ import annotations

from scenario import S0, S1, S2, S3, Hand
from test_violations import TENPAI, recorded, rejected
from test_wmc_articles import _to_the_sea_floor

from rules.inputs import (
    Ankan,
    Call,
    Discard,
    Draw,
    ExhaustiveDraw,
    HandStart,
    IndicatorShown,
    Kakan,
    RefereeOverride,
    RinshanDraw,
    Ron,
    Tsumo,
    WinShown,
)
from rules.tiles import BY_ID

S = "saikouisen"
DEALER_DISCARD = "1p" + "23456789m1234z"
# S0 cuts its 14th (9m); S1 draws 5z and declares riichi on it; S2, S3 cut 6z, 7z; S0 draws and
# throws 1z (S1's wait); S1 draws 6z; S2 draws 2z (S1's other wait).
DRAWS = "9m5z6z7z1z6z2z"


def test_s_55_1_2_35_2_12_2_turn_order() -> None:
    """S §55-1,2: a discard out of turn is refused; S §35-2: a draw before the previous discard
    is complete kills the hand; S §12-2: no replacement draw without a kan."""
    h = Hand(S, hands={S0: TENPAI, S1: "123m"})
    rejected(h, Discard(S1, h.tile(S1, "1m")), "discard_out_of_turn", article="S §55-1,2")
    rejected(h, RinshanDraw(S0), "rinshan_without_kan", article="S §12-2")
    recorded(h, Draw(S1), "early_draw", article="S §55-3, §35-2")
    assert h.h.seats[S1].dead == "early_draw"


def test_s_41_40_3_45_3_calls() -> None:
    """S §41: chi only from the left; S §40-3: a shown call closes other claims, and a ron beats
    a call of the same tile; S §45-3: no call once the next player drew."""
    h = Hand(S, hands={S0: DEALER_DISCARD, S2: "1p1p23p", S1: "123m456p789s11z23p"},
             confirm_wins=True)
    h.discard(S0, "1p")
    rejected(h, Call(S2, "chi", h.tiles(S2, "2p3p")), "chi_not_from_left", article="S §41")
    h.send(Call(S2, "pon", h.tiles(S2, "1p1p")))
    rejected(h, Call(S3, "pon"), "claim_taken", article="S §40-3")
    h.send(Ron(S1))  # the ron takes the tile back from the pon (S §40-3)
    rejected(h, Call(S2, "pon", h.tiles(S2, "1p1p")), "call_loses_to_ron", article="S §40-3")
    h = Hand(S, hands={S0: DEALER_DISCARD, S2: "1p1p"})
    h.discard(S0, "1p")
    h.draw(S1)
    rejected(h, Call(S2, "pon", h.tiles(S2, "1p1p")), "call_after_draw", article="S §45-3")


def test_s_39_riichi_and_51_39_9_furiten() -> None:
    """S §39-8: after riichi no call and only the drawn tile is discarded; S §39-2: one riichi;
    S §51, §39-9: a riichi seat that let its winning tile pass is furiten for the hand."""
    h = Hand(S, hands={S1: TENPAI}, draws=DRAWS)
    h.cut(S0)
    h.draw(S1)
    h.discard(S1, "5z", riichi=True)
    h.go_around(S2, 2)
    h.draw(S0)
    h.discard(S0, "1z")
    rejected(h, Call(S1, "pon", h.tiles(S1, "1z1z")), "call_in_riichi", article="S §39-8")
    h.draw(S1)
    assert h.h.seats[S1].furiten_riichi  # the 1z went by
    rejected(h, Discard(S1, h.tile(S1, "1m")), "riichi_discard_not_drawn", article="S §39-8")
    drawn = h.h.seats[S1].drawn
    assert drawn is not None
    rejected(h, Discard(S1, drawn, riichi=True), "riichi_twice", article="S §39-2")
    h.cut(S1)
    h.draw(S2)
    h.discard(S2, "2z")
    v = rejected(h, Ron(S1), "furiten_ron", article="S §51, §39-9")
    assert v["actual"] == "riichi_passed"


def test_s_39_1_4_39_13_and_39_3_who_may_declare() -> None:
    """S §39-1(4), §39-13: the stick must be put down (no riichi without 1,000 points);
    S §39-3: riichi with a closed hand only."""
    h = Hand(S, hands={S1: TENPAI}, draws="9m5z", scores=(25000, 500, 25000, 49500))
    h.cut(S0)
    h.draw(S1)
    rejected(h, Discard(S1, h.tile(S1, "5z"), riichi=True), "riichi_no_points",
             article="S §39-1(4), §39-13")
    h = Hand(S, hands={S0: DEALER_DISCARD, S1: "1p1p" + "123m456p789s2z"})
    h.discard(S0, "1p")
    h.send(Call(S1, "pon", h.tiles(S1, "1p1p")))
    rejected(h, Discard(S1, h.tile(S1, "2z"), riichi=True), "riichi_open_hand",
             article="S §39-3")


def test_s_39_4_5_40_5_52_1_the_sea_floor() -> None:
    """S §39-4,5: no riichi on the houtei discard; S §40-5: the houtei tile is not called;
    S §52-1: the hand is drawn only once it passed."""
    h = Hand(S, hands={S1: TENPAI, S2: "3m3m"})
    rejected(h, ExhaustiveDraw(), "exhaustive_too_early", article="S §52-1")
    _to_the_sea_floor(h)
    last = h.h.turn
    drawn = h.h.seats[last].drawn
    assert drawn is not None and h.h.live_left() == 0
    rejected(h, Discard(last, drawn, riichi=True), "riichi_too_late", article="S §39-4,5")
    h.cut(last)
    rejected(h, Call(last.plus(1), "chi"), "call_on_houtei", article="S §40-5")


def test_s_27_6_no_hand_after_the_game() -> None:
    """S §27-6: once the game is over no hand starts."""
    h = Hand(S)
    h.send(RefereeOverride(action="end_game"))
    assert h.state.game_over
    rejected(h, HandStart(), "game_over", article="S §27-6")


def test_s_43_4_the_kan_stands_once_its_indicator_is_turned() -> None:
    """S §43-4: a kan is established when its indicator is turned: the added tile can no longer
    be robbed (the same chankan is taken before it, test_violations.py)."""
    h = Hand(S, hands={S0: "1m456p789s11223z", S1: "11m234p", S2: "23m456p789s11333z"},
             draws="9p" + "2p" + "3s3s" + "1m", rinshan="5z", kan_dora="6z")
    h.draw(S0)
    h.discard(S0, "1m")
    h.send(Call(S1, "pon", h.tiles(S1, "11m")))
    h.discard(S1, "2p")
    h.go_around(S2, 3)
    h.draw(S1)
    h.send(Kakan(S1, h.tile(S1, "1m")))
    assert h.h.kan_window is not None  # robbable now
    h.send(IndicatorShown())
    assert h.h.kan_window is None
    ev = h.send(Ron(S2))
    assert "win_declared" not in h.types(ev) and h.codes(ev) == ["call_after_draw"]


def test_s_45_14_a_hand_start_that_disagrees_with_the_game() -> None:
    """S §45-14: a hand start whose dealer differs from the game's is recorded; the game's own
    dealer stands."""
    h = Hand(S, hands={S0: TENPAI}, draws="1z")  # the dealer's 14th completes it
    h.send(Tsumo(S0))
    assert "hand_ended" in h.types()
    v = recorded(h, HandStart(dealer=S2), "progress_mismatch", article="S §45-14")
    assert v["actual"] == {"dealer": 2} and h.h.dealer == S0


def test_s_45_12_a_shown_win_that_differs_from_the_known_hand() -> None:
    """S §45-12: the hand shown at a win is checked against the tiles the sensors saw; a
    difference is recorded for the referee, the shown hand is scored."""
    h = Hand(S, hands={S0: TENPAI}, draws="1z", confirm_wins=True)
    h.send(Tsumo(S0))
    known = h.h.seats[S0].concealed
    assert known is not None
    other = next(t for t in h.wall[60:] if t.kind.mjai == "4m")
    shown = tuple(sorted([*(t for t in known if t.kind.mjai != "1m"), other], key=BY_ID))
    recorded(h, WinShown(S0, shown, known[-1]), "win_shown_mismatch", article="S §45-12")
    h.send(RefereeOverride("confirm_win"))
    assert h.ended()["outcome"]["wins"][0]["hand"] == [t.id for t in shown]


def test_s_12_2_3_the_replacement_tiles_come_from_the_dead_wall_end() -> None:
    """S §12-2,3: after a kan the replacement tile is the dead wall's last stack, upper first."""
    from rules.wall import Wall

    assert Wall.RINSHAN == (134, 135, 132, 133)
    h = Hand(S, hands={S0: "1111m456p789s112z"}, draws="5z", rinshan="6z")
    h.send(Ankan(S0, h.four(S0, "1m")))
    h.rinshan(S0)
    drawn = h.h.seats[S0].drawn
    assert drawn is not None and drawn == h.wall[Wall.RINSHAN[0]]  # the 6z put there
