"""Bot players: a shanten-greedy player built on the ``mahjong`` package (the seats of
:class:`hil.players.bot_policy.BotPolicy`).

A bot sees what a player at the table sees (its own tiles and melds, every river and meld, the
dora indicators) and answers the policy's questions: which tile to discard, whether to declare
riichi, whether to call a discard, whether to declare a kan, whether to win. It riichis when
tenpai with a closed hand, calls yakuhai pons always and other calls sometimes (only where the
hand keeps a yaku: tanyao with open tanyao, or a yakuhai), and declares every win the engine would
accept. All randomness comes from the ``random.Random`` the caller passes, so a seed fixes a game.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from hil.players.shanten import shanten
from rules.outcome import Meld
from rules.tiles import Kind, Tile, kinds_to_34


@functools.lru_cache(maxsize=65536)
def _shanten(tiles34: tuple[int, ...], closed: bool) -> int:
    return shanten(tiles34, closed)  # the mahjong package's number, suit by suit (shanten.py)


def shanten_of(tiles34: Sequence[int], closed: bool) -> int:
    """Shanten of a concealed part (3n+1 or 3n+2 tiles); seven pairs/kokushi only when closed."""
    return _shanten(tuple(tiles34), closed)


def _useful_kinds(counts: Sequence[int], closed: bool) -> list[int]:
    """Kinds whose draw can possibly lower the shanten: those held, and suited neighbours within
    two (a tile far from everything held only adds an isolated tile). Kokushi: every yaochu."""
    out = set()
    for k in range(34):
        if not counts[k]:
            continue
        out.add(k)
        if k < 27:
            base = (k // 9) * 9
            out.update(j for j in range(k - 2, k + 3) if base <= j < base + 9)
    if closed:
        out.update(k for k in range(34) if Kind(k).is_yaochu)
    return sorted(out)


@dataclass(frozen=True, slots=True)
class BotStyle:
    """How a bot plays: probabilities of optional actions (seeded per game)."""

    riichi: float = 0.85
    call_yakuhai: float = 1.0
    call_tanyao: float = 0.35
    ankan: float = 0.7
    kakan: float = 0.6


def _ukeire(counts: list[int], visible: Sequence[int], closed: bool, base: int) -> int:
    total = 0
    for k in _useful_kinds(counts, closed):
        if counts[k] >= 4:
            continue
        counts[k] += 1
        if shanten_of(counts, closed) < base:
            total += max(0, 4 - visible[k] - (counts[k] - 1))
        counts[k] -= 1
    return total


class Bot:
    """One seat's decisions. Stateless between questions apart from its style and RNG."""

    def __init__(self, rng: random.Random, style: BotStyle | None = None) -> None:
        self.rng = rng
        self.style = style or BotStyle()

    def choose_discard(
        self,
        hand: Sequence[Tile],
        melds: Sequence[Meld],
        visible34: Sequence[int],
        forbidden: Callable[[Tile], bool] = lambda t: False,
    ) -> Tile:
        """The discard that leaves the lowest shanten, then the most useful draws, then the
        least valuable tile (honors and terminals first). ``forbidden`` excludes tiles (kuikae)."""
        closed = not any(m.is_open for m in melds)
        counts = kinds_to_34(hand)
        best: tuple[int, int, int, float] | None = None
        choice: Tile | None = None
        candidates: list[tuple[int, Tile]] = []
        seen: set[Kind] = set()
        for tile in sorted(hand, key=lambda t: t.id):
            if tile.kind in seen or forbidden(tile):
                continue
            seen.add(tile.kind)
            counts[tile.kind] -= 1
            candidates.append((shanten_of(counts, closed), tile))
            counts[tile.kind] += 1
        lowest = min((sh for sh, _ in candidates), default=0)
        for sh, tile in candidates:
            if sh > lowest:
                continue
            counts[tile.kind] -= 1
            uke = _ukeire(counts, visible34, closed, sh)
            counts[tile.kind] += 1
            value = 0 if tile.kind.is_yaochu else (2 if tile.kind.number in (4, 5, 6) else 1)
            key = (sh, -uke, value, self.rng.random())
            if best is None or key < best:
                best, choice = key, tile
        if choice is None:  # every kind forbidden: cannot happen with a legal hand; take any
            choice = sorted(hand, key=lambda t: t.id)[-1]
        # Keep red fives when an equal plain five exists.
        if choice.is_red():
            for t in hand:
                if t.kind == choice.kind and not t.is_red() and not forbidden(t):
                    return t
        return choice

    def wants_riichi(self) -> bool:
        return self.rng.random() < self.style.riichi

    def wants_call(
        self,
        kind: str,
        called: Tile,
        hand: Sequence[Tile],
        melds: Sequence[Meld],
        yakuhai: Sequence[Kind],
        open_tanyao: bool,
    ) -> bool:
        """Call a yakuhai pon; other calls only towards tanyao, when they cut the shanten."""
        if kind == "pon" and called.kind in yakuhai:
            return self.rng.random() < self.style.call_yakuhai
        has_yakuhai_meld = any(m.tiles[0].kind in yakuhai for m in melds if m.kind != "chi")
        if not (has_yakuhai_meld or open_tanyao):
            return False
        if not has_yakuhai_meld and (
            any(t.kind.is_yaochu for t in hand) or called.kind.is_yaochu
        ):
            return False
        closed = not any(m.is_open for m in melds)
        before = shanten_of(kinds_to_34(hand), closed)
        return before > 0 and self.rng.random() < self.style.call_tanyao

    def wants_ankan(self) -> bool:
        return self.rng.random() < self.style.ankan

    def wants_kakan(self) -> bool:
        return self.rng.random() < self.style.kakan
