"""Hand flow through the reducer: riichi sticks, multiple rons, win flags, pao, nagashi, abortive
draws, the referee's actions, records without geometry, and the snapshot."""

from __future__ import annotations

import random
from typing import Any

import pytest
from scenario import S0, S1, S2, S3, Hand

from hil.hand_notation import parse_compact
from rules.inputs import (
    AbortiveDraw,
    Ankan,
    Call,
    DealDone,
    Discard,
    Draw,
    ExhaustiveDraw,
    GameStart,
    HandStart,
    IndicatorShown,
    Kakan,
    RefereeOverride,
    Ron,
    Tsumo,
    UraRevealed,
)
from rules.reducer import new_table, reduce
from rules.seats import Wind
from rules.table_view import table_view
from rules.tiles import BY_ID, TileAllocator, parse_mjai

TENPAI = "123m456p789s1122z"  # shanpon on E / S


def win(h: Hand, n: int = 0) -> dict[str, Any]:
    return dict(h.ended()["outcome"]["wins"][n])


# --- riichi sticks -------------------------------------------------------------------------------
def test_riichi_stick_goes_down_when_the_tile_passes() -> None:
    h = Hand("mleague", hands={S1: TENPAI}, draws="9m" + "3z")
    h.draw(S0)
    h.discard(S0, "9m")
    h.draw(S1)
    ev = h.discard(S1, "3z", riichi=True)
    assert h.types(ev) == ["discard", "riichi_declared"]
    assert h.h.scores[1] == 25000 and h.h.deposits == 0
    ev = h.draw(S2)
    assert h.types(ev)[0] == "riichi_accepted"
    assert h.h.scores[1] == 24000 and h.h.deposits == 1
    assert table_view(h.state)["seats"][1]["riichi"] == "accepted"


def test_no_stick_when_the_declaration_tile_is_ronned() -> None:
    # S §39-1: riichi is established only if the declaration tile is not ronned. Seat 2 rons
    # the 1z (East, the round wind: a yaku) that seat 1 throws to declare.
    h = Hand("mleague", hands={S1: "1z", S2: TENPAI}, draws="9m" + "5z")
    h.draw(S0)
    h.discard(S0, "9m")
    h.draw(S1)
    h.discard(S1, "1z", riichi=True)
    h.send(Ron(S2))
    end = h.ended()
    assert end["outcome"]["context"]["deposits"] == 0
    assert end["outcome"]["context"]["scores"][1] == 25000
    assert end["outcome"]["context"]["riichi_seats"] == []
    assert "riichi_accepted" not in h.types()
    assert end["outcome"]["wins"][0]["loser"] == 1


def test_riichi_ron_settles_with_ura_from_the_manifest() -> None:
    h = Hand("mleague", hands={S0: TENPAI}, draws="9p" + "3z3z3z" + "5z" + "6z6z" + "1z",
             ura="1m")
    h.draw(S0)
    h.discard(S0, "9p", riichi=True)
    h.go_around(S1, 3)
    h.draw(S0)
    h.cut(S0)
    h.go_around(S1, 2)
    h.draw(S3)
    h.send(Discard(S3, h.h.seats[3].drawn))
    h.send(Ron(S0))
    w = win(h)
    assert w["riichi"] and not w["ippatsu"]
    ctx = h.ended()["outcome"]["context"]
    assert ctx["ura_indicators"] == [h.wall[131].id]
    assert ctx["riichi_seats"] == [0]
    st = h.ended()["settlement"]
    assert sum(st["deltas"]) == 1000  # the stick comes back to the winner
    assert h.ended()["next"]["deposits"] == 0


# --- several rons --------------------------------------------------------------------------------
def two_waiting(ruleset: str, third: bool = False, **kw: Any) -> Hand:
    """Seats 1 and 2 (and 3) wait on 3s in riichi; seat 0 deals it after one go-around."""
    hands = {S1: "123m456p789s11z24s", S2: "456m123p789s22z24s", S0: "3s"}
    if third:
        hands[S3] = "789m789p789s33z24s"
    draws = "9p" + "1z" + "2z" + ("3z" if third else "5z") + "3s"
    return Hand(ruleset, hands=hands, draws=draws, **kw)


