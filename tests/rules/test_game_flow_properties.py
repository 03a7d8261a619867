"""Properties of whole games of random hands, per ruleset: points are conserved (riichi sticks
on the table included), the dealer is always the first dealer's n-th successor for hand n of the
round, honba never go negative, the game always ends, and the standings rank by points."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hil.kit import bounded
from rules.game_flow import GameProgress, advance, standings, start_game
from rules.outcome import HandContext, HandOutcome, ManualValue, Win
from rules.ruleset import BUILTIN, Ruleset, load_ruleset
from rules.seats import SEATS, Seat
from rules.settlement import settle

EXAMPLES = bounded(25, 400)


def _random_outcome(ruleset: Ruleset, p: GameProgress, rng: random.Random) -> HandOutcome:
    riichi_allowed = ruleset.riichi.enabled
    riichi = tuple(s for s in SEATS if riichi_allowed and rng.random() < 0.15)
    stick = ruleset.riichi.deposit
    context = HandContext(
        dealer=p.dealer,
        round_wind=p.round_wind,
        honba=p.honba,
        deposits=p.deposits + len(riichi),
        scores=tuple(p.scores[s] - (stick if s in riichi else 0) for s in SEATS),  # type: ignore[arg-type]
        aka=True,
        riichi_seats=riichi,
    )
    roll = rng.random()
    if roll < 0.25:
        tenpai = tuple(s for s in SEATS if rng.random() < 0.5)
        return HandOutcome("exhaustive", context, tenpai=tenpai)
    if roll < 0.28:
        return HandOutcome("abortive", context, abort_kind="four_winds")
    if roll < 0.30 and ruleset.penalties.chombo != "none":
        return HandOutcome("chombo", context, offender=rng.choice(SEATS))
    winner = rng.choice(SEATS)
    loser = None if rng.random() < 0.4 else winner.plus(rng.randrange(1, 4))
    if ruleset.meta.family == "zung_jung":
        value = ManualValue(points=rng.choice((0, 10, 25, 40, 80, 320)))
    elif rng.random() < 0.03:
        value = ManualValue(yakuman=1)
    else:
        value = ManualValue(han=rng.randrange(1, 14), fu=rng.choice((30, 40, 50, 70)))
    return HandOutcome("win", context, wins=(Win(winner, loser, (), None, manual=value),))


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", [load_ruleset(n) for n in BUILTIN], ids=lambda r: r.name)
@settings(max_examples=EXAMPLES, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**32 - 1), first=st.sampled_from(SEATS))
def test_random_games(ruleset: Ruleset, seed: int, first: Seat) -> None:
    rng = random.Random(seed)
    p = start_game(ruleset, first)
    total = sum(p.scores)
    stick = ruleset.riichi.deposit
    for _ in range(400):
        outcome = _random_outcome(ruleset, p, rng)
        s = settle(ruleset, outcome)
        q = advance(ruleset, p, outcome, s)
        assert q.hands_played == p.hands_played + 1
        penalty_points = sum(s.penalty_points)
        total += penalty_points
        assert sum(q.scores) + q.deposits * stick == total
        assert q.honba >= 0 and q.deposits >= 0
        if not q.finished:
            assert q.dealer == q.first_dealer.plus(q.hand_in_round)
            assert 0 <= q.hand_in_round < ruleset.game.hands_per_round
        p = q
        if p.finished:
            break
    assert p.finished, "a game of 400 hands"
    if ruleset.game.renchan == "none" and ruleset.penalties.chombo == "none":
        # W 庄家及门风-6: a fixed session, whatever happens in the hands.
        assert p.hands_played == ruleset.game.rounds * ruleset.game.hands_per_round
    final = standings(ruleset, p)
    ranked = [final.seats[s].points for s in final.order]
    assert ranked == sorted(ranked, reverse=True)
    assert all(final.seats[s].rank >= 1 for s in SEATS)
