"""rules.manual_result: a referee's result checked against the ruleset before it is settled."""

from __future__ import annotations

from typing import Any

import pytest

from rules.manual_result import ManualResultError, parse, riichi_sticks
from rules.ruleset import load_ruleset
from rules.seats import Seat

M = load_ruleset("mleague")
T = load_ruleset("tenhou")
W = load_ruleset("wmc")


def refused(rs: Any, args: dict[str, Any], standing: tuple[Seat, ...] = ()) -> ManualResultError:
    with pytest.raises(ManualResultError) as exc:
        parse(rs, args, standing)
    return exc.value


def test_riichi_list_names_every_declarer_and_the_win_flag_must_agree() -> None:
    r = parse(M, {"kind": "ron", "riichi": [2, 0],
                  "wins": [{"winner": 0, "loser": 1, "han": 3, "fu": 40, "riichi": True}]}, ())
    assert r.riichi == (Seat(0), Seat(2)) and r.wins[0].riichi
    e = refused(M, {"kind": "ron", "riichi": [2],
                    "wins": [{"winner": 0, "loser": 1, "han": 3, "fu": 40, "riichi": True}]})
    assert e.code == "referee_bad_args" and e.seat == Seat(0)
    # without the list: the winners flagged riichi (the form before the list)
    r = parse(M, {"kind": "tsumo", "wins": [{"winner": 3, "han": 2, "fu": 30, "riichi": True}]}, ())
    assert r.riichi == (Seat(3),) and r.wins[0].loser is None
    # a stick the table saw must be in the list
    e = refused(M, {"kind": "exhaustive", "riichi": [], "tenpai": [1]}, (Seat(1),))
    assert e.seat == Seat(1)


def test_fu_is_ignored_from_mangan_up_and_checked_below() -> None:
    """M 6-6-2: from 5 han the fu do not count (a fu given on a limit hand is ignored)."""
    r = parse(M, {"kind": "ron", "wins": [{"winner": 1, "loser": 2, "han": 6, "fu": 0}]}, ())
    assert r.wins[0].manual is not None and r.wins[0].manual.fu == 0
    r = parse(M, {"kind": "ron", "wins": [{"winner": 1, "loser": 2, "han": 7, "fu": 110}]}, ())
    assert r.wins[0].manual is not None and r.wins[0].manual.fu == 0
    assert refused(M, {"kind": "ron", "wins": [{"winner": 1, "loser": 2}]}).code == (
        "referee_bad_args")


def test_ron_winners_share_one_discard_and_tsumo_has_one_winner() -> None:
    r = parse(M, {"kind": "ron", "wins": [{"winner": 1, "loser": 0, "han": 1, "fu": 30},
                                          {"winner": 3, "loser": 0, "han": 2, "fu": 30}]}, ())
    assert [w.winner for w in r.wins] == [Seat(1), Seat(3)]
    refused(M, {"kind": "ron", "wins": [{"winner": 1, "loser": 0, "han": 1, "fu": 30},
                                        {"winner": 3, "loser": 2, "han": 2, "fu": 30}]})
    refused(M, {"kind": "ron", "wins": [{"winner": 1, "loser": 1, "han": 1, "fu": 30}]})
    refused(M, {"kind": "tsumo", "wins": [{"winner": 1, "han": 1, "fu": 30},
                                          {"winner": 2, "han": 1, "fu": 30}]})
    refused(M, {"kind": "tsumo", "wins": [{"winner": 1, "loser": 2, "han": 1, "fu": 30}]})


def test_noten_riichi_at_the_draw_is_refused_as_a_chombo_case() -> None:
    """S §54-1, M 7-4-1: a riichi seat noten at the exhaustive draw is a chombo, not a draw."""
    e = refused(M, {"kind": "exhaustive", "riichi": [2], "tenpai": [0]})
    assert e.seat == Seat(2) and "chombo" in str(e.expected)
    r = parse(M, {"kind": "exhaustive", "riichi": [2], "tenpai": [2, 0]}, ())
    assert r.tenpai == (Seat(0), Seat(2))


def test_abortive_draws_only_of_the_rulesets_kinds() -> None:
    """M 3-2-3: M.League has no abortive draws; Tenhou has them all."""
    e = refused(M, {"kind": "abortive", "abort": "four_winds"})
    assert e.code == "abortive_not_in_ruleset" and e.expected == []
    assert parse(T, {"kind": "abortive", "abort": "four_winds"}, ()).abort == "four_winds"
    refused(T, {"kind": "abortive", "abort": "four_riichi", "riichi": [0, 1, 2]})
    assert parse(T, {"kind": "abortive", "abort": "four_riichi", "riichi": [0, 1, 2, 3]},
                 ()).riichi == (Seat(0), Seat(1), Seat(2), Seat(3))