def play_to_the_3s(h: Hand, third: bool = False) -> None:
    h.draw(S0)
    h.discard(S0, "9p")
    for s in (S1, S2, S3):
        h.draw(s)
        if s != S3 or third:
            h.send(Discard(s, h.h.seats[s].drawn, riichi=True))
        else:
            h.cut(s)
    h.draw(S0)
    h.send(Discard(S0, h.tile(S0, "3s")))


def test_head_bump_the_first_seat_after_the_discarder_wins() -> None:
    h = two_waiting("mleague")
    play_to_the_3s(h)
    ev = h.send(Ron(S2))  # seat 1 may still declare and would bump seat 2
    assert "hand_ended" not in h.types(ev)
    ev = h.send(Ron(S1))
    assert h.types(ev)[-2:] == ["ron_head_bumped", "hand_ended"]
    end = h.ended()
    assert [w["winner"] for w in end["outcome"]["wins"]] == [1]
    bumped = next(e.to_json() for e in h.events if e.TYPE == "ron_head_bumped")
    assert bumped["seat"] == 2 and bumped["by"] == 1


def test_head_bump_closed_by_the_next_input() -> None:
    h = two_waiting("mleague")
    play_to_the_3s(h)
    h.send(Ron(S2))
    h.send(UraRevealed(()))  # nothing seals it: seat 1 could still ron
    assert h.h.step == "won"
    ev = h.send(HandStart())  # the next input closes the claims
    assert h.types(ev)[:2] == ["hand_ended", "hand_started"]
    assert [w["winner"] for w in h.ended()["outcome"]["wins"]] == [2]


def test_double_ron_where_all_win() -> None:
    h = two_waiting("tenhou")
    play_to_the_3s(h)
    h.send(Ron(S1))
    h.send(Ron(S2))
    end = h.ended()
    assert [w["winner"] for w in end["outcome"]["wins"]] == [1, 2]
    assert end["settlement"]["deltas"][0] < 0


def test_triple_ron_aborts_where_the_ruleset_says() -> None:
    h = two_waiting("tenhou", third=True)
    play_to_the_3s(h, third=True)
    h.send(Ron(S1))
    h.send(Ron(S3))
    h.send(Ron(S2))
    end = h.ended()
    assert end["outcome"]["kind"] == "abortive" and end["outcome"]["abort_kind"] == "triple_ron"
    assert end["settlement"]["deltas"] == [0, 0, 0, 0]
    assert end["next"]["dealer"] == 0  # Tenhou: the deal stays after an abortive draw


def test_ippatsu_and_its_break_by_a_call() -> None:
    h = Hand("mleague", hands={S0: TENPAI}, draws="9p" + "3z3z3z" + "1z")
    h.draw(S0)
    h.discard(S0, "9p", riichi=True)
    h.go_around(S1, 3)
    h.draw(S0)
    h.send(Tsumo(S0))
    w = win(h)
    assert w["ippatsu"] and w["riichi"] and w["double_riichi"]
    # the same, but seat 2 pons the declaration tile: the call ends the ippatsu (S §48)
    h2 = Hand("mleague", hands={S0: TENPAI, S2: "9p9p"}, draws="9p" + "3z" + "1z")
    h2.draw(S0)
    h2.discard(S0, "9p", riichi=True)
    h2.send(Call(S2, "pon", h2.tiles(S2, "9p9p")))
    hand2 = h2.h.seats[2].concealed
    assert hand2 is not None
    h2.send(Discard(S2, next(t for t in hand2 if t.kind.mjai != "9p")))
    h2.go_around(S3, 1)
    h2.draw(S0)
    h2.send(Tsumo(S0))
    w2 = win(h2)
    assert w2["riichi"] and w2["double_riichi"] and not w2["ippatsu"]


