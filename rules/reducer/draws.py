"""Draws at the end of a hand: exhaustive (tenpai, noten riichi, nagashi) and abortive."""

from __future__ import annotations

from rules import hand_shape
from rules.evolve import replace
from rules.inputs import (
    AbortiveDraw,
    ExhaustiveDraw,
)
from rules.outcome import HandOutcome
from rules.reducer.hand_ops import hand_context, pass_discard, seat_waits
from rules.reducer.output import Out
from rules.ruleset import Ruleset
from rules.seats import SEATS, Seat
from rules.table_state import HandState, TableState


def on_exhaustive(rs: Ruleset, t: TableState, h: HandState, inp: ExhaustiveDraw,
                out: Out) -> HandState:
    last = h.last
    if h.step != "draw" or last is None or last.passed or not last.houtei:
        raise out.reject("exhaustive_too_early", None, "the houtei discard passed",
                         f"{h.live_left()} live tiles left")
    h = pass_discard(rs, h, out, None)
    declared = sorted(set(inp.tenpai))
    tenpai: list[Seat] = []
    chombo: list[Seat] = []
    for s in SEATS:
        st = h.seats[s]
        says = s in declared
        w = seat_waits(st)
        noten_riichi = st.riichi == "accepted" and (not says or (w is not None and not w))
        if noten_riichi and rs.penalties.noten_riichi_chombo:
            # S §54-1, M 7-4-1, μ §68: a noten riichi reaching the draw; M 7-4-5, μ §69:
            # every such seat is an offender, not only the first.
            out.violation("noten_riichi", s, "tenpai", "noten")
            chombo.append(s)
            continue
        if not says:
            continue
        if st.dead is not None:
            continue  # S §55 停和, M 7-2: a dead hand is noten at the draw
        if w is not None and not w:
            out.violation("false_tenpai", s, "a tenpai hand", "noten")
            continue
        tenpai.append(s)
    riichi_seats = [s for s in SEATS if h.seats[s].riichi == "accepted"]
    ctx = hand_context(rs, t, h, riichi_seats)
    if chombo:
        return replace(h, step="ended", outcome=HandOutcome(
            kind="chombo", context=ctx, offender=chombo[0],
            offenders=tuple(chombo) if len(chombo) > 1 else ()))
    nagashi: list[Seat] = []
    if rs.draws.nagashi_mangan:
        for s in SEATS:
            river = h.seats[s].river
            if river and all(r.tile is not None and r.tile.kind.is_yaochu and not r.called
                             for r in river):
                nagashi.append(s)
    return replace(h, step="ended", outcome=HandOutcome(kind="exhaustive", context=ctx,
                                                        tenpai=tuple(tenpai),
                                                        nagashi=tuple(nagashi)))


def on_abortive(rs: Ruleset, t: TableState, h: HandState, inp: AbortiveDraw,
              out: Out) -> HandState:
    kind = inp.kind
    if kind not in rs.draws.abortive:
        raise out.reject("abortive_not_in_ruleset", inp.seat, list(rs.draws.abortive), kind)
    if h.step == "setup":
        raise out.reject("out_of_phase", inp.seat, "deal_done", "abortive_draw")
    why = _abort_unmet(h, inp)
    if why is not None:
        raise out.reject("abortive_conditions", inp.seat, kind, why)
    if kind != "triple_ron":
        # A triple ron is won on the discard (three seats claim it), so the discard never
        # passes: a riichi declared with it is not accepted and puts no stick down (Tenhou).
        h = pass_discard(rs, h, out, None)
    riichi_seats = [s for s in SEATS if h.seats[s].riichi == "accepted"]
    return replace(h, step="ended", outcome=HandOutcome(
        kind="abortive", context=hand_context(rs, t, h, riichi_seats), abort_kind=kind))


def _abort_unmet(h: HandState, inp: AbortiveDraw) -> str | None:
    kind = inp.kind
    if kind == "nine_terminals":
        s = inp.seat
        if s is None:
            return "the declaring seat"
        st = h.seats[s]
        if h.step != "discard" or h.turn != s or not st.has_drawn:
            return "on the seat's own draw"
        if st.discards or h.interrupted:
            return "the seat's first turn, uninterrupted"
        if st.concealed is not None and hand_shape.yaochu_kinds(
                hand_shape.counts_of(st.concealed)) < 9:
            return "nine kinds of terminals and honors"
        return None
    if kind == "four_winds":
        f = h.first_discards
        if h.step != "draw" or len(f) != 4 or h.interrupted:
            return "the four first discards, no call"
        if all(x is not None for x in f):
            kinds = {x.kind for x in f if x is not None}
            if len(kinds) != 1 or not next(iter(kinds)).is_wind:
                return "the same wind four times"
        return None
    if kind == "four_riichi":
        if h.step != "draw" or sum(1 for st in h.seats if st.riichi != "none") != 4:
            return "four riichi declared"
        return None
    if kind == "four_kans":
        if h.kans != 4 or len(set(h.kan_seats)) < 2:
            return "four kans by two or more seats"
        if h.step != "draw":
            return "after the fourth kan's discard"
        return None
    # triple_ron
    if h.step != "draw" or h.last is None or h.last.passed:
        return "a discard that three seats ron"
    return None
