"""Issue 17: rulebook articles and engine findings, each checked where the engine plays it
(scripted hands through the reducer) or where it scores it."""

from __future__ import annotations

import dataclasses
from typing import Any

from scenario import S0, S1, S2, S3, Hand

from hil.hand_notation import parse_compact
from rules.inputs import (
    AbortiveDraw,
    Call,
    Discard,
    Draw,
    ExhaustiveDraw,
    Kakan,
    RefereeOverride,
    Ron,
    Tsumo,
    WinShown,
)
from rules.outcome import HandContext, Win
from rules.reducer.hand_ops import expose
from rules.reducer.output import Out
from rules.ruleset import load_ruleset
from rules.scoring.zung_jung import zung_jung_value
from rules.seats import Seat, Wind
from rules.tiles import BY_ID, TileAllocator

WMC = load_ruleset("wmc")
# 123m 456p 789s 11z 22z: shanpon on E / S (the dealer's 14th, a 9p, is his riichi discard)
TENPAI_S = "123m456p789s1122z"


def settled_win(h: Hand, n: int = 0) -> dict[str, Any]:
    return dict(h.ended()["settlement"]["wins"][n])


def patterns(w: dict[str, Any]) -> dict[str, int]:
    return {str(k): int(v) for k, v in w["patterns"]}


# --- A2: ZJ 9.4.2 Blessing of Earth ------------------------------------------------------------
def test_blessing_of_earth_on_the_dealers_first_discard_zj_9_4_2() -> None:
    """ZJ 9.4.2: a non-dealer's win on the dealer's first discard is Blessing of Earth (before,
    the ron never set the flag and the hand scored 15)."""
    h = Hand("wmc", hands={S0: "9p", S1: "123m456s789s11z78p"})
    h.discard(S0, "9p")
    h.send(Ron(S1))
    w = settled_win(h)
    assert patterns(w)["blessing_of_earth"] == 320 and w["value"] == 320


def test_no_blessing_of_earth_after_the_first_go_around_zj_9_4_2() -> None:
    # WMC deals the dealer his 14th (the jump): draws[0] is his.
    h = Hand("wmc", hands={S0: "1z", S1: "123m456s789s11z78p"}, draws="1z" + "2z3z4z" + "9p")
    h.discard(S0, "1z")
    h.go_around(S1, 3)
    h.draw(S0)
    h.cut(S0)  # the dealer's second discard, the 9p
    h.send(Ron(S1))
    assert "blessing_of_earth" not in patterns(settled_win(h))


def test_a_riichi_ron_on_the_dealers_first_discard_is_no_chiihou_m_6_6_1() -> None:
    """The riichi chiihou is a first self-draw (M 6-6-1): a ron on the dealer's first discard
    is not a yakuman (Tenhou)."""
    h = Hand("tenhou", hands={S0: "8p", S1: "234m456s678s55p67p"}, draws="1z")
    h.draw(S0)
    h.discard(S0, "8p")
    h.send(Ron(S1))
    w = dict(h.ended()["settlement"]["wins"][0])
    assert not w.get("yakuman"), w


# --- A3: W 和牌的计分-12 / -11 ----------------------------------------------------------------
def _dealer_win(hand: str, **flags: Any) -> Win:
    alloc = TileAllocator(aka=False)
    tiles = tuple(alloc.take(k) for k, _ in parse_compact(hand))
    return Win(winner=Seat.S0, loser=None, hand=tiles, win_tile=tiles[-1], **flags)


