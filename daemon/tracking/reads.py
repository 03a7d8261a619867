"""A tile read at a place → a rules input, a held tile, or a rejection (pure).

Zones (``drivers/tiles/places.py``; docs/hil.md has the table drawing):

* ``hand`` of seat s -- before the deal: a dealt tile; after it: a draw (a replacement draw while
  the seat owes one after a kan); a tile read again where it already is changes nothing;
* ``river`` of seat s -- a discard; riichi when the seat pressed its riichi key this turn;
* ``melds`` of seat s -- a tile laid open, held until the meld area closes (daemon.tracking.melds);
* ``dora`` (no seat) -- the face of a turned indicator (paired with the table's
  ``indicator_turned``, which gives the position), and after a riichi win the ura indicators.

Every draw, replacement draw and indicator is checked against the wall manifest once the break is
known: a read whose kind disagrees is a misread tag, rejected (``manifest_mismatch``), and the
tile stays where it was. Where a tile was is :func:`daemon.tracking.held.where`: a read that moves
a tile where no play can (``drivers.tiles.location.MOVES``) is rejected as ``impossible``.
"""

from __future__ import annotations

from dataclasses import replace

from daemon.tracking.held import Held, where
from daemon.tracking.records import (
    TABLE,
    TRACKER,
    Entry,
    hold,
    input_entry,
    marker,
    rejected,
    seat_source,
)
from drivers.link.messages import Layer as LinkLayer
from drivers.link.messages import manifest_index
from drivers.tiles.events import Rejection, RejectReason, TileRead
from drivers.tiles.location import may_move
from drivers.tiles.places import Zone
from rules.inputs import DealDone, Discard, Draw, IndicatorShown, RinshanDraw, UraRevealed
from rules.seats import SEATS, Seat
from rules.table_state import HandState, TableState
from rules.tiles import Kind, parse_mjai
from rules.wall import Layer, Position, Wall


def located(state: TableState | None, held: Held, read: TileRead) -> TileRead | Entry:
    """The read with ``previous`` from the one location model, or its ``impossible`` rejection
    (the tile stays where it was: misreads must not move tiles)."""
    previous = where(state, held, read.tile)
    if previous is not None and not may_move(previous, read.place):
        why = (f"{read.tile.kind.mjai} (tile {read.tile.id}) is at {previous}; it cannot move to "
               f"{read.place}")
        rejection = Rejection(read.reader, read.tag, RejectReason.IMPOSSIBLE, why, read.t_ns,
                              read.tile)
        return marker(TRACKER, rejection.as_json())
    return replace(read, previous=previous)


def place(held: Held, state: TableState | None, read: TileRead, aka: bool) -> tuple[Entry, ...]:
    """The records of a located read (``previous`` set by :func:`located`)."""
    h = None if state is None else state.hand
    if h is None or h.step == "ended":
        return (rejected(f"{read.tile.mjai(aka)} at {read.place}", "no_hand", tile=read.tile.id,
                         place=read.place.as_json()),)
    if read.place.zone is Zone.DORA:
        return (_dora(held, state, h, read),)
    if read.previous == read.place:
        return ()  # lifted and put back: nothing happened
    seat = read.place.seat
    assert seat is not None
    match read.place.zone:
        case Zone.HAND:
            return (_to_hand(held, state, h, seat, read),)
        case Zone.RIVER:
            return (_to_river(held, h, seat, read),)
        case _:
            previous = None if read.previous is None else read.previous.as_json()
            return (hold("meld", seat=int(seat), tile=read.tile.id, previous=previous),)


def _jump(state: TableState | None) -> bool:
    rs = None if state is None else state.ruleset
    return rs is not None and rs.wall.dealer_fourteenth == "jump"


