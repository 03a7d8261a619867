"""Calls and kans: chi, pon, daiminkan, ankan, kakan (its chankan window), pao."""

from __future__ import annotations

from collections.abc import Sequence

from rules import hand_shape
from rules.claims import chi_allowed_from, kuikae_kinds
from rules.events import (
    Called,
    Kan,
)
from rules.evolve import replace
from rules.inputs import (
    Ankan,
    Call,
    Kakan,
)
from rules.outcome import Meld
from rules.reducer.hand_ops import (
    break_ippatsu,
    check_free,
    locate,
    may_call,
    pass_discard,
    set_seat,
)
from rules.reducer.output import Out
from rules.ruleset import Ruleset
from rules.seats import Seat
from rules.table_state import (
    LOC_HAND,
    LOC_MELD,
    DoraDue,
    HandState,
    LastDiscard,
    SeatState,
)
from rules.tiles import Tile


def _claimable(h: HandState, seat: Seat, out: Out) -> LastDiscard:
    last = h.last
    if last is None and h.pre_call is not None and h.pre_call_seat is not None:
        # W 鸣牌优先-4: once a call is shown, later pon/kan/chi claims on the tile lapse
        # (only a ron keeps priority until the caller discards).
        raise out.reject("claim_taken", seat, "a claim before the call was shown",
                         f"after seat {int(h.pre_call_seat)}'s call")
    if last is None:
        raise out.reject("no_discard_to_claim", seat, "a discard", "none")
    if last.passed or h.step != "draw":
        raise out.reject("call_after_draw", seat, "a call before the next draw",
                         "after it")
    if seat == last.seat:
        raise out.reject("call_own_discard", seat, "another seat's discard", "own")
    return last


def on_call(rs: Ruleset, h: HandState, inp: Call, out: Out) -> HandState:
    s = inp.seat
    last = _claimable(h, s, out)
    st = h.seats[s]
    if last.houtei:
        raise out.reject("call_on_houtei", s, "ron only", inp.kind)
    if not may_call(rs, st, 13):
        raise out.reject("dead_hand_call", s, "no calls with a dead hand", inp.kind)
    if st.riichi != "none":
        raise out.reject("call_in_riichi", s, "no calls after riichi", inp.kind)
    if inp.kind == "chi" and not chi_allowed_from(s, last.seat):
        raise out.reject("chi_not_from_left", s, int(last.seat.plus(1)), int(s))
    need = 3 if inp.kind == "daiminkan" else 2
    if inp.kind == "daiminkan":
        _kan_allowed(rs, h, s, out)
    tiles = inp.tiles
    if tiles is not None:
        if len(tiles) != need:
            raise out.reject("call_bad_tiles", s, f"{need} tiles", len(tiles))
        if st.concealed is not None:
            missing = [x.id for x in tiles if x not in st.concealed]
            if missing:
                raise out.reject("tile_not_in_hand", s, [x.id for x in st.concealed], missing)
        check_free(h, tiles, s, out, (LOC_HAND + s,))
        if any(x in st.penalty for x in tiles):
            # W 罚张-3,5: a penalty tile never goes into an exposed set.
            raise out.reject("penalty_tile_call", s, "no penalty tile in the set",
                             [x.mjai(False) for x in tiles if x in st.penalty])
        if last.tile is not None and not _forms(inp.kind, last.tile, tiles):
            raise out.reject("call_bad_tiles", s, f"a {inp.kind} with {last.tile.mjai(False)}",
                             [x.mjai(False) for x in tiles])
    if st.count < need + 1:
        raise out.reject("wrong_hand_size", s, f">= {need + 1} tiles", st.count)
    before = h
    h = pass_discard(rs, h, out, s)
    h = break_ippatsu(h)
    # mark the called river tile
    d = h.seats[last.seat]
    river = (*d.river[:-1], replace(d.river[-1], called=True)) if d.river else d.river
    h = set_seat(h, last.seat, replace(d, river=river))
    known = tiles is not None and last.tile is not None
    meld_tiles: tuple[Tile, ...] = ()
    if tiles is not None and last.tile is not None:
        meld_tiles = tuple(sorted((*tiles, last.tile), key=lambda x: x.id))
    meld = Meld(kind=inp.kind, tiles=meld_tiles, called=last.tile, from_seat=last.seat)
    st = h.seats[s]
    concealed = st.concealed
    if concealed is not None:
        concealed = None if tiles is None else tuple(x for x in concealed if x not in tiles)
    kuikae: tuple[int, ...] = ()
    if rs.calls.kuikae == "forbidden" and last.tile is not None:
        kuikae = kuikae_kinds(inp.kind, last.tile.kind, tiles or ())
    st = replace(st, concealed=concealed, count=st.count - need, melds=(*st.melds, meld),
                 drawn=None, has_drawn=False, rinshan=False, kuikae=kuikae)
    st = _pao_check(rs, st, last.seat, inp.kind)
    h = set_seat(h, s, st)
    if known:
        h = locate(h, meld_tiles, LOC_MELD + s)
    h = replace(h, last=None, interrupted=True, turn=s, pre_call=before, pre_call_seat=s)
    if inp.kind == "daiminkan":
        h = _register_kan(rs, h, s, open_kan=True)
        h = replace(h, step="rinshan")
        out.emit(Kan(seat=s, meld=meld, kans=h.kans))
    else:
        h = replace(h, step="discard")
        out.emit(Called(seat=s, meld=meld))
    return h


