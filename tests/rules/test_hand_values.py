"""rules/scoring/hand_values.py against the ``mahjong`` package, for every riichi ruleset: each
(win kind, han, fu) of the table below mangan is a real hand's value (a witness hand, scored by
the package with the ruleset's corrections), and no random hand is worth a value outside it.
Then the referee's entry: an impossible value is refused with its article, and nothing changes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hand_search import hands, win_from_json

from hil.kit import bounded
from rules import manual_result
from rules.ruleset import BUILTIN, Ruleset, load_ruleset
from rules.scoring.hand_values import PICKER_FU, fu_table, impossible
from rules.scoring.riichi import riichi_hand
from rules.seats import Seat
from rules.violations import article_for

RIICHI = [r for r in [load_ruleset(n) for n in BUILTIN] if r.meta.family == "riichi"]
WITNESSES = json.loads((Path(__file__).parents[1] / "data" / "hand_value_witnesses.json")
                       .read_text(encoding="utf-8"))["hands"]
RANDOM_HANDS = bounded(1200, 40000)


def _table(rs: Ruleset) -> set[tuple[str, int, int]]:
    t = fu_table(rs)
    return {(k, h, f) for k in ("ron", "tsumo") for h in range(1, 5) for f in t.fu(k, h)}


@pytest.mark.parametrize("rs", RIICHI, ids=lambda r: r.name)
def test_every_value_of_the_table_is_a_real_hand(rs: Ruleset) -> None:
    scored: set[tuple[str, int, int]] = set()
    for d in WITNESSES:
        win, ctx = win_from_json(d)
        h = riichi_hand(rs, win, ctx)
        if h.yakuman == 0 and h.han < 5:
            scored.add(("tsumo" if win.tsumo else "ron", h.han, h.fu))
    offered = {v for v in _table(rs) if v[2] in PICKER_FU}
    assert offered - scored == set(), "values in the table that no witness hand has"
    assert {v for v in scored if v[2] in PICKER_FU} - offered == set(), \
        "witness hands worth a value the table refuses"


@pytest.mark.parametrize("rs", RIICHI, ids=lambda r: r.name)
def test_no_random_hand_falls_outside_the_table(rs: Ruleset) -> None:
    table = _table(rs)
    seen = 0
    for tsumo, han, fu, _win, _ctx in hands(rs, 2028, RANDOM_HANDS):
        if han >= 5:
            continue
        seen += 1
        assert ("tsumo" if tsumo else "ron", han, fu) in table
    assert seen > RANDOM_HANDS // 3


def test_the_table_differs_where_the_rulesets_do() -> None:
    m, t = load_ruleset("mleague"), load_ruleset("tenhou")
    assert 110 not in fu_table(m).fu("ron", 1)  # a double-wind pair is 2 fu (M 6-3-2 note)
    assert 110 in fu_table(t).fu("ron", 1)  # Tenhou counts it 4
    for rs in RIICHI:
        tab = fu_table(rs)
        assert 20 not in tab.fu("ron", 4) and 20 not in tab.fu("tsumo", 1)
        assert 20 in tab.fu("tsumo", 2) and 25 in tab.fu("ron", 2)
        assert 25 not in tab.fu("tsumo", 2) and 25 in tab.fu("tsumo", 3)
        assert 25 not in tab.fu("ron", 1)


@pytest.mark.parametrize(("kind", "han", "fu"), [
    ("ron", 1, 20), ("ron", 3, 20), ("tsumo", 1, 20), ("ron", 1, 25), ("tsumo", 2, 25),
    ("tsumo", 1, 110), ("ron", 1, 110), ("ron", 2, 120), ("ron", 2, 35),
])
def test_an_impossible_value_is_refused_with_its_article(kind: str, han: int, fu: int) -> None:
    """M 6-3, 9-1-5; S §30, §33-3; μ §56: the fu and han of a hand are those its shape gives, so
    no ruleset pays a value no hand has."""
    for name in ("saikouisen", "mu"):
        assert impossible(load_ruleset(name), kind, han, fu) is not None  # type: ignore[arg-type]
    m = load_ruleset("mleague")
    win = {"winner": 0, "han": han, "fu": fu, **({"loser": 1} if kind == "ron" else {})}
    with pytest.raises(manual_result.ManualResultError) as err:
        manual_result.parse(m, {"kind": kind, "wins": [win]}, ())
    assert err.value.code == "impossible_hand_value" and err.value.seat == Seat(0)
    assert f"{han} han {fu} fu" in str(err.value.actual)
    assert article_for(m, "impossible_hand_value") == "M 6-3, 9-1-5"
    assert impossible(m, kind, han, fu) is not None  # type: ignore[arg-type]


def test_possible_values_and_limit_hands_pass() -> None:
    m = load_ruleset("mleague")
    for kind, han, fu in (("tsumo", 2, 20), ("ron", 2, 25), ("tsumo", 3, 25), ("ron", 1, 30),
                          ("tsumo", 1, 100), ("ron", 5, 0), ("ron", 6, 20)):
        win = {"winner": 0, "han": han, "fu": fu, **({"loser": 1} if kind == "ron" else {})}
        r = manual_result.parse(m, {"kind": kind, "wins": [win]}, ())
        assert r.wins[0].manual is not None and r.wins[0].manual.han == han
