"""The demo's and the HIL rig's players as a :class:`~hil.players.policy.Policy`: four
shanten-greedy :class:`~hil.players.bots.Bot` seats. They declare every win the scorer accepts
(``rules.scoring`` on the world's own hand model), riichi when tenpai with a closed hand, call
yakuhai pons and some tanyao calls, declare some kans (at most two a hand), and the table declares
the abortive draws and lets the referee confirm a ron another seat could still claim by shape.
"""

from __future__ import annotations

import random

from hil.players.bots import Bot, shanten_of
from hil.players.policy import AnkanChoice, CallChoice, KakanChoice, KanChoice, would_stick
from hil.players.world import World
from rules.errors import RulesError
from rules.outcome import Win
from rules.seats import SEATS, Seat
from rules.tiles import Kind, Tile, kinds_to_34


class BotPolicy:
    """Four bots, each with its own random stream drawn from ``rng``."""

    declares_aborts = True
    referee_confirms = True

    def __init__(self, rng: random.Random) -> None:
        self.bots = [Bot(random.Random(rng.getrandbits(64))) for _ in SEATS]

    def _win_ok(self, w: World, win: Win) -> bool:
        rs = w.rs
        try:
            if rs.meta.family == "zung_jung":
                from rules.scoring.zung_jung import zung_jung_value

                zung_jung_value(rs, win, w.context())
                return True
            from rules.scoring.riichi import check_win

            return check_win(rs, win, w.context()) is None
        except (ValueError, RulesError):
            return False

    def tsumo(self, w: World, s: Seat) -> bool:
        pl = w.players[s]
        assert w.drawn is not None
        return (shanten_of(kinds_to_34(pl.hand), pl.closed) == -1
                and self._win_ok(w, w.win(s, None, w.drawn)))

    def kan(self, w: World, s: Seat) -> KanChoice | None:
        """Only with a live tile left, at most two a hand, never under riichi."""
        pl, bot = w.players[s], self.bots[s]
        if (pl.riichi or w.drawn is None or w.live_left() <= 0
                or w.kans >= min(2, w.rs.calls.max_kans)):
            return None
        counts = kinds_to_34(pl.hand)
        four = [k for k in range(34) if counts[k] == 4]
        if four and bot.wants_ankan():
            return AnkanChoice(Kind(four[0]))
        drawn = w.drawn
        if any(m.kind == "pon" and m.tiles[0].kind == drawn.kind for m in pl.melds) \
                and bot.wants_kakan():
            return KakanChoice(drawn)
        return None

    def discard(self, w: World, s: Seat) -> tuple[Tile, bool]:
        pl, bot = w.players[s], self.bots[s]
        if pl.riichi:
            assert w.drawn is not None
            return w.drawn, False
        banned = set(pl.kuikae)
        tile = bot.choose_discard(pl.hand, pl.melds, w.visible34(),
                                  lambda t: t.kind.value in banned)
        if w.drawn is None or not w.can_riichi(s):
            return tile, False
        rest = list(pl.hand)
        rest.remove(tile)
        return tile, shanten_of(kinds_to_34(rest), True) == 0 and bot.wants_riichi()

    def rons(self, w: World, discarder: Seat, tile: Tile, chankan: bool) -> list[Seat]:
        out: list[Seat] = []
        for o in (discarder.plus(1), discarder.plus(2), discarder.plus(3)):
            pl = w.players[o]
            if shanten_of(kinds_to_34([*pl.hand, tile]), pl.closed) != -1 or w.furiten(o):
                continue
            if self._win_ok(w, w.win(o, discarder, tile, chankan=chankan)):
                out.append(o)
        return out

    def _yakuhai(self, w: World, s: Seat) -> list[Kind]:
        winds = [Kind(27 + w.seat_wind(s))]
        if w.rs.meta.family != "zung_jung":
            assert w.progress is not None
            winds.append(Kind(27 + w.progress.round_wind))
        return [Kind.HAKU, Kind.HATSU, Kind.CHUN, *winds]

    def call(self, w: World, d: Seat, tile: Tile) -> CallChoice | None:
        """Pon before chi (M 4-2-1, W 鸣牌优先-2); chi only from the left."""
        open_tanyao = w.rs.calls.open_tanyao
        for o in (d.plus(1), d.plus(2), d.plus(3)):
            pl = w.players[o]
            if pl.riichi:
                continue
            same = sorted((t for t in pl.hand if t.kind == tile.kind), key=lambda t: t.id)
            if len(same) >= 2 and self.bots[o].wants_call(
                    "pon", tile, pl.hand, pl.melds, self._yakuhai(w, o), open_tanyao):
                pair = (same[0], same[1])
                if not would_stick(w, pl, "pon", pair, tile):
                    return CallChoice(o, "pon", pair)
        o = d.plus(1)
        pl = w.players[o]
        if pl.riichi or tile.kind.is_honor:
            return None
        option = _chi_option(pl.hand, tile)
        if option is not None and self.bots[o].wants_call(
                "chi", tile, pl.hand, pl.melds, self._yakuhai(w, o), open_tanyao
        ) and not would_stick(w, pl, "chi", option, tile):
            return CallChoice(o, "chi", option)
        return None


def _chi_option(hand: list[Tile], tile: Tile) -> tuple[Tile, Tile] | None:
    k = tile.kind.value
    suit_base = (k // 9) * 9
    by_kind: dict[int, Tile] = {}
    for t in sorted(hand, key=lambda x: x.id):
        by_kind.setdefault(t.kind.value, t)
    for a, b in ((k - 2, k - 1), (k - 1, k + 1), (k + 1, k + 2)):
        if a < suit_base or b > suit_base + 8:
            continue
        if a in by_kind and b in by_kind:
            return (by_kind[a], by_kind[b])
    return None
