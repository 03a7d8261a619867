"""Generated winning hands (riichi shapes), for the scoring benchmark and property tests.

Deterministic for a given ``random.Random``: four sets and a pair (or, now and then, seven
pairs) drawn within the four copies of each kind, some sets called open (chi, pon, daiminkan)
or declared as an ankan, a winning tile taken from the concealed part, ron or tsumo, riichi on
some closed hands, and a context with a random dealer, round and dora indicators. Not every
generated hand has a yaku: :func:`rules.scoring.riichi.check_win` tells.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from rules.outcome import HandContext, Meld, MeldKind, Win
from rules.seats import SEATS, Wind
from rules.tiles import Kind, Tile, TileAllocator


@dataclass(frozen=True, slots=True)
class GeneratedHand:
    win: Win
    context: HandContext


def _group(rng: random.Random, counts: list[int]) -> tuple[str, list[int]] | None:
    if rng.random() < 0.55:
        suit, start = rng.randrange(3), rng.randrange(7)
        kinds = [suit * 9 + start + i for i in range(3)]
        if all(counts[k] < 4 for k in kinds):
            return "run", kinds
        return None
    kind = rng.randrange(34)
    if counts[kind] <= 1:
        return "set", [kind] * 3
    return None


def generate_hand(rng: random.Random, *, aka: bool = True) -> GeneratedHand:
    counts = [0] * 34
    groups: list[tuple[str, list[int]]] = []
    seven_pairs = rng.random() < 0.06
    if seven_pairs:
        kinds = rng.sample(range(34), 7)
        groups = [("pair", [k, k]) for k in kinds]
        for k in kinds:
            counts[k] += 2
    else:
        while len(groups) < 4:
            group = _group(rng, counts)
            if group is None:
                continue
            groups.append(group)
            for k in group[1]:
                counts[k] += 1
        while True:
            pair = rng.randrange(34)
            if counts[pair] <= 2:
                counts[pair] += 2
                groups.append(("pair", [pair, pair]))
                break

    alloc = TileAllocator(aka=aka)

    def take(kind: int) -> Tile:
        red = aka and kind in (4, 13, 22) and rng.random() < 0.3
        try:
            return alloc.take(Kind(kind), red)
        except ValueError:
            return alloc.take(Kind(kind), not red)

    winner = rng.choice(SEATS)
    melds: list[Meld] = []
    concealed: list[Tile] = []
    for shape, kinds in groups:
        roll = rng.random()
        if shape == "run" and roll < 0.25:
            tiles = tuple(take(k) for k in kinds)
            melds.append(Meld("chi", tiles, tiles[0], winner.plus(3)))
        elif shape == "set" and roll < 0.35:
            kind: MeldKind
            if counts[kinds[0]] == 3 and roll < 0.12:
                counts[kinds[0]] += 1
                kind = rng.choice(("ankan", "daiminkan", "kakan"))
                tiles = tuple(take(kinds[0]) for _ in range(4))
            else:
                kind = "pon"
                tiles = tuple(take(k) for k in kinds)
            source = None if kind == "ankan" else winner.plus(rng.randrange(1, 4))
            melds.append(Meld(kind, tiles, None if kind == "ankan" else tiles[0], source))
        else:
            concealed.extend(take(k) for k in kinds)
    win_tile = rng.choice(concealed)
    closed = all(not m.is_open for m in melds)
    tsumo = rng.random() < 0.4
    loser = None if tsumo else winner.plus(rng.randrange(1, 4))
    riichi = closed and rng.random() < 0.5
    dealer = rng.choice(SEATS)
    indicators = [t for t in alloc.remaining()]
    rng.shuffle(indicators)
    n_dora = 1 + sum(1 for m in melds if m.is_kan)
    context = HandContext(
        dealer=dealer,
        round_wind=Wind(rng.randrange(2)),
        honba=rng.choice((0, 0, 0, 1, 2)),
        deposits=rng.choice((0, 0, 1, 2)) + (1 if riichi else 0),
        scores=(25000, 25000, 25000, 25000),
        aka=aka,
        dora_indicators=tuple(indicators[:n_dora]),
        ura_indicators=tuple(indicators[n_dora : 2 * n_dora]),
        riichi_seats=(winner,) if riichi else (),
    )
    win = Win(
        winner=winner,
        loser=loser,
        hand=tuple(sorted(concealed, key=lambda t: t.id)),
        win_tile=win_tile,
        melds=tuple(melds),
        riichi=riichi,
        ippatsu=riichi and rng.random() < 0.15,
    )
    return GeneratedHand(win, context)
