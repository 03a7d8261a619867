"""Sealing a declared win (head bump, triple ron, the shown hands) and ending the hand and the
game: settlement, game flow, standings."""

from __future__ import annotations

from collections.abc import Sequence

from rules import hand_shape
from rules.claims import resolve_rons, ron_order
from rules.events import (
    GameEnded,
    HandEnded,
    RonHeadBumped,
    outcome_to_json,
)
from rules.evolve import replace
from rules.game_flow import advance, standings
from rules.outcome import HandOutcome
from rules.reducer.deductions import price_violations
from rules.reducer.hand_ops import hand_context, ruleset_of
from rules.reducer.output import Out
from rules.reducer.setup import begin_hand
from rules.ruleset import Ruleset
from rules.seats import SEATS, Seat
from rules.settlement import Settlement, settle
from rules.table_state import (
    HandState,
    PendingWin,
    TableState,
)


def _resolved_wins(rs: Ruleset, h: HandState) -> tuple[tuple[PendingWin, ...], tuple[Seat, ...],
                                                        bool]:
    """(standing wins, head-bumped seats, triple-ron abort)."""
    if not h.wins or h.wins[0].loser is None:
        return h.wins, (), False
    loser = h.wins[0].loser
    res = resolve_rons(rs, loser, [w.seat for w in h.wins])
    if res.kind == "abort":
        return (), (), True
    by_seat = {w.seat: w for w in h.wins}
    return tuple(by_seat[s] for s in res.winners), res.bumped, False


def _scorable(h: HandState, pw: PendingWin) -> bool:
    if any(x[0] == pw.seat for x in h.shown):
        return True
    base = h.win_base or h
    st = base.seats[pw.seat]
    return st.concealed is not None and pw.tile is not None and all(
        bool(m.tiles) for m in st.melds)


def _more_rons_possible(rs: Ruleset, h: HandState) -> bool:
    if not h.wins or h.wins[0].loser is None:
        return False
    loser = h.wins[0].loser
    declared = {w.seat for w in h.wins}
    order = ron_order(loser)
    if rs.calls.multiple_ron == "head_bump" and order[0] in declared:
        return False
    base = h.win_base or h
    tile = h.wins[0].tile
    for s in order:
        if s in declared:
            continue
        if rs.calls.multiple_ron == "head_bump":
            first = next(x for x in order if x in declared)
            if order.index(s) > order.index(first):
                continue  # could only be head-bumped
        st = base.seats[s]
        if st.dead is not None:
            continue
        if st.concealed is not None and tile is not None and not hand_shape.is_complete(
                hand_shape.counts_of((*st.concealed, tile))):
            continue
        return True
    return False


def _ura_pending(rs: Ruleset, h: HandState, wins: Sequence[PendingWin]) -> bool:
    need = rs.dora.indicator and rs.dora.ura and any(w.win.riichi for w in wins)
    return need and not h.ura and h.wall is None


def try_finalize(t: TableState, out: Out) -> TableState:
    h = t.hand
    if h is None or h.step != "won" or t.game is None or t.game.confirm_wins:
        return t
    wins, _, abort = _resolved_wins(ruleset_of(t), h)
    if abort:
        return seal(t, h, out, closing=None)
    if _more_rons_possible(ruleset_of(t), h):
        return t
    if not all(_scorable(h, w) for w in wins) or _ura_pending(ruleset_of(t), h, wins):
        return t
    return seal(t, h, out, closing=None)


def seal(t: TableState, h: HandState, out: Out, closing: str | None) -> TableState:
    """End a declared win: resolve head-bumps, build the outcome, settle."""
    rs = ruleset_of(t)
    wins, bumped, abort = _resolved_wins(rs, h)
    base = h.win_base or h
    riichi_seats = [s for s in SEATS if base.seats[s].riichi == "accepted"]
    if abort:
        out_h = replace(h, step="ended")
        outcome = HandOutcome(kind="abortive", context=hand_context(rs, t, h, riichi_seats),
                              abort_kind="triple_ron")
        return end_hand(t, out_h, outcome, out)
    missing = [w.seat for w in wins if not _scorable(h, w)]
    if missing:
        raise out.reject("win_not_shown", missing[0], "win_shown or manual_result",
                         closing or "seal")
    for s in bumped:
        out.emit(RonHeadBumped(seat=s, by=wins[0].seat))
    built = []
    for pw in wins:
        st = base.seats[pw.seat]
        shown = next((x for x in h.shown if x[0] == pw.seat), None)
        melds = st.melds
        if shown is not None:
            hand, tile = shown[1], shown[2]
            if shown[3]:
                melds = tuple(m if m.tiles else replace(m, tiles=tuple(sorted(
                    mt, key=lambda x: x.id))) for m, mt in zip(st.melds, shown[3], strict=True))
        else:
            assert st.concealed is not None and pw.tile is not None
            hand = st.concealed if pw.loser is None else tuple(
                sorted((*st.concealed, pw.tile), key=lambda x: x.id))
            tile = pw.tile
        built.append(replace(pw.win, hand=hand, win_tile=tile, melds=melds))
    outcome = HandOutcome(kind="win", context=hand_context(rs, t, h, riichi_seats),
                          wins=tuple(built))
    return end_hand(t, replace(h, step="ended"), outcome, out)


def end_hand(t: TableState, h: HandState, outcome: HandOutcome, out: Out) -> TableState:
    rs = ruleset_of(t)
    p = t.progress
    assert p is not None
    try:
        settlement: Settlement = settle(rs, outcome)
    except ValueError as exc:
        code = "false_win" if outcome.kind == "win" else "bad_input"
        seat = outcome.wins[0].winner if outcome.wins else None
        raise out.reject(code, seat, "a scoring hand", str(exc)) from exc
    before = replace(p, scores=outcome.context.scores, deposits=outcome.context.deposits)
    after = advance(rs, before, outcome, settlement)
    h = replace(h, step="ended", outcome=outcome, win_base=None, pre_call=None, kan_window=None)
    result = {"outcome": outcome_to_json(outcome), "settlement": settlement.to_json()}
    out.emit(HandEnded(
        hand=h.number,
        outcome=result["outcome"],
        settlement=result["settlement"],
        scores=after.scores,
        next={"dealer": int(after.dealer), "round_wind": int(after.round_wind),
              "hand_in_round": after.hand_in_round, "honba": after.honba,
              "deposits": after.deposits, "finished": after.finished,
              "replay": settlement.replay},
    ))
    t = replace(t, hand=h, progress=after, last_result=result)
    if after.finished:
        return end_game(t, "flow", out)
    if t.game is not None and t.game.auto_hands:
        # No start button at a table without a data link: the next hand (or the chombo's
        # replay, M 7-4-6) begins with the result.
        return begin_hand(t, after, out)
    return t


def end_game(t: TableState, by: str, out: Out) -> TableState:
    rs = ruleset_of(t)
    p = t.progress
    assert p is not None and t.game is not None
    # The pt this input's violations cost count in the final standings (S §54-4).
    t = price_violations(t, out)
    p = t.progress
    assert p is not None and t.game is not None
    if not p.finished:
        p = replace(p, finished=True, end_reason="referee")
    st = standings(rs, p)
    out.emit(GameEnded(game=t.game.number, standings=st.to_json(), by=by))
    return replace(t, progress=p, game_over=True)