def _forms(kind: str, called: Tile, held: Sequence[Tile]) -> bool:
    kinds = sorted([called.kind.value, *(t.kind.value for t in held)])
    if kind in ("pon", "daiminkan"):
        return len(set(kinds)) == 1
    a, b, c = kinds
    return c < 27 and a // 9 == c // 9 and b == a + 1 and c == a + 2


def _pao_check(rs: Ruleset, st: SeatState, feeder: Seat, kind: str) -> SeatState:
    """M 8-1, μ §67: the seat whose discard completed the 3rd dragon set, the 4th wind set, or
    (M) the 4th kan by daiminkan is liable."""
    if st.pao is not None or kind == "chi":
        return st
    sets = [m for m in st.melds if m.kind != "chi" and m.tiles]
    dragons = sum(1 for m in sets if m.tiles[0].kind.is_dragon)
    winds = sum(1 for m in sets if m.tiles[0].kind.is_wind)
    kans = sum(1 for m in st.melds if m.is_kan)
    last = st.melds[-1] if st.melds else None
    if last is None or not last.tiles:
        if kind == "daiminkan" and kans == 4 and "suukantsu" in rs.pao.yaku:
            return replace(st, pao=feeder, pao_yaku="suukantsu")
        return st
    k = last.tiles[0].kind
    if "daisangen" in rs.pao.yaku and k.is_dragon and dragons == 3:
        return replace(st, pao=feeder, pao_yaku="daisangen")
    if "daisuushii" in rs.pao.yaku and k.is_wind and winds == 4:
        return replace(st, pao=feeder, pao_yaku="daisuushii")
    if "suukantsu" in rs.pao.yaku and kind == "daiminkan" and kans == 4:
        return replace(st, pao=feeder, pao_yaku="suukantsu")
    return st


def _kan_allowed(rs: Ruleset, h: HandState, s: Seat, out: Out) -> None:
    if h.kans >= rs.calls.max_kans:
        raise out.reject("fifth_kan", s, f"<= {rs.calls.max_kans} kans", h.kans + 1)
    if h.live_left() <= 0:
        raise out.reject("kan_after_haitei", s, "a live tile left", 0)


def _register_kan(rs: Ruleset, h: HandState, s: Seat, *, open_kan: bool) -> HandState:
    dues = h.dora_due
    if rs.dora.indicator and rs.dora.kan_dora:
        timing = rs.dora.kan_dora_open if open_kan else rs.dora.kan_dora_closed
        # An earlier kan's indicator still owed is turned at the next kan's declaration
        # (Tenhou: a daiminkan, its rinshan tile, then a kakan turns the first indicator).
        dues = tuple(replace(d, timing="now") for d in dues)
        dues = (*dues, DoraDue("now" if timing == "immediate" else "after_discard", s))
    return replace(h, kans=h.kans + 1, kan_seats=(*h.kan_seats, s), dora_due=dues,
                   robbed=False)