def _dora(held: Held, state: TableState | None, h: HandState, read: TileRead) -> Entry:
    if h.step == "won":  # S §24-7: the ura indicators, shown after a riichi win
        rs = None if state is None else state.ruleset
        if rs is None or not (rs.dora.indicator and rs.dora.ura) or not any(
                w.win.riichi for w in h.wins):
            return rejected("a tile on the dora spot", "no_ura_here", tile=read.tile.id)
        ura = (*held.ura, read.tile)
        kan_ura = rs.dora.kan_dora and rs.dora.kan_ura
        if len(ura) >= (len(h.indicators) if kan_ura else min(1, len(h.indicators))):
            return input_entry(TABLE, UraRevealed(tiles=ura))
        return hold("ura", tile=read.tile.id)
    pos = held.indicator_position
    name = None if pos is None else _name_at(held, pos)
    if pos is not None and name is not None and parse_mjai(name)[0] != read.tile.kind:
        return rejected("indicator", "manifest_mismatch", tile=read.tile.id,
                        read=read.tile.kind.mjai, manifest=name, position=pos.to_json())
    if pos is None:  # the face was read first: held until the table reports the position
        return hold("indicator_tile", tile=read.tile.id)
    return input_entry(TABLE, IndicatorShown(position=pos, tile=read.tile))


def _to_hand(held: Held, state: TableState | None, h: HandState, seat: Seat,
             read: TileRead) -> Entry:
    s = int(seat)
    if h.step == "setup":
        def need(x: Seat) -> int:
            return 14 if (x == h.dealer and _jump(state)) else 13

        if len(held.deal[seat]) >= need(seat):
            return rejected(f"deal to seat {s}", "too_many_tiles", tile=read.tile.id, seat=s,
                            need=need(seat))
        deal = tuple((*d, read.tile) if x == seat else d for x, d in zip(SEATS, held.deal))
        if any(len(deal[x]) < need(x) for x in SEATS):
            return hold("deal", seat=s, tile=read.tile.id)
        return input_entry(TABLE, DealDone(hands=(deal[0], deal[1], deal[2], deal[3])))
    if h.step == "rinshan" and seat == h.turn:
        index = Wall.RINSHAN[min(h.rinshan_taken, len(Wall.RINSHAN) - 1)]
        wrong = _mismatch(held, h, index, read, "replacement draw")
        return wrong or input_entry(seat_source(seat), RinshanDraw(seat=seat, tile=read.tile))
    if h.step == "draw" and seat == h.turn and h.live_left() > 0:
        wrong = _mismatch(held, h, h.next_live, read, "draw")
        if wrong is not None:
            return wrong
    # out of turn too: the reducer judges it (a violation; the tile stays unlocated, M 3-4-8)
    return input_entry(seat_source(seat), Draw(seat=seat, tile=read.tile))


def _to_river(held: Held, h: HandState, seat: Seat, read: TileRead) -> Entry:
    st = h.seats[seat]
    drawn = st.drawn
    if drawn is None and seat == h.dealer and st.discards == 0 and st.has_drawn:
        drawn = held.fourteenth
    tsumogiri = drawn is not None and read.tile == drawn
    return input_entry(seat_source(seat), Discard(seat=seat, tile=read.tile,
                                                  riichi=seat in held.riichi,
                                                  tsumogiri=tsumogiri))


def _name_at(held: Held, pos: Position) -> str | None:
    """The manifest's tile at a wall position (None: no manifest, or that tile unread)."""
    if held.manifest is None:
        return None
    layer = LinkLayer.TOP if pos.layer is Layer.TOP else LinkLayer.BOTTOM
    return held.manifest[manifest_index(int(pos.seat), pos.stack, layer)]


def _mismatch(held: Held, h: HandState, index: int, read: TileRead, what: str) -> Entry | None:
    """The rejection of a draw whose kind is not the manifest's at ring ``index`` (None: agrees,
    or nothing to compare: no manifest, no break yet, or that tile unread)."""
    if held.manifest is None or h.brk is None:
        return None
    name = _name_at(held, Wall(h.brk).position(index))
    want: Kind | None = None if name is None else parse_mjai(name)[0]
    if want is None or read.tile.kind == want:
        return None
    return rejected(what, "manifest_mismatch", tile=read.tile.id, read=read.tile.kind.mjai,
                    manifest=want.mjai, ring=index, place=read.place.as_json())
