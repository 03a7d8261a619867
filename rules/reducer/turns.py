"""Turns: draws (live wall and rinshan) and discards, with the riichi declaration's checks."""

from __future__ import annotations

from bisect import bisect_right

from rules.events import (
    Discarded,
    Drew,
    HaiteiReached,
    RiichiDeclared,
)
from rules.evolve import FIELD_COUNT, NEW, SET_DICT, maker, rebuilt, replace
from rules.inputs import (
    Discard,
    Draw,
    RinshanDraw,
)
from rules.reducer.hand_ops import (
    check_free,
    close_kan_window,
    from_manifest,
    kill,
    locate,
    located_with,
    pass_discard,
    passing,
    seat_waits,
    seats_with,
    set_seat,
)
from rules.reducer.output import Dead, Out
from rules.ruleset import Ruleset
from rules.seats import Seat
from rules.table_state import (
    FREE,
    LIVE_END,
    LOC_HAND,
    LOC_RIVER,
    HandState,
    LastDiscard,
    RiverTile,
    SeatState,
    TableState,
)
from rules.tiles import BY_ID, Kind, Tile
from rules.wall import (
    Wall,
)

# the values every draw and discard makes, by their makers (rules.evolve.maker)
_drew = maker(Drew)
_discarded = maker(Discarded)
_river_tile = maker(RiverTile)
_last_discard = maker(LastDiscard)
# rules.evolve.rebuilt inline (its checks first): the seat and the hand of every draw and discard
_SEAT_FIELDS = FIELD_COUNT[SeatState]
_HAND_FIELDS = FIELD_COUNT[HandState]

def on_draw(rs: Ruleset, h: HandState, inp: Draw, out: Out) -> HandState:
    s = inp.seat
    if h.step != "draw" or s != h.turn:
        _refuse_draw(rs, h, s, out)
    # h.live_left(), by hand: every draw asks it twice
    live = LIVE_END - h.kans - h.next_live
    if live <= 0:
        raise out.reject("out_of_phase", s, "exhaustive_draw (no live tile left)", "draw")
    tile = inp.tile
    if tile is not None and h.located[tile.id] not in FREE:
        check_free(h, (tile,), s, out)  # (refuses it, saying where the tile is)
    if h.wall is not None:
        want = h.wall[h.next_live]
        if tile is None:
            tile = from_manifest(h, want)
        elif tile != want:
            out.violation("wrong_tile_drawn", s, want.id, tile.id)
    if inp.position is not None and h.brk is not None:
        want_pos = Wall(h.brk).position(h.next_live)
        if inp.position != want_pos:
            out.violation("wrong_tile_drawn", s, want_pos.to_json(), inp.position.to_json())
    h, passed = passing(rs, h, out, None)
    if h.dora_due:
        h = _after_discard_dora_check(h, out)
    st = h.seats[s]
    concealed = st.concealed
    if concealed is not None:
        # The hand is kept sorted by tile id (every handler that makes one sorts it or keeps
        # its order): the drawn tile goes in at its place, as ``sorted`` would put it.
        concealed = None if tile is None else _inserted(concealed, tile)
    # replace(st, ...) and replace(h, ...), the hottest two copies, by rules.evolve.rebuilt
    sf = vars(st).copy()
    sf["concealed"] = concealed
    sf["count"] = st.count + 1
    sf["drawn"] = tile
    sf["has_drawn"] = True
    sf["rinshan"] = False
    sf["kuikae"] = ()
    if len(sf) != _SEAT_FIELDS or st.__class__ is not SeatState:
        rebuilt(st, sf)  # (refuses it)
    st = NEW(SeatState)
    SET_DICT(st, "__dict__", sf)
    # one copy of the hand for the passed discard, the seat, the tile's place and the turn
    hf = vars(h).copy()
    if passed is not None:
        hf["last"] = passed
    hf["seats"] = seats_with(h, s, st)
    if tile is not None:
        hf["located"] = located_with(h, (tile,), LOC_HAND + s)
    hf["next_live"] = h.next_live + 1
    hf["step"] = "discard"
    hf["turn"] = s
    hf["pre_call"] = None
    hf["pre_call_seat"] = None
    if len(hf) != _HAND_FIELDS or h.__class__ is not HandState:
        rebuilt(h, hf)  # (refuses it)
    h = NEW(HandState)
    SET_DICT(h, "__dict__", hf)
    live -= 1  # (h.live_left(): one tile fewer)
    out.emit(_drew(seat=s, tile=tile, position=inp.position, rinshan=False, live_left=live))
    if live == 0:
        out.emit(HaiteiReached(seat=s))
    return h


