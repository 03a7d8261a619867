"""Wins: tsumo, ron (chankan, a ron against a call shown, multiple ron), the shown hand, ura
indicators."""

from __future__ import annotations

from dataclasses import dataclass

from rules import hand_shape
from rules.events import (
    AwaitingConfirmation,
    CallCancelled,
    IndicatorWithdrawn,
    UraShown,
    WinDeclared,
    WinShownEv,
)
from rules.evolve import replace
from rules.inputs import (
    Ron,
    Tsumo,
    UraRevealed,
    WinShown,
)
from rules.outcome import Win
from rules.reducer.hand_ops import check_free, expose, locate, seat_waits, ura_indices
from rules.reducer.output import Dead, Out
from rules.ruleset import Ruleset
from rules.seats import Seat
from rules.table_state import (
    LOC_HAND,
    LOC_MELD,
    LOC_RIVER,
    LOC_UNKNOWN,
    LOC_URA,
    LOC_WALL,
    HandState,
    PendingWin,
    TableState,
)
from rules.tiles import Tile


def on_tsumo(rs: Ruleset, t: TableState, h: HandState, inp: Tsumo, out: Out) -> HandState:
    s = inp.seat
    st = h.seats[s]
    if h.step != "discard" or s != h.turn or not st.has_drawn:
        raise out.reject("tsumo_not_in_turn", s, int(h.turn), int(s))
    if st.dead is not None:
        raise out.reject("dead_hand_call", s, "no win with a dead hand", "tsumo")
    if st.concealed is not None and not hand_shape.is_complete(
            hand_shape.counts_of(st.concealed)):
        _false_win(rs, h, s, st.concealed, st.concealed, out)
    first = st.discards == 0 and not h.interrupted
    win_tile = st.drawn
    if win_tile is None and st.concealed and first and s == h.dealer:
        # [I] a tenhou from a record that does not say which of the dealer's 14 came last:
        # the winning tile does not change the yakuman.
        win_tile = st.concealed[-1]
    win = Win(
        winner=s,
        loser=None,
        hand=(),
        win_tile=win_tile,
        riichi=st.riichi == "accepted",
        double_riichi=st.double_riichi and st.riichi == "accepted",
        ippatsu=st.ippatsu,
        haitei=h.live_left() == 0 and not st.rinshan,
        rinshan=st.rinshan,
        tenhou=first and s == h.dealer,
        chiihou=first and s != h.dealer,
        pao=st.pao,
        pao_yaku=st.pao_yaku,
    )
    out.emit(WinDeclared(seat=s, kind="tsumo", loser=None, tile=win_tile))
    if t.game is not None and t.game.confirm_wins:
        out.emit(AwaitingConfirmation(seats=(s,)))
    return replace(h, step="won", wins=(PendingWin(s, None, win_tile, win),), win_base=h)


@dataclass(frozen=True, slots=True)
class _Claim:
    """What a ron claims: the hand it is judged in (``h``: before a cancelled call), the loser,
    the tile, whether it robs a kan, the state the winner's hand is read from (``ref``) and the
    state a refused win returns to (``base``)."""

    h: HandState
    loser: Seat | None
    tile: Tile | None
    chankan: bool
    ref: HandState
    base: HandState


def _claimed(rs: Ruleset, h: HandState, s: Seat, out: Out) -> _Claim:
    """The tile a ron by ``s`` claims: a further ron on a declared win, a kan's tile (chankan),
    the discard a shown call took, or the last discard."""
    chankan = False
    if h.step == "won":
        if not h.wins or h.wins[0].loser is None:
            raise out.reject("no_discard_to_claim", s, "a discard", "a tsumo is declared")
        if any(w.seat == s for w in h.wins):
            raise out.reject("no_discard_to_claim", s, "one ron per seat", "a second ron")
        if (rs.calls.multiple_ron == "head_bump" and not rs.calls.head_bump_after_shown
                and h.shown):
            # S §45-4: once a winner has laid the hand down, no head-bump is acknowledged.
            raise out.reject("head_bump_after_shown", s, "a ron before the hand is shown",
                             f"seat {int(h.shown[0][0])} has shown the hand")
        base = h.win_base
        assert base is not None
        loser = h.wins[0].loser
        tile = h.wins[0].tile
        chankan = h.wins[0].win.chankan
        ref = base
    elif h.kan_window is not None and h.step == "rinshan":
        kan_seat, kan_tile, is_ankan, before = h.kan_window
        if s == kan_seat:
            raise out.reject("ron_own_discard", s, "another seat's kan", "own")
        st = h.seats[s]
        if (
            is_ankan
            and st.concealed is not None
            and kan_tile is not None
            and not hand_shape.is_kokushi(hand_shape.counts_of((*st.concealed, kan_tile)))
        ):
            raise out.reject("chankan_of_ankan", s, "kokushi", "another hand")
        loser, tile, chankan, ref, base = kan_seat, kan_tile, True, before, h
    elif h.pre_call is not None and h.pre_call_seat is not None and h.step in (
            "discard", "rinshan") and h.turn == h.pre_call_seat:
        # W 鸣牌优先-4, S §40-3: ron keeps priority over a call until the caller discards.
        caller = h.pre_call_seat
        kind = h.seats[caller].melds[-1].kind if h.seats[caller].melds else "call"
        prev = h.pre_call
        if prev.last is None or s == prev.last.seat:
            raise out.reject("no_discard_to_claim", s, "a discard", "none")
        out.emit(CallCancelled(seat=caller, kind=kind, by_ron=s))
        h = prev
        loser, tile, ref, base = prev.last.seat, prev.last.tile, prev, prev
    else:
        turn_st = h.seats[h.turn]
        if (h.step == "rinshan" and s != h.turn and turn_st.melds
                and turn_st.melds[-1].kind == "ankan"):
            # W 抢杠-3 (M 4-5-6, S-sum, μ §51(6) for the hands other than kokushi): a concealed
            # kan cannot be robbed; the ron claims the kan, not a discard the draw passed.
            raise out.reject("chankan_of_ankan", s, "no hand robs an ankan here", "a ron on it")
        last = h.last
        if last is None:
            raise out.reject("no_discard_to_claim", s, "a discard", "none")
        if last.passed or h.step != "draw":
            raise out.reject("call_after_draw", s, "ron before the next draw", "after it")
        if s == last.seat:
            raise out.reject("ron_own_discard", s, "another seat's discard", "own")
        loser, tile, ref, base = last.seat, last.tile, h, h
    return _Claim(h, loser, tile, chankan, ref, base)


