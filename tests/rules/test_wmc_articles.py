"""The WMC (W, WSOM 2007) articles the reducer enforces, each exercised under the ``wmc`` ruleset:
turn order, the dead wall and the sea floor, calls' priority, the tile set. (Timers: the
W 打牌时限 articles are in test_timers.py.)"""

from __future__ import annotations

from scenario import S0, S1, S2, S3, Hand
from test_violations import TENPAI, recorded, rejected

from rules.inputs import Ankan, Call, Discard, Draw, ExhaustiveDraw, RinshanDraw, Ron
from rules.ruleset import load_ruleset

W = "wmc"


def test_w_da_pai_1_the_dealer_holds_14_and_plays_first() -> None:
    """W 打牌-1 (and 配牌 跳牌): the dealer is dealt 14 and discards first, no draw."""
    h = Hand(W, hands={S0: TENPAI})
    assert (h.h.step, h.h.turn, h.h.seats[S0].count) == ("discard", S0, 14)
    assert [h.h.seats[s].count for s in (S1, S2, S3)] == [13, 13, 13]


def test_w_mo_da_1_a_draw_out_of_order_kills_the_hand() -> None:
    """W 摸打-1: one draws in turn after the previous discard; early or out of turn is 相公."""
    h = Hand(W, hands={S0: TENPAI})
    v = recorded(h, Draw(S1), "early_draw", article="W 摸打-1")
    assert v["sanction"] == "dead_hand_rejected:xianggong"
    assert h.h.seats[S1].dead == "early_draw" and h.h.seats[S1].count == 13
    h = Hand(W, hands={S0: TENPAI})
    h.discard(S0, "1z")
    recorded(h, Draw(S2), "draw_out_of_turn", article="W 摸打-1")
    assert h.h.seats[S2].dead == "draw_out_of_turn" and h.h.turn == S1


def test_w_mo_da_3_discard_in_turn_after_the_draw() -> None:
    """W 摸打-3: a discard out of turn is refused; one without the draw plays short (相公)."""
    h = Hand(W, hands={S0: TENPAI, S1: "123m"})
    rejected(h, Discard(S1, h.tile(S1, "1m")), "discard_out_of_turn", article="W 摸打-3")
    h.discard(S0, "1z")
    v = recorded(h, Discard(S1, h.tile(S1, "1m")), "discard_without_draw", article="W 摸打-3")
    assert v["sanction"] == "dead_hand:xianggong"
    assert h.h.seats[S1].count == 12 and h.h.turn == S2


def test_w_mo_da_4_no_call_once_the_next_player_drew() -> None:
    """W 摸打-4: the discard is claimable until the next player draws."""
    h = Hand(W, hands={S0: "1p" + "23456789m1234z", S2: "1p1p"})
    h.discard(S0, "1p")
    h.draw(S1)
    rejected(h, Call(S2, "pon", h.tiles(S2, "1p1p")), "call_after_draw", article="W 摸打-4")


def test_w_kai_gang_7_the_replacement_tile_after_a_kan_only() -> None:
    """W 开杠-7: after a kan the replacement is drawn (not a live tile); none without a kan."""
    h = Hand(W, hands={S0: "1111m456p789s112z"}, draws="5z")
    rejected(h, RinshanDraw(S0), "rinshan_without_kan", article="W 开杠-7")
    h.send(Ankan(S0, h.four(S0, "1m")))
    rejected(h, Draw(S0), "must_draw_rinshan", article="W 开杠-7")
    rejected(h, Discard(S0, h.tile(S0, "4p")), "must_draw_rinshan", article="W 开杠-7")
    h.rinshan(S0)
    assert h.h.seats[S0].rinshan and h.h.step == "discard"


def test_w_pai_de_gou_cheng_1_136_tiles_no_red_fives_no_fifth_copy() -> None:
    """W 牌的构成-1: 136 tiles, four of each kind, no red fives; a tile in two places or a fifth
    copy is refused."""
    assert load_ruleset(W).dora.red_fives is False
    h = Hand(W, hands={S0: "1111m456p789s112z", S1: "123p"}, draws="5z")
    assert h.state.game is not None and h.state.game.aka is False
    assert sorted(t.id for t in h.wall) == list(range(136))
    h.discard(S0, "2z")
    one_p = h.tile(S1, "1p")
    rejected(h, Draw(S1, one_p), "tile_in_two_places", article="W 牌的构成-1")
    rejected(h, Draw(S1, h.tile(S0, "1m")), "fifth_copy", article="W 牌的构成-1")


def test_w_ming_pai_you_xian_4_a_shown_call_closes_other_claims() -> None:
    """W 鸣牌优先-4: once a call is shown, later pon/kan/chi claims on the tile lapse."""
    h = Hand(W, hands={S0: "1p" + "23456789m1234z", S2: "1p1p", S3: "1p"})
    h.discard(S0, "1p")
    h.send(Call(S2, "pon", h.tiles(S2, "1p1p")))
    rejected(h, Call(S1, "chi"), "claim_taken", article="W 鸣牌优先-4")


def test_w_ming_pai_you_xian_2_a_ron_beats_a_call_on_the_same_tile() -> None:
    """W 鸣牌优先-2 (截和): a win on the discard takes it; a call declared after is refused."""
    # confirm_wins: the win waits for the referee, so the late call meets a declared ron
    h = Hand(W, hands={S0: "1p" + "23456789m1234z", S1: "123m456p789s11z23p", S2: "1p1p"},
             confirm_wins=True)
    h.discard(S0, "1p")
    h.send(Ron(S1))
    assert h.h.step == "won"
    rejected(h, Call(S2, "pon", h.tiles(S2, "1p1p")), "call_loses_to_ron",
             article="W 鸣牌优先-2")