def _refuse_draw(rs: Ruleset, h: HandState, s: Seat, out: Out) -> None:
    """A draw out of step or out of turn: refused, or the seat's hand dead (raises)."""
    if h.step == "setup":
        raise out.reject("out_of_phase", s, "deal_done", "draw")
    if h.step == "rinshan":
        if s == h.turn:
            raise out.reject("must_draw_rinshan", s, "rinshan_draw", "draw")
        raise out.reject("draw_out_of_turn", s, int(h.turn), int(s))
    if h.step == "discard":
        code = "draw_twice" if s == h.turn else (
            "early_draw" if s == h.turn.plus(1) else "draw_out_of_turn")
        out.violation(code, s, int(h.turn) if code != "draw_twice" else "a discard",
                      int(s) if code != "draw_twice" else "a second draw")
        # The tile goes back (M 3-4-8) and the seat's hand is dead (S §55-3, M 7-2, μ §70).
        dead = kill(rs, h, s, code, out)
        raise Dead(dead)
    out.violation("draw_out_of_turn", s, int(h.turn), int(s))
    raise Dead(kill(rs, h, s, "draw_out_of_turn", out))


def _inserted(tiles: tuple[Tile, ...], tile: Tile) -> tuple[Tile, ...]:
    """``tuple(sorted((*tiles, tile), key=BY_ID))`` for ``tiles`` sorted by id."""
    i = bisect_right(tiles, tile.id, key=BY_ID)
    return (*tiles[:i], tile, *tiles[i:])


def _after_discard_dora_check(h: HandState, out: Out) -> HandState:
    """An after-discard kan indicator still owed when play moves on is missing."""
    if not h.dora_due:
        return h
    changed = False
    dues = []
    for d in h.dora_due:
        if d.timing == "after_discard" and d.discarded and not d.late:
            out.violation("indicator_missing", d.seat, "the kan indicator", "none")
            dues.append(replace(d, late=True))
            changed = True
        else:
            dues.append(d)
    return replace(h, dora_due=tuple(dues)) if changed else h


def on_rinshan(rs: Ruleset, h: HandState, inp: RinshanDraw, out: Out) -> HandState:
    s = inp.seat
    if h.step != "rinshan":
        raise out.reject("rinshan_without_kan", s, "a kan first", "rinshan_draw")
    if s != h.turn:
        raise out.reject("draw_out_of_turn", s, int(h.turn), int(s))
    if h.rinshan_taken >= len(Wall.RINSHAN):
        raise out.reject("fifth_kan", s, len(Wall.RINSHAN), h.rinshan_taken + 1)
    tile = inp.tile
    index = Wall.RINSHAN[h.rinshan_taken]
    if tile is not None:
        check_free(h, [tile], s, out)
    if h.wall is not None:
        want = h.wall[index]
        if tile is None:
            tile = from_manifest(h, want)
        elif tile != want:
            out.violation("wrong_tile_drawn", s, want.id, tile.id)
    dues = []
    for d in h.dora_due:
        if d.timing == "now" and not d.late:
            # S §43-10,13,15 / M 4-5-5: the indicator comes before the replacement draw.
            out.violation("indicator_missing", s, "the kan indicator before the rinshan draw",
                          "rinshan_draw")
            dues.append(replace(d, late=True))
        else:
            dues.append(d)
    h = close_kan_window(rs, replace(h, dora_due=tuple(dues)))
    st = h.seats[s]
    concealed = None if st.concealed is None or tile is None else tuple(
        sorted((*st.concealed, tile), key=BY_ID))
    h = set_seat(h, s, replace(st, concealed=concealed, count=st.count + 1, drawn=tile,
                                has_drawn=True, rinshan=True, kuikae=()))
    if tile is not None:
        h = locate(h, [tile], LOC_HAND + s)
    # The replacement tile is drawn: a daiminkan can no longer be undone by a ron on its tile.
    h = replace(h, rinshan_taken=h.rinshan_taken + 1, step="discard", pre_call=None,
                pre_call_seat=None)
    out.emit(Drew(seat=s, tile=tile, position=None if h.brk is None else
                  Wall(h.brk).position(index), rinshan=True, live_left=h.live_left()))
    return h


