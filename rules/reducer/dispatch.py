"""The entry points ``reduce`` and ``new_table``, and the dispatch: one ``match`` over the input
classes, each phase's handler per class, ``assert_never`` at the end."""

from __future__ import annotations

from typing import assert_never, get_args

from rules.events import Event
from rules.evolve import FIELD_COUNT, NEW, SET_DICT, rebuilt, replace
from rules.inputs import (
    INPUT_NAMES,
    AbortiveDraw,
    Ankan,
    BreakOpened,
    Call,
    DealDone,
    Discard,
    Draw,
    ExhaustiveDraw,
    GameStart,
    HandInput,
    HandStart,
    IndicatorShown,
    Input,
    Kakan,
    PlayInput,
    RefereeOverride,
    RinshanDraw,
    Ron,
    Tsumo,
    UraRevealed,
    WallRaised,
    WinShown,
    input_type,
)
from rules.inputs import DiceRolled as DiceInput
from rules.reducer.calls import on_ankan, on_call, on_kakan
from rules.reducer.draws import on_abortive, on_exhaustive
from rules.reducer.output import Dead, Out, ReducerRejected
from rules.reducer.referee import on_referee
from rules.reducer.sanctions import apply_sanctions
from rules.reducer.sealing import end_hand, seal, try_finalize
from rules.reducer.setup import (
    on_break_opened,
    on_deal_done,
    on_dice,
    on_game_start,
    on_hand_start,
    on_indicator,
    on_wall_raised,
)
from rules.reducer.turns import on_discard, on_draw, on_rinshan
from rules.reducer.wins import on_ron, on_tsumo, on_ura, on_win_shown
from rules.ruleset import Ruleset
from rules.table_state import HandState, TableState

MAX_OPEN_VIOLATIONS = 64
# a tuple made once: ``A | B | C`` in an isinstance builds a union on every input
_WIN_INPUTS = (Ron, WinShown, UraRevealed)
_CALLS = (Call, Ankan, Kakan)
#: the classes :func:`_play` takes (the first case of :func:`_dispatch`'s match)
_PLAY_INPUTS: frozenset[type] = frozenset(get_args(PlayInput))
_TABLE_FIELDS = FIELD_COUNT[TableState]  # (rules.evolve.rebuilt inline in _play)


def new_table() -> TableState:
    """A table with no game yet: it waits for GameStart."""
    return TableState()


def reduce(state: TableState, inp: Input) -> tuple[TableState, tuple[Event, ...]]:
    """Fold one input into the table state. Never raises."""
    seq = state.seq + 1
    cls = inp.__class__
    kind = INPUT_NAMES.get(cls) or cls.__name__  # (input_type, as a look-up)
    out = Out(state.ruleset, seq, kind)
    try:
        # an input of the game (all but two kinds) straight to the play, past the dispatch's
        # match (an isinstance per case until its own); mypy cannot narrow by a set
        if cls in _PLAY_INPUTS:
            new = _play(state, inp, out, seq)  # type: ignore[arg-type]
        else:
            new = _dispatch(state, inp, out, seq)
    except ReducerRejected:
        # Only the refusal stands: anything noted on the way belonged to an input that did
        # not happen (except a win the input sealed before it was refused).
        if (len(out.events) != out.kept_events + 1 or out.priced > out.kept_violations
                or len(out.violations) != out.kept_violations + 1):
            # (else the refusal is the one thing noted since: nothing to take back)
            last = out.violations[-1:]
            out.violations = out.violations[:out.kept_violations] + last
            out.priced = min(out.priced, out.kept_violations)
            out.events = [*out.events[:out.kept_events], *last]
        new = out.kept if out.kept is not None else state
    except Exception as exc:  # a table must keep running (engineering.md "Bad input")
        # A value the engine cannot use (e.g. a malformed referee argument that slipped past
        # the codec): refuse it, keep running (engineering.md "Bad input").
        out.violations = []
        out.events = []
        out.violation("internal_error", None, "an input the engine can apply",
                      f"{type(exc).__name__}: {exc}")
        new = state
    if not out.violations:
        if new.seq != seq:
            # The play handlers never read the input count: their state takes it here, or in
            # the one copy that _play makes anyway (the hot path), not in a copy of its own.
            new = replace(new, seq=seq)
        return new, tuple(out.events)
    # What the violations cost beyond their sanction (ruleset penalties); the sanctions read
    # no input count, so the state takes it with the open violations, in one copy.
    # (Not contextlib.suppress: a context manager made and entered per refused input.)
    try:  # noqa: SIM105
        new = apply_sanctions(new, inp, list(out.violations), out)
    except ReducerRejected:
        pass  # a sanction that cannot apply here leaves the input's result alone
    tf = vars(new).copy()  # replace(new, seq=..., open_violations=...): see rules.evolve.rebuilt
    tf["seq"] = seq
    tf["open_violations"] = (*new.open_violations, *out.violations)[-MAX_OPEN_VIOLATIONS:]
    return rebuilt(new, tf), tuple(out.events)


