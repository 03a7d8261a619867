"""Referee actions (docs/rules-engine.md "Referee") and their undo."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, assert_never

from rules import manual_result
from rules.events import (
    DeadHandLifted,
    RefereeApplied,
    RiichiAccepted,
    RonHeadBumped,
    ScoresCorrected,
    SeatsSwapped,
    Undone,
    ViolationAccepted,
)
from rules.evolve import replace
from rules.inputs import (
    RefereeOverride,
)
from rules.outcome import HandOutcome, Win
from rules.reducer.hand_ops import expose, hand_context, kill, ruleset_of, set_seat
from rules.reducer.output import Out
from rules.reducer.sealing import end_game, end_hand, seal
from rules.reducer.setup import untouched_auto_hand
from rules.ruleset import Ruleset
from rules.seats import SEATS, Seat
from rules.table_state import (
    HandState,
    RefereeRecord,
    TableState,
)

# Every referee action (docs/rules-engine.md "Referee").
REFEREE_ACTIONS = (
    "accept_violation", "dead_hand", "set_scores", "swap_seats", "confirm_win", "reject_win",
    "chombo", "penalty", "manual_result", "end_game", "time_limit", "undo_last",
)


def _arg_seat(args: Mapping[str, Any], key: str, out: Out) -> Seat:
    try:
        return Seat.of(args[key])
    except (KeyError, ValueError) as exc:
        raise out.reject("referee_bad_args", None, f"{key}: a seat 0..3", args.get(key)) from exc


def _arg_int(args: Mapping[str, Any], key: str, out: Out, default: int | None = None) -> int:
    v = args.get(key, default)
    if isinstance(v, bool) or not isinstance(v, int):
        raise out.reject("referee_bad_args", None, f"{key}: an integer", v)
    return v


def on_referee(t: TableState, inp: RefereeOverride, out: Out) -> TableState:
    action, args, by = inp.action, inp.args, inp.by
    if action == "undo_last":
        return _undo(t, inp, out)
    if t.ruleset is None or t.progress is None or t.game is None:
        raise out.reject("no_game", None, "game_start", f"referee {action}")
    handlers = {
        "accept_violation": _ref_accept,
        "dead_hand": _ref_dead_hand,
        "set_scores": _ref_set_scores,
        "swap_seats": _ref_swap,
        "confirm_win": _ref_confirm,
        "reject_win": _ref_reject,
        "chombo": _ref_chombo,
        "penalty": _ref_penalty,
        "manual_result": _ref_manual,
        "end_game": _ref_end_game,
        "time_limit": _ref_time_limit,
    }
    fn = handlers.get(action)
    if fn is None:
        raise out.reject("referee_bad_args", None, list(REFEREE_ACTIONS), action)
    out.emit(RefereeApplied(action=action, by=by, args=dict(args)))
    new, comp = fn(t, args, by, out)
    # ``before`` without its own log: undo records never chain into the whole game's history.
    rec = RefereeRecord(action=action, by=by, seq=t.seq, before=replace(t, referee_log=()),
                        compensation=comp)
    return replace(new, referee_log=(*new.referee_log, rec)[-16:])


def _ref_accept(t: TableState, args: Mapping[str, Any], by: str, out: Out
                ) -> tuple[TableState, Mapping[str, Any]]:
    if args.get("all") is True:
        gone = t.open_violations
    else:
        vid = _arg_int(args, "id", out)
        gone = tuple(v for v in t.open_violations if v.id == vid)
        if not gone:
            raise out.reject("referee_bad_args", None, [v.id for v in t.open_violations], vid)
    for v in gone:
        out.emit(ViolationAccepted(id=v.id, code=v.code, by=by))
    keep = tuple(v for v in t.open_violations if v not in gone)
    return replace(t, open_violations=keep), {"reopen": tuple(gone)}


def _live_hand(t: TableState, out: Out, action: str) -> HandState:
    if t.game_over:
        raise out.reject("game_over", None, "new_game", action)
    h = t.hand
    if h is None or h.step == "ended":
        raise out.reject("referee_bad_args", None, "a hand in play", action)
    return h


def _ref_dead_hand(t: TableState, args: Mapping[str, Any], by: str, out: Out
                   ) -> tuple[TableState, Mapping[str, Any]]:
    h = _live_hand(t, out, "dead_hand")
    s = _arg_seat(args, "seat", out)
    if h.seats[s].dead is not None:
        raise out.reject("referee_bad_args", s, "a live hand", "already dead")
    h = kill(ruleset_of(t), h, s, "referee", out)
    return replace(t, hand=h), {"lift": int(s)}


def _scores_arg(args: Mapping[str, Any], key: str, out: Out) -> tuple[int, int, int, int]:
    v = args.get(key)
    if not isinstance(v, list | tuple) or len(v) != 4 or any(
            isinstance(x, bool) or not isinstance(x, int) for x in v):
        raise out.reject("referee_bad_args", None, f"{key}: four integers", v)
    return (v[0], v[1], v[2], v[3])


def _apply_deltas(t: TableState, deltas: Sequence[int], pt: Sequence[float], by: str,
                  reason: str, out: Out) -> TableState:
    p = t.progress
    assert p is not None
    h = t.hand
    live = h is not None and h.step != "ended"
    before = h.scores if (live and h is not None) else p.scores
    after = tuple(before[i] + deltas[i] for i in range(4))
    sc = p.scores
    pa = p.pt_adjustments
    new_p = replace(
        p,
        scores=(sc[0] + deltas[0], sc[1] + deltas[1], sc[2] + deltas[2], sc[3] + deltas[3]),
        pt_adjustments=(pa[0] + pt[0], pa[1] + pt[1], pa[2] + pt[2], pa[3] + pt[3]),
    )
    if live and h is not None:
        h = replace(h, scores=(after[0], after[1], after[2], after[3]))
    out.emit(ScoresCorrected(before=before, after=after, deltas=tuple(deltas),
                             pt_deltas=tuple(float(x) for x in pt), by=by, reason=reason))
    return replace(t, progress=new_p, hand=h)


def _ref_set_scores(t: TableState, args: Mapping[str, Any], by: str, out: Out
                    ) -> tuple[TableState, Mapping[str, Any]]:
    scores = _scores_arg(args, "scores", out)
    p = t.progress
    assert p is not None
    h = t.hand
    cur = h.scores if (h is not None and h.step != "ended") else p.scores
    deltas = tuple(scores[i] - cur[i] for i in range(4))
    reason = str(args.get("reason", "set_scores"))
    new = _apply_deltas(t, deltas, (0.0,) * 4, by, reason, out)
    return new, {"deltas": tuple(-d for d in deltas), "pt": (0.0,) * 4}


def _ref_penalty(t: TableState, args: Mapping[str, Any], by: str, out: Out
                 ) -> tuple[TableState, Mapping[str, Any]]:
    s = _arg_seat(args, "seat", out)
    points = args.get("points", 0)
    pt = args.get("pt", 0.0)
    if isinstance(points, bool) or not isinstance(points, int):
        raise out.reject("referee_bad_args", s, "points: an integer", points)
    if isinstance(pt, bool) or not isinstance(pt, int | float):
        raise out.reject("referee_bad_args", s, "pt: a number", pt)
    if points == 0 and pt == 0:
        raise out.reject("referee_bad_args", s, "points or pt", "neither")
    deltas = [0, 0, 0, 0]
    pts = [0.0, 0.0, 0.0, 0.0]
    deltas[s] = points
    pts[s] = float(pt)
    reason = str(args.get("reason", "penalty"))
    new = _apply_deltas(t, deltas, pts, by, reason, out)
    return new, {"deltas": tuple(-d for d in deltas), "pt": tuple(-x for x in pts)}


def _ref_swap(t: TableState, args: Mapping[str, Any], by: str, out: Out
              ) -> tuple[TableState, Mapping[str, Any]]:
    a, b = _arg_seat(args, "a", out), _arg_seat(args, "b", out)
    if a == b:
        raise out.reject("referee_bad_args", a, "two different seats", int(b))
    if not _between_hands(t):
        raise out.reject("referee_bad_args", a, "between hands", "during a hand")
    return _swap(t, a, b, out), {"a": int(a), "b": int(b)}


def _between_hands(t: TableState) -> bool:
    """No hand in play, or only one that began by itself and saw nothing yet (auto_hands)."""
    h = t.hand
    return h is None or h.step == "ended" or untouched_auto_hand(t)


def _swap(t: TableState, a: Seat, b: Seat, out: Out) -> TableState:
    p, g = t.progress, t.game
    assert p is not None and g is not None

    def sw(xs: Sequence[Any]) -> tuple[Any, Any, Any, Any]:
        ys = list(xs)
        ys[a], ys[b] = ys[b], ys[a]
        return (ys[0], ys[1], ys[2], ys[3])

    names = sw(g.names)
    new_p = replace(p, scores=sw(p.scores), pt_adjustments=sw(p.pt_adjustments))
    out.emit(SeatsSwapped(a=a, b=b, names=names, scores=new_p.scores))
    h = t.hand
    if h is not None and h.step != "ended":
        h = replace(h, scores=new_p.scores)  # the untouched hand that began by itself
    return replace(t, game=replace(g, names=names), progress=new_p, hand=h)


def _ref_confirm(t: TableState, args: Mapping[str, Any], by: str, out: Out
                 ) -> tuple[TableState, Mapping[str, Any]]:
    h = t.hand
    if h is None or h.step != "won":
        raise out.reject("referee_bad_args", None, "a declared win", "confirm_win")
    return seal(t, h, out, closing="confirm_win"), {}


def _ref_reject(t: TableState, args: Mapping[str, Any], by: str, out: Out
                ) -> tuple[TableState, Mapping[str, Any]]:
    h = t.hand
    if h is None or h.step != "won" or h.win_base is None:
        raise out.reject("referee_bad_args", None, "a declared win", "reject_win")
    rs = ruleset_of(t)
    chombo = args.get("chombo", rs.penalties.chombo != "none")
    if not isinstance(chombo, bool):
        raise out.reject("referee_bad_args", None, "chombo: true/false", chombo)
    offender = h.wins[0].seat
    if "seat" in args:
        offender = _arg_seat(args, "seat", out)
    base = h.win_base
    if chombo:
        return _chombo(t, base, offender, out), {}
    if rs.penalties.false_win_exposes:
        # W 错鸣-6: a false win is played on; the tiles it exposed become penalty tiles.
        shown = next((x[1] for x in h.shown if x[0] == offender), None)
        held = base.seats[offender].concealed
        tiles = held if held is not None else (shown or ())
        return replace(t, hand=expose(base, offender, tiles, "reject_win", out)), {}
    # No chombo in the ruleset and no penalty tiles: the seat cannot win this hand.
    base = kill(rs, base, offender, "referee", out)
    return replace(t, hand=base), {}


def _chombo(t: TableState, h: HandState, seat: Seat, out: Out) -> TableState:
    rs = ruleset_of(t)
    riichi_seats = [s for s in SEATS if h.seats[s].riichi == "accepted"]
    outcome = HandOutcome(kind="chombo", context=hand_context(rs, t, h, riichi_seats),
                          offender=seat)
    return end_hand(t, replace(h, step="ended"), outcome, out)


def _ref_chombo(t: TableState, args: Mapping[str, Any], by: str, out: Out
                ) -> tuple[TableState, Mapping[str, Any]]:
    h = _live_hand(t, out, "chombo")
    s = _arg_seat(args, "seat", out)
    return _chombo(t, h.win_base or h, s, out), {}


def _ref_manual(t: TableState, args: Mapping[str, Any], by: str, out: Out
                ) -> tuple[TableState, Mapping[str, Any]]:
    """A result the referee records (rules/manual_result.py): the riichi sticks of declarers the
    table did not see go down (S §39-1, M 4-8-1), then the hand is settled as any other."""
    h = _live_hand(t, out, "manual_result")
    rs = ruleset_of(t)
    base = h.win_base or h
    standing = [s for s in SEATS if base.seats[s].riichi == "accepted"]
    try:
        result = manual_result.parse(rs, args, standing)
    except manual_result.ManualResultError as exc:
        raise out.reject(exc.code, exc.seat, exc.expected, exc.actual) from exc
    scores, deposits, paid = manual_result.riichi_sticks(rs, result.riichi, standing,
                                                          base.scores, base.deposits)
    for s in paid:
        out.emit(RiichiAccepted(seat=s, deposits=deposits, score=scores[s]))
    base = replace(base, scores=scores, deposits=deposits)
    ctx = hand_context(rs, t, base, result.riichi)
    match result.kind:
        case "ron" | "tsumo":
            outcome = HandOutcome(kind="win", context=ctx, wins=result.wins)
            _head_bumps(rs, result.wins, out)
        case "exhaustive":
            outcome = HandOutcome(kind="exhaustive", context=ctx, tenpai=result.tenpai)
        case "abortive":
            outcome = HandOutcome(kind="abortive", context=ctx, abort_kind=result.abort)
        case _ as never:
            assert_never(never)
    return end_hand(t, replace(base, step="ended"), outcome, out), {}


def _head_bumps(rs: Ruleset, wins: Sequence[Win], out: Out) -> None:
    """Say whom a head-bump leaves unpaid: the winner nearest the discarder in turn order takes
    the ron (S §45-4, M 5-1-3, μ §65); the settlement pays only that one."""
    loser = wins[0].loser
    if len(wins) < 2 or loser is None or rs.calls.multiple_ron != "head_bump":
        return
    if len(wins) == 3 and rs.calls.triple_ron_abortive:
        return
    order = sorted(wins, key=lambda w: loser.relative(w.winner))
    for w in order[1:]:
        out.emit(RonHeadBumped(seat=w.winner, by=order[0].winner))


def _ref_end_game(t: TableState, args: Mapping[str, Any], by: str, out: Out
                  ) -> tuple[TableState, Mapping[str, Any]]:
    if t.game_over:
        raise out.reject("referee_bad_args", None, "a running game", "game over")
    t = end_game(t, by, out)
    h = t.hand
    if h is not None and h.step != "ended":
        t = replace(t, hand=replace(h, step="ended"))
    return t, {}


def _ref_time_limit(t: TableState, args: Mapping[str, Any], by: str, out: Out
                    ) -> tuple[TableState, Mapping[str, Any]]:
    """μ §24(2): the session's time limit is reached. During a hand, that hand is the last;
    between hands, the game is over now (the hand it was reached in has ended)."""
    rs, p = ruleset_of(t), t.progress
    assert p is not None
    if rs.game.time_limit == "none":
        raise out.reject("referee_bad_args", None, "a ruleset with a session time limit",
                         "time_limit")
    if t.game_over or p.finished:
        raise out.reject("referee_bad_args", None, "a running game", "game over")
    h = t.hand
    if h is not None and h.step != "ended":
        return replace(t, progress=replace(p, time_up=True)), {}
    done = replace(p, finished=True, end_reason="time_limit")
    return end_game(replace(t, progress=done), by, out), {}


def _undo(t: TableState, inp: RefereeOverride, out: Out) -> TableState:
    if not t.referee_log:
        raise out.reject("undo_not_possible", None, "a referee action", "none")
    rec = t.referee_log[-1]
    comp = rec.compensation
    rest = t.referee_log[:-1]
    new: TableState
    if rec.action in ("set_scores", "penalty"):
        deltas = comp["deltas"]
        pts = comp["pt"]
        new = _apply_deltas(t, deltas, pts, inp.by, f"undo {rec.action}", out)
    elif rec.action == "dead_hand":
        h = t.hand
        s = Seat(comp["lift"])
        if h is None or h.step == "ended" or h.seats[s].dead != "referee":
            raise out.reject("undo_not_possible", s, "the dead hand still in play", "hand over")
        h = set_seat(h, s, replace(h.seats[s], dead=None))
        out.emit(DeadHandLifted(seat=s, by=inp.by))
        new = replace(t, hand=h)
    elif rec.action == "swap_seats":
        if not _between_hands(t):
            raise out.reject("undo_not_possible", None, "between hands", "during a hand")
        new = _swap(t, Seat(comp["a"]), Seat(comp["b"]), out)
    elif rec.action == "accept_violation":
        new = replace(t, open_violations=(*t.open_violations, *comp["reopen"]))
    elif rec.seq == t.seq - 1:
        # Nothing happened since: a hand-ending action is compensated by restoring the state
        # before it (the hand_ended it emitted is void; the event log keeps both).
        new = replace(rec.before, seq=t.seq, referee_log=rest,
                      open_violations=t.open_violations)
    else:
        raise out.reject("undo_not_possible", None, f"{rec.action} as the last input",
                         "inputs after it")
    out.emit(Undone(action=rec.action, by=inp.by))
    return replace(new, referee_log=rest)
