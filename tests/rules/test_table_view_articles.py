"""What the table shows after a hand (rules/table_view.py): the winners' hands (S §46,
M 6-1-1) and, at a draw, the tenpai hands (S §60-2), in the public view; and the condition
ladder's hand shapes (rules/conditions.py: S §30, S §33-3)."""

from __future__ import annotations

from scenario import S0, S1, S2, S3, Hand
from test_violations import TENPAI
from test_wmc_articles import _to_the_sea_floor

from rules.conditions import _ladder
from rules.inputs import ExhaustiveDraw, Tsumo
from rules.ruleset import load_ruleset
from rules.table_view import public_view, table_view


def test_s_46_m_6_1_1_the_winning_hand_is_shown_to_everyone() -> None:
    """S §46, M 6-1-1: the winner lays the hand open: the public view carries it."""
    for ruleset in ("saikouisen", "mleague"):
        h = Hand(ruleset, hands={S0: TENPAI}, draws="1z")
        h.draw(S0)
        h.send(Tsumo(S0))
        result = public_view(table_view(h.state))["result"]
        (win,) = result["wins"]
        assert win["winner"] == 0 and win["tsumo"] is True
        assert len(win["hand"]) == 13 and win["win_tile"] is not None, ruleset


def test_s_60_2_tenpai_hands_are_shown_at_the_draw() -> None:
    """S §60-2: at an exhaustive draw the tenpai seats show their hands."""
    h = Hand("saikouisen", hands={S1: "1111m23m456p789s1z", S2: "3m3m", S3: "1234567z258m369p"})
    _to_the_sea_floor(h)
    h.cut(h.h.turn)
    h.send(ExhaustiveDraw(tenpai=(S1,)))
    result = public_view(table_view(h.state))["result"]
    assert result["kind"] == "exhaustive" and result["tenpai"] == [1]
    (shown,) = result["tenpai_hands"]
    assert shown["seat"] == 1 and len(shown["hand"]) == 13


def test_s_30_33_3_no_one_han_chiitoitsu_and_no_one_han_pinfu_tsumo() -> None:
    """S §30: chiitoitsu is 25 fu and at least 2 han (3 by tsumo); S §33-3: a pinfu tsumo is
    20 fu and at least 2 han: the ladder of possible hands has no 1 han 25 fu and no 1 han
    20 fu."""
    rs = load_ruleset("saikouisen")
    for tsumo in (False, True):
        shapes = {(han, fu) for _, han, fu, _ in _ladder(rs, tsumo)}
        assert (1, 25) not in shapes and (1, 20) not in shapes
        assert (1, 30) in shapes
