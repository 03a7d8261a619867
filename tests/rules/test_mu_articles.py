"""The Renmei μ (μ, 2021) articles the reducer enforces, each exercised under the ``mu`` ruleset:
the tile set, the dead wall, turn order and its sanctions, calls, riichi and the deposit, the
draw's payments and the dealer's continuation."""

from __future__ import annotations

from scenario import S0, S1, S2, S3, Hand
from test_violations import TENPAI, recorded, rejected
from test_wmc_articles import _to_the_sea_floor

from rules.inputs import (
    AbortiveDraw,
    Ankan,
    Call,
    Discard,
    Draw,
    ExhaustiveDraw,
    Ron,
    Tsumo,
)
from rules.ruleset import load_ruleset
from rules.seats import Seat, seat_by_dice

MU = "mu"
DEALER_DISCARD = "1p" + "23456789m1234z"


def test_mu_1_136_tiles_no_tile_in_two_places_no_fifth_copy() -> None:
    """μ §1: 136 tiles, four of each kind."""
    h = Hand(MU, hands={S0: "1111m456p789s112z", S1: "123p"}, draws="5z")
    assert sorted(t.id for t in h.wall) == list(range(136))
    h.discard(S0, "2z")
    rejected(h, Draw(S1, h.tile(S1, "1p")), "tile_in_two_places", article="μ §1")
    rejected(h, Draw(S1, h.tile(S0, "1m")), "fifth_copy", article="μ §1")


def test_mu_5_the_roll_counts_counter_clockwise_from_the_roller() -> None:
    """μ §5: the roller counts as 1, then counter-clockwise (5 and 9: the roller again)."""
    assert [seat_by_dice(Seat.S0, n) for n in (2, 3, 4, 5, 9)] == [S1, S2, S3, S0, S0]
    assert seat_by_dice(Seat.S2, 3) == S0


def test_mu_19_no_abortive_draws_and_the_dead_wall_of_14() -> None:
    """μ §19: no abortive draws; μ §19(2): 14 tiles in the dead wall, the hand is drawn only
    after the last discard."""
    rs = load_ruleset(MU)
    assert rs.draws.abortive == () or list(rs.draws.abortive) == []
    assert rs.wall.dead_wall_tiles == 14
    h = Hand(MU, hands={S0: TENPAI})
    rejected(h, AbortiveDraw("four_winds"), "abortive_not_in_ruleset", article="μ §19")
    h.discard(S0, "1z")
    rejected(h, ExhaustiveDraw(), "exhaustive_too_early", article="μ §19(2)")


def test_mu_70_turn_order_sanctions() -> None:
    """μ §70: an early draw, a discard out of turn or without the draw; μ §70(4): a draw out of
    turn: the seat's hand is dead."""
    h = Hand(MU, hands={S0: TENPAI, S1: "123m"})
    recorded(h, Draw(S1), "early_draw", article="μ §70")
    assert h.h.seats[S1].dead == "early_draw"
    h = Hand(MU, hands={S0: TENPAI, S1: "123m"})
    rejected(h, Discard(S1, h.tile(S1, "1m")), "discard_out_of_turn", article="μ §70")
    h.discard(S0, "1z")
    recorded(h, Draw(S2), "draw_out_of_turn", article="μ §70(4)")
    recorded(h, Discard(S1, h.tile(S1, "1m")), "discard_without_draw", article="μ §70")
    assert h.h.seats[S1].dead == "discard_without_draw" and h.h.seats[S2].dead is not None


def test_mu_72_a_dead_hand_makes_no_call_and_no_win() -> None:
    """μ §70, §72: a dead hand (after a sanction) calls nothing and cannot win; μ §70
    "违反者判为错和": the call is refused and is a chombo that ends the hand."""
    h = Hand(MU, hands={S0: DEALER_DISCARD, S2: "1p1p"})
    recorded(h, Draw(S2), "draw_out_of_turn")
    h.discard(S0, "1p")
    ev = h.send(Call(S2, "pon", h.tiles(S2, "1p1p")))
    v = [e.to_json() for e in ev if e.TYPE == "violation"]
    assert [x["code"] for x in v] == ["dead_hand_call"] and v[0]["article"] == "μ §70, §72"
    end = h.ended()
    assert end["outcome"]["kind"] == "chombo" and end["outcome"]["offender"] == 2


