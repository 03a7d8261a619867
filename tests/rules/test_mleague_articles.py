"""M.League (M) articles the reducer enforces, each exercised under the ``mleague`` ruleset:
the tile set and red fives, the dora and ura indicators, the table's own opening, riichi once,
no call on the last discard."""

from __future__ import annotations

from scenario import S0, S1, S2, S3, Hand
from test_violations import TENPAI, recorded, rejected
from test_wmc_articles import _to_the_sea_floor

from rules.inputs import (
    BreakOpened,
    Call,
    DiceRolled,
    Discard,
    Draw,
    ExhaustiveDraw,
    GameStart,
    HandStart,
    IndicatorShown,
    Kakan,
    Ron,
    WallRaised,
)
from rules.reducer import new_table, reduce
from rules.ruleset import load_ruleset
from rules.tiles import Tile
from rules.wall import Wall

M = "mleague"


def test_m_1_2_1_one_set_of_136_tiles() -> None:
    """M 1-2-1: one set of 136 tiles: a tile in two places or a fifth copy is refused."""
    h = Hand(M, hands={S0: "1111m456p789s112z", S1: "123p"}, draws="5z")
    h.draw(S0)
    h.discard(S0, "2z")
    rejected(h, Draw(S1, h.tile(S1, "1p")), "tile_in_two_places", article="M 1-2-1")
    rejected(h, Draw(S1, h.tile(S0, "1m")), "fifth_copy", article="M 1-2-1")


def test_m_1_2_2_one_red_five_of_each_suit() -> None:
    """M 1-2-2: one red 5m, 5p, 5s in the set (that each is a dora, M 2-6-4:
    test_scoring_riichi.py)."""
    rs = load_ruleset(M)
    assert rs.dora.red_fives is True
    h = Hand(M)
    assert h.state.game is not None and h.state.game.aka is True
    reds = [t for t in (Tile(i) for i in range(136)) if t.is_red(True)]
    assert sorted(t.mjai(True) for t in reds) == ["5mr", "5pr", "5sr"]


def test_m_2_6_1_2_6_3_the_indicator_and_the_ura_beneath_it() -> None:
    """M 2-6-1: the dora indicator is the 3rd stack of the dead wall, top; M 2-6-3: the ura
    indicator is the tile beneath it. A wrong indicator tile is recorded."""
    w = Wall.URA[0]
    assert w == Wall.DORA + 1  # beneath the indicator (ring order: top, bottom)
    h = Hand(M, indicator=False)
    right = h.wall[Wall.DORA]
    wrong = next(t for t in h.wall[60:] if t.kind != right.kind)
    recorded(h, IndicatorShown(None, wrong), "indicator_wrong_tile", article="M 2-6-1")


def test_m_3_4_2_the_table_opens_the_wall_itself() -> None:
    """M 3-4-2: the automatic table rolls and opens: one roll, no break before dice needed."""
    t = new_table()
    for inp in (GameStart(M, S0, ("A", "B", "C", "D")), HandStart(), WallRaised()):
        t, _ = reduce(t, inp)
    t, ev = reduce(t, BreakOpened(S2, 5))
    assert [e.TYPE for e in ev] == ["break_checked"]  # no break_before_dice in an auto table
    t2 = new_table()
    for inp in (GameStart(M, S0, ("A", "B", "C", "D")), HandStart(), WallRaised(),
                DiceRolled(S0, (3, 4))):
        t2, _ = reduce(t2, inp)
    t2, ev = reduce(t2, DiceRolled(S0, (1, 2)))
    (v,) = [e.to_json() for e in ev if e.TYPE == "violation"]
    assert (v["code"], v["article"]) == ("dice_extra_roll", "M 3-4-2")


def test_m_4_8_6_one_riichi_per_hand() -> None:
    """M 4-8-6: a riichi cannot be declared twice."""
    h = Hand(M, hands={S0: TENPAI}, draws="5z" + "6z7z7z" + "6z")
    h.draw(S0)
    h.discard(S0, "5z", riichi=True)
    h.go_around(S1, 3)
    h.draw(S0)
    rejected(h, Discard(S0, h.h.seats[S0].drawn, riichi=True), "riichi_twice",
             article="M 4-8-6")