def test_pao_only_with_a_yakuman_where_the_ruleset_has_pao() -> None:
    """M 8-1: the liable seat of a daisangen/daisuushii pays; WMC has no pao."""
    r = parse(M, {"kind": "tsumo", "wins": [{"winner": 0, "yakuman": 1, "pao": 2}]}, ())
    assert r.wins[0].pao == Seat(2) and r.wins[0].pao_yaku in M.pao.yaku
    refused(M, {"kind": "tsumo", "wins": [{"winner": 0, "han": 3, "fu": 30, "pao": 2}]})
    refused(W, {"kind": "tsumo", "wins": [{"winner": 0, "points": 88, "pao": 2}]})


def test_zung_jung_wins_are_valued_by_points_and_have_no_riichi() -> None:
    r = parse(W, {"kind": "ron", "wins": [{"winner": 0, "loser": 1, "points": 25}]}, ())
    assert r.wins[0].manual is not None and r.wins[0].manual.points == 25
    refused(W, {"kind": "ron", "wins": [{"winner": 0, "loser": 1, "han": 3, "fu": 30}]})
    refused(W, {"kind": "ron", "riichi": [0], "wins": [{"winner": 0, "loser": 1, "points": 25}]})


def test_sticks_of_declarers_the_table_did_not_see() -> None:
    scores, deposits, paid = riichi_sticks(M, (Seat(0), Seat(2)), (Seat(2),),
                                           (25000, 25000, 24000, 25000), 2)
    assert scores == (24000, 25000, 24000, 25000) and deposits == 3 and paid == (Seat(0),)


def test_the_ticked_yaku_travel_with_the_win_and_add_up_to_its_value() -> None:
    """Issue 28 item 4: the checklist's yaku go into the records (tenhou.net/6 ``立直(1飜)``);
    they must tell the same value as the han or the yakuman count."""
    rs = load_ruleset("tenhou")
    yaku = [["Riichi", 1], ["Pinfu", 1], ["Dora", 2]]
    r = parse(rs, {"kind": "ron", "riichi": [1],
                   "wins": [{"winner": 1, "loser": 2, "han": 4, "fu": 30, "yaku": yaku}]}, ())
    assert r.wins[0].manual is not None
    assert r.wins[0].manual.yaku == (("Riichi", 1), ("Pinfu", 1), ("Dora", 2))
    # from mangan up the fu go, the yaku stay
    r = parse(rs, {"kind": "tsumo", "wins": [{"winner": 0, "han": 6, "fu": 40, "yaku": [
        ["Chinitsu", 6]]}]}, ())
    assert r.wins[0].manual is not None and r.wins[0].manual.yaku == (("Chinitsu", 6),)
    r = parse(rs, {"kind": "tsumo", "wins": [{"winner": 0, "yakuman": 2, "yaku": [
        ["Tsuu Iisou", 13], ["Dai Suushii", 13]]}]}, ())
    assert r.wins[0].manual is not None and r.wins[0].manual.yakuman == 2
    for win, why in (
        ({"han": 3, "fu": 30, "yaku": [["Riichi", 1], ["Dora", 1]]}, "adding up to the win's 3"),
        ({"yakuman": 1, "yaku": [["Kokushi Musou", 13], ["Tsuu Iisou", 13]]}, "1 yakuman"),
        ({"han": 1, "fu": 30, "yaku": [["Riichii", 1]]}, "yaku: one of"),
        ({"han": 2, "fu": 30, "yaku": [["Dora", 1], ["Dora", 1]]}, "each yaku once"),
        ({"han": 1, "fu": 30, "yaku": [["Tanyao", 0]]}, "han 1 or more"),
        ({"han": 1, "fu": 30, "yaku": "Tanyao"}, "a list of [name, han]"),
    ):
        e = refused(rs, {"kind": "tsumo", "wins": [{"winner": 0, **win}]})
        assert e.code == "referee_bad_args" and why in str(e.expected), (win, e.expected)
    e = refused(W, {"kind": "tsumo", "wins": [{"winner": 0, "points": 25,
                                               "yaku": [["Riichi", 1]]}]})
    assert "riichi rulesets only" in str(e.expected)