def test_blessing_of_heaven_never_counts_nine_gates_w_12() -> None:
    """W 和牌的计分-12: the dealer's 14 dealt tiles have no self-drawn tile, so a Blessing of
    Heaven with a Nine Gates shape counts Blessing of Heaven, not Nine Gates (480 before)."""
    ctx = HandContext(dealer=Seat.S0, round_wind=Wind.EAST, honba=0, deposits=0,
                      scores=(0, 0, 0, 0), aka=False)
    heaven = zung_jung_value(WMC, _dealer_win("11123456789995m", tenhou=True), ctx)
    kinds = dict(heaven.patterns)
    assert "nine_gates" not in kinds and kinds["blessing_of_heaven"] == 320
    assert heaven.total == 320
    drawn = zung_jung_value(WMC, _dealer_win("11123456789995m"), ctx)
    assert "nine_gates" in dict(drawn.patterns) and drawn.total == 480  # a self-draw counts it




# --- B12: ippatsu and another seat's kakan ------------------------------------------------------
def _kakan_after_riichi(ron_on_kakan: bool) -> Hand:
    """S2 pons the dealer's 9s; S1 declares riichi (waits 6s-9s); S2 draws the last 9s and adds
    it to the pon. ``ron_on_kakan``: S1 robs it (chankan); else S1 lets it go and draws its 6s
    before its next discard."""
    h = Hand("tenhou", hands={S0: "9s", S1: "234m456p555z11p78s", S2: "99s1z"},
             draws="2z" + "3z" + "4z" + "2z" + "9s" + "3z" + "4z" + "6s", rinshan="3z")
    h.draw(S0)
    h.discard(S0, "9s")
    h.send(Call(S2, "pon", h.tiles(S2, "99s")))
    h.discard(S2, "1z")
    h.go_around(S3, 2)
    h.draw(S1)
    h.send(Discard(S1, h.h.seats[1].drawn, riichi=True, tsumogiri=True))
    h.draw(S2)
    assert h.h.seats[1].ippatsu  # the riichi discard passed
    h.send(Kakan(S2, h.tile(S2, "9s")))
    if ron_on_kakan:
        h.send(Ron(S1))
        return h
    h.rinshan(S2)
    h.cut(S2)
    h.go_around(S3, 2)
    h.draw(S1)
    h.send(Tsumo(S1))
    return h


def test_another_seats_kakan_breaks_ippatsu_tenhou() -> None:
    """B12 (the external engine, Tenhou rules): any kan cancels ippatsu; before, a kakan left it
    standing and S1's tsumo counted Ippatsu."""
    h = _kakan_after_riichi(ron_on_kakan=False)
    end = h.ended()
    w = end["outcome"]["wins"][0]
    assert w["winner"] == 1 and w["ippatsu"] is False
    assert "Ippatsu" not in [y for y, _ in end["settlement"]["wins"][0]["yaku"]]


def test_a_chankan_on_that_kakan_keeps_ippatsu_m_9_1_3() -> None:
    """M 9-1-3: the robbed kan never stood, so ippatsu and chankan combine."""
    h = _kakan_after_riichi(ron_on_kakan=True)
    end = h.ended() if any(e.TYPE == "hand_ended" for e in h.events) else None
    if end is None:
        h.send(RefereeOverride("confirm_win", "ref-1", {}))
        end = h.ended()
    w = end["outcome"]["wins"][0]
    assert w["winner"] == 1 and w["chankan"] is True and w["ippatsu"] is True
    yaku = [y for y, _ in end["settlement"]["wins"][0]["yaku"]]
    assert "Ippatsu" in yaku and "Chankan" in yaku


# --- B13: a triple ron on a riichi declaration tile ---------------------------------------------
def _riichi_into_three_waits() -> Hand:
    """S1, S2, S3 wait on 3s in riichi; the dealer draws the second 3s and declares riichi
    with a 3s (a tanki on the other): the declaration tile is claimed by all three."""
    hands = {S1: "123m456p789s11z24s", S2: "456m123p789s22z24s", S3: "789m789p789s33z24s",
             S0: "567m567p567s555z3s"}
    h = Hand("tenhou", hands=hands, draws="9p" + "1z" + "2z" + "3z" + "3s")
    h.draw(S0)
    h.discard(S0, "9p")
    for s in (S1, S2, S3):
        h.draw(s)
        h.send(Discard(s, h.h.seats[s].drawn, riichi=True))
    h.draw(S0)
    h.send(Discard(S0, h.tile(S0, "3s"), riichi=True))
    return h