def test_houtei_discard_cannot_be_called() -> None:
    h = Hand("mleague", hands={S0: TENPAI})
    seat = S0
    while h.h.live_left() > 1:
        seat = h.go_around(seat)
    h.draw(seat)
    assert h.types()[-1] == "haitei_reached"
    ev = h.cut(seat)
    assert ev[0].to_json()["houtei"] is True
    assert h.codes(h.send(Call(seat.plus(1), "chi", None))) == ["call_on_houtei"]


def test_haitei_tsumo_and_houtei_ron_flags() -> None:
    # After the dealer's 14th (ring 52) seat (i - 52) mod 4 draws ring index i: seat 1 draws
    # the haitei (121). Seat 3 holds the other E and S so nobody else throws them.
    h = Hand("mleague", hands={S1: TENPAI, S3: "1z2z2z"}, draws="9m", at={121: "1z"})
    h.draw(S0)
    h.cut(S0)
    h.draw(S1)
    h.send(Discard(S1, h.h.seats[1].drawn, riichi=True))
    seat = S2
    while h.h.live_left() > 1:
        seat = h.go_around(seat)
    assert seat == S1
    h.draw(S1)
    h.send(Tsumo(S1))
    w = win(h)
    assert w["haitei"] and w["riichi"] and not w["rinshan"] and not w["houtei"]
    # houtei: seat 1 draws the haitei (a 1z) and throws it; seat 2 rons it
    h2 = Hand("mleague", hands={S2: TENPAI, S3: "1z2z2z"}, at={121: "1z"})
    seat = S0
    h2.draw(S0)
    h2.cut(S0)
    h2.draw(S1)
    h2.cut(S1)
    h2.draw(S2)
    h2.send(Discard(S2, h2.h.seats[2].drawn, riichi=True))
    seat = S3
    while h2.h.live_left() > 1:
        seat = h2.go_around(seat)
    assert seat == S1
    h2.draw(S1)
    h2.cut(S1)
    h2.send(Ron(S2))
    w2 = win(h2)
    assert w2["houtei"] and not w2["haitei"] and w2["loser"] == 1


def test_rinshan_flag() -> None:
    # dealer: 111m + draws the 4th 1m, ankan, rinshan 1z completes 456p 789s 111z 22z
    h = Hand("mleague", hands={S0: "111m456p789s11z22z"}, draws="1m", rinshan="1z")
    h.draw(S0)
    h.send(Ankan(S0, h.four(S0, "1m")))
    h.send(IndicatorShown())
    h.rinshan(S0)
    h.send(Tsumo(S0))
    w = win(h)
    assert w["rinshan"] and not w["haitei"] and len(w["melds"]) == 1
    assert w["melds"][0]["kind"] == "ankan"
    assert len(h.ended()["outcome"]["context"]["dora_indicators"]) == 2


@pytest.mark.parametrize("ruleset", ["saikouisen", "mleague"])
def test_tenhou_and_chiihou(ruleset: str) -> None:
    h = Hand(ruleset, hands={S0: "123m456p789s1122z"}, draws="1z")
    h.draw(S0)  # jump deal: already dealt
    h.send(Tsumo(S0))
    assert win(h)["tenhou"] is True
    h2 = Hand(ruleset, hands={S1: "123m456p789s1122z"}, draws="9m" + "2z")
    h2.draw(S0)
    h2.discard(S0, "9m")
    h2.draw(S1)
    h2.send(Tsumo(S1))
    w = win(h2)
    assert w["chiihou"] is True and w["tenhou"] is False