def on_ron(rs: Ruleset, t: TableState, h: HandState, inp: Ron, out: Out) -> HandState:
    s = inp.seat
    claim = _claimed(rs, h, s, out)
    h, loser, tile, chankan, ref, base = (claim.h, claim.loser, claim.tile, claim.chankan,
                                           claim.ref, claim.base)
    assert loser is not None
    if s == loser:
        raise out.reject("ron_own_discard", s, "another seat's discard", "own")
    st = ref.seats[s]
    if st.dead is not None:
        raise out.reject("dead_hand_call", s, "no win with a dead hand", "ron")
    if st.concealed is not None and tile is not None:
        if not hand_shape.is_complete(hand_shape.counts_of((*st.concealed, tile))):
            _false_win(rs, h, s, (*st.concealed, tile), st.concealed, out)
        if st.penalty and hand_shape.is_kokushi(hand_shape.counts_of((*st.concealed, tile))) and (
                len(st.penalty) >= 2 or any(p.kind == tile.kind for p in st.penalty)):
            # W 罚张-4: Thirteen Terminals may not ron the kind of a penalty tile, nor at all
            # with two penalty tiles or more (self-draw only).
            raise out.reject("penalty_tile_win", s, "a self-draw or another tile",
                             [p.mjai(False) for p in st.penalty])
        if rs.furiten.enabled:
            w = seat_waits(st) or ()
            own = {r.tile.kind.value for r in st.river if r.tile is not None}
            why = None
            if any(k in own for k in w):
                why = "own_discard"
            elif st.furiten_riichi:
                why = "riichi_passed"
            elif st.furiten_temp:
                why = "passed"
            if why is not None:
                raise out.reject("furiten_ron", s, "not furiten", why)
    houtei = bool(ref.last is not None and ref.last.houtei and not chankan)
    # ZJ 9.4.2 Blessing of Earth: a non-dealer's win on the dealer's first discard, before any
    # call (the riichi chiihou is a first self-draw: the scorers read the flag per family).
    earth = (loser == ref.dealer and not chankan and not ref.interrupted
             and ref.seats[ref.dealer].discards == 1 and st.discards == 0)
    responsible = None if chankan or tile is None else _responsible(ref, s, tile)
    win = Win(
        winner=s,
        loser=loser,
        hand=(),
        win_tile=tile,
        riichi=st.riichi == "accepted",
        double_riichi=st.double_riichi and st.riichi == "accepted",
        ippatsu=st.ippatsu,
        houtei=houtei,
        chankan=chankan,
        chiihou=earth,
        pao=st.pao,
        pao_yaku=st.pao_yaku,
        responsible=responsible,
    )
    out.emit(WinDeclared(seat=s, kind="chankan" if chankan else "ron", loser=loser, tile=tile))
    if h.step == "won":
        wins = (*h.wins, PendingWin(s, loser, tile, win))
        h2 = replace(h, wins=wins)
    else:
        h2 = replace(h, step="won", wins=(PendingWin(s, loser, tile, win),), win_base=base)
    if chankan:
        if h.kan_window is not None:
            h2 = _withdraw_early_indicators(h2, h.kan_window[3], out)
        h2 = replace(h2, robbed=True, kan_window=None)
    if t.game is not None and t.game.confirm_wins:
        out.emit(AwaitingConfirmation(seats=tuple(w.seat for w in h2.wins)))
    return h2


