"""From a record's moves, named by tile kind, to :mod:`rules.inputs` values with physical tiles.

Records name tiles by kind (``5m``, ``15``); the engine tracks physical tiles (ids 0..135) so that
one tile in two places is caught exactly. :class:`HandBuilder` follows one hand: it allocates a
physical tile for every tile that comes out of the wall (deal, draws, indicators) with
:class:`~rules.tiles.TileAllocator` (a fifth copy is an import error), takes the tiles that leave a
hand (discards, calls, kans) from the hand it tracks, and emits the inputs in play order.

It also places the kan dora indicators of a record that lists them only in order (tenhou.net/6) at
the moment the ruleset turns them (``dora.kan_dora_closed`` / ``dora.kan_dora_open``), and derives
what a record may leave implicit: the tenpai seats at an exhaustive draw (from the tiles), and the
kind of an abortive draw (mjai as written by Mortal has no reason field).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from rules import hand_shape
from rules.evolve import maker
from rules.inputs import (
    AbortiveDraw,
    AbortKind,
    Ankan,
    Call,
    CallKind,
    DealDone,
    Discard,
    Draw,
    ExhaustiveDraw,
    IndicatorShown,
    Input,
    Kakan,
    RinshanDraw,
    Ron,
    Tsumo,
    UraRevealed,
)
from rules.records.model import ImportIssue
from rules.seats import SEATS, Seat
from rules.tiles import BY_ID, NAMED_COPIES, RED_IDS, Kind, Tile, TileAllocator, TileError

TileName = tuple[Kind, bool]  # (kind, red)
KanTiming = Literal["immediate", "after_discard"]

#: Tiles a hand can draw from the live wall and the dead wall together (136 - 14 - 13 * 4).
DRAWS_PER_HAND = 70


#: a record's commonest inputs, by their makers (rules.evolve.maker)
_draw = maker(Draw)
_discard = maker(Discard)

def _is_tenpai(counts: list[int], held: list[int]) -> bool:
    """Some kind completes the concealed part, other than a kind whose four copies the seat holds
    already in its hand and melds (M 3-11-2; Tenhou likewise). ``hand_shape.waits``, which the
    tests check against the ``mahjong`` package's ``Agari`` (a tenth of the import's time went
    to asking ``Agari`` of every kind at each exhaustive draw)."""
    return bool(hand_shape.waits(tuple(counts), tuple(held)))


def name_str(name: TileName | None) -> str:
    if name is None:
        return "?"
    kind, red = name
    return kind.mjai + ("r" if red else "")


@dataclass(slots=True)
class _Meld:
    kind: Literal["chi", "pon", "daiminkan", "ankan", "kakan"]
    tiles: list[Tile]
    from_seat: Seat | None


@dataclass(frozen=True, slots=True)
class KanDoraTiming:
    """When a ruleset turns a kan's indicator (rules.ruleset.DoraRules)."""

    closed: KanTiming
    open: KanTiming