# --- pao -----------------------------------------------------------------------------------------
@pytest.mark.parametrize(("ruleset", "liable"), [("mleague", True), ("saikouisen", False)])
def test_pao_on_the_third_dragon_set(ruleset: str, liable: bool) -> None:
    hands = {S1: "55z66z77z123m4m9p", S0: "5z6z7z"}
    h = Hand(ruleset, hands=hands, draws="9s" + "1p" + "2p" + "9s" + "3p" + "4p" + "9s")
    h.draw(S0)
    h.discard(S0, "5z")
    h.send(Call(S1, "pon", h.tiles(S1, "55z")))
    h.discard(S1, "9p")
    h.go_around(S2, 2)
    h.draw(S0)
    h.discard(S0, "6z")
    h.send(Call(S1, "pon", h.tiles(S1, "66z")))
    h.discard(S1, "4m")  # 123m 77z + the two pons: tenpai on 7z (daisangen needs the third)
    h.go_around(S2, 2)
    h.draw(S0)
    h.discard(S0, "7z")
    h.send(Call(S1, "pon", h.tiles(S1, "77z")))
    st = h.h.seats[1]
    assert (st.pao == S0) is liable
    assert st.pao_yaku == ("daisangen" if liable else None)


def test_exhaustive_draw_tenpai_payments() -> None:
    h = Hand("mleague", hands={S1: TENPAI})
    seat = S0
    while h.h.live_left() > 0:
        seat = h.go_around(seat)
    h.send(ExhaustiveDraw(tenpai=(S1,)))
    end = h.ended()
    assert end["outcome"]["kind"] == "exhaustive"
    assert end["outcome"]["tenpai"] == [1]
    assert end["settlement"]["deltas"] == [-1000, 3000, -1000, -1000]
    assert end["next"]["dealer"] == 1 and end["next"]["honba"] == 1  # M 3-13-1


def test_nagashi_detected_when_every_discard_is_a_terminal() -> None:
    # Seat 2 draws (and throws) only terminals and honors; the hands hold none, so nobody
    # calls them.
    yaochu = ["1m", "9m", "1p", "9p", "1s", "9s", "1z", "2z", "3z", "4z", "5z", "6z", "7z"]
    at = {k: yaochu[n % 13] for n, k in enumerate(range(54, 122, 4))}
    hands = {S0: "2345678m234567p", S1: "2345678s234567p", S2: "2345678m234567s",
             S3: "2345678p345678m"}
    for ruleset, nagashi in (("tenhou", [2]), ("mleague", [])):
        h = Hand(ruleset, hands=hands, at=at)
        seat = S0
        while h.h.live_left() > 0:
            seat = h.go_around(seat)
        h.send(ExhaustiveDraw())
        end = h.ended()
        assert [s for s in end["outcome"]["nagashi"] if s == 2] == nagashi
        river = h.h.seats[2].river
        assert len(river) == 17
        assert all(r.tile is not None and r.tile.kind.is_yaochu for r in river)


def test_nine_terminals_abort_in_tenhou() -> None:
    h = Hand("tenhou", hands={S0: "19m19p19s1234567z"}, draws="5m")
    h.draw(S0)
    ev = h.send(AbortiveDraw("nine_terminals", S0))
    assert h.codes(ev) == []
    end = h.ended()
    assert end["outcome"]["kind"] == "abortive"
    assert end["outcome"]["abort_kind"] == "nine_terminals"
    assert end["next"]["dealer"] == 0 and end["next"]["honba"] == 1


def test_four_winds_abort() -> None:
    h = Hand("tenhou", hands={S0: "1z", S1: "1z", S2: "1z", S3: "1z"}, draws="2p3p4p6p")
    for s in (S0, S1, S2, S3):
        h.draw(s)
        h.discard(s, "1z")
    ev = h.send(AbortiveDraw("four_winds"))
    assert h.codes(ev) == [] and h.ended()["outcome"]["abort_kind"] == "four_winds"


def test_four_riichi_abort_places_the_fourth_stick() -> None:
    h = Hand("tenhou", draws="2p3p4p6p")
    for s in (S0, S1, S2, S3):
        h.draw(s)
        h.send(Discard(s, h.h.seats[s].drawn, riichi=True))
    ev = h.send(AbortiveDraw("four_riichi"))
    assert h.codes(ev) == []
    assert h.ended()["outcome"]["context"]["deposits"] == 4


# --- referee -------------------------------------------------------------------------------------
def ref(action: str, **args: Any) -> RefereeOverride:
    return RefereeOverride(action, "ref-1", args)