def test_triple_ron_on_a_riichi_declaration_puts_no_stick_down_tenhou() -> None:
    """B13 (the external engine, Tenhou rules): the declaration tile was won on, so the riichi
    is not accepted and no stick is paid; before, the abortive draw accepted it (-1000)."""
    for path in ("abortive_draw", "three_rons"):
        h = _riichi_into_three_waits()
        if path == "abortive_draw":  # as a record gives it (三家和了)
            h.send(AbortiveDraw("triple_ron"))
        else:
            h.send(Ron(S1))
            h.send(Ron(S2))
            h.send(Ron(S3))
        end = h.ended()
        assert end["outcome"]["abort_kind"] == "triple_ron", path
        assert end["outcome"]["context"]["riichi_seats"] == [1, 2, 3], path
        assert end["next"]["deposits"] == 3, path  # the three accepted sticks stay out
        assert end["scores"] == [25000, 24000, 24000, 24000], path


# --- A5: several offenders in one hand -------------------------------------------------------
def test_two_noten_riichi_at_the_draw_are_both_penalised_m_7_4_5() -> None:
    """M 7-4-5 (チョンボ者が複数の場合、全て罰を受ける), μ §69: two noten riichi reaching the
    draw are two offenders, each -20 pt (before, only the first was)."""
    noten = "1m3m5m7m9m2p4p6p8p1s3s5s7s"
    h = Hand("mleague", hands={S0: noten, S1: "2m4m6m8m1p3p5p7p9p2s4s6s8s"})
    h.draw(S0)
    h.discard(S0, "1m", riichi=True)
    h.draw(S1)
    h.discard(S1, "2m", riichi=True)
    seat = S2
    while h.h.live_left() > 0:
        seat = h.go_around(seat)
    ev = h.send(ExhaustiveDraw(tenpai=(S0, S1)))
    assert [v["code"] for v in h.violations(ev)] == ["noten_riichi", "noten_riichi"]
    end = h.ended()
    assert end["outcome"]["kind"] == "chombo"
    assert end["outcome"]["offenders"] == [0, 1] and end["outcome"]["offender"] == 0
    assert end["settlement"]["pt_penalties"] == [-20.0, -20.0, 0.0, 0.0]


# --- A8: S §45-4 no head-bump once a hand is shown --------------------------------------------
def _two_wait_on_the_3s(ruleset: str) -> Hand:
    """S1 and S2 wait on 3s in riichi; the dealer deals it; S2 (second in priority) rons and
    shows the hand before S1 speaks."""
    hands = {S1: "123m456p789s11z24s", S2: "456m123p789s22z24s", S0: "3s"}
    h = Hand(ruleset, hands=hands, draws="9p" + "1z" + "2z" + "5z" + "3s")
    h.draw(S0)
    h.discard(S0, "9p")
    for s in (S1, S2, S3):
        h.draw(s)
        if s != S3:
            h.send(Discard(s, h.h.seats[s].drawn, riichi=True))
        else:
            h.cut(s)
    h.draw(S0)
    three = h.tile(S0, "3s")
    h.send(Discard(S0, three))
    h.send(Ron(S2))
    concealed = h.h.seats[2].concealed
    assert concealed is not None
    h.send(WinShown(S2, tuple(sorted((*concealed, three), key=BY_ID)), three))
    return h


def test_no_head_bump_once_the_winner_has_shown_the_hand_s_45_4() -> None:
    """S §45-4 (倒排后不再承认头跳): S1's ron after S2 has shown the hand is refused; S2 wins."""
    h = _two_wait_on_the_3s("saikouisen")
    ev = h.send(Ron(S1))
    v = h.violations(ev)
    assert [x["code"] for x in v] == ["head_bump_after_shown"] and v[0]["article"] == "S §45-4"
    h.send(RefereeOverride("confirm_win", "ref-1", {}))
    assert [w["winner"] for w in h.ended()["outcome"]["wins"]] == [2]