def on_ankan(rs: Ruleset, h: HandState, inp: Ankan, out: Out) -> HandState:
    s = inp.seat
    st = h.seats[s]
    if h.step != "discard" or s != h.turn or not st.has_drawn:
        raise out.reject("kan_not_in_turn", s, int(h.turn), int(s))
    if not may_call(rs, st, 14):
        raise out.reject("dead_hand_call", s, "no kan with a dead hand", "ankan")
    _kan_allowed(rs, h, s, out)
    tiles = inp.tiles
    if tiles is not None:
        if len({x.kind for x in tiles}) != 1:
            raise out.reject("kan_bad_tiles", s, "four of a kind",
                             [x.mjai(False) for x in tiles])
        if st.concealed is not None:
            missing = [x.id for x in tiles if x not in st.concealed]
            if missing:
                raise out.reject("tile_not_in_hand", s, [x.id for x in st.concealed], missing)
        check_free(h, tiles, s, out, (LOC_HAND + s,))
    if st.count < 5:
        raise out.reject("wrong_hand_size", s, ">= 5 tiles", st.count)
    if st.riichi != "none":
        mode = rs.riichi.ankan_after
        if mode == "never":
            raise out.reject("kan_after_riichi", s, "no kan after riichi", "ankan")
        if tiles is not None and st.concealed is not None and st.drawn is not None:
            before = [x for x in st.concealed if x != st.drawn]
            ok, why = hand_shape.ankan_keeps_hand(
                mode, hand_shape.counts_of(before), st.drawn.kind.value, tiles[0].kind.value)
            if not ok:
                raise out.reject("kan_after_riichi", s, mode, why)
    window_base = h
    h = pass_discard(rs, h, out, None)
    h = break_ippatsu(h)
    meld_tiles = tuple(sorted(tiles, key=lambda x: x.id)) if tiles is not None else ()
    meld = Meld(kind="ankan", tiles=meld_tiles, called=None, from_seat=None)
    st = h.seats[s]
    concealed = st.concealed
    if concealed is not None:
        concealed = None if tiles is None else tuple(x for x in concealed if x not in tiles)
    st = replace(st, concealed=concealed, count=st.count - 4, melds=(*st.melds, meld),
                 drawn=None, kuikae=(),
                 penalty=tuple(x for x in st.penalty if x not in meld_tiles))  # W 罚张-7
    h = set_seat(h, s, st)
    if tiles is not None:
        h = locate(h, meld_tiles, LOC_MELD + s)
    h = _register_kan(rs, h, s, open_kan=False)
    window = None
    if rs.calls.kokushi_robs_ankan:
        window = (s, meld_tiles[0] if meld_tiles else None, True, window_base)
    h = replace(h, step="rinshan", interrupted=True, kan_window=window)
    out.emit(Kan(seat=s, meld=meld, kans=h.kans))
    return h


def on_kakan(rs: Ruleset, h: HandState, inp: Kakan, out: Out) -> HandState:
    s = inp.seat
    st = h.seats[s]
    if h.step != "discard" or s != h.turn or not st.has_drawn:
        raise out.reject("kan_not_in_turn", s, int(h.turn), int(s))
    if not may_call(rs, st, 14):
        raise out.reject("dead_hand_call", s, "no kan with a dead hand", "kakan")
    _kan_allowed(rs, h, s, out)
    tile = inp.tile
    pons = [i for i, m in enumerate(st.melds) if m.kind == "pon"]
    if tile is not None:
        pons = [i for i in pons if not st.melds[i].tiles or st.melds[i].tiles[0].kind ==
                tile.kind]
        if st.concealed is not None and tile not in st.concealed:
            raise out.reject("tile_not_in_hand", s, [x.id for x in st.concealed], tile.id)
        if tile in st.penalty:
            raise out.reject("penalty_tile_call", s, "no penalty tile in the kong",
                             tile.mjai(False))  # W 罚张-3: a kakan is an exposed kong
        check_free(h, [tile], s, out, (LOC_HAND + s,))
    if tile is None and pons and all(not st.melds[i].tiles for i in pons):
        pons = pons[:1]  # a table without sensors: which unseen pon is not known, nor needed
    if len(pons) != 1:
        raise out.reject("kan_bad_tiles", s, "a pon of the added tile",
                         None if tile is None else tile.mjai(False))
    window_base = h
    h = pass_discard(rs, h, out, None)
    # Any kan breaks every ippatsu (Tenhou); a chankan on this very kakan robs it from
    # window_base, where the robber's ippatsu still stands (M 9-1-3: the robbed kan never stood,
    # so ippatsu and chankan combine).
    h = break_ippatsu(h)
    i = pons[0]
    pon = st.melds[i]
    tiles = tuple(sorted((*pon.tiles, tile), key=lambda x: x.id)) if (
        tile is not None and pon.tiles) else ()
    meld = Meld(kind="kakan", tiles=tiles, called=pon.called, from_seat=pon.from_seat)
    st = h.seats[s]
    concealed = st.concealed
    if concealed is not None:
        concealed = None if tile is None else tuple(x for x in concealed if x != tile)
    melds = (*st.melds[:i], meld, *st.melds[i + 1:])
    st = replace(st, concealed=concealed, count=st.count - 1, melds=melds, drawn=None,
                 kuikae=())
    h = set_seat(h, s, st)
    if tile is not None:
        h = locate(h, [tile], LOC_MELD + s)
    h = _register_kan(rs, h, s, open_kan=True)
    # The chankan window: the added tile may be robbed until the kan is established.
    h = replace(h, step="rinshan", interrupted=True, kan_window=(s, tile, False, window_base))
    out.emit(Kan(seat=s, meld=meld, kans=h.kans))
    return h