def test_set_scores_and_undo_compensate() -> None:
    h = Hand("mleague", hands={S0: TENPAI})
    ev = h.send(ref("set_scores", scores=[26000, 24000, 25000, 25000], reason="typo"))
    sc = next(e.to_json() for e in ev if e.TYPE == "scores_corrected")
    assert sc["deltas"] == [1000, -1000, 0, 0] and sc["by"] == "ref-1"
    assert h.h.scores == (26000, 24000, 25000, 25000)
    ev = h.send(ref("undo_last"))
    assert h.types(ev) == ["scores_corrected", "undone"]
    assert h.h.scores == (25000, 25000, 25000, 25000)
    assert h.codes(h.send(ref("undo_last"))) == ["undo_not_possible"]


def test_penalty_in_points_and_pt() -> None:
    h = Hand("mu", hands={S0: TENPAI})
    h.send(ref("penalty", seat=2, points=-20000, reason="μ §68 option B"))
    assert h.h.scores[2] == 10000
    h.send(ref("penalty", seat=1, pt=-20.0))
    p = h.state.progress
    assert p is not None and p.pt_adjustments[1] == -20.0


def test_dead_hand_by_the_referee_and_undo() -> None:
    h = Hand("mleague", hands={S0: TENPAI}, draws="1z")
    h.send(ref("dead_hand", seat=0))
    h.draw(S0)
    assert h.codes(h.send(Tsumo(S0))) == ["dead_hand_call"]
    h.send(ref("undo_last"))
    assert h.h.seats[0].dead is None
    ev = h.send(Tsumo(S0))
    assert "hand_ended" in h.types(ev)


def test_confirm_and_reject_win() -> None:
    h = Hand("mleague", hands={S0: TENPAI}, draws="1z", confirm_wins=True)
    h.draw(S0)
    ev = h.send(Tsumo(S0))
    assert h.types(ev) == ["win_declared", "win_awaiting_confirmation"]
    assert h.h.step == "won"
    assert h.codes(h.send(HandStart())) == ["out_of_phase"]  # only the referee ends it
    assert h.h.step == "won"
    ev = h.send(ref("confirm_win"))
    assert "hand_ended" in h.types(ev)
    h2 = Hand("mleague", hands={S0: TENPAI}, draws="1z", confirm_wins=True)
    h2.draw(S0)
    h2.send(Tsumo(S0))
    h2.send(ref("reject_win"))
    end = h2.ended()
    assert end["outcome"]["kind"] == "chombo" and end["outcome"]["offender"] == 0
    assert end["settlement"]["pt_penalties"][0] == -20.0 and end["next"]["replay"] is True


def test_reject_win_without_chombo_plays_on_with_penalty_tiles() -> None:
    h = Hand("wmc", hands={S0: TENPAI}, draws="1z", confirm_wins=True)
    h.draw(S0)
    h.send(Tsumo(S0))
    h.send(ref("reject_win"))  # W 错鸣-6: no chombo, played on; the exposed tiles are 罚张
    st = h.h.seats[0]
    assert h.h.step == "discard" and st.dead is None
    assert st.concealed is not None and set(st.penalty) == set(st.concealed)


def test_manual_result_ron_with_han_and_fu() -> None:
    h = Hand("mleague", hands={S0: TENPAI})
    ev = h.send(ref("manual_result", kind="ron", winner=1, loser=3, han=3, fu=40))
    assert "hand_ended" in h.types(ev)
    end = h.ended()
    w = end["outcome"]["wins"][0]
    assert w["manual"] == {"han": 3, "fu": 40, "yakuman": 0, "points": 0, "yaku": []}
    assert end["settlement"]["deltas"][1] == 5200 and end["settlement"]["deltas"][3] == -5200
    h2 = Hand("mleague", hands={S0: TENPAI})
    h2.send(ref("manual_result", kind="exhaustive", tenpai=[0, 2]))
    assert h2.ended()["settlement"]["deltas"] == [1500, -1500, 1500, -1500]


