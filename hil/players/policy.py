"""Policies: what the players at a table choose, asked by :func:`hil.players.hand_play.play_hand`
with the :class:`~hil.players.world.World` they see. A policy decides for all four seats (the
random legal one shares one random stream among them); it reads the world's seat models, never
the reducer's state.

:class:`RandomLegalPolicy` (the reducer's property tests, the record round trips, the daemon
tests): random but rule-abiding play -- shanten-greedy discards most of the time, random calls and
kans, riichi when tenpai, and only wins that surely score (riichi, or a closed tsumo; every
complete hand in Zung Jung). The bots of the demo and the HIL rig are
:class:`hil.players.bot_policy.BotPolicy`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Protocol

from hil.players.hand_model import SeatModel
from hil.players.world import World
from rules import hand_shape
from rules.claims import kuikae_kinds
from rules.inputs import CallKind
from rules.seats import Seat
from rules.tiles import BY_ID, Kind, Tile


@dataclass(frozen=True, slots=True)
class AnkanChoice:
    kind: Kind


@dataclass(frozen=True, slots=True)
class KakanChoice:
    tile: Tile


KanChoice = AnkanChoice | KakanChoice


@dataclass(frozen=True, slots=True)
class CallChoice:
    seat: Seat
    kind: CallKind
    used: tuple[Tile, ...]


class Policy(Protocol):
    #: the table declares abortive draws when due (four winds, four riichi, four kans)
    declares_aborts: bool
    #: a ron another seat could still claim by shape is confirmed by the referee at once
    #: (otherwise the next HandStart closes the hand)
    referee_confirms: bool

    def tsumo(self, w: World, s: Seat) -> bool: ...

    def kan(self, w: World, s: Seat) -> KanChoice | None: ...

    def discard(self, w: World, s: Seat) -> tuple[Tile, bool]:
        """The tile and whether it declares riichi."""
        ...

    def rons(self, w: World, discarder: Seat, tile: Tile, chankan: bool) -> list[Seat]:
        """The seats that claim the tile, in the ron order (S §45, M 4-2-1)."""
        ...

    def call(self, w: World, discarder: Seat, tile: Tile) -> CallChoice | None: ...


def would_stick(w: World, pl: SeatModel, kind: CallKind, used: tuple[Tile, ...],
                called: Tile) -> bool:
    """After the call only kuikae-forbidden tiles would be left (S §40-6): nobody calls so."""
    rest = list(pl.hand)
    for t in used:
        rest.remove(t)
    if w.rs.calls.kuikae != "forbidden":
        return not rest
    banned = kuikae_kinds(kind, called.kind, used)
    return all(t.kind.value in banned for t in rest)


class RandomLegalPolicy:
    """Random legal play; one ``rng`` (shared with the world by the legal table) decides."""

    declares_aborts = False
    referee_confirms = False

    def __init__(self, rng: random.Random, *, call_rate: float = 0.3, riichi_rate: float = 0.5,
                 kan_rate: float = 0.7, skill: float = 0.9) -> None:
        self.rng = rng
        self.call_rate = call_rate
        self.riichi_rate = riichi_rate
        self.kan_rate = kan_rate
        self.skill = skill

    def _scores(self, w: World, s: Seat, tsumo: bool) -> bool:
        """Declare only wins that surely score: riichi, or a closed tsumo (menzen tsumo); in
        Zung Jung every complete hand is a legal (chicken) hand."""
        pl = w.players[s]
        if w.rs.meta.family == "zung_jung":
            return True
        return pl.riichi or (tsumo and pl.closed)

    def tsumo(self, w: World, s: Seat) -> bool:
        return self._scores(w, s, True)

    def kan(self, w: World, s: Seat) -> KanChoice | None:
        # not in riichi, to keep the player simple
        pl = w.players[s]
        if (pl.riichi or w.kans >= w.rs.calls.max_kans or w.live_left() <= 0
                or self.rng.random() >= self.kan_rate):
            return None
        c = pl.counts()
        four = [k for k in range(34) if c[k] == 4]
        if four:
            return AnkanChoice(Kind(four[0]))
        pons = [m for m in pl.melds if m.kind == "pon"]
        if w.mode == "blind":
            # A table without sensors cannot tell which pon grew: the reducer takes the first
            # one (rules/reducer/calls.py), so the player extends only that one.
            pons = pons[:1]
        adds = [t for t in pl.hand if any(m.tiles[0].kind == t.kind for m in pons)]
        return KakanChoice(adds[0]) if adds else None

    def discard(self, w: World, s: Seat) -> tuple[Tile, bool]:
        rng, pl = self.rng, w.players[s]
        if pl.riichi:
            assert w.drawn is not None
            return w.drawn, False
        choices = sorted([t for t in pl.hand if t.kind not in pl.kuikae] or pl.hand, key=BY_ID)
        if rng.random() < self.skill:
            best: list[Tile] = []
            low = 99
            for cand in choices:
                rest = list(pl.hand)
                rest.remove(cand)
                sh = hand_shape.shanten(hand_shape.counts_of(rest))
                if sh < low:
                    best, low = [cand], sh
                elif sh == low:
                    best.append(cand)
            tile = rng.choice(best)
        else:
            tile = rng.choice(choices)
        if w.can_riichi(s) and rng.random() < self.riichi_rate:
            for cand in sorted(pl.hand, key=BY_ID):
                rest = list(pl.hand)
                rest.remove(cand)
                if hand_shape.waits(hand_shape.counts_of(rest)):
                    return cand, True
        return tile, False

    def rons(self, w: World, discarder: Seat, tile: Tile, chankan: bool) -> list[Seat]:
        return [o for o in (discarder.plus(1), discarder.plus(2), discarder.plus(3))
                if tile.kind in w.players[o].waits() and self._scores(w, o, False)
                and not w.furiten(o)]

    def call(self, w: World, d: Seat, tile: Tile) -> CallChoice | None:
        if self.rng.random() >= self.call_rate:
            return None
        order = [d.plus(1), d.plus(2), d.plus(3)]
        self.rng.shuffle(order)
        for o in order:
            op = w.players[o]
            if op.riichi:
                continue
            same = [t for t in op.hand if t.kind == tile.kind]
            if (len(same) == 3 and w.kans < w.rs.calls.max_kans and w.live_left() > 0
                    and self.rng.random() < self.kan_rate):
                return CallChoice(o, "daiminkan", tuple(same))
            if len(same) >= 2 and not would_stick(w, op, "pon", tuple(same[:2]), tile):
                return CallChoice(o, "pon", tuple(same[:2]))
            if o == d.plus(1) and tile.kind.value < 27:
                chi = self._chi(w, op, tile)
                if chi is not None:
                    return CallChoice(o, "chi", chi)
        return None

    def _chi(self, w: World, op: SeatModel, tile: Tile) -> tuple[Tile, Tile] | None:
        k = tile.kind.value
        for a, b in ((k - 2, k - 1), (k - 1, k + 1), (k + 1, k + 2)):
            if a < 0 or b > 26 or a // 9 != k // 9 or b // 9 != k // 9:
                continue
            ta = next((t for t in op.hand if t.kind.value == a), None)
            tb = next((t for t in op.hand if t.kind.value == b), None)
            if ta is None or tb is None or would_stick(w, op, "chi", (ta, tb), tile):
                continue
            return (ta, tb)
        return None