def _withdraw_early_indicators(h: HandState, before: HandState, out: Out) -> HandState:
    """M 4-5-5, S §43-8: a robbed kan is not established and turns no indicator. An indicator the
    table turned for it before its moment (``indicator_early``: a sensor sees the flip before a
    ron called a second later) is withdrawn: the tile goes back to the dead wall and the win is
    scored without it."""
    keep = len(before.indicators)
    extra = h.indicators[keep:]
    if not extra:
        return h
    tiles = [i.tile for i in extra if i.tile is not None]
    if tiles:
        h = locate(h, tiles, LOC_WALL if h.wall is not None else LOC_UNKNOWN)
    indicators = h.indicators[:keep]
    base = h.win_base
    if base is not None:
        base = replace(base, indicators=indicators)
    for n, ind in enumerate(extra, keep):
        out.emit(IndicatorWithdrawn(number=n, position=ind.position, tile=ind.tile))
    return replace(h, indicators=indicators, win_base=base)


def _false_win(rs: Ruleset, h: HandState, s: Seat, hand: tuple[Tile, ...],
               shown: tuple[Tile, ...], out: Out) -> None:
    """A declared win whose tiles are no complete hand: refused; under W 错鸣-6 the exposed
    concealed tiles become penalty tiles and play goes on."""
    if not rs.penalties.false_win_exposes:
        raise out.reject("false_win", s, "a complete hand", [x.mjai(False) for x in hand])
    out.violation("false_win", s, "a complete hand", [x.mjai(False) for x in hand])
    raise Dead(expose(h, s, shown, "false_win", out))


def _responsible(h: HandState, winner: Seat, tile: Tile) -> Seat | None:
    """The seat that first discarded the winning kind in this go-around, counted from the
    winner's own last discard (WMC same-turn immunity, 跟张免责: [RM08], [WDs]; the ZJ payment
    uses it, the riichi ones ignore it). ``None`` when the discards' tiles are not known."""
    log = h.discard_log
    start = max((i for i, (s, _) in enumerate(log) if s == winner), default=0)
    for seat, t in log[start:]:
        if t is None:
            return None
        if t.kind == tile.kind:
            return seat
    return None


def on_win_shown(h: HandState, inp: WinShown, out: Out) -> HandState:
    s = inp.seat
    if h.step != "won" or not any(w.seat == s for w in h.wins):
        raise out.reject("out_of_phase", s, "a declared win", "win_shown")
    pw = next(w for w in h.wins if w.seat == s)
    hand = tuple(sorted(inp.hand, key=lambda x: x.id))
    if inp.win_tile not in hand:
        raise out.reject("bad_input", s, "the winning tile within the hand", inp.win_tile.id)
    if not hand_shape.is_complete(hand_shape.counts_of(hand)):
        raise out.reject("false_win", s, "a complete hand", [x.mjai(False) for x in hand])
    base = h.win_base or h
    st = base.seats[s]
    if st.concealed is not None:
        known = sorted(x.id for x in (*st.concealed, *(
            (pw.tile,) if pw.loser is not None and pw.tile is not None else ())))
        if known != [x.id for x in hand]:
            out.violation("win_shown_mismatch", s, known, [x.id for x in hand])
    out.emit(WinShownEv(seat=s, hand=hand, win_tile=inp.win_tile))
    if inp.melds:
        if len(inp.melds) != len(st.melds) or any(
                len(m) != (4 if k.is_kan else 3) for m, k in zip(inp.melds, st.melds,
                                                                    strict=False)):
            raise out.reject("bad_input", s, f"tiles for {len(st.melds)} melds",
                             [len(m) for m in inp.melds])
        check_free(h, [x for m in inp.melds for x in m], s, out,
                    (LOC_MELD + s, LOC_HAND + s, LOC_RIVER + s.plus(1), LOC_RIVER + s.plus(2),
                     LOC_RIVER + s.plus(3)))
    elif not all(m.tiles for m in st.melds):
        raise out.reject("bad_input", s, "the tiles of the melds the engine did not see",
                         "none")
    shown = (*tuple(x for x in h.shown if x[0] != s), (s, hand, inp.win_tile, inp.melds))
    return replace(h, shown=shown)


def on_ura(rs: Ruleset, h: HandState, inp: UraRevealed, out: Out) -> HandState:
    if h.step != "won":
        raise out.reject("out_of_phase", None, "ura after a win", "ura")
    if not (rs.dora.indicator and rs.dora.ura):
        raise out.reject("indicator_not_in_ruleset", None, 0, len(inp.tiles))
    idx = ura_indices(rs, len(h.indicators))
    if len(inp.tiles) > len(idx):
        raise out.reject("indicator_not_in_ruleset", None, len(idx), len(inp.tiles))
    check_free(h, inp.tiles, None, out)
    if h.wall is not None:
        for i, tile in zip(idx, inp.tiles, strict=False):
            if h.wall[i] != tile:
                out.violation("indicator_wrong_tile", None, h.wall[i].id, tile.id)
    out.emit(UraShown(tiles=inp.tiles))
    return locate(replace(h, ura=inp.tiles), inp.tiles, LOC_URA)