def test_manual_result_zung_jung_points() -> None:
    h = Hand("wmc", hands={S0: TENPAI})
    h.send(ref("manual_result", kind="tsumo", winner=2, points=40))
    assert h.ended()["settlement"]["deltas"][2] > 0


def test_chombo_end_game_and_swap() -> None:
    h = Hand("mleague", hands={S0: TENPAI})
    h.send(ref("chombo", seat=3))
    end = h.ended()
    assert end["outcome"]["kind"] == "chombo" and end["outcome"]["offender"] == 3
    ev = h.send(ref("swap_seats", a=0, b=3))
    sw = next(e.to_json() for e in ev if e.TYPE == "seats_swapped")
    assert sw["names"] == ["D", "B", "C", "A"]
    ev = h.send(ref("end_game"))
    ge = next(e.to_json() for e in ev if e.TYPE == "game_ended")
    assert ge["by"] == "ref-1" and h.state.game_over
    assert h.codes(h.send(HandStart())) == ["game_over"]


def test_accept_violation() -> None:
    h = Hand("mleague", hands={S0: TENPAI})
    h.send(Draw(S2))
    vid = h.state.open_violations[-1].id
    h.send(ref("accept_violation", id=vid))
    assert all(v.id != vid for v in h.state.open_violations)
    h.send(ref("undo_last"))
    assert any(v.id == vid for v in h.state.open_violations)


def test_record_mode_sets_the_game_from_its_first_hand_and_checks_tiles() -> None:
    alloc = TileAllocator(aka=True)
    dealer_hand = tuple(alloc.take(k, r) for k, r in parse_compact(TENPAI))
    rest = [x for x in sorted(alloc.remaining(), key=BY_ID) if x.kind.mjai != "E"]
    random.Random(3).shuffle(rest)
    others = [tuple(rest[i * 13:(i + 1) * 13]) for i in range(3)]
    for hand in others:
        for tile in hand:
            alloc.take(tile.kind, tile.is_red())
    t = new_table()
    t, _ = reduce(t, GameStart("tenhou", S0, rounds=1))
    t, ev = reduce(t, HandStart(dealer=S1, round_wind=Wind.EAST, honba=2, deposits=1,
                                scores=(30000, 20000, 25000, 24000)))
    assert [e.TYPE for e in ev] == ["hand_started"]
    hs = ev[0].to_json()
    assert hs["dealer"] == 1 and hs["honba"] == 2 and hs["hand_in_round"] == 1
    t, ev = reduce(t, DealDone((others[0], dealer_hand, others[1], others[2])))
    assert [e.to_json()["code"] for e in ev if e.TYPE == "violation"] == []
    assert "wall_fallback" not in [e.TYPE for e in ev]
    t, ev = reduce(t, Draw(S1, alloc.take(*parse_mjai("E"))))
    assert [e.TYPE for e in ev] == ["draw"]
    t, ev = reduce(t, Tsumo(S1))
    ended = [e.to_json() for e in ev if e.TYPE == "hand_ended"]
    assert ended and ended[0]["outcome"]["wins"][0]["winner"] == 1
    assert ended[0]["settlement"]["deposits_after"] == 0
    t, ev = reduce(t, HandStart())
    assert ev[0].to_json()["honba"] == 3 and ev[0].to_json()["dealer"] == 1
    # a draw of a tile already in a hand is caught without any geometry
    t, _ = reduce(t, DealDone((others[0], dealer_hand, others[1], others[2])))
    dealt = [x for hand in (*others, dealer_hand) for x in hand]
    lone = next(x for x in others[0] if sum(1 for y in dealt if y.kind == x.kind) < 4)
    t, ev = reduce(t, Draw(S1, lone))
    assert [e.to_json()["code"] for e in ev] == ["tile_in_two_places"]


