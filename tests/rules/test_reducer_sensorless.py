"""The reducer at a table without sensors (GameStart ``auto_hands``): each hand begins by itself,
the referee's results carry the riichi list, ron with several winners, draws with tenpai,
abortive draws of the ruleset, chombo and pao; live and replayed state are the same fold."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from rules.inputs import GameStart, HandStart, Input, RefereeOverride
from rules.reducer import new_table, reduce
from rules.seats import Seat
from rules.table_state import TableState

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "web"))

from sensorless_hanchan import STEPS, Model, expected

from rules.table_view import table_view


def ref(action: str, **args: Any) -> RefereeOverride:
    return RefereeOverride(action=action, by="alice", args={"reason": "r", **args})


def fold(inputs: list[Input]) -> tuple[TableState, list[dict[str, Any]]]:
    t, out = new_table(), []
    for inp in inputs:
        t, evs = reduce(t, inp)
        out.extend(e.to_json() for e in evs)
    return t, out


def start(ruleset: str = "mleague", **kw: Any) -> GameStart:
    return GameStart(ruleset=ruleset, first_dealer=Seat(0), names=("A", "B", "C", "D"),
                     auto_hands=True, **kw)


def rejected(evs: list[dict[str, Any]]) -> list[str]:
    return [e["code"] for e in evs if e["type"] == "violation" and e["sanction"] == "rejected"]


def test_each_hand_begins_by_itself_and_the_hanchan_ends_by_the_flow() -> None:
    """M 1-1 (East and South), M 3-13 honba, M 4-8 sticks, M 5-1-3 head-bump, M 7-4 chombo."""
    t, evs = fold([start()])
    assert [e["type"] for e in evs] == ["game_started", "hand_started"]
    assert t.hand is not None and t.hand.step == "setup"
    m = Model()
    inputs: list[Input] = [start()]
    for step in STEPS:
        args = dict(step.args)
        if step.name == "set_scores":
            now = table_view(t)["seats"]
            args = {"scores": [s["score"] + d for s, d in zip(now, args["delta"], strict=True)]}
        inputs.append(ref(step.name, **args))
        t, evs = reduce(t, inputs[-1])
        assert not rejected([e.to_json() for e in evs]), (step, evs)
        if step.undone:
            inputs.append(ref("undo_last"))
            t, evs = reduce(t, inputs[-1])
            assert not rejected([e.to_json() for e in evs])
        else:
            m.apply(step)
        snap = table_view(t)
        assert [s["score"] for s in snap["seats"]] == m.scores, step
        assert (snap["honba"], snap["deposits"]) == (m.honba, m.deposits), step
        if not m.over:
            # the next hand is in play already, where the game flow stands
            assert snap["step"] == "setup" and snap["dealer"] == m.dealer
            assert snap["round_wind"] == "ES"[m.hand // 4]
    assert t.game_over
    replayed, all_events = fold(inputs)
    assert table_view(replayed) == table_view(t)  # live and replayed: the same fold
    ended = next(e for e in all_events if e["type"] == "game_ended")
    got = [{k: s[k] for k in ("seat", "points", "rank", "total_pt")}
           for s in ended["standings"]["seats"]]
    assert got == expected().standings()
    bumped = [e for e in all_events if e["type"] == "ron_head_bumped"]
    assert [(e["seat"], e["by"]) for e in bumped] == [(3, 1)]  # M 5-1-3
    riichi = [e["seat"] for e in all_events if e["type"] == "riichi_accepted"]
    assert riichi == [1, 0, 3, 2]


def test_double_ron_paid_twice_and_abortive_draws_where_the_ruleset_has_them() -> None:
    """Tenhou: double ron, each paid, honba and sticks to the nearest winner; four winds."""
    t, _ = fold([start("tenhou")])
    t, evs = reduce(t, ref("manual_result", kind="ron", riichi=[3],
                           wins=[{"winner": 3, "loser": 1, "han": 1, "fu": 30},
                                 {"winner": 2, "loser": 1, "han": 2, "fu": 30}]))
    ended = next(e.to_json() for e in evs if e.TYPE == "hand_ended")
    # nearest to the discarder (seat 1) in turn order: seat 2, who takes the stick
    assert ended["settlement"]["deltas"] == [0, -1000 - 2000, 2000 + 1000, 1000]
    t, evs = reduce(t, ref("manual_result", kind="abortive", abort="four_winds"))
    assert not rejected([e.to_json() for e in evs])
    snap = table_view(t)
    assert snap["honba"] == 1 and snap["dealer"] == 1  # Tenhou: renchan-like, honba +1
    _t2, evs = reduce(fold([start("mleague")])[0],
                     ref("manual_result", kind="abortive", abort="four_winds"))
    assert rejected([e.to_json() for e in evs]) == ["abortive_not_in_ruleset"]  # M 3-2-3


def test_pao_yakuman_by_the_referee() -> None:
    """M 8-1: daisangen fed by seat 2; tsumo → seat 2 pays the whole yakuman (dealer: 48000)."""
    t, _ = fold([start()])
    t, evs = reduce(t, ref("manual_result", kind="tsumo",
                           wins=[{"winner": 0, "yakuman": 1, "pao": 2}]))
    ended = next(e.to_json() for e in evs if e.TYPE == "hand_ended")
    assert ended["settlement"]["deltas"] == [48000, 0, -48000, 0]


def test_seats_swap_before_anything_happened_in_the_hand_that_began_by_itself() -> None:
    t, _ = fold([start()])
    t, evs = reduce(t, ref("set_scores", scores=[30000, 20000, 25000, 25000]))
    t, evs = reduce(t, ref("swap_seats", a=0, b=1))
    assert not rejected([e.to_json() for e in evs])
    assert [s["score"] for s in table_view(t)["seats"]] == [20000, 30000, 25000, 25000]
    t, evs = reduce(t, ref("undo_last"))
    assert [s["score"] for s in table_view(t)["seats"]] == [30000, 20000, 25000, 25000]


def test_a_start_button_on_a_hand_that_began_by_itself_is_that_hand() -> None:
    """Sensors switched off on a table that still has its start button: no second hand."""
    t, _ = fold([start()])
    t, evs = reduce(t, HandStart())
    assert not rejected([e.to_json() for e in evs]) and t.hands == 1
    t, evs = reduce(t, ref("manual_result", kind="exhaustive", tenpai=[]))
    assert t.hands == 2 and table_view(t)["dealer"] == 1
