"""Properties of scoring and settlement over generated winning hands (hil.scoring_corpus).

For every ruleset: a generated hand either scores or is refused with ``no_yaku`` (never another
exception); a scoring win's payments sum to the deposits it collects, only the winner gains, a
tsumo's dealer pays at least what a non-dealer pays; and a referee entering the same han/fu (or
yakuman count) by hand gets exactly the same payments as the tile-scored win — the two input
paths share one payment code.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hil.kit import bounded
from hil.scoring_corpus import generate_hand
from rules.outcome import HandOutcome, ManualValue, Win
from rules.ruleset import Ruleset, load_ruleset
from rules.scoring.riichi import check_win
from rules.scoring.value import ScoringError
from rules.seats import SEATS
from rules.settlement import settle

RULESETS = [
    load_ruleset(n) for n in ("saikouisen", "saikouisen-classic", "mleague", "mu", "tenhou")
]
EXAMPLES = bounded(120, 3000)


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", RULESETS, ids=lambda r: r.name)
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_generated_wins(ruleset: Ruleset, seed: int) -> None:
    generated = generate_hand(random.Random(seed), aka=ruleset.dora.red_fives)
    win, context = generated.win, generated.context
    outcome = HandOutcome("win", context, wins=(win,))
    problem = check_win(ruleset, win, context)
    if problem is not None:
        assert problem == "no_yaku"
        with pytest.raises(ScoringError):
            settle(ruleset, outcome)
        return
    s = settle(ruleset, outcome)
    (value,) = s.wins
    deposits = context.deposits * ruleset.riichi.deposit
    assert sum(s.deltas) == deposits and s.deposits_after == 0
    assert s.deltas[win.winner] > 0
    assert all(s.deltas[seat] <= 0 for seat in SEATS if seat != win.winner)
    if win.loser is not None:
        assert all(s.deltas[seat] == 0 for seat in SEATS if seat not in (win.winner, win.loser))
    else:
        payers = [seat for seat in SEATS if seat != win.winner]
        if context.dealer in payers:
            assert all(-s.deltas[context.dealer] >= -s.deltas[seat] for seat in payers)
    if value.yakuman:
        assert value.han == 0 and value.limit.endswith("yakuman")
        if not ruleset.limits.yakuman_stacking:
            assert value.yakuman == 1
    else:
        assert value.han >= 1 and (value.fu == 25 or value.fu % 10 == 0)
        assert sum(han for _, han in value.yaku) == value.han
    manual = Win(
        win.winner,
        win.loser,
        (),
        None,
        manual=ManualValue(han=value.han, fu=value.fu, yakuman=value.yakuman),
    )
    again = settle(ruleset, HandOutcome("win", context, wins=(manual,)))
    assert again.deltas == s.deltas
