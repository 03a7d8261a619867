"""A complete simulated game: a shuffled physical wall, dice, break, deal and four bots, played
through the real rules reducer.

The simulator is the *world*: it knows the wall (it shuffled it), rolls the dice, opens the break
where the dice say, deals, and asks each seat's :class:`~hil.bots.Bot` what to do. Every action
becomes a :mod:`rules.inputs` input stamped with a simulated time (bots think at human-like,
seeded speeds), and is applied to the real reducer so that the simulator follows the game exactly as
the daemon will (scores, honba, renchan, end of game). The same seed always yields the same inputs.

The hardware-in-the-loop runner and ``jantaku demo`` turn these actions into table-link frames,
sensor reads and button presses; tests and benchmarks use the input stream directly.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from hil.bots import Bot, shanten_of, waits_of
from hil.errors import SimulationError
from rules.claims import kuikae_kinds
from rules.events import Event
from rules.inputs import (
    AbortiveDraw,
    AbortKind,
    Ankan,
    BreakOpened,
    Call,
    DealDone,
    DiceRolled,
    Discard,
    Draw,
    ExhaustiveDraw,
    GameStart,
    HandStart,
    IndicatorShown,
    Input,
    Kakan,
    RefereeOverride,
    RinshanDraw,
    Ron,
    Tsumo,
    WallRaised,
)
from rules.outcome import HandContext, Win
from rules.reducer import new_table, reduce
from rules.ruleset import Ruleset, load_ruleset
from rules.seats import SEATS, Seat, seat_by_dice
from rules.table_state import HandState, TableState
from rules.tiles import Kind, Tile, kinds_to_34
from rules.wall import Wall, break_from_dice

DEFAULT_NAMES = ("Aiko", "Bo", "Chen", "Dana")


@dataclass(frozen=True, slots=True)
class Step:
    """One action: simulated time (seconds since the game started), the input, what the reducer
    made of it, and the seat whose decision it was (``None`` for table actions)."""

    t: float
    input: Input
    events: tuple[Event, ...]
    actor: Seat | None


class GameSimulator:
    """Plays one game. Iterate :meth:`steps` to get every action in order."""

    def __init__(
        self,
        ruleset: str | Ruleset,
        seed: int,
        *,
        hands: int | None = None,
        names: tuple[str, str, str, str] = DEFAULT_NAMES,
        first_dealer: Seat = Seat.S0,
        strict: bool = True,
    ) -> None:
        self.ruleset = load_ruleset(ruleset) if isinstance(ruleset, str) else ruleset
        self.rng = random.Random(seed)
        self.bots = [Bot(random.Random(self.rng.getrandbits(64))) for _ in SEATS]
        self.max_hands = hands
        self.names = names
        self.first_dealer = first_dealer
        self.strict = strict
        self.state: TableState = new_table()
        self.t = 0.0
        self.violations: list[dict[str, Any]] = []
        self.hands_played = 0
        self._wall: tuple[Tile, ...] = ()
        self._brk_wall: Wall | None = None

    # --- plumbing -------------------------------------------------------------------------
    def _apply(self, inp: Input, actor: Seat | None, think: float = 0.0) -> Step:
        self.t += think
        self.state, events = reduce(self.state, inp)
        for ev in events:
            js = ev.to_json()
            if js.get("type") == "violation":
                self.violations.append(js)
                if self.strict:
                    raise SimulationError(f"reducer rejected {inp!r}: {js}")
        return Step(round(self.t, 3), inp, events, actor)

    def _think(self, seat: Seat) -> float:
        return max(0.3, self.bots[seat].think_seconds(1.0))

    @property
    def hand(self) -> HandState:
        h = self.state.hand
        assert h is not None
        return h

    # --- the game -------------------------------------------------------------------------
    def steps(self) -> Iterator[Step]:
        yield self._apply(
            GameStart(ruleset=self.ruleset.name, first_dealer=self.first_dealer, names=self.names),
            None,
        )
        while not self.state.game_over:
            if self.max_hands is not None and self.hands_played >= self.max_hands:
                return
            yield from self._play_hand()
            self.hands_played += 1
            p = self.state.progress
            if p is not None and p.finished:
                return

    def _play_hand(self) -> Iterator[Step]:
        rs = self.ruleset
        yield self._apply(HandStart(), None, 4.0)
        h = self.hand
        tiles = [Tile(i) for i in range(136)]
        self.rng.shuffle(tiles)
        self._wall = tuple(tiles)
        n_rolls = 2 if rs.wall.break_method == "two_rolls" else 1
        rolls = [(self.rng.randint(1, 6), self.rng.randint(1, 6)) for _ in range(n_rolls)]
        brk = break_from_dice(rs, h.dealer, tuple(rolls))
        self._brk_wall = Wall(brk)
        # The wall manifest is given in ring order for the break the dice will call.
        yield self._apply(WallRaised(wall=self._wall), None, 6.0)
        roller = h.dealer
        for i, roll in enumerate(rolls):
            yield self._apply(DiceRolled(seat=roller, dice=roll), roller, 1.5)
            if i == 0:
                roller = seat_by_dice(h.dealer, sum(roll))
        yield self._apply(BreakOpened(seat=brk.seat, count=brk.count), None, 2.0)
        if rs.dora.indicator:
            yield self._apply(
                IndicatorShown(
                    position=self._brk_wall.position(Wall.DORA), tile=self._wall[Wall.DORA]
                ),
                None,
                1.0,
            )
        jump = rs.wall.dealer_fourteenth == "jump"
        deal = Wall.deal_indices(h.dealer)
        hands = tuple(
            tuple(self._wall[i] for i in deal[s] if jump or i != 52) for s in SEATS
        )
        yield self._apply(DealDone(hands=(hands[0], hands[1], hands[2], hands[3])), None, 8.0)
        yield from self._play_turns()

    def _ended(self) -> bool:
        h = self.state.hand
        return h is None or h.step == "ended" or self.state.game_over

    def _visible34(self, h: HandState) -> list[int]:
        tiles: list[Tile] = [i.tile for i in h.indicators if i.tile is not None]
        for st in h.seats:
            tiles.extend(r.tile for r in st.river if r.tile is not None and not r.called)
            for m in st.melds:
                tiles.extend(m.tiles)
        return kinds_to_34(tiles)

    def _context(self, h: HandState) -> HandContext:
        assert self.state.game is not None
        return HandContext(
            dealer=h.dealer,
            round_wind=h.round_wind,
            honba=h.honba,
            deposits=h.deposits,
            scores=h.scores,
            aka=self.state.game.aka,
            dora_indicators=tuple(i.tile for i in h.indicators if i.tile is not None),
        )

    def _win_ok(self, h: HandState, win: Win) -> bool:
        rs = self.ruleset
        try:
            if rs.meta.family == "zung_jung":
                from rules.scoring.zung_jung import zung_jung_value

                zung_jung_value(rs, win, self._context(h))
                return True
            from rules.scoring.riichi import check_win

            return check_win(rs, win, self._context(h)) is None
        except ValueError:
            return False

    def _yakuhai(self, h: HandState, seat: Seat) -> list[Kind]:
        winds = [Kind(27 + seat.wind(h.dealer))]
        if self.ruleset.meta.family != "zung_jung":
            winds.append(Kind(27 + h.round_wind))
        return [Kind.HAKU, Kind.HATSU, Kind.CHUN, *winds]

    def _play_turns(self) -> Iterator[Step]:
        while not self._ended():
            h = self.hand
            s = h.turn
            st = h.seats[s]
            if h.step == "draw":
                if h.live_left() == 0:
                    tenpai = tuple(
                        x
                        for x in SEATS
                        if h.seats[x].concealed is not None
                        and h.seats[x].dead is None
                        and shanten_of(
                            kinds_to_34(h.seats[x].concealed or ()),
                            not any(m.is_open for m in h.seats[x].melds),
                        )
                        == 0
                    )
                    yield self._apply(ExhaustiveDraw(tenpai=tenpai), None, 3.0)
                    return
                abort = self._abort_due(h)
                if abort is not None:
                    yield self._apply(AbortiveDraw(kind=abort), None, 2.0)
                    return
                tile = self._wall[h.next_live]
                yield self._apply(Draw(seat=s, tile=tile), s, 1.0)
                continue
            if h.step == "rinshan":
                due = [d for d in h.dora_due if d.timing == "now"]
                if due:
                    yield self._indicator(h)
                    continue
                idx = Wall.RINSHAN[h.rinshan_taken]
                yield self._apply(RinshanDraw(seat=s, tile=self._wall[idx]), s, 0.8)
                continue
            if h.step == "won":
                # A ron stands but another seat could still ron by shape alone (it has no yaku or
                # is furiten, so its bot passed): the referee confirms, which settles the hand.
                yield self._apply(RefereeOverride(action="confirm_win", by="referee"), None, 2.0)
                continue
            if h.step != "discard":
                raise SimulationError(f"unexpected step {h.step!r}")
            # The seat acts on its own turn: win, kan, or discard.
            yield from self._own_turn(h, s, st)
            if self._ended():
                return
            h = self.hand
            if h.step == "draw" and h.last is not None and not h.last.passed:
                yield from self._claims(h)
            h2 = self.state.hand
            if h2 is not None and h2.step == "draw" and not self._ended():
                due = [d for d in h2.dora_due if d.discarded]
                if due:
                    yield self._indicator(h2)

    def _indicator(self, h: HandState) -> Step:
        assert self._brk_wall is not None
        n = len(h.indicators)
        idx = Wall.KAN_DORA[n - 1]
        return self._apply(
            IndicatorShown(position=self._brk_wall.position(idx), tile=self._wall[idx]), None, 1.0
        )

    def _abort_due(self, h: HandState) -> AbortKind | None:
        aborts = self.ruleset.draws.abortive
        if "four_riichi" in aborts and sum(1 for x in h.seats if x.riichi != "none") == 4:
            return "four_riichi"
        f = h.first_discards
        if (
            "four_winds" in aborts
            and len(f) == 4
            and not h.interrupted
            and all(x is not None for x in f)
            and len({x.kind for x in f if x is not None}) == 1
            and f[0] is not None
            and f[0].kind.is_wind
        ):
            return "four_winds"
        if "four_kans" in aborts and h.kans == 4 and len(set(h.kan_seats)) >= 2:
            return "four_kans"
        return None

    def _own_turn(self, h: HandState, s: Seat, st: Any) -> Iterator[Step]:
        rs = self.ruleset
        bot = self.bots[s]
        hand = list(st.concealed or ())
        think = self._think(s)
        closed = not any(m.is_open for m in st.melds)
        if st.has_drawn and st.dead is None and st.drawn is not None:
            win = Win(
                winner=s,
                loser=None,
                hand=tuple(sorted(hand, key=lambda t: t.id)),
                win_tile=st.drawn,
                melds=st.melds,
                riichi=st.riichi == "accepted",
                rinshan=st.rinshan,
                haitei=h.live_left() == 0 and not st.rinshan,
            )
            if shanten_of(kinds_to_34(hand), closed) == -1 and self._win_ok(h, win):
                yield self._apply(Tsumo(seat=s), s, think)
                return
        # Kans: only with a live tile left, below the ruleset's limit, never under riichi.
        can_kan = (
            st.has_drawn
            and st.riichi == "none"
            and h.live_left() > 0
            and h.kans < min(2, rs.calls.max_kans)
            and st.dead is None
        )
        if can_kan:
            counts = kinds_to_34(hand)
            four = [k for k in range(34) if counts[k] == 4]
            if four and bot.wants_ankan():
                k = four[0]
                tiles = tuple(t for t in hand if t.kind == k)
                yield self._apply(
                    Ankan(seat=s, tiles=(tiles[0], tiles[1], tiles[2], tiles[3])), s, think
                )
                return
            for m in st.melds:
                if (
                    m.kind == "pon"
                    and st.drawn is not None
                    and st.drawn.kind == m.tiles[0].kind
                    and bot.wants_kakan()
                ):
                    yield self._apply(Kakan(seat=s, tile=st.drawn), s, think)
                    return
        forbidden_kinds = set(st.kuikae)
        if st.riichi == "accepted" and st.drawn is not None:
            yield self._apply(Discard(seat=s, tile=st.drawn, tsumogiri=True), s, 0.8)
            return
        tile = bot.choose_discard(
            hand, st.melds, self._visible34(h), lambda t: t.kind in forbidden_kinds
        )
        riichi = False
        if (
            rs.riichi.enabled
            and closed
            and st.riichi == "none"
            and st.dead is None
            and st.has_drawn
            and h.live_left() >= rs.riichi.min_live_tiles
            and (not rs.riichi.requires_deposit_points or h.scores[s] >= rs.riichi.deposit)
        ):
            rest = list(hand)
            rest.remove(tile)
            if shanten_of(kinds_to_34(rest), True) == 0 and bot.wants_riichi():
                riichi = True
        tsumogiri = st.drawn is not None and tile == st.drawn
        yield self._apply(Discard(seat=s, tile=tile, riichi=riichi, tsumogiri=tsumogiri), s, think)

    def _claims(self, h: HandState) -> Iterator[Step]:
        """After a discard: rons first, then pon, then chi (M 4-2-1, W 鸣牌优先-2)."""
        rs = self.ruleset
        last = h.last
        assert last is not None and last.tile is not None
        tile = last.tile
        ron_seats: list[Seat] = []
        for k in (1, 2, 3):
            s = last.seat.plus(k)
            st = h.seats[s]
            if st.dead is not None or st.concealed is None:
                continue
            hand = [*st.concealed, tile]
            closed = not any(m.is_open for m in st.melds)
            if shanten_of(kinds_to_34(hand), closed) != -1:
                continue
            if rs.furiten.enabled:
                if st.furiten_temp or st.furiten_riichi:
                    continue
                waits = set(waits_of(kinds_to_34(st.concealed), closed))
                if any(r.tile is not None and r.tile.kind in waits for r in st.river):
                    continue
            win = Win(
                winner=s,
                loser=last.seat,
                hand=tuple(sorted(hand, key=lambda t: t.id)),
                win_tile=tile,
                melds=st.melds,
                riichi=st.riichi == "accepted",
                houtei=last.houtei,
            )
            if self._win_ok(h, win):
                ron_seats.append(s)
                if rs.calls.multiple_ron == "head_bump":
                    break
        if ron_seats:
            for s in ron_seats:
                yield self._apply(Ron(seat=s), s, self._think(s) * 0.5)
            return
        if last.houtei or h.live_left() == 0:
            return
        for k in (1, 2, 3):
            s = last.seat.plus(k)
            st = h.seats[s]
            if st.dead is not None or st.riichi != "none" or st.concealed is None:
                continue
            same = [t for t in st.concealed if t.kind == tile.kind]
            if len(same) >= 2 and self.bots[s].wants_call(
                "pon", tile, st.concealed, st.melds, self._yakuhai(h, s), rs.calls.open_tanyao
            ):
                pair = tuple(sorted(same, key=lambda t: t.id)[:2])
                if self._call_leaves_discard(st.concealed, pair, tile):
                    yield self._apply(Call(seat=s, kind="pon", tiles=pair), s, self._think(s))
                    return
        s = last.seat.plus(1)
        st = h.seats[s]
        if st.dead is None and st.riichi == "none" and st.concealed is not None and not (
            tile.kind.is_honor
        ):
            option = self._chi_option(st.concealed, tile)
            if option is not None and self.bots[s].wants_call(
                "chi", tile, st.concealed, st.melds, self._yakuhai(h, s), rs.calls.open_tanyao
            ) and self._call_leaves_discard(st.concealed, option, tile):
                yield self._apply(Call(seat=s, kind="chi", tiles=option), s, self._think(s))

    @staticmethod
    def _chi_option(hand: tuple[Tile, ...], tile: Tile) -> tuple[Tile, Tile] | None:
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

    def _call_leaves_discard(
        self, hand: tuple[Tile, ...], used: tuple[Tile, ...], called: Tile
    ) -> bool:
        """After the call some tile must be discardable without kuikae (S §40-6)."""
        rest = [t for t in hand if t not in used]
        if self.ruleset.calls.kuikae == "allowed":
            return bool(rest)
        banned = set(kuikae_kinds("chi" if used[0].kind != used[1].kind else "pon",
                                  called.kind, used))
        return any(t.kind not in banned for t in rest)


def play(ruleset: str, seed: int, hands: int | None = None) -> list[Step]:
    """The whole game as a list of steps (tests and benchmarks)."""
    return list(GameSimulator(ruleset, seed, hands=hands).steps())