def test_snapshot_view() -> None:
    h = Hand("mleague", hands={S0: TENPAI}, draws="9m")
    h.draw(S0)
    h.discard(S0, "9m", riichi=True)
    h.draw(S1)
    snap = table_view(h.state)
    assert snap["ruleset"] == "mleague" and snap["game"] == 1 and snap["hand"] == 1
    assert [s["name"] for s in snap["seats"]] == ["A", "B", "C", "D"]
    assert [s["wind"] for s in snap["seats"]] == ["E", "S", "W", "N"]
    assert snap["seats"][0]["score"] == 24000 and snap["deposits"] == 1
    assert snap["seats"][0]["river"][0]["riichi"] is True
    assert snap["turn"] == 1 and snap["live_left"] == 68 and snap["dealer"] == 0
    assert snap["dora_indicators"] == [h.wall[130].id]
    assert snap["open_violations"] == []
    # furiten is concealed: only in the view's private part (the public form drops it)
    assert [s["furiten"] for s in snap["private"]["seats"]] == [False, False, False, False]
    assert all("furiten" not in s for s in snap["seats"])


def test_kakan_needs_its_pon() -> None:
    h = Hand("mleague", hands={S0: TENPAI})
    h.draw(S0)
    assert h.codes(h.send(Kakan(S0, None))) == ["kan_bad_tiles"]


def test_a_closing_input_refused_after_sealing_keeps_the_seal() -> None:
    """A win waiting for more rons is sealed by the next input; if that input is then refused
    the hand still ends (the seal stands) and the next hand starts from the settled game."""
    h = two_waiting("mleague")
    play_to_the_3s(h)
    h.send(Ron(S2))
    assert h.h.step == "won"
    ev = h.send(Draw(S3))  # closes the claims; a draw after the hand ended is refused
    assert h.types(ev) == ["hand_ended", "violation"]
    assert h.codes(ev) == ["out_of_phase"]
    hand = h.state.hand
    assert hand is not None and hand.outcome is not None
    p = h.state.progress
    assert p is not None and p.dealer == 1 and p.honba == 0
    ev = h.send(HandStart())
    assert ev[0].to_json()["dealer"] == 1


def test_wmc_same_turn_immunity_names_the_first_discarder() -> None:
    # seat 3 waits on 5z (P, haku). Seat 1 throws a 5z, seat 3 lets it pass; seat 2 throws the
    # next 5z and seat 3 wins on it: seat 1, who threw it first in the go-around, is the
    # responsible player (跟张免责, [RM08] [WDs]).
    h = Hand("wmc", hands={S1: "5z", S2: "5z", S3: "111m999p111s111z5z"},
             draws="9m" + "3z" + "3z" + "4z" + "4z" + "6z" + "6z")
    h.go_around(S0, 1)  # dealer's 14th is dealt (jump): it discards the 9m...
    assert h.h.turn == S1
    h.draw(S1)
    h.discard(S1, "5z")
    h.draw(S2)
    h.discard(S2, "5z")
    h.send(Ron(S3))
    w = win(h)
    assert w["winner"] == 3 and w["loser"] == 2 and w["responsible"] == 1
    # worth more than 25: the responsible seat pays 3V - 50, the others 25 (v1.03)
    deltas = h.ended()["settlement"]["deltas"]
    assert deltas[0] == deltas[2] == -25 and deltas[1] == -(deltas[3] - 50)


def test_ron_on_a_daiminkan_tile_until_the_replacement_draw() -> None:
    # seat 2 waits on 2s (13s; haku for a yaku); seat 0 throws a 2s that seat 3 kans (222s);
    # seat 2's ron takes the tile while the kan is not complete (W 抢杠-3, 鸣牌优先), not after
    # the rinshan draw
    def setup() -> Hand:
        h = Hand("mleague", hands={S0: "2s", S2: "123m456p555z11z13s", S3: "222s"},
                 draws="9m", rinshan="5z")
        h.draw(S0)
        h.discard(S0, "2s")
        h.send(Call(S3, "daiminkan", h.tiles(S3, "222s")))
        h.send(IndicatorShown())
        return h

    h = setup()
    ev = h.send(Ron(S2))
    assert h.types(ev)[:2] == ["call_cancelled", "win_declared"]
    h2 = setup()
    h2.rinshan(S3)
    assert h2.codes(h2.send(Ron(S2))) == ["no_discard_to_claim"]