def test_m_2_4_no_call_on_the_last_discard() -> None:
    """M 2-4: the last discard (河底) can only be won on, not called."""
    h = Hand(M, hands={S2: "3m3m"})
    _to_the_sea_floor(h)
    last = h.h.turn
    h.cut(last)
    assert h.h.last is not None and h.h.last.houtei
    rejected(h, Call(last.plus(1), "chi"), "call_on_houtei", article="M 2-4")


def test_m_3_11_2_4_5_tenpai_at_the_draw() -> None:
    """M 3-11-2,4: a declared tenpai that is no tenpai counts as noten (a wait on a kind whose
    four tiles one holds is none); M 3-11-5: 3,000 from the noten seats to the tenpai ones."""
    h = Hand(M, hands={S1: "1111m23m456p789s1z", S2: "3m3m", S3: "1234567z258m369p"})
    _to_the_sea_floor(h)
    h.cut(h.h.turn)
    ev = h.send(ExhaustiveDraw(tenpai=(S1, S3)))
    assert [v["article"] for v in h.violations(ev) if v["code"] == "false_tenpai"] == \
        ["M 3-11-2,4"]
    assert h.ended()["settlement"]["deltas"] == [-1000, 3000, -1000, -1000]


def test_m_7_2_7_3_a_dead_hand_calls_nothing() -> None:
    """M 7-2, 7-3: a hand made dead (here by a draw out of turn) may not call; the attempt is
    refused, and as M 7-2-1 has it the offence becomes a chombo."""
    h = Hand(M, hands={S0: "1p" + "23456789m1234z", S2: "1p1p"})
    h.draw(S0)
    recorded(h, Draw(S2), "draw_out_of_turn")
    h.discard(S0, "1p")
    recorded(h, Call(S2, "pon", h.tiles(S2, "1p1p")), "dead_hand_call", article="M 7-2, 7-3")
    assert h.ended()["outcome"]["kind"] == "chombo"


def _to_the_kakan(indicator: bool) -> Hand:
    h = Hand("mleague", hands={S0: "1m456p789s11223z", S1: "11m234p", S2: "23m456p789s11333z"},
             draws="9p" + "2p" + "3s3s" + "1m", rinshan="5z", kan_dora="3p")
    h.draw(S0)
    h.discard(S0, "1m")
    h.send(Call(S1, "pon", h.tiles(S1, "11m")))
    h.discard(S1, "2p")
    h.go_around(S2, 3)  # seats 2, 3, 0
    h.draw(S1)  # the 4th 1m
    h.send(Kakan(S1, h.tile(S1, "1m")))
    if indicator:  # turned promptly once the kan is shown (M 4-5-5): no violation
        assert h.codes(h.send(IndicatorShown())) == []
    return h


def test_m_4_5_5_a_robbed_kakan_s_indicator_is_withdrawn() -> None:
    """M 4-5-5: a robbed kan is not established. A sensor table sees the kan indicator flip
    before a ron called a second later (kakan, indicator, ron): the ron is a chankan, the
    indicator is withdrawn and the hand is scored without it (issue 28)."""
    h = _to_the_kakan(True)
    assert len(h.h.indicators) == 2
    ev = h.send(Ron(S2))  # chankan on 23m
    assert h.codes(ev) == [], [e.to_json() for e in ev]
    declared = [e.to_json() for e in ev if e.TYPE == "win_declared"]
    assert [d["kind"] for d in declared] == ["chankan"]
    [withdrawn] = [e.to_json() for e in ev if e.TYPE == "indicator_withdrawn"]
    assert withdrawn["number"] == 1 and withdrawn["tile_mjai"] == "3p"
    end = h.ended()
    assert end["outcome"]["wins"][0]["chankan"] is True
    assert len(end["outcome"]["context"]["dora_indicators"]) == 1
    # the 3p indicator would make the winner's 4p dora: the win pays as if it never turned
    plain = _to_the_kakan(False)
    plain.send(Ron(S2))
    want = plain.ended()["settlement"]["wins"][0]
    got = end["settlement"]["wins"][0]
    assert (got["han"], got["points"], got["yaku"]) == (want["han"], want["points"], want["yaku"])