def test_head_bump_after_the_hand_is_shown_where_the_rulebook_allows_it_w_jiehe() -> None:
    """M 5-1-3 is silent and W 截和 has no exceptions: S1 still bumps S2."""
    h = _two_wait_on_the_3s("mleague")
    h.send(Ron(S1))
    assert [w["winner"] for w in h.ended()["outcome"]["wins"]] == [1]


# --- A7 / A6 / A9: minor chombo, riichi offences, dead-hand calls ----------------------------
def _kuikae(ruleset: str) -> tuple[Hand, list[Any]]:
    """S1 chis 4m with 56m and discards 7m (the other end of the run): kuikae."""
    h = Hand(ruleset, hands={S0: "4m456p789s11223z", S1: "567m"})
    h.draw(S0)
    h.discard(S0, "4m")
    h.send(Call(S1, "chi", h.tiles(S1, "56m")))
    return h, h.discard(S1, "7m")


def test_kuikae_costs_10_pt_s_54_3() -> None:
    """S §54-3 小错和(停和), §55-3(1) 食替: −10 pt and the hand is dead (ruleset data:
    penalties.minor_chombo_pt); M has no such deduction (agari houki only, M 7-2-2(3))."""
    h, ev = _kuikae("saikouisen")
    fine = [e.to_json() for e in ev if e.TYPE == "scores_corrected"]
    assert len(fine) == 1 and fine[0]["by"] == "rules" and fine[0]["reason"] == "kuikae"
    assert fine[0]["pt_deltas"] == [0.0, -10.0, 0.0, 0.0]
    assert h.state.progress is not None and h.state.progress.pt_adjustments[1] == -10.0
    assert h.h.seats[1].dead == "kuikae" and h.h.step != "ended"  # play goes on
    m, ev = _kuikae("mleague")
    assert not [e for e in ev if e.TYPE == "scores_corrected"]
    assert m.state.progress is not None and m.state.progress.pt_adjustments == (0.0,) * 4


def test_a_false_tenpai_claim_costs_10_pt_s_54_4() -> None:
    """S §54-4 小错和(对局继续), §55-4(4) 未听时宣布听牌: −10 pt; the seat counts noten."""
    noten = "1m3m5m7m9m2p4p6p8p1s3s5s7s"
    h = Hand("saikouisen", hands={S1: noten})
    seat = S0
    while h.h.live_left() > 0:
        seat = h.go_around(seat)
    h.send(ExhaustiveDraw(tenpai=(S1,)))
    assert "false_tenpai" in h.codes()
    assert h.state.progress is not None and h.state.progress.pt_adjustments[1] == -10.0
    assert h.ended()["settlement"]["tenpai"] == []


def test_a_dead_hand_offence_by_a_riichi_player_is_a_chombo_s_55_1_4() -> None:
    """S §55-1(4): an offence of 停和 level (here a draw out of turn, §55-3) by a riichi
    player is a full chombo: −20 pt and the hand ends (the draw itself is refused)."""
    h = Hand("saikouisen", hands={S0: TENPAI_S}, draws="9p")
    h.discard(S0, "9p", riichi=True)  # the dealer's 14th is dealt in S (the jump, §34)
    h.draw(S1)
    h.cut(S1)
    ev = h.send(Draw(S0))  # S2's turn: the riichi dealer draws out of turn
    assert "draw_out_of_turn" in h.codes(ev)
    end = h.ended()
    assert end["outcome"]["kind"] == "chombo" and end["outcome"]["offender"] == 0
    assert end["settlement"]["pt_penalties"][0] == -20.0