def _to_the_sea_floor(h: Hand) -> None:
    """Play tsumogiri until the last live tile is drawn (from the dealer S0: its 14th is dealt
    under a jump, drawn otherwise)."""
    h.draw(S0)
    h.cut(S0)
    seat = S1
    while h.h.live_left() > 0:
        h.draw(seat)
        if h.h.live_left() == 0:
            return
        h.cut(seat)
        seat = seat.plus(1)


def test_w_wang_pai_yu_hai_di_pai_1_3_4_6_dead_wall_and_sea_floor() -> None:
    """W 王牌与海底牌-1: 14 tiles stay in the dead wall; -3: no kan on the last tile; -4: no
    call but the win on the last discard; -6: the hand is drawn only after that discard, and
    a draw pays nothing (no noten payment)."""
    rs = load_ruleset(W)
    assert rs.wall.dead_wall_tiles == 14
    h = Hand(W, hands={S1: "1111m456p789s11z", S2: "3m3m"})
    assert h.h.live_left() == 136 - 14 - 53  # the dealer's 14th is dealt, not drawn
    _to_the_sea_floor(h)
    last = h.h.turn
    assert last == S1 and h.h.live_left() == 0  # 69 draws: S1 draws the last tile
    rejected(h, Ankan(S1, h.four(S1, "1m")), "kan_after_haitei", article="W 王牌与海底牌-3")
    rejected(h, ExhaustiveDraw(), "exhaustive_too_early", article="W 王牌与海底牌-6")
    h.cut(S1)
    assert h.h.last is not None and h.h.last.houtei
    rejected(h, Call(S2, "chi"), "call_on_houtei", article="W 王牌与海底牌-4")
    h.send(ExhaustiveDraw(tenpai=(S1,)))
    ended = h.ended()
    assert ended["settlement"]["deltas"] == [0, 0, 0, 0]


def test_w_wang_pai_yu_hai_di_pai_6_no_draw_before_the_last_discard() -> None:
    """W 王牌与海底牌-6: the hand is not drawn while live tiles remain."""
    h = Hand(W, hands={S0: TENPAI})
    h.discard(S0, "1z")
    rejected(h, ExhaustiveDraw(), "exhaustive_too_early", article="W 王牌与海底牌-6")


def test_w_xiang_gong_3_a_short_hand_still_calls_but_cannot_win() -> None:
    """W 相公-3 (小相公, RULESETS.md "W 相公"): a short hand -- here a discard without the draw,
    W 摸打-3 -- loses only its right to win: it may still chi, pon and kan."""
    h = Hand(W, hands={S0: TENPAI, S1: "123m55p666s11447z"}, draws="5z5p3z3z5z6s")
    h.discard(S0, "1z")
    recorded(h, Discard(S1, h.tile(S1, "1m")), "discard_without_draw", article="W 摸打-3")
    assert h.h.seats[S1].dead == "discard_without_draw" and h.h.seats[S1].count == 12
    h.go_around(S2)  # 5p
    ev = h.send(Call(S1, "pon", h.tiles(S1, "55p")))
    assert h.violations(ev) == [] and h.h.seats[S1].melds[-1].kind == "pon"
    h.discard(S1, "7z")
    h.go_around(S2, 2)  # S2 and S3 draw and cut
    h.draw(S0)
    h.discard(S0, "1m")
    ev = h.send(Call(S1, "chi", h.tiles(S1, "23m")))
    assert h.violations(ev) == [] and h.h.seats[S1].melds[-1].kind == "chi"
    h.discard(S1, "4z")
    h.go_around(S2)  # 6s
    ev = h.send(Call(S1, "daiminkan", h.tiles(S1, "666s")))
    assert h.violations(ev) == [] and h.h.seats[S1].melds[-1].kind == "daiminkan"
    h.rinshan(S1)
    h.cut(S1)
    assert h.h.seats[S1].dead == "discard_without_draw"  # still short, still dead
    h.go_around(S2)
    rejected(h, Ron(S1), "dead_hand_call", article="W 相公")


def test_w_xiang_gong_4_a_long_hand_loses_its_calls_too() -> None:
    """W 相公-4 (大相公): a long hand -- a draw before the previous discard, W 摸打-1 -- cannot
    win, call or kan."""
    h = Hand(W, hands={S0: "3m456p789s11223z", S3: "33m"})
    recorded(h, Draw(S3), "draw_out_of_turn", article="W 摸打-1")
    h.discard(S0, "3m")
    rejected(h, Call(S3, "pon", h.tiles(S3, "33m")), "dead_hand_call", article="W 相公")


def test_w_qiang_gang_3_no_ron_on_a_concealed_kong() -> None:
    """W 抢杠-3: a concealed kong cannot be robbed; the refusal names that article, not the
    call-after-draw of W 摸打-4 (issue 28)."""
    h = Hand(W, hands={S0: "1111m456p789s112z", S1: "23m456p789s11333z"}, draws="5z")
    h.send(Ankan(S0, h.four(S0, "1m")))
    rejected(h, Ron(S1), "chankan_of_ankan", article="W 抢杠-3")
    assert h.h.step == "rinshan"  # the kan stands; its replacement is drawn next
    h.rinshan(S0)
