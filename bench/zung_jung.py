"""Zung Jung scoring speed: hands scored per second under the ``wmc`` ruleset.

Builds a fixed pseudo-random set of legal winning hands (regular hands with and without shown
melds and kongs, Seven Pairs, Thirteen Terminals; self-draws and discards), then scores them
with :func:`rules.scoring.zung_jung.zung_jung_value` and prints the rate, the per-hand latency
percentiles and the worst hand (the one with the most arrangements under Freedom of Count).
Asserts nothing.

    .venv/bin/python bench/zung_jung.py [--hands 20000] [--seed 7] [--json]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time

from hil.hand_notation import parse_compact
from rules.outcome import HandContext, Meld, MeldKind, Win
from rules.ruleset import load_ruleset
from rules.scoring.zung_jung import zung_jung_value
from rules.scoring.zung_jung_shape import YAOCHU
from rules.seats import Seat, Wind
from rules.tiles import Tile, TileAllocator


def regular(rng: random.Random) -> tuple[list[int], list[tuple[MeldKind, list[int]]]]:
    counts = [0] * 34
    concealed: list[int] = []
    melds: list[tuple[MeldKind, list[int]]] = []
    for _ in range(4):
        options: list[list[int]] = []
        for k in range(34):
            if counts[k] <= 1:
                options.append([k, k, k])
            if counts[k] == 0 and rng.random() < 0.1:
                options.append([k] * 4)
            if k < 27 and k % 9 <= 6 and all(counts[k + i] < 4 for i in range(3)):
                options.append([k, k + 1, k + 2])
        kinds = rng.choice(options)
        for k in kinds:
            counts[k] += 1
        if len(kinds) == 4:
            melds.append((rng.choice(["ankan", "daiminkan", "kakan"]), kinds))
        elif rng.random() < 0.3:
            melds.append(("chi" if kinds[0] != kinds[1] else "pon", kinds))
        else:
            concealed.extend(kinds)
    pair = rng.choice([k for k in range(34) if counts[k] <= 2])
    concealed.extend([pair, pair])
    return concealed, melds


def make_hands(n: int, seed: int) -> list[Win]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        r = rng.random()
        melds: list[tuple[MeldKind, list[int]]] = []
        if r < 0.05:
            concealed = [*YAOCHU, rng.choice(YAOCHU)]
        elif r < 0.15:
            kinds = rng.sample(range(34), 7)
            concealed = [k for k in kinds for _ in range(2)]
        else:
            concealed, melds = regular(rng)
        alloc = TileAllocator(aka=False)
        winner = Seat(rng.randrange(4))
        shown = []
        for kind, kinds in melds:
            tiles = tuple(alloc.take(Tile(k * 4).kind) for k in kinds)
            if kind == "ankan":
                shown.append(Meld(kind, tiles))
            else:
                shown.append(Meld(kind, tiles, tiles[0], winner.plus(3)))
        hand = [alloc.take(Tile(k * 4).kind) for k in concealed]
        rng.shuffle(hand)
        loser = None if rng.random() < 0.4 else winner.plus(rng.randrange(1, 4))
        out.append(Win(winner, loser, tuple(hand), rng.choice(hand), tuple(shown)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", action="store_true", help="print one JSON object of figures")
    args = parser.parse_args()
    ruleset = load_ruleset("wmc")
    context = HandContext(Seat.S0, Wind.EAST, 0, 0, (0, 0, 0, 0), False)
    hands = make_hands(args.hands, args.seed)

    lat: list[float] = []
    start = time.perf_counter()
    for win in hands:
        t0 = time.perf_counter()
        zung_jung_value(ruleset, win, context)
        lat.append(time.perf_counter() - t0)
    elapsed = time.perf_counter() - start

    # A hand with many readings: 11122233344455m + 55m eyes is the classic worst case.
    alloc = TileAllocator(aka=False)
    worst_hand = tuple(alloc.take(k) for k, _ in parse_compact("11122233344455m"))
    worst = Win(Seat.S1, None, worst_hand, worst_hand[-1])
    reps = 2000
    t0 = time.perf_counter()
    for _ in range(reps):
        value = zung_jung_value(ruleset, worst, context)
    worst_us = (time.perf_counter() - t0) / reps * 1e6

    lat.sort()
    us = [x * 1e6 for x in lat]
    if args.json:
        print(json.dumps({
            "bench": "zung_jung", "hands": len(hands), "hands_per_s": len(hands) / elapsed,
            "p50_us": us[len(us) // 2], "p99_us": us[int(len(us) * 0.99)], "worst_us": worst_us,
        }))
        return
    print(f"hands scored: {len(hands)} in {elapsed:.3f} s = {len(hands) / elapsed:,.0f} hands/s")
    print(
        f"latency per hand: mean {statistics.fmean(us):.1f} us, p50 {us[len(us) // 2]:.1f} us, "
        f"p99 {us[int(len(us) * 0.99)]:.1f} us, max {us[-1]:.1f} us"
    )
    print(f"worst-case 11122233344455m self-draw: {worst_us:.1f} us/hand (value {value.total})")


if __name__ == "__main__":
    main()