def test_riichi_by_a_dead_hand_is_a_chombo_mu_70() -> None:
    """μ §70: a 停和 player loses the right to chi, pon, kan and riichi; "违反者判为错和" (a
    violation is a chombo). M 7-2-1 likewise. Under W the declaration is only refused."""
    for ruleset, chombo in (("mu", True), ("mleague", True), ("tenhou", False)):
        h = Hand(ruleset, hands={S0: TENPAI_S, S2: "1z"}, draws="9p" + "2z" + "3z")
        h.send(Draw(S2))  # out of turn: seat 2's hand is dead
        if h.rs.wall.dealer_fourteenth == "draw":
            h.draw(S0)
        h.discard(S0, "9p")
        h.draw(S1)
        h.cut(S1)
        h.draw(S2)
        ev = h.send(Discard(S2, h.tile(S2, "1z"), riichi=True))
        assert "dead_hand_call" in h.codes(ev), ruleset
        ended = any(e.TYPE == "hand_ended" for e in ev)
        assert ended is chombo, ruleset
        if chombo:
            end = h.ended()
            assert end["outcome"]["kind"] == "chombo" and end["outcome"]["offender"] == 2


# --- A10: μ §24(2) the session time limit ---------------------------------------------------
def test_the_hand_during_which_time_runs_out_is_the_last_mu_24_2() -> None:
    """μ §24(2): under a time limit the game ends with the hand during which it is reached,
    even when the dealer would keep the deal (here a dealer tsumo in East 1)."""
    h = Hand("mu", hands={S0: TENPAI_S}, draws="9p" + "3z3z3z" + "1z")  # 9p: the 14th
    h.send(RefereeOverride("time_limit", "ref-1", {}))
    assert h.state.progress is not None and h.state.progress.time_up
    h.discard(S0, "9p")
    h.go_around(S1, 3)
    h.draw(S0)
    h.send(Tsumo(S0))
    end = h.ended()
    assert end["next"]["finished"] is True
    assert h.state.progress is not None and h.state.progress.end_reason == "time_limit"
    assert any(e.TYPE == "game_ended" for e in h.events)


def test_time_limit_between_hands_ends_the_game_now_mu_24_2() -> None:
    h = Hand("mu", hands={S0: TENPAI_S})
    h.send(RefereeOverride("chombo", "ref-1", {"seat": 1}))  # the hand ends
    ev = h.send(RefereeOverride("time_limit", "ref-1", {}))
    assert [e.TYPE for e in ev][-1] == "game_ended"
    assert h.state.progress is not None and h.state.progress.end_reason == "time_limit"


def test_no_time_limit_end_where_the_rulebook_has_none() -> None:
    h = Hand("mleague", hands={S0: TENPAI_S})
    ev = h.send(RefereeOverride("time_limit", "ref-1", {}))
    assert h.codes(ev) == ["referee_bad_args"]
    assert h.state.progress is not None and not h.state.progress.time_up


# --- A4: W 错鸣-6 and 罚张 ------------------------------------------------------------------
def test_a_false_win_exposes_penalty_tiles_and_play_goes_on_w_6() -> None:
    """W 错鸣-6: a false win is handled like a false call: the hand goes on and the exposed
    tiles become penalty tiles (W 罚张-1, face up); the hand is not dead (before: dead)."""
    h = Hand("wmc", hands={S0: "1p", S1: "1m3m5m7m9m2p4p6p8p1s3s5s7s"})
    h.discard(S0, "1p")  # the dealer's first discard
    h.draw(S1)
    ev = h.send(Tsumo(S1))
    assert h.codes(ev) == ["false_win"]
    # the violation says what was done: refused, the shown tiles penalty tiles (not "rejected",
    # which promises an unchanged state)
    assert [v["sanction"] for v in h.violations(ev)] == ["penalty_tiles_rejected"]
    st = h.h.seats[1]
    assert st.dead is None and len(st.penalty) == 14 and h.h.step == "discard"
    shown = next(e.to_json() for e in ev if e.TYPE == "penalty_tiles")
    assert shown["seat"] == 1 and len(shown["tiles"]) == 14
    h.cut(S1)  # a penalty tile discarded is one no more (W 罚张-7)
    assert len(h.h.seats[1].penalty) == 13