def on_discard(rs: Ruleset, t: TableState, h: HandState, inp: Discard, out: Out) -> HandState:
    s = inp.seat
    if h.step == "setup":
        raise out.reject("out_of_phase", s, "deal_done", "discard")
    if s != h.turn:
        raise out.reject("discard_out_of_turn", s, int(h.turn), int(s))
    if h.step == "rinshan":
        raise out.reject("must_draw_rinshan", s, "rinshan_draw", "discard")
    short = h.step == "draw"
    st = h.seats[s]
    tile = inp.tile
    if tile is not None:
        if st.concealed is not None and tile not in st.concealed:
            raise out.reject("tile_not_in_hand", s, [x.id for x in st.concealed], tile.id)
        where = h.located[tile.id]
        if where != LOC_HAND + s and where not in FREE:
            check_free(h, (tile,), s, out, (LOC_HAND + s,))  # (refuses it)
    if st.count <= 0:
        raise out.reject("tile_not_in_hand", s, "a tile in hand", "an empty hand")
    if inp.riichi:
        _check_riichi(rs, h, st, s, tile, out)
    if st.riichi == "accepted" and not short:
        drawn = st.drawn
        if (tile is not None and drawn is not None and tile != drawn) or inp.tsumogiri is False:
            raise out.reject("riichi_discard_not_drawn", s,
                             None if drawn is None else drawn.id,
                             None if tile is None else tile.id)
    if short:
        # M 3-4-7: the discard stands; the seat plays short (少牌) with a dead hand.
        out.violation("discard_without_draw", s, "draw", "discard")
        h = pass_discard(rs, h, out, None)
        h = kill(rs, h, s, "discard_without_draw", out)
        st = h.seats[s]
    if tile is not None and st.kuikae and tile.kind in st.kuikae \
            and rs.calls.kuikae == "forbidden":
        out.violation("kuikae", s, [Kind(k).mjai for k in st.kuikae], tile.mjai(False))
        h = kill(rs, h, s, "kuikae", out)
        st = h.seats[s]
    if rs.dora.indicator and not h.indicators and st.discards == 0 and s == h.dealer:
        out.violation("indicator_missing", s, "the dora indicator before the first discard",
                      "none")
    houtei = h.kans + h.next_live >= LIVE_END  # h.live_left() == 0
    tsumogiri = inp.tsumogiri
    if tsumogiri is None and tile is not None and st.drawn is not None:
        tsumogiri = tile == st.drawn
    concealed = st.concealed
    if concealed is not None:
        concealed = None if tile is None else _without(concealed, tile)
    first = st.discards == 0
    double = bool(inp.riichi and first and not h.interrupted and rs.riichi.double_riichi)
    sf = vars(st).copy()  # replace(st, ...) by rules.evolve.rebuilt: every discard
    sf["concealed"] = concealed
    sf["count"] = st.count - 1
    # (``+``, not ``(*river, x)``: one copy of the tuple, not a list and a tuple)
    sf["river"] = st.river + (  # noqa: RUF005
        _river_tile(tile=tile, riichi=inp.riichi, tsumogiri=tsumogiri),)
    sf["discards"] = st.discards + 1
    sf["drawn"] = None
    sf["has_drawn"] = False
    sf["rinshan"] = False
    sf["kuikae"] = ()
    # W 罚张-7: discarded, no more
    sf["penalty"] = tuple([x for x in st.penalty if x != tile]) if st.penalty else ()
    sf["furiten_temp"] = False  # S §51(2): the same-go-around furiten ends at one's discard
    sf["ippatsu"] = False
    if inp.riichi:
        sf["riichi"] = "declared"
    sf["double_riichi"] = double or st.double_riichi
    if len(sf) != _SEAT_FIELDS or st.__class__ is not SeatState:
        rebuilt(st, sf)  # (refuses it)
    st = NEW(SeatState)
    SET_DICT(st, "__dict__", sf)
    first_discards = h.first_discards
    if first and not h.interrupted and len(first_discards) < 4:
        first_discards = (*first_discards, tile)
    dues = tuple(replace(d, discarded=True) if d.seat == s and d.timing == "after_discard"
                 else d for d in h.dora_due) if h.dora_due else ()
    hf = vars(h).copy()  # replace(h, ...) by rules.evolve.rebuilt: every discard
    hf["seats"] = seats_with(h, s, st)
    if tile is not None:
        hf["located"] = located_with(h, (tile,), LOC_RIVER + s)
    hf["last"] = _last_discard(seat=s, tile=tile, riichi=inp.riichi, houtei=houtei)
    hf["discard_log"] = h.discard_log + ((s, tile),)  # noqa: RUF005 (see the river)
    hf["step"] = "draw"
    hf["turn"] = s.plus(1)
    hf["first_discards"] = first_discards
    hf["dora_due"] = dues
    hf["pre_call"] = None
    hf["pre_call_seat"] = None
    hf["kan_window"] = None
    hf["robbed"] = False
    if len(hf) != _HAND_FIELDS or h.__class__ is not HandState:
        rebuilt(h, hf)  # (refuses it)
    h = NEW(HandState)
    SET_DICT(h, "__dict__", hf)
    out.emit(_discarded(seat=s, tile=tile, riichi=inp.riichi, tsumogiri=tsumogiri,
                       houtei=houtei))
    if inp.riichi:
        out.emit(RiichiDeclared(seat=s, double=double))
    return h