class HandBuilder:
    """One hand of a record, move by move. Problems are appended to ``issues`` (the import goes
    on); inputs are appended to ``out``."""

    def __init__(
        self,
        *,
        aka: bool,
        hand: int,
        issues: list[ImportIssue],
        out: list[Input],
        kan_dora: KanDoraTiming | None = None,
        indicators: Sequence[TileName] = (),
        dealer: Seat | None = None,
        dealer_fourteenth: Literal["jump", "draw"] = "draw",
    ) -> None:
        self.aka = aka
        # Records deal 13 each and the dealer draws; where the ruleset deals the dealer's 14th
        # (the jump, S §34), that first draw is part of the deal (DealDone holds 14 for him).
        self.dealer = dealer
        self._jump = dealer_fourteenth == "jump" and dealer is not None
        self._deferred: tuple[list[tuple[Tile, ...]], Tile | None, bool] | None = None
        self.hand = hand
        self.issues = issues
        self.out = out
        self.where: int | None = None  # position in the record, for issues
        self._alloc = TileAllocator(aka=aka)
        self._hands: list[list[Tile]] = [[], [], [], []]
        self._melds: list[list[_Meld]] = [[], [], [], []]
        self._drawn: list[Tile | None] = [None, None, None, None]
        self._rinshan = [False, False, False, False]
        self._last_discard: tuple[Seat, Tile] | None = None
        self._kan_dora = kan_dora
        # Indicators listed by the record, still to be placed (tenhou.net/6 mode).
        self._queue: list[TileName] = list(indicators)
        self._pending_discard = 0  # open kans' indicators waiting for the next discard
        self._pending_rinshan = 0  # waiting for the next replacement draw
        self.indicators: list[Tile] = []
        # Facts for deriving an abortive draw's kind.
        self.draws = 0
        self.calls_made = False
        self.discards_by: list[list[Kind]] = [[], [], [], []]
        self.riichi: list[bool] = [False, False, False, False]
        self.kans_by: list[int] = [0, 0, 0, 0]
        self.last_actor: Seat | None = None
        self.after_draw = False  # the last move was a draw (no discard yet)

    # --- helpers -----------------------------------------------------------------------------
    def issue(self, reason: str) -> None:
        self.issues.append(ImportIssue(self.hand, self.where, reason, len(self.out)))

    def _new(self, name: TileName) -> Tile | None:
        kind, red = name
        try:
            return self._alloc.take(kind, red and self.aka)
        except TileError as exc:
            self.issue(f"{name_str(name)}: {exc}")
            return None

    def _from_hand(
        self, seat: Seat, name: TileName, *, prefer: Tile | None = None, avoid: Tile | None = None
    ) -> Tile | None:
        kind, red = name
        red = red and self.aka
        reds = RED_IDS if self.aka else frozenset()
        hand = self._hands[seat]
        if (prefer is not None and prefer.id >> 2 == kind and (prefer.id in reds) == red
                and prefer in hand):
            hand.remove(prefer)  # the preferred tile names the tile: what the scan would pick
            return prefer
        # the (at most four) tiles the name means, each looked for in the hand (C), in the
        # hand's order: every discard of a record runs this
        matches = [t for t in NAMED_COPIES[self.aka][red][kind] if t in hand]
        if len(matches) > 1:
            matches.sort(key=hand.index)
        if not matches:
            held = " ".join(t.mjai(self.aka) for t in sorted(self._hands[seat], key=BY_ID))
            self.issue(f"seat {int(seat)} does not hold {name_str(name)} (hand: {held})")
            return self._new(name)
        pick = matches[0]
        if prefer is not None and prefer in matches:
            pick = prefer
        elif avoid is not None and pick == avoid and len(matches) > 1:
            pick = matches[1]
        self._hands[seat].remove(pick)
        return pick

    def _show(self, name: TileName) -> None:
        tile = self._new(name)
        if tile is not None:
            self.indicators.append(tile)
        self.out.append(IndicatorShown(position=None, tile=tile))

    def _reveal(self, count: int) -> None:
        for _ in range(count):
            if not self._queue:
                self.issue("a kan turns a new dora indicator but the record lists no more")
                return
            self._show(self._queue.pop(0))

    # --- the hand ------------------------------------------------------------------------------
    def deal(self, hands: Sequence[Sequence[TileName]], dora: TileName | None) -> None:
        dealt: list[tuple[Tile, ...]] = []
        for seat in SEATS:
            tiles = [t for t in (self._new(n) for n in hands[seat]) if t is not None]
            if len(hands[seat]) != 13:
                self.issue(f"seat {int(seat)} is dealt {len(hands[seat])} tiles, expected 13")
            self._hands[seat] = list(tiles)
            dealt.append(tuple(tiles))
        if dora is None and self._queue:
            dora = self._queue.pop(0)
        indicator = None if dora is None else self._new(dora)
        if dora is None:
            self.issue("no dora indicator")
        self._deferred = (dealt, indicator, dora is not None)
        if not self._jump:
            self._emit_deal()

    def _emit_deal(self) -> None:
        if self._deferred is None:
            return
        dealt, indicator, shown = self._deferred
        self._deferred = None
        self.out.append(DealDone(hands=(dealt[0], dealt[1], dealt[2], dealt[3])))
        if shown:
            if indicator is not None:
                self.indicators.append(indicator)
            self.out.append(IndicatorShown(position=None, tile=indicator))

    def indicator(self, name: TileName) -> None:
        """An indicator turned where the record says (mjai ``dora``)."""
        self._show(name)

    def draw(self, seat: Seat, name: TileName | None) -> None:
        if self._deferred is not None:
            if seat != self.dealer or name is None:
                self.issue(f"the first draw is seat {int(seat)}'s, not the dealer's")
                self._emit_deal()
            else:
                tile = self._new(name)
                if tile is not None:
                    self._hands[seat].append(tile)
                    dealt = self._deferred[0]
                    dealt[seat] = (*dealt[seat], tile)
                self._drawn[seat] = tile  # the record's "drawn tile" for a tsumogiri discard
                self.draws += 1
                self.last_actor = seat
                self.after_draw = True
                self._emit_deal()
                return
        rinshan = self._rinshan[seat]
        if rinshan and self._pending_rinshan:
            # Owed "immediate" indicators: once nobody robbed the kan, before this draw.
            n, self._pending_rinshan = self._pending_rinshan, 0
            self._reveal(n)
        tile = None if name is None else self._new(name)
        if tile is not None:
            self._hands[seat].append(tile)
        self._drawn[seat] = tile
        self.draws += 1
        self.last_actor = seat
        self.after_draw = True
        if rinshan:
            self._rinshan[seat] = False
            self.out.append(RinshanDraw(seat=seat, tile=tile))
        else:
            self.out.append(_draw(seat=seat, tile=tile))

    def discard(
        self, seat: Seat, name: TileName | None, *, riichi: bool, tsumogiri: bool | None
    ) -> None:
        drawn = self._drawn[seat]
        tile: Tile | None
        if name is None:  # tsumogiri without a tile name (tenhou.net/6 "60")
            if drawn is None:
                self.issue(f"seat {int(seat)} discards the drawn tile but drew none")
                tile = None
            else:
                tile = drawn
                self._hands[seat].remove(drawn)
        elif tsumogiri is True:
            same = drawn is not None and drawn.kind == name[0]
            if not same or drawn is None or drawn.is_red(self.aka) != (name[1] and self.aka):
                self.issue(
                    f"seat {int(seat)} discards {name_str(name)} as the drawn tile, but drew "
                    f"{'nothing' if drawn is None else drawn.mjai(self.aka)}"
                )
                tile = self._from_hand(seat, name)
            else:
                tile = self._from_hand(seat, name, prefer=drawn)
        elif tsumogiri is False:
            tile = self._from_hand(seat, name, avoid=drawn)
        else:
            tile = self._from_hand(seat, name, prefer=drawn)
        self._drawn[seat] = None
        self._rinshan[seat] = False
        if tile is not None:
            self._last_discard = (seat, tile)
            self.discards_by[seat].append(tile.kind)
        if riichi:
            self.riichi[seat] = True
        self.last_actor = seat
        self.after_draw = False
        self.out.append(_discard(seat=seat, tile=tile, riichi=riichi, tsumogiri=tsumogiri))
        if self._pending_discard:
            n, self._pending_discard = self._pending_discard, 0
            self._reveal(n)

    def call(
        self,
        seat: Seat,
        kind: CallKind,
        called: TileName,
        consumed: Sequence[TileName],
        from_seat: Seat | None,
    ) -> None:
        last = self._last_discard
        if last is None:
            self.issue(f"seat {int(seat)} calls {kind} with no discard to call")
        else:
            src, tile = last
            if from_seat is not None and src != from_seat:
                self.issue(
                    f"seat {int(seat)} calls {kind} from seat {int(from_seat)}, "
                    f"but the last discard is seat {int(src)}'s"
                )
            if (tile.kind, tile.is_red(self.aka)) != (called[0], called[1] and self.aka):
                self.issue(
                    f"seat {int(seat)} calls {name_str(called)} but the last discard is "
                    f"{tile.mjai(self.aka)}"
                )
        tiles = [t for t in (self._from_hand(seat, n) for n in consumed) if t is not None]
        melded = list(tiles) + ([last[1]] if last is not None else [])
        self._melds[seat].append(_Meld(kind, melded, last[0] if last else from_seat))
        self._last_discard = None
        self.calls_made = True
        self._drawn[seat] = None
        self.last_actor = seat
        self.after_draw = False
        self.out.append(Call(seat=seat, kind=kind, tiles=tuple(tiles)))
        if kind == "daiminkan":
            self.kans_by[seat] += 1
            self._rinshan[seat] = True
            self._kan_indicator(self._kan_dora.open if self._kan_dora else None)

    def ankan(self, seat: Seat, consumed: Sequence[TileName]) -> None:
        tiles = [t for t in (self._from_hand(seat, n) for n in consumed) if t is not None]
        self._melds[seat].append(_Meld("ankan", list(tiles), None))
        self._drawn[seat] = None
        self.kans_by[seat] += 1
        self.calls_made = True
        self.after_draw = False
        four = (tiles[0], tiles[1], tiles[2], tiles[3]) if len(tiles) == 4 else None
        self.out.append(Ankan(seat=seat, tiles=four))
        self._rinshan[seat] = True
        self._kan_indicator(self._kan_dora.closed if self._kan_dora else None)
        if self._pending_rinshan:
            # Nobody can rob an ankan but kokushi, and the record goes on: turn them now.
            n, self._pending_rinshan = self._pending_rinshan, 0
            self._reveal(n)

    def kakan(self, seat: Seat, name: TileName) -> None:
        tile = self._from_hand(seat, name)
        pons = [m for m in self._melds[seat] if m.kind == "pon" and m.tiles[0].kind == name[0]]
        if not pons:
            self.issue(f"seat {int(seat)} adds {name_str(name)} to a pon it does not have")
        elif tile is not None:
            pons[0].kind = "kakan"
            pons[0].tiles.append(tile)
        self._drawn[seat] = None
        self.kans_by[seat] += 1
        self.calls_made = True
        self.after_draw = False
        if tile is not None:
            self._last_discard = (seat, tile)  # robbable (chankan)
        self.out.append(Kakan(seat=seat, tile=tile))
        self._rinshan[seat] = True
        self._kan_indicator(self._kan_dora.open if self._kan_dora else None)

    def _kan_indicator(self, timing: KanTiming | None) -> None:
        """Owe this kan's indicator per the ruleset: ``immediate`` — once the kan stands, before
        the replacement draw (S §24-5, §43-10); ``after_discard`` — after the kan player's next
        discard. An earlier kan's indicator still owed is turned once this kan stands, before its
        replacement draw: Tenhou records show it (riichi-rs ``yakuman-kazoe-17.json``, last hand:
        three kakans in a row, no discard between, and two kan indicators turned).
        """
        if timing is None:
            return
        self._pending_rinshan += self._pending_discard
        self._pending_discard = 0
        if timing == "immediate":
            self._pending_rinshan += 1
        else:
            self._pending_discard += 1

    # --- the end -----------------------------------------------------------------------------
    def _flush_listed(self) -> None:
        """Indicators the record lists that the kans did not turn: the record says they were
        shown, so show them (and say so)."""
        if self._queue:
            self.issue(
                f"the record lists {len(self._queue)} more dora indicator(s) than its kans turn "
                "under this ruleset; shown before the end of the hand"
            )
            while self._queue:
                self._show(self._queue.pop(0))

    def tsumo(self, seat: Seat) -> None:
        self._emit_deal()
        self._flush_listed()
        self.out.append(Tsumo(seat=seat))

    def ron(self, seat: Seat) -> None:
        self._emit_deal()
        self._flush_listed()  # once: the queue is empty for a second ron on the same discard
        self.out.append(Ron(seat=seat))

    def ura(self, names: Sequence[TileName]) -> None:
        tiles = tuple(t for t in (self._new(n) for n in names) if t is not None)
        self.out.append(UraRevealed(tiles=tiles))

    def exhaustive(self, tenpai: Sequence[Seat]) -> None:
        self._emit_deal()
        self._flush_listed()
        self.out.append(ExhaustiveDraw(tenpai=tuple(sorted(set(tenpai)))))

    def abort(self, kind: AbortKind, seat: Seat | None) -> None:
        self._emit_deal()
        self._flush_listed()
        self.out.append(AbortiveDraw(kind=kind, seat=seat))

    # --- derived facts ---------------------------------------------------------------------------
    def concealed(self, seat: Seat) -> tuple[Tile, ...]:
        return tuple(self._hands[seat])

    def meld_tiles(self, seat: Seat) -> tuple[Tile, ...]:
        return tuple(t for m in self._melds[seat] for t in m.tiles)

    def tenpai_seats(self) -> tuple[Seat, ...]:
        """Seats whose tiles are tenpai: a wait whose four copies are all in the seat's own hand
        and melds is no wait (M 3-11-2; Tenhou likewise)."""
        out = []
        for seat in SEATS:
            counts = [0] * 34
            for t in self._hands[seat]:
                counts[t.id // 4] += 1
            held = list(counts)
            for t in self.meld_tiles(seat):
                held[t.id // 4] += 1
            if _is_tenpai(counts, held):
                out.append(seat)
        return tuple(out)

    def guess_abort(self) -> tuple[AbortKind | None, Seat | None]:
        """The kind of a draw that a record leaves unnamed (mjai ``ryukyoku`` without reason):
        ``(None, None)`` for an exhaustive draw."""
        seat = self.last_actor
        if sum(self.kans_by) >= 4 and max(self.kans_by) < 4:
            # Before the wall count: four kans by more than one seat abort the hand on the
            # discard after the fourth, even when that discard is also the last one (the kans'
            # replacement draws are what emptied the wall).
            return "four_kans", None
        if self.draws >= DRAWS_PER_HAND:
            return None, None
        if self.after_draw and seat is not None and not self.calls_made:
            counts = [0] * 34
            for t in self._hands[seat]:
                counts[t.id // 4] += 1
            yaochu = sum(1 for k in Kind if k.is_yaochu and counts[k])
            if not self.discards_by[seat] and yaochu >= 9:
                return "nine_terminals", seat
        firsts = [d[:1] for d in self.discards_by]
        if (
            not self.calls_made
            and all(len(d) == 1 for d in self.discards_by)
            and len({f[0] for f in firsts}) == 1
            and firsts[0][0].is_wind
        ):
            return "four_winds", None
        if all(self.riichi):
            return "four_riichi", None
        return "triple_ron", None