def _false_tsumo(h: Hand, seat: Seat) -> None:
    """``seat`` draws and declares a self-draw its tiles do not make (W 错鸣-6)."""
    h.draw(seat)
    assert h.codes(h.send(Tsumo(seat))) == ["false_win"]


def test_a_penalty_tile_never_goes_into_an_exposed_set_w_3() -> None:
    """W 罚张-3,5: penalty tiles make concealed sets only; a pon with them is refused."""
    h = Hand("wmc", hands={S0: "1p5z", S1: "1m3m5m7m9m2p4p6p8p1s3s5z5z"}, draws="6z" + "7z")
    h.discard(S0, "1p")
    _false_tsumo(h, S1)
    h.cut(S1)
    h.go_around(S2, 2)
    h.draw(S0)
    h.discard(S0, "5z")
    ev = h.send(Call(S1, "pon", h.tiles(S1, "5z5z")))
    assert h.codes(ev) == ["penalty_tile_call"]


def test_thirteen_terminals_and_penalty_tiles_w_4() -> None:
    """W 罚张-4: Thirteen Terminals may not ron a tile identical to a penalty tile, and with
    two penalty tiles or more may not ron at all (self-draw only)."""
    kokushi = "19m19p19s1234567z"  # 13 tiles: 13-sided wait
    # Two or more penalty tiles (a false self-draw exposed all 14): no ron at all.
    h = Hand("wmc", hands={S0: "1p9m", S1: kokushi}, draws="3z" + "5m")  # 3z: the 14th
    h.discard(S0, "1p")
    _false_tsumo(h, S1)  # draws the 5m: no win
    h.discard(S1, "5m")
    h.go_around(S2, 2)
    h.draw(S0)
    h.discard(S0, "9m")
    assert h.codes(h.send(Ron(S1))) == ["penalty_tile_win"]
    # One penalty tile (as a referee rules an exposed tile): not on its kind, on others yes.
    for kind, refused in (("1m", True), ("9s", False)):
        h = Hand("wmc", hands={S0: kind, S1: kokushi})
        st = h.h.seats[1]
        assert st.concealed is not None
        one = next(t for t in st.concealed if t.kind.mjai == "1m")
        exposed = expose(h.h, S1, (one,), "test", Out(None, 0, "test"))
        h.state = dataclasses.replace(h.state, hand=exposed)
        h.discard(S0, kind)
        codes = h.codes(h.send(Ron(S1)))
        assert (codes == ["penalty_tile_win"]) is refused, (kind, codes)


def test_a_false_tenpai_on_the_last_hand_counts_in_the_final_standings_s_54_4() -> None:
    """S §54-4, §55-4(4): the −10 pt of a false tenpai declared at the last hand's draw is in
    ``game_ended``'s standings (it used to be deducted after the game had ended, so the final
    standings missed it), and the deduction comes before the game's end in the event stream."""
    noten = "1m3m5m7m9m2p4p6p8p1s3s5s7s"
    h = Hand("saikouisen")
    for n in range(8):  # East 1 .. South 4, all noten: the deal passes, South 4 is the last
        if n:
            h.deal({S1: noten} if n == 7 else {})
        seat = h.h.dealer
        while h.h.live_left() > 0:
            seat = h.go_around(seat)
        ev = h.send(ExhaustiveDraw(tenpai=(S1,) if n == 7 else ()))
    types = [e.TYPE for e in ev]
    assert "false_tenpai" in h.codes(ev) and "game_ended" in types
    assert types.index("scores_corrected") < types.index("game_ended")
    ended = next(e.to_json() for e in ev if e.TYPE == "game_ended")
    assert h.state.progress is not None and h.state.progress.pt_adjustments[1] == -10.0
    s1 = ended["standings"]["seats"][1]
    assert s1["seat"] == 1 and s1["penalty_pt"] == -10.0 and s1["total_pt"] == -10.0