def _dispatch(t: TableState, inp: Input, out: Out, seq: int) -> TableState:
    """``t`` is the state before the input (its ``seq`` not yet counted up): the referee's
    actions record the input count, so they get it; a play input's state gets it from
    ``_play`` or ``reduce``."""
    match inp:  # play first: every input but two of a game is one
        case Draw() | Discard() | HandStart() | WallRaised() | DiceInput() | BreakOpened() \
                | IndicatorShown() | UraRevealed() | DealDone() | Call() | Ankan() | Kakan() \
                | RinshanDraw() | Tsumo() | Ron() | WinShown() | ExhaustiveDraw() \
                | AbortiveDraw():
            return _play(t, inp, out, seq)
        case GameStart():
            return on_game_start(replace(t, seq=seq), inp, out)
        case RefereeOverride():
            return on_referee(replace(t, seq=seq), inp, out)
        case _:
            assert_never(inp)


def _play(t: TableState, inp: PlayInput, out: Out, seq: int) -> TableState:
    """An input of the game: a hand's start or an input within the hand."""
    rs, progress = t.ruleset, t.progress
    if rs is None or progress is None or t.game is None:
        raise out.reject("no_game", None, "game_start", input_type(inp))
    h = t.hand
    if h is not None and h.step == "won":
        done = _at_win(t, h, inp, out)
        if isinstance(done, TableState):
            return done
        t = done[0]
        h, rs, progress = t.hand, t.ruleset, t.progress
        assert rs is not None and progress is not None
    if isinstance(inp, HandStart):
        return on_hand_start(t, rs, progress, inp, out)
    if h is None or h.step == "ended":
        raise out.reject("out_of_phase", None, "hand_start", input_type(inp))
    try:
        # the two inputs of almost every turn without the call to the match
        if isinstance(inp, Draw):
            new_h = on_draw(rs, h, inp, out)
        elif isinstance(inp, Discard):
            new_h = on_discard(rs, t, h, inp, out)
        else:
            new_h = _hand_input(rs, t, h, inp, out)
    except Dead as dead:
        # The input is refused (the tile goes back) but the seat's hand is dead.
        return replace(t, hand=dead.hand)
    if new_h.outcome is not None and new_h.step == "ended" and h.outcome is None:
        return end_hand(t, new_h, new_h.outcome, out)
    tf = vars(t).copy()  # replace(t, hand=new_h, seq=seq), every input: see rules.evolve.rebuilt
    tf["hand"] = new_h
    tf["seq"] = seq
    if len(tf) != _TABLE_FIELDS or t.__class__ is not TableState:
        rebuilt(t, tf)  # (refuses it)
    t = NEW(TableState)
    SET_DICT(t, "__dict__", tf)
    if (new_h.step == "won" and h.step != "won") or isinstance(inp, _WIN_INPUTS):
        return try_finalize(t, out)
    return t


def _at_win(t: TableState, h: HandState, inp: PlayInput, out: Out
            ) -> TableState | tuple[TableState]:
    """An input while a declared win is open: a late kan indicator (done: the state), or what
    seals the win first and then goes on as in any hand (a 1-tuple of the state to go on
    from)."""
    rs = t.ruleset
    assert rs is not None
    if isinstance(inp, IndicatorShown):
        if any(w.win.chankan for w in h.wins):
            # S §43-8, M 4-5-5: a robbed kan turns no indicator.
            raise out.reject("indicator_after_chankan", None, "no kan indicator", "one")
        if h.dora_due:
            # An owed kan indicator may still be turned at the win (after_discard timing:
            # "after the kan player's next discard or win").
            return try_finalize(replace(t, hand=on_indicator(rs, h, inp, out)), out)
    if isinstance(inp, _WIN_INPUTS):
        return (t,)
    if isinstance(inp, _CALLS) and any(w.loser is not None for w in h.wins):
        raise out.reject("call_loses_to_ron", inp.seat, "ron", inp.kind if isinstance(
            inp, Call) else input_type(inp))
    if t.game is not None and t.game.confirm_wins:
        # The venue wants every win confirmed: nothing but the referee ends it.
        raise out.reject("out_of_phase", h.wins[0].seat, "confirm_win or reject_win",
                         input_type(inp))
    t = seal(t, h, out, closing=input_type(inp))
    out.keep(t)
    return (t,)


def _hand_input(rs: Ruleset, t: TableState, h: HandState, inp: HandInput, out: Out
                ) -> HandState:
    match inp:  # the two inputs of almost every turn first: each case is an isinstance
        case Draw():
            return on_draw(rs, h, inp, out)
        case Discard():
            return on_discard(rs, t, h, inp, out)
        case WallRaised():
            return on_wall_raised(h, inp, out)
        case DiceInput():
            return on_dice(rs, h, inp, out)
        case BreakOpened():
            return on_break_opened(rs, h, inp, out)
        case IndicatorShown():
            return on_indicator(rs, h, inp, out)
        case DealDone():
            return on_deal_done(rs, h, inp, out)
        case RinshanDraw():
            return on_rinshan(rs, h, inp, out)
        case Call():
            return on_call(rs, h, inp, out)
        case Ankan():
            return on_ankan(rs, h, inp, out)
        case Kakan():
            return on_kakan(rs, h, inp, out)
        case Tsumo():
            return on_tsumo(rs, t, h, inp, out)
        case Ron():
            return on_ron(rs, t, h, inp, out)
        case WinShown():
            return on_win_shown(h, inp, out)
        case UraRevealed():
            return on_ura(rs, h, inp, out)
        case ExhaustiveDraw():
            return on_exhaustive(rs, t, h, inp, out)
        case AbortiveDraw():
            return on_abortive(rs, t, h, inp, out)
        case _:
            assert_never(inp)