def test_mu_26_27_33_calls() -> None:
    """μ §26: chi from the left seat only; μ §26(1): a shown call closes the other claims;
    μ §33: no call of one's own discard; μ §27: after a kan the replacement tile."""
    h = Hand(MU, hands={S0: DEALER_DISCARD, S2: "1p1p23p"})
    h.discard(S0, "1p")
    rejected(h, Call(S2, "chi", h.tiles(S2, "2p3p")), "chi_not_from_left", article="μ §26")
    rejected(h, Call(S0, "pon"), "call_own_discard", article="μ §33")
    h.send(Call(S2, "pon", h.tiles(S2, "1p1p")))
    rejected(h, Call(S1, "chi"), "claim_taken", article="μ §26(1)")
    h = Hand(MU, hands={S0: "1111m456p789s112z"}, draws="5z")
    h.send(Ankan(S0, h.four(S0, "1m")))
    rejected(h, Draw(S0), "must_draw_rinshan", article="μ §27")


def test_mu_33_a_ron_beats_a_call_on_the_same_tile() -> None:
    """μ §33: the win on a discard has priority over any call of it."""
    h = Hand(MU, hands={S0: DEALER_DISCARD, S1: "123m456p789s11z23p", S2: "1p1p"},
             confirm_wins=True)
    h.discard(S0, "1p")
    h.send(Ron(S1))
    rejected(h, Call(S2, "pon", h.tiles(S2, "1p1p")), "call_loses_to_ron", article="μ §33")


def test_mu_62_win_only_in_turn_or_on_another_seats_discard() -> None:
    """μ §62: tsumo on one's own draw, ron on another seat's discard."""
    h = Hand(MU, hands={S0: TENPAI})
    rejected(h, Tsumo(S1), "tsumo_not_in_turn", article="μ §62")
    h.discard(S0, "1z")
    rejected(h, Ron(S0), "ron_own_discard", article="μ §62")


def test_mu_40_42_riichi_stick_and_37_closed_hands_only() -> None:
    """μ §42: the riichi deposit is 1,000; μ §40: it goes down once the declaration tile is not
    ronned, and (μ §51: ippatsu is not among the 25 yaku) no ippatsu runs; μ §37: riichi needs
    a closed hand."""
    assert load_ruleset(MU).riichi.deposit == 1000
    h = Hand(MU, hands={S0: TENPAI}, draws="5z")
    h.discard(S0, "5z", riichi=True)
    assert h.h.deposits == 0 and h.h.seats[S0].riichi == "declared"
    h.draw(S1)
    assert h.h.seats[S0].riichi == "accepted" and not h.h.seats[S0].ippatsu
    assert h.h.deposits == 1 and h.h.scores[S0] == h.state.progress.scores[S0] - 1000  # type: ignore[union-attr]
    h = Hand(MU, hands={S0: DEALER_DISCARD, S1: "1p1p" + "123m456p789s2z"})
    h.discard(S0, "1p")
    h.send(Call(S1, "pon", h.tiles(S1, "1p1p")))
    rejected(h, Discard(S1, h.tile(S1, "2z"), riichi=True), "riichi_open_hand",
             article="μ §37")


def test_mu_34_71_22_the_sea_floor_and_the_draw() -> None:
    """μ §34: no kan on the last tile, no call but the win on the last discard; μ §71 (option A):
    3,000 from the noten seats to the tenpai seat; μ §71: a false tenpai is noten; μ §22: the
    dealer continues only when winning or tenpai."""
    h = Hand(MU, hands={S1: "1111m23m456p789s1z", S2: "3m3m", S3: "1234567z258m369p"})
    _to_the_sea_floor(h)
    assert h.h.turn == S1 and h.h.live_left() == 0
    rejected(h, Ankan(S1, h.four(S1, "1m")), "kan_after_haitei", article="μ §34")
    h.cut(S1)
    rejected(h, Call(S2, "chi"), "call_on_houtei", article="μ §34")
    ev = h.send(ExhaustiveDraw(tenpai=(S1, S3)))
    assert "false_tenpai" in h.codes(ev)
    assert [v["article"] for v in h.violations(ev) if v["code"] == "false_tenpai"] == ["μ §71"]
    ended = h.ended()
    assert ended["settlement"]["deltas"] == [-1000, 3000, -1000, -1000]
    assert ended["next"]["dealer"] == 1  # the dealer (S0) was noten: the deal passes


def test_mu_29_at_most_four_kans() -> None:
    """μ §29: four kans at most in a hand; a fifth is refused."""
    assert load_ruleset(MU).calls.max_kans == 4
    h = Hand(MU, hands={S0: "1111m2222m3333m4m"}, draws="4m", rinshan="4m4m5z6z")
    for kind in ("1m", "2m", "3m", "4m"):
        h.send(Ankan(S0, h.four(S0, kind)))
        h.rinshan(S0)
    assert h.h.kans == 4
    rejected(h, Ankan(S0), "fifth_kan", article="μ §29")
