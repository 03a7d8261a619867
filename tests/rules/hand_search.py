"""Random winning hands, built set by set (chi, pon, kan -- open or closed -- a pair, a winning
tile, ron or tsumo, riichi or not), scored by rules.scoring.riichi (the ``mahjong`` package with
the ruleset's corrections): what (win kind, han, fu) real hands have. Biased towards terminal and
honour triplets and kans, where the high fu are; seven pairs are drawn too (25 fu)."""

from __future__ import annotations

import random
from collections.abc import Iterator

from rules.outcome import HandContext, Meld, Win
from rules.ruleset import Ruleset
from rules.scoring.riichi import riichi_hand
from rules.scoring.value import ScoringError
from rules.seats import Seat, Wind
from rules.tiles import Tile

_YAOCHU = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)


def _kind(rng: random.Random) -> int:
    return rng.choice(_YAOCHU) if rng.random() < 0.6 else rng.randrange(34)


def _sets(rng: random.Random, counts: list[int]) -> list[tuple[str, int, bool]] | None:
    sets: list[tuple[str, int, bool]] = []
    for _ in range(4):
        for _try in range(40):
            r = rng.random()
            if r < 0.3:
                b = rng.randrange(3) * 9 + rng.choice((0, 6, rng.randrange(7)))
                if all(counts[b + i] < 4 for i in range(3)):
                    for i in range(3):
                        counts[b + i] += 1
                    sets.append(("chi", b, rng.random() < 0.3))
                    break
                continue
            k = _kind(rng)
            if r < 0.55 and counts[k] == 0:
                counts[k] = 4
                sets.append(("kan", k, rng.random() < 0.4))
                break
            if counts[k] <= 1:
                counts[k] += 3
                sets.append(("pon", k, rng.random() < 0.3))
                break
        else:
            return None
    return sets


def _standard(rng: random.Random) -> tuple[list[Tile], list[Meld]] | None:
    counts = [0] * 34
    sets = _sets(rng, counts)
    if sets is None:
        return None
    pair = next((k for k in (_kind(rng) for _ in range(40)) if counts[k] <= 2), None)
    if pair is None:
        return None
    used = [0] * 34

    def take(k: int) -> Tile:
        used[k] += 1
        return Tile(k * 4 + used[k] - 1)

    concealed: list[Tile] = []
    melds: list[Meld] = []
    for kind, b, opened in sets:
        if kind == "chi":
            ts = tuple(take(b + i) for i in range(3))
            if opened:
                melds.append(Meld("chi", ts, called=ts[0], from_seat=Seat(3)))
            else:
                concealed += ts
        elif kind == "pon":
            ts = tuple(take(b) for _ in range(3))
            if opened:
                melds.append(Meld("pon", ts, called=ts[0], from_seat=Seat(2)))
            else:
                concealed += ts
        else:
            ts = tuple(take(b) for _ in range(4))
            if opened:
                melds.append(Meld("daiminkan", ts, called=ts[0], from_seat=Seat(1)))
            else:
                melds.append(Meld("ankan", ts))
    concealed += [take(pair), take(pair)]
    return concealed, melds


def _pairs(rng: random.Random) -> tuple[list[Tile], list[Meld]]:
    kinds = rng.sample(range(34), 7)
    return [Tile(k * 4 + c) for k in kinds for c in (0, 1)], []


def hands(ruleset: Ruleset, seed: int, n: int
          ) -> Iterator[tuple[bool, int, int, Win, HandContext]]:
    """(tsumo, han, fu, the win, its context) of up to ``n`` random scoring hands below
    yakuman."""
    rng = random.Random(seed)
    for _ in range(n):
        built = _pairs(rng) if rng.random() < 0.06 else _standard(rng)
        if built is None:
            continue
        concealed, melds = built
        closed = not any(m.is_open for m in melds)
        tsumo = rng.random() < 0.5
        win = Win(winner=Seat(rng.randrange(4)), loser=None if tsumo else Seat(rng.randrange(4)),
                  hand=tuple(sorted(concealed, key=lambda t: t.id)),
                  win_tile=rng.choice(concealed), melds=tuple(melds),
                  riichi=closed and rng.random() < 0.4)
        if win.loser == win.winner:
            win = Win(winner=win.winner, loser=Seat((int(win.winner) + 1) % 4), hand=win.hand,
                      win_tile=win.win_tile, melds=win.melds, riichi=win.riichi)
        ctx = HandContext(dealer=Seat(rng.randrange(4)), round_wind=Wind(rng.randrange(2)),
                          honba=0, deposits=0, scores=(25000,) * 4, aka=False)
        try:
            h = riichi_hand(ruleset, win, ctx)
        except ScoringError:
            continue
        if h.yakuman == 0:
            yield tsumo, h.han, h.fu, win, ctx


def win_to_json(win: Win, ctx: HandContext) -> dict[str, object]:
    return {"hand": [t.id for t in win.hand], "win_tile": None if win.win_tile is None
            else win.win_tile.id, "melds": [[m.kind, [t.id for t in m.tiles]] for m in win.melds],
            "winner": int(win.winner), "loser": None if win.loser is None else int(win.loser),
            "riichi": win.riichi, "dealer": int(ctx.dealer), "round_wind": int(ctx.round_wind)}


def win_from_json(d: dict[str, object]) -> tuple[Win, HandContext]:
    melds = []
    for kind, ids in d["melds"]:  # type: ignore[attr-defined]
        ts = tuple(Tile(i) for i in ids)
        melds.append(Meld(kind, ts) if kind == "ankan" else Meld(kind, ts, called=ts[0],
                                                                    from_seat=Seat(2)))
    loser = d["loser"]
    win = Win(winner=Seat(int(d["winner"])),  # type: ignore[call-overload]
              loser=None if loser is None else Seat(int(loser)),  # type: ignore[call-overload]
              hand=tuple(Tile(i) for i in d["hand"]),  # type: ignore[attr-defined]
              win_tile=Tile(int(d["win_tile"])),  # type: ignore[call-overload]
              melds=tuple(melds), riichi=bool(d["riichi"]))
    ctx = HandContext(dealer=Seat(int(d["dealer"])),  # type: ignore[call-overload]
                      round_wind=Wind(int(d["round_wind"])),  # type: ignore[call-overload]
                      honba=0, deposits=0, scores=(25000,) * 4, aka=False)
    return win, ctx