def _without(tiles: tuple[Tile, ...], tile: Tile) -> tuple[Tile, ...]:
    """``tiles`` without ``tile``: a hand holds a physical tile once, so one search and two
    slices (every discard does this); a tile there twice goes entirely, as by a filter."""
    try:
        i = tiles.index(tile)
    except ValueError:
        return tiles
    rest = tiles[:i] + tiles[i + 1:]
    return rest if tile not in rest else tuple([x for x in rest if x != tile])


def _check_riichi(rs: Ruleset, h: HandState, st: SeatState, s: Seat, tile: Tile | None,
                  out: Out) -> None:
    if not rs.riichi.enabled:
        raise out.reject("riichi_not_in_ruleset", s, "no riichi", "riichi")
    if st.dead is not None:
        raise out.reject("dead_hand_call", s, "no riichi with a dead hand", "riichi")
    if st.riichi != "none":
        raise out.reject("riichi_twice", s, "one riichi", "a second riichi")
    if any(m.is_open for m in st.melds):
        raise out.reject("riichi_open_hand", s, "a closed hand", "open melds")
    if h.live_left() < rs.riichi.min_live_tiles:
        raise out.reject("riichi_too_late", s, f">= {rs.riichi.min_live_tiles} live tiles",
                         h.live_left())
    if rs.riichi.requires_deposit_points and h.scores[s] < rs.riichi.deposit:
        raise out.reject("riichi_no_points", s, f">= {rs.riichi.deposit}", h.scores[s])
    if not rs.riichi.furiten_riichi and rs.furiten.enabled and st.concealed is not None \
            and tile is not None:
        after = replace(st, concealed=tuple(x for x in st.concealed if x != tile))
        w = seat_waits(after)
        river = {r.tile.kind for r in st.river if r.tile is not None} | {tile.kind}
        if w and any(k in river for k in w):
            raise out.reject("riichi_furiten", s, "not furiten", [Kind(k).mjai for k in w])
