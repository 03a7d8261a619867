"""What the tracker holds without an input yet, and where a tile is (pure).

:class:`Held` is a frozen value. It changes only through the records the tracker logs:
:func:`settle` reads one logged record (an ``input``, a ``tracker_hold`` or ``table_wall_manifest``
marker, a meld's ``tile_rejected``) and returns the next value. The live path computes its next
``Held`` by settling the records it just produced (:func:`daemon.tracking.track.track`), and a
restarted daemon rebuilds it by settling the logged records of the game (:func:`restore`): one
interpreter, so live and restored values are equal by construction (tests/daemon/test_track_fold.py
checks it at random cut points anyway).

Tile locations have one owner: the reducer's ``HandState.located`` says where each tile the rules
know of is; :func:`where` adds only what ``Held`` has and the rules do not yet (dealt tiles before
the deal is complete, meld tiles before the meld closes, a face on the dora spot before its
position is known, ura indicators before all are read).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Final, TypeAlias

from daemon.tracking.records import KIND_INPUT, KIND_MARKER, Body, is_tracked
from drivers.tiles.places import Place, Zone
from rules.inputs import (
    Ankan,
    Call,
    DealDone,
    Discard,
    ExhaustiveDraw,
    HandStart,
    IndicatorShown,
    Input,
    InputError,
    Kakan,
    UraRevealed,
    input_from_json,
)
from rules.seats import SEATS, Seat
from rules.table_state import (
    LOC_HAND,
    LOC_INDICATOR,
    LOC_MELD,
    LOC_RIVER,
    LOC_URA,
    TableState,
)
from rules.tiles import ALL_TILES, Tile
from rules.wall import Position

#: a tile laid in a meld area, with where it was before (None: unseen, e.g. not read in a hand)
MeldTile: TypeAlias = tuple[Tile, Place | None]
Deal: TypeAlias = tuple[tuple[Tile, ...], tuple[Tile, ...], tuple[Tile, ...], tuple[Tile, ...]]
_NO_DEAL: Final[Deal] = ((), (), (), ())


@dataclass(frozen=True, slots=True)
class Held:
    """Device events of this hand that are no rules input yet (reset at every hand start)."""

    deal: Deal = _NO_DEAL  # tiles read on each rack before the deal is complete
    fourteenth: Tile | None = None  # the dealer's jump tile: the last one dealt to its rack
    riichi: frozenset[Seat] = frozenset()  # pressed the riichi key: the next discard is riichi
    answers: tuple[tuple[Seat, bool], ...] = ()  # exhaustive draw: (seat, tenpai?) so far
    melds: tuple[tuple[Seat, tuple[MeldTile, ...]], ...] = ()  # open meld areas, in order
    indicator_position: Position | None = None  # turned by the table, face not read yet
    indicator_tile: Tile | None = None  # read on the dora spot, position not reported yet
    ura: tuple[Tile, ...] = ()  # ura indicators read so far (after a riichi win)
    manifest: tuple[str | None, ...] | None = None  # the wall by physical position (the link's)

    def melds_of(self, seat: Seat) -> tuple[MeldTile, ...] | None:
        return next((tiles for s, tiles in self.melds if s == seat), None)

    def without_melds(self, seat: Seat | None) -> Held:
        """The meld area of ``seat`` closed (None: every one, an old log's rejection)."""
        return replace(self, melds=() if seat is None else
                       tuple((s, t) for s, t in self.melds if s != seat))


def settle(held: Held, kind: str, source: str, body: Body) -> Held:
    """``held`` after one record (records other than the tracker's change nothing): the typed
    input the fold just made, or a record read back from the log (its JSON, parsed here once)."""
    if not is_tracked(source):
        return held
    if kind == KIND_INPUT:
        return _settle_input(held, body)
    if kind != KIND_MARKER or not isinstance(body, Mapping):
        return held
    match body.get("type"):
        case "table_wall_manifest":
            return replace(held, manifest=tuple(body["tiles"]))
        case "tracker_hold":
            return _settle_hold(held, body)
        case "tile_rejected" if str(body.get("what", "")).startswith("meld"):
            seat = body.get("seat")
            return held.without_melds(Seat.of(seat) if isinstance(seat, int) else None)
        case _:
            return held


def _settle_input(held: Held, body: Body) -> Held:
    # the typed input the live fold just made, first: checking for one is a flat class test,
    # ``Mapping`` an ABC's (~2,000 instructions an input on the live path)
    if isinstance(body, Input) or not isinstance(body, Mapping):
        return _settle_typed(held, body)
    try:
        inp = input_from_json(dict(body))
    except InputError:
        return held  # a hand-edited log: the rules skip it too
    return _settle_typed(held, inp)


def _settle_typed(held: Held, inp: Input) -> Held:
    match inp:
        case HandStart():
            return Held()
        case DealDone(hands=hands):
            # RULESETS.md 2.4: the dealer picks the jump tile last, so it is the drawn tile
            jump = next((h[-1] for h in hands or () if len(h) == 14), None)
            return replace(held, deal=_NO_DEAL, fourteenth=jump)
        case Discard(seat=seat):
            return replace(held, riichi=held.riichi - {seat})
        case ExhaustiveDraw():
            return replace(held, answers=())
        case Call(seat=seat) | Ankan(seat=seat) | Kakan(seat=seat):
            return held.without_melds(seat)
        case IndicatorShown():
            return replace(held, indicator_position=None, indicator_tile=None)
        case UraRevealed():
            return replace(held, ura=())
        case _:
            return held


def _settle_hold(held: Held, body: Mapping[str, Any]) -> Held:
    tile = Tile(body["tile"]) if isinstance(body.get("tile"), int) else None
    seat = Seat.of(body["seat"]) if isinstance(body.get("seat"), int) else None
    match body.get("what"):
        case "deal" if seat is not None and tile is not None:
            deal = list(held.deal)
            deal[seat] = (*deal[seat], tile)
            return replace(held, deal=(deal[0], deal[1], deal[2], deal[3]))
        case "riichi" if seat is not None:
            return replace(held, riichi=held.riichi | {seat})
        case "answer" if seat is not None:
            answers = tuple(a for a in held.answers if a[0] != seat)
            return replace(held, answers=(*answers, (seat, bool(body.get("tenpai")))))
        case "meld" if seat is not None and tile is not None:
            prev = body.get("previous")
            place = None if prev is None else Place.parse(prev["zone"], prev["seat"])
            laid: MeldTile = (tile, place)
            if held.melds_of(seat) is None:
                return replace(held, melds=(*held.melds, (seat, (laid,))))
            return replace(held, melds=tuple((s, (*t, laid) if s == seat else t)
                                             for s, t in held.melds))
        case "ura" if tile is not None:
            return replace(held, ura=(*held.ura, tile))
        case "indicator_tile" if tile is not None:
            return replace(held, indicator_tile=tile)
        case "indicator_position":
            return replace(held, indicator_position=Position.from_json(body["position"]))
        case _:
            return held


def restore(records: Iterable[tuple[str, str, Body]]) -> Held:
    """``Held`` after the logged records ``(kind, source, body)`` of the game, in log order: the
    same :func:`settle` the live path runs."""
    held = Held()
    for kind, source, body in records:
        held = settle(held, kind, source, body)
    return held


def where(state: TableState | None, held: Held, tile: Tile) -> Place | None:
    """Where ``tile`` is as far as the sensors can tell (None: unseen -- in the wall, or not read).
    The tracker's own holdings first (the rules do not know them yet), then the reducer's."""
    for s in SEATS:
        if tile in held.deal[s]:
            return Place(Zone.HAND, s)
    for s, tiles in held.melds:
        if any(t == tile for t, _ in tiles):
            return Place(Zone.MELDS, s)
    if tile == held.indicator_tile or tile in held.ura:
        return Place(Zone.DORA)
    h = None if state is None else state.hand
    if h is None:
        return None
    return _place(h.located[tile.id])


def at(state: TableState | None, held: Held, place: Place) -> tuple[Tile, ...]:
    """The tiles :func:`where` has at ``place`` (what a camera's zone there is checked against)."""
    return tuple(t for t in ALL_TILES if where(state, held, t) == place)


def _place(loc: int) -> Place | None:
    for base, zone in ((LOC_HAND, Zone.HAND), (LOC_RIVER, Zone.RIVER), (LOC_MELD, Zone.MELDS)):
        if base <= loc < base + 4:
            return Place(zone, Seat.of(loc - base))
    if loc in (LOC_INDICATOR, LOC_URA):
        return Place(Zone.DORA)
    return None  # LOC_UNKNOWN, LOC_WALL: the sensors do not see the wall
