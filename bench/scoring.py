"""Riichi scoring and settlement speed.

Builds a fixed corpus of generated winning hands (:mod:`hil.scoring_corpus`; only the ones
with a yaku under the ruleset are kept), then measures, per ruleset:

* tile-scored hands per second (:func:`rules.scoring.riichi.riichi_hand`: the ``mahjong``
  package plus our corrections), with per-hand latency percentiles;
* settlements per second for the same tile-scored wins (:func:`rules.settlement.settle`,
  valuation included), and for referee-entered values (manual han/fu: payments only);
* settlements per second for exhaustive draws (tenpai payments).

Prints the figures; asserts nothing.

    .venv/bin/python bench/scoring.py [--hands 3000] [--seed 11] [--rulesets mleague,tenhou]
                                      [--json]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import statistics
import sys
import time

from hil.scoring_corpus import GeneratedHand, generate_hand
from rules.outcome import HandOutcome, ManualValue, Win
from rules.ruleset import load_ruleset
from rules.scoring.riichi import check_win, riichi_hand
from rules.seats import SEATS
from rules.settlement import settle

#: the figures, for ``--json`` (bench/report.py): per ruleset
FIGURES: dict[str, dict[str, float]] = {}


def corpus(name: str, n: int, seed: int) -> list[GeneratedHand]:
    ruleset = load_ruleset(name)
    rng = random.Random(seed)
    out: list[GeneratedHand] = []
    while len(out) < n:
        g = generate_hand(rng, aka=ruleset.dora.red_fives)
        if check_win(ruleset, g.win, g.context) is None:
            out.append(g)
    return out


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def run(name: str, n: int, seed: int) -> None:
    ruleset = load_ruleset(name)
    hands = corpus(name, n, seed)
    kinds = {
        "yakuman": sum(1 for g in hands if riichi_hand(ruleset, g.win, g.context).yakuman),
        "open": sum(1 for g in hands if any(m.is_open for m in g.win.melds)),
        "tsumo": sum(1 for g in hands if g.win.tsumo),
    }

    latencies: list[float] = []
    start = time.perf_counter()
    for g in hands:
        t0 = time.perf_counter()
        riichi_hand(ruleset, g.win, g.context)
        latencies.append(time.perf_counter() - t0)
    scored = time.perf_counter() - start

    outcomes = [HandOutcome("win", g.context, wins=(g.win,)) for g in hands]
    start = time.perf_counter()
    for outcome in outcomes:
        settle(ruleset, outcome)
    settled = time.perf_counter() - start

    manual = []
    for g in hands:
        v = riichi_hand(ruleset, g.win, g.context)
        win = Win(g.win.winner, g.win.loser, (), None, manual=ManualValue(v.han, v.fu, v.yakuman))
        manual.append(HandOutcome("win", g.context, wins=(win,)))
    start = time.perf_counter()
    for outcome in manual:
        settle(ruleset, outcome)
    settled_manual = time.perf_counter() - start

    rng = random.Random(seed)
    draws = [
        HandOutcome(
            "exhaustive",
            hands[i % len(hands)].context,
            tenpai=tuple(rng.sample(SEATS, rng.randrange(5))),
        )
        for i in range(len(hands))
    ]
    start = time.perf_counter()
    for outcome in draws:
        settle(ruleset, outcome)
    settled_draws = time.perf_counter() - start

    us = 1e6
    FIGURES[name] = {
        "hands": n,
        "scored_hands_per_s": n / scored,
        "score_p99_us": percentile(latencies, 0.99) * us,
        "settlements_per_s": n / settled,
    }
    print(
        f"{name:>19}: {n} hands ({kinds['yakuman']} yakuman, {kinds['open']} open, "
        f"{kinds['tsumo']} tsumo)\n"
        f"{'':>21}scored        {n / scored:>9,.0f} hands/s   "
        f"median {statistics.median(latencies) * us:6.0f} µs  p99 "
        f"{percentile(latencies, 0.99) * us:6.0f} µs  max {max(latencies) * us:6.0f} µs\n"
        f"{'':>21}settled tiles {n / settled:>9,.0f} settlements/s\n"
        f"{'':>21}settled manual{n / settled_manual:>9,.0f} settlements/s\n"
        f"{'':>21}settled draws {n / settled_draws:>9,.0f} settlements/s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--hands", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--rulesets", default="saikouisen,saikouisen-classic,mleague,mu,tenhou")
    parser.add_argument("--json", action="store_true", help="print one JSON object of figures")
    args = parser.parse_args()
    with contextlib.redirect_stdout(sys.stderr if args.json else sys.stdout):
        for name in args.rulesets.split(","):
            run(name, args.hands, args.seed)
    if args.json:
        print(json.dumps({"bench": "scoring", **FIGURES}))


if __name__ == "__main__":
    main()
