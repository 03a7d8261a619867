"""A random *legal* table (formerly tests/rules/hand_driver.py) for the reducer's property
tests, the record round trips and the daemon tests: it shuffles a wall (seeded), rolls dice,
deals, and plays four random but rule-abiding players (draw, discard, sometimes chi/pon/kan, riichi
when tenpai, wins when the hand scores for sure), producing the input stream a real table (or an
importer) would send.

The driver keeps its own model of the hands and the wall; it reads the reducer's state only for
the game's progress (dealer, scores) between hands, which the settlement engine decides.

Modes: ``table`` (wall manifest, dice, break, positions, tiles), ``record`` (tiles but no dice,
break or positions: an importer), ``blind`` (dice and break, no tiles at all: a table without
sensors; wins are shown with WinShown).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Literal

from hil.players.hand_model import SeatModel
from rules import hand_shape
from rules.events import Event
from rules.inputs import (
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
    RinshanDraw,
    Ron,
    Tsumo,
    UraRevealed,
    WallRaised,
    WinShown,
)
from rules.reducer import new_table, reduce
from rules.ruleset import Ruleset, load_ruleset
from rules.seats import SEATS, Seat, seat_by_dice
from rules.table_state import TableState
from rules.tiles import Tile
from rules.wall import Position, Wall, break_from_dice

Mode = Literal["table", "record", "blind"]


class Table:
    """Plays one game; ``inputs`` collects everything sent, ``events`` everything received."""

    def __init__(self, ruleset: str, seed: int, mode: Mode = "table", *, call_rate: float = 0.3,
                 riichi_rate: float = 0.5, kan_rate: float = 0.7, skill: float = 0.9) -> None:
        self.rs: Ruleset = load_ruleset(ruleset)
        self.rng = random.Random(seed)
        self.mode = mode
        self.call_rate = call_rate
        self.riichi_rate = riichi_rate
        self.kan_rate = kan_rate
        self.skill = skill
        self.state: TableState = new_table()
        self.inputs: list[Input] = []
        self.events: list[Event] = []

    # --- plumbing ---------------------------------------------------------------------------
    def send(self, inp: Input) -> tuple[Event, ...]:
        self.inputs.append(inp)
        self.state, ev = reduce(self.state, inp)
        self.events.extend(ev)
        return ev

    def violations(self) -> list[Event]:
        return [e for e in self.events if e.TYPE == "violation"]

    # --- a game ---------------------------------------------------------------------------------
    def play_game(self, max_hands: int = 4) -> None:
        first = Seat(self.rng.randrange(4))
        self.send(GameStart(ruleset=self.rs.name, first_dealer=first,
                            names=("A", "B", "C", "D")))
        for _ in range(max_hands):
            if self.state.game_over:
                break
            self.play_hand()
            if self.state.game_over:
                break

    def play_hand(self) -> None:
        rs, rng = self.rs, self.rng
        ids = list(range(136))
        rng.shuffle(ids)
        wall = [Tile(i) for i in ids]
        self.wall = wall
        know = self.mode != "blind"
        # HandStart first: it may still close the previous hand (a win open to more rons),
        # which decides the dealer.
        self.send(HandStart())
        if self.state.game_over:
            # the HandStart closed the game's last hand (and was refused: game_over)
            assert [e.to_json()["code"] for e in self.violations()] == ["game_over"]
            self.events = [e for e in self.events if e.TYPE != "violation"]
            return
        h = self.state.hand
        assert h is not None and h.step == "setup", self.events[-3:]
        dealer = self.dealer = h.dealer
        brk = None
        if self.mode == "table":
            self.send(WallRaised(tuple(wall)))
        elif self.mode == "blind":
            self.send(WallRaised(None))
        if self.mode != "record":
            d1 = (rng.randint(1, 6), rng.randint(1, 6))
            self.send(DiceRolled(dealer, d1))
            rolls: tuple[tuple[int, int], ...] = (d1,)
            if rs.wall.break_method == "two_rolls":
                d2 = (rng.randint(1, 6), rng.randint(1, 6))
                self.send(DiceRolled(seat_by_dice(dealer, sum(d1)), d2))
                rolls = (d1, d2)
            brk = break_from_dice(rs, dealer, rolls)
            self.send(BreakOpened(brk.seat, brk.count))
        self.geo = None if brk is None else Wall(brk)
        self.indicators = 0
        if rs.dora.indicator:
            self._show_indicator()
        jump = rs.wall.dealer_fourteenth == "jump"
        deal = Wall.deal_indices(dealer)
        self.players = {s: SeatModel() for s in SEATS}
        for s in SEATS:
            self.players[s].hand = [wall[i] for i in deal[s] if jump or i != 52]
        hands = tuple(tuple(sorted(self.players[s].hand)) for s in SEATS)
        self.send(DealDone(hands=(hands[0], hands[1], hands[2], hands[3]) if know else None))
        self.next_live = 53 if jump else 52
        self.kans = 0
        self.kan_seats: list[Seat] = []
        self.rinshan = 0
        self.due_after: list[Seat] = []  # after-discard kan indicators owed
        self.ended = False
        turn = dealer
        must_draw = not jump
        while not self.ended:
            if must_draw:
                if self.live_left() == 0:
                    break
                self._draw(turn)
            turn_next = self._act(turn)
            if self.ended or turn_next is None:
                break
            turn, must_draw = turn_next
        if not self.ended:
            self._exhaustive()

    # --- pieces -------------------------------------------------------------------------------
    def live_left(self) -> int:
        return 122 - self.kans - self.next_live

    def _pos(self, index: int) -> Position | None:
        return None if self.geo is None or self.mode != "table" else self.geo.position(index)

    def _tile(self, t: Tile) -> Tile | None:
        return t if self.mode != "blind" else None

    def _show_indicator(self) -> None:
        n = self.indicators
        index = Wall.DORA if n == 0 else Wall.KAN_DORA[n - 1]
        self.send(IndicatorShown(position=self._pos(index), tile=self._tile(self.wall[index])))
        self.indicators += 1

    def _draw(self, s: Seat) -> None:
        t = self.wall[self.next_live]
        pos = self._pos(self.next_live)
        self.next_live += 1
        self.players[s].hand.append(t)
        self.drawn = t
        self.rinshan_turn = False
        self.send(Draw(s, self._tile(t), pos))

    def _rinshan_draw(self, s: Seat) -> None:
        index = Wall.RINSHAN[self.rinshan]
        self.rinshan += 1
        t = self.wall[index]
        self.players[s].hand.append(t)
        self.drawn = t
        self.rinshan_turn = True
        self.send(RinshanDraw(s, self._tile(t)))

    def _kan_indicator(self, s: Seat, open_kan: bool) -> None:
        rs = self.rs
        if not (rs.dora.indicator and rs.dora.kan_dora):
            return
        timing = rs.dora.kan_dora_open if open_kan else rs.dora.kan_dora_closed
        if timing == "immediate":
            for _ in self.due_after:
                self._show_indicator()
            self.due_after = []
            self._show_indicator()
        else:
            self.due_after.append(s)

    def _scores_win(self, s: Seat, tsumo: bool) -> bool:
        """Declare only wins that surely score: riichi, or a closed tsumo (menzen tsumo); in
        Zung Jung every complete hand is a legal (chicken) hand."""
        pl = self.players[s]
        if self.rs.meta.family == "zung_jung":
            return True
        return pl.riichi or (tsumo and pl.closed)

    def _act(self, s: Seat) -> tuple[Seat, bool] | None:
        """``s`` holds 14: tsumo, kan or discard. Returns (next turn, must draw) or None."""
        rs, rng = self.rs, self.rng
        pl = self.players[s]
        if hand_shape.is_complete(pl.counts()) and self._scores_win(s, True):
            self._win(s, None, self.drawn)
            return None
        # kans (not in riichi, to keep the driver simple)
        if (not pl.riichi and self.kans < rs.calls.max_kans and self.live_left() > 0
                and rng.random() < self.kan_rate):
            c = pl.counts()
            four = [k for k in range(34) if c[k] == 4]
            adds = [t for t in pl.hand if any(
                kind == "pon" and m[0].kind == t.kind for kind, m in pl.melds)]
            if four:
                k = four[0]
                tiles = [t for t in pl.hand if t.kind == k]
                for t in tiles:
                    pl.hand.remove(t)
                pl.melds.append(("ankan", tiles))
                self._kan(s)
                self.send(Ankan(s, (tiles[0], tiles[1], tiles[2], tiles[3])
                                if self.mode != "blind" else None))
                self._kan_indicator(s, open_kan=False)
                self._rinshan_draw(s)
                return self._act(s)
            if adds:
                t = adds[0]
                pl.hand.remove(t)
                i = next(i for i, (kind, m) in enumerate(pl.melds)
                         if kind == "pon" and m[0].kind == t.kind)
                pl.melds[i] = ("kakan", [*pl.melds[i][1], t])
                self._kan(s)
                self.send(Kakan(s, self._tile(t)))
                # chankan: a riichi seat waiting on the added tile robs it (S §48, M 4-5-6)
                robbers = [o for o in (s.plus(1), s.plus(2), s.plus(3))
                           if t.kind in self.players[o].waits() and self._scores_win(o, False)
                           and not self._furiten(o)]
                if robbers:
                    if self.rs.calls.multiple_ron == "head_bump":
                        robbers = robbers[:1]
                    self._win(robbers[0], s, t, more=robbers[1:])
                    return None
                for o in (s.plus(1), s.plus(2), s.plus(3)):
                    if self.players[o].riichi and t.kind in self.players[o].waits():
                        self.players[o].missed = True
                self._kan_indicator(s, open_kan=True)
                self._rinshan_draw(s)
                return self._act(s)
        return self._discard(s)

    def _kan(self, s: Seat) -> None:
        self.kans += 1
        self.kan_seats.append(s)

    def _discard(self, s: Seat) -> tuple[Seat, bool] | None:
        rs, rng = self.rs, self.rng
        pl = self.players[s]
        riichi = False
        if pl.riichi:
            tile = self.drawn
        else:
            choices = sorted([t for t in pl.hand if t.kind not in pl.kuikae] or pl.hand)
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
            can_riichi = (rs.riichi.enabled and pl.closed and
                          self.live_left() >= rs.riichi.min_live_tiles and
                          self.state.hand is not None and
                          (not rs.riichi.requires_deposit_points or
                           self.state.hand.scores[s] >= rs.riichi.deposit))
            if can_riichi and rng.random() < self.riichi_rate:
                for cand in sorted(pl.hand):
                    rest = list(pl.hand)
                    rest.remove(cand)
                    if hand_shape.waits(hand_shape.counts_of(rest)):
                        tile, riichi = cand, True
                        break
        pl.hand.remove(tile)
        pl.river.append(tile)
        pl.kuikae = ()
        self.send(Discard(s, self._tile(tile), riichi=riichi))
        if riichi:
            pl.riichi = True
        # after-discard kan indicators of this seat
        if s in self.due_after:
            for _ in [x for x in self.due_after if x == s]:
                self._show_indicator()
            self.due_after = [x for x in self.due_after if x != s]
        houtei = self.live_left() == 0
        # rons
        order = [s.plus(1), s.plus(2), s.plus(3)]
        ronners = []
        for o in order:
            op = self.players[o]
            w = op.waits()
            if tile.kind in w and self._scores_win(o, False) and not self._furiten(o):
                ronners.append(o)
        if ronners:
            if self.rs.calls.multiple_ron == "head_bump":
                ronners = ronners[:1]
            self._win(ronners[0], s, tile, more=ronners[1:])
            return None
        # passed winning tiles after riichi
        for o in order:
            op = self.players[o]
            if op.riichi and tile.kind in op.waits():
                op.missed = True
        if houtei:
            return None
        # calls
        if rng.random() < self.call_rate:
            call = self._try_call(s, tile)
            if call is not None:
                return call
        return (s.plus(1), True)

    def _furiten(self, s: Seat) -> bool:
        if not self.rs.furiten.enabled:
            return False
        pl = self.players[s]
        w = pl.waits()
        if any(t.kind in w for t in pl.river):
            return True
        # Tiles this seat's waits passed since its last discard (same go-around): the driver
        # only rons in riichi, where any passed winning tile is permanent.
        return pl.missed

    def _try_call(self, d: Seat, tile: Tile) -> tuple[Seat, bool] | None:
        rs, rng = self.rs, self.rng
        order = [d.plus(1), d.plus(2), d.plus(3)]
        rng.shuffle(order)
        for o in order:
            op = self.players[o]
            if op.riichi:
                continue
            same = [t for t in op.hand if t.kind == tile.kind]
            if len(same) == 3 and self.kans < rs.calls.max_kans and self.live_left() > 0 \
                    and rng.random() < self.kan_rate:
                for t in same:
                    op.hand.remove(t)
                op.melds.append(("daiminkan", [*same, tile]))
                self._kan(o)
                self.send(Call(o, "daiminkan", tuple(same) if self.mode != "blind" else None))
                self._kan_indicator(o, open_kan=True)
                self._rinshan_draw(o)
                return self._after_call(o)
            if len(same) >= 2 and not self._stuck(op, [*same[:2]], (tile.kind.value,)):
                two = same[:2]
                for t in two:
                    op.hand.remove(t)
                op.melds.append(("pon", [*two, tile]))
                if rs.calls.kuikae == "forbidden":
                    op.kuikae = (tile.kind.value,)
                self.send(Call(o, "pon", tuple(two) if self.mode != "blind" else None))
                return self._after_call(o, called=True)
            if o == d.plus(1) and tile.kind.value < 27:
                k = tile.kind.value
                for a, b in ((k - 2, k - 1), (k - 1, k + 1), (k + 1, k + 2)):
                    if a < 0 or b > 26 or a // 9 != k // 9 or b // 9 != k // 9:
                        continue
                    ta = next((t for t in op.hand if t.kind.value == a), None)
                    tb = next((t for t in op.hand if t.kind.value == b), None)
                    if ta is None or tb is None:
                        continue
                    forbid = [k]
                    if k < a and (b + 1) // 9 == k // 9:
                        forbid.append(b + 1)
                    elif k > b and a >= 1 and (a - 1) // 9 == k // 9:
                        forbid.append(a - 1)
                    if self._stuck(op, [ta, tb], tuple(forbid)):
                        continue
                    op.hand.remove(ta)
                    op.hand.remove(tb)
                    op.melds.append(("chi", [ta, tb, tile]))
                    if rs.calls.kuikae == "forbidden":
                        op.kuikae = tuple(forbid)
                    self.send(Call(o, "chi", (ta, tb) if self.mode != "blind" else None))
                    return self._after_call(o, called=True)
        return None

    def _stuck(self, op: SeatModel, used: list[Tile], forbid: tuple[int, ...]) -> bool:
        """After the call only forbidden (kuikae) tiles would be left: the player won't call."""
        if self.rs.calls.kuikae != "forbidden":
            return False
        rest = list(op.hand)
        for t in used:
            rest.remove(t)
        return all(t.kind.value in forbid for t in rest)

    def _after_call(self, o: Seat, called: bool = False) -> tuple[Seat, bool] | None:
        if not called:
            # after a daiminkan's rinshan draw: tsumo / kan / discard
            return self._act(o)
        return self._discard(o)

    def _win(self, s: Seat, loser: Seat | None, tile: Tile, more: list[Seat] | None = None
             ) -> None:
        self.ended = True
        self.send(Tsumo(s) if loser is None else Ron(s))
        seats = [s, *(more or [])]
        for o in more or []:
            self.send(Ron(o))
        if self._hand_over():
            return
        if self.mode == "blind":
            for o in seats:
                pl = self.players[o]
                hand = list(pl.hand) + ([tile] if loser is not None else [])
                melds = tuple(tuple(sorted(m)) for _, m in pl.melds)
                self.send(WinShown(o, tuple(sorted(hand)), tile, melds))
        if self._hand_over():
            return
        if self.rs.dora.ura and self.rs.dora.indicator:
            n = self.indicators if (self.rs.dora.kan_dora and self.rs.dora.kan_ura) else 1
            self.send(UraRevealed(tuple(self.wall[i] for i in Wall.URA[:n])))

    def _hand_over(self) -> bool:
        h = self.state.hand
        return h is not None and h.step == "ended"

    def _exhaustive(self) -> None:
        self.ended = True
        tenpai = tuple(s for s in SEATS if self.players[s].waits())
        self.send(ExhaustiveDraw(tenpai=tenpai))


def games(ruleset: str, seeds: Iterator[int], mode: Mode = "table") -> Iterator[Table]:
    for seed in seeds:
        t = Table(ruleset, seed, mode)
        t.play_game()
        yield t
