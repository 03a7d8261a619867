"""The hand state machine: ``reduce(state, input) -> (state, events)``.

Pure and deterministic: no I/O, no clock, no iteration over sets; the same inputs give the same
events byte for byte. It never raises: a bad or illegal input gives the unchanged state (or
exactly the ruleset's sanction) and a ``violation`` event (catalogue: :mod:`rules.violations`,
docs/rules-engine.md).

Knowledge is partial by design. A table without sensors reports draws and discards without
tiles; a record (tenhou/mjai import) has tiles but no dice, break or positions. Every check that
needs something unknown is skipped, never guessed: the geometry checks run when the break is
known, the tile checks when the tiles are, the shape checks (furiten, false wins, kan after
riichi, tenpai) when the hand is.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from rules import hand_shape
from rules.claims import chi_allowed_from, kuikae_kinds, resolve_rons, ron_order
from rules.events import (
    AwaitingConfirmation,
    BreakChecked,
    CallCancelled,
    Called,
    DeadHand,
    DeadHandLifted,
    Dealt,
    DiceRolled,
    Discarded,
    DoraRevealed,
    Drew,
    Event,
    GameEnded,
    GameStarted,
    HaiteiReached,
    HandEnded,
    HandStarted,
    IndicatorCorrected,
    Kan,
    RefereeApplied,
    RiichiAccepted,
    RiichiDeclared,
    RonHeadBumped,
    ScoresCorrected,
    SeatsSwapped,
    Undone,
    UraShown,
    Violation,
    ViolationAccepted,
    WallFallback,
    WallKnown,
    WinDeclared,
    WinShownEv,
    outcome_to_json,
)
from rules.game_flow import GameProgress, advance, standings, start_game
from rules.inputs import (
    AbortiveDraw,
    Ankan,
    BreakOpened,
    Call,
    DealDone,
    Discard,
    Draw,
    ExhaustiveDraw,
    GameStart,
    HandStart,
    IndicatorShown,
    Input,
    Kakan,
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
from rules.outcome import HandContext, HandOutcome, ManualValue, Meld, Win
from rules.ruleset import Ruleset, RulesetError, load_ruleset
from rules.seats import SEATS, Seat, Wind, seat_by_dice
from rules.settlement import Settlement, settle
from rules.table_state import (
    LOC_HAND,
    LOC_INDICATOR,
    LOC_MELD,
    LOC_RIVER,
    LOC_UNKNOWN,
    LOC_URA,
    LOC_WALL,
    DoraDue,
    GameInfo,
    HandState,
    Indicator,
    LastDiscard,
    PendingWin,
    RefereeRecord,
    RiverTile,
    SeatState,
    TableState,
)
from rules.tiles import Kind, Tile
from rules.violations import article_for, sanction_for
from rules.wall import (
    Break,
    Position,
    Wall,
    WallError,
    break_from_dice,
    fallback_break_from_indicator,
    fallback_break_no_indicator,
)

MAX_OPEN_VIOLATIONS = 64


class _Rejected(Exception):
    """Internal: the input is refused (the violation is already recorded)."""


class _Out:
    """Collects the events of one input (local to one ``reduce`` call)."""

    def __init__(self, ruleset: Ruleset | None, seq: int, kind: str) -> None:
        self.ruleset = ruleset
        self.seq = seq
        self.kind = kind
        self.events: list[Event] = []
        self.violations: list[Violation] = []
        self.rejected = False
        # What stands even if the input is then refused (a win sealed by a closing input).
        self.kept: TableState | None = None
        self.kept_events = 0
        self.kept_violations = 0

    def keep(self, state: TableState) -> None:
        self.kept = state
        self.kept_events = len(self.events)
        self.kept_violations = len(self.violations)

    def emit(self, event: Event) -> None:
        self.events.append(event)

    def violation(
        self, code: str, seat: Seat | None, expected: Any, actual: Any, *, reject: bool = False
    ) -> Violation:
        v = Violation(
            code=code,
            seat=seat,
            expected=expected,
            actual=actual,
            article=article_for(self.ruleset, code),
            sanction=sanction_for(self.ruleset, code),
            input=self.kind,
            id=self.seq * 100 + len(self.violations),
        )
        self.violations.append(v)
        self.events.append(v)
        if reject:
            self.rejected = True
        return v

    def reject(self, code: str, seat: Seat | None, expected: Any, actual: Any) -> _Rejected:
        self.violation(code, seat, expected, actual, reject=True)
        return _Rejected(code)


def new_table() -> TableState:
    """A table with no game yet: it waits for GameStart."""
    return TableState()


def reduce(state: TableState, inp: Input) -> tuple[TableState, tuple[Event, ...]]:
    """Fold one input into the table state. Never raises."""
    seq = state.seq + 1
    try:
        kind = input_type(inp)
    except KeyError:
        kind = type(inp).__name__
    out = _Out(state.ruleset, seq, kind)
    base = replace(state, seq=seq)
    try:
        new = _dispatch(base, inp, out)
    except _Rejected:
        # Only the refusal stands: anything noted on the way belonged to an input that did
        # not happen (except a win the input sealed before it was refused).
        last = out.violations[-1:]
        out.violations = out.violations[:out.kept_violations] + last
        out.events = [*out.events[:out.kept_events], *last]
        new = out.kept if out.kept is not None else base
    except Exception as exc:  # a table must keep running (engineering.md "Bad input")
        # A value the engine cannot use (e.g. a malformed referee argument that slipped past
        # the codec): refuse it, keep running (engineering.md "Bad input").
        out.violations = []
        out.events = []
        out.violation("internal_error", None, "an input the engine can apply",
                      f"{type(exc).__name__}: {exc}")
        new = base
    if out.violations:
        keep = (*new.open_violations, *out.violations)[-MAX_OPEN_VIOLATIONS:]
        new = replace(new, open_violations=keep)
    return new, tuple(out.events)


# --- dispatch ------------------------------------------------------------------------------------
def _dispatch(t: TableState, inp: Input, out: _Out) -> TableState:
    if isinstance(inp, GameStart):
        return _game_start(t, inp, out)
    if isinstance(inp, RefereeOverride):
        return _referee(t, inp, out)
    rs, progress = t.ruleset, t.progress
    if rs is None or progress is None or t.game is None:
        raise out.reject("no_game", None, "game_start", input_type(inp))
    h = t.hand
    if h is not None and h.step == "won" and isinstance(inp, IndicatorShown):
        if any(w.win.chankan for w in h.wins):
            # S §43-8, M 4-5-5: a robbed kan turns no indicator.
            raise out.reject("indicator_after_chankan", None, "no kan indicator", "one")
        if h.dora_due:
            # An owed kan indicator may still be turned at the win (after_discard timing:
            # "after the kan player's next discard or win").
            return _try_finalize(replace(t, hand=_indicator(rs, h, inp, out)), out)
    if h is not None and h.step == "won" and not isinstance(inp, Ron | WinShown | UraRevealed):
        if isinstance(inp, Call | Ankan | Kakan) and any(w.loser is not None for w in h.wins):
            raise out.reject("call_loses_to_ron", inp.seat, "ron", inp.kind if isinstance(
                inp, Call) else input_type(inp))
        if t.game is not None and t.game.confirm_wins:
            # The venue wants every win confirmed: nothing but the referee ends it.
            raise out.reject("out_of_phase", h.wins[0].seat, "confirm_win or reject_win",
                             input_type(inp))
        t = _seal(t, h, out, closing=input_type(inp))
        out.keep(t)
        h, rs, progress = t.hand, t.ruleset, t.progress
        assert rs is not None and progress is not None
    if isinstance(inp, HandStart):
        return _hand_start(t, rs, progress, inp, out)
    if h is None or h.step == "ended":
        raise out.reject("out_of_phase", None, "hand_start", input_type(inp))
    try:
        new_h = _hand_input(rs, t, h, inp, out)
    except _Dead as dead:
        # The input is refused (the tile goes back) but the seat's hand is dead.
        return replace(t, hand=dead.hand)
    if new_h.outcome is not None and new_h.step == "ended" and h.outcome is None:
        return _end_hand(t, new_h, new_h.outcome, out)
    t = replace(t, hand=new_h)
    if (new_h.step == "won" and h.step != "won") or isinstance(inp, Ron | WinShown | UraRevealed):
        return _try_finalize(t, out)
    return t


def _hand_input(rs: Ruleset, t: TableState, h: HandState, inp: Input, out: _Out) -> HandState:
    if isinstance(inp, WallRaised):
        return _wall_raised(h, inp, out)
    if isinstance(inp, DiceInput):
        return _dice(rs, h, inp, out)
    if isinstance(inp, BreakOpened):
        return _break_opened(rs, h, inp, out)
    if isinstance(inp, IndicatorShown):
        return _indicator(rs, h, inp, out)
    if isinstance(inp, DealDone):
        return _deal_done(rs, h, inp, out)
    if isinstance(inp, Draw):
        return _draw(rs, h, inp, out)
    if isinstance(inp, RinshanDraw):
        return _rinshan(rs, h, inp, out)
    if isinstance(inp, Discard):
        return _discard(rs, t, h, inp, out)
    if isinstance(inp, Call):
        return _call(rs, h, inp, out)
    if isinstance(inp, Ankan):
        return _ankan(rs, h, inp, out)
    if isinstance(inp, Kakan):
        return _kakan(rs, h, inp, out)
    if isinstance(inp, Tsumo):
        return _tsumo(rs, t, h, inp, out)
    if isinstance(inp, Ron):
        return _ron(rs, t, h, inp, out)
    if isinstance(inp, WinShown):
        return _win_shown(h, inp, out)
    if isinstance(inp, UraRevealed):
        return _ura(rs, h, inp, out)
    if isinstance(inp, ExhaustiveDraw):
        return _exhaustive(rs, t, h, inp, out)
    if isinstance(inp, AbortiveDraw):
        return _abortive(rs, t, h, inp, out)
    raise out.reject("bad_input", None, "a known input", repr(inp))  # pragma: no cover


# --- small helpers -------------------------------------------------------------------------------
def _set_seat(h: HandState, s: Seat, st: SeatState) -> HandState:
    seats = list(h.seats)
    seats[s] = st
    return replace(h, seats=(seats[0], seats[1], seats[2], seats[3]))


def _locate(h: HandState, tiles: Sequence[Tile], where: int) -> HandState:
    if not tiles:
        return h
    loc = list(h.located)
    for t in tiles:
        loc[t.id] = where
    return replace(h, located=tuple(loc))


def _check_free(h: HandState, tiles: Sequence[Tile], seat: Seat | None, out: _Out,
                allowed: tuple[int, ...] = ()) -> None:
    """Each tile must not be elsewhere already: unknown, in the wall manifest, or one of the
    ``allowed`` places. A tile id twice in ``tiles`` is one tile in two places too."""
    ids = [t.id for t in tiles]
    if len(set(ids)) != len(ids):
        dup = next(i for i in ids if ids.count(i) > 1)
        raise out.reject("tile_in_two_places", seat, "distinct tiles", dup)
    for t in tiles:
        where = h.located[t.id]
        if where in (LOC_UNKNOWN, LOC_WALL) or where in allowed:
            continue
        kind_all = all(h.located[c] not in (LOC_UNKNOWN, LOC_WALL) for c in
                       range(t.kind * 4, t.kind * 4 + 4))
        code = "fifth_copy" if kind_all else "tile_in_two_places"
        raise out.reject(code, seat, "a tile not yet in play", {"tile": t.id,
                                                                 "at": _place(where)})


def _from_manifest(h: HandState, want: Tile) -> Tile | None:
    """The tile the wall manifest puts at the drawn position, if it is still there. A manifest
    that disagrees with what the sensors already placed (the deal reported it) is not trusted
    for this tile: the draw stays unknown rather than putting one tile in two places."""
    return want if h.located[want.id] in (LOC_UNKNOWN, LOC_WALL) else None


def _place(where: int) -> str:
    if LOC_HAND <= where < LOC_HAND + 4:
        return f"hand of seat {where - LOC_HAND}"
    if LOC_RIVER <= where < LOC_RIVER + 4:
        return f"river of seat {where - LOC_RIVER}"
    if LOC_MELD <= where < LOC_MELD + 4:
        return f"meld of seat {where - LOC_MELD}"
    return {LOC_INDICATOR: "indicator", LOC_URA: "ura indicator"}.get(where, "wall")


def _held_counts(st: SeatState) -> hand_shape.Counts:
    """Concealed tiles plus melds (for 'all four held' wait checks, M 3-11-2)."""
    assert st.concealed is not None
    tiles = list(st.concealed)
    for m in st.melds:
        tiles.extend(m.tiles)
    return hand_shape.counts_of(tiles)


def _waits(st: SeatState) -> tuple[int, ...] | None:
    if st.concealed is None or len(st.concealed) % 3 != 1:
        return None
    return hand_shape.waits(hand_shape.counts_of(st.concealed), _held_counts(st))


def _kill(rs: Ruleset, h: HandState, seat: Seat, reason: str, out: _Out) -> HandState:
    st = h.seats[seat]
    if st.dead is not None:
        if st.dead == "referee" and reason != "referee":
            # A rules sanction on a hand the referee had already ruled dead stands on its own:
            # undoing the referee's ruling must not revive a hand that is dead anyway.
            return _set_seat(h, seat, replace(st, dead=reason))
        return h
    out.emit(DeadHand(seat=seat, kind=rs.penalties.dead_hand, reason=reason))
    return _set_seat(h, seat, replace(st, dead=reason))


def _accept_riichi(rs: Ruleset, h: HandState, out: _Out) -> HandState:
    """The declaration tile was not ronned: the stick goes down (S §39-1, M 4-8-1, μ §40)."""
    last = h.last
    if last is None or not last.riichi:
        return h
    st = h.seats[last.seat]
    if st.riichi != "declared":
        return h
    scores = list(h.scores)
    scores[last.seat] -= rs.riichi.deposit
    h = replace(h, scores=(scores[0], scores[1], scores[2], scores[3]),
                deposits=h.deposits + 1)
    h = _set_seat(h, last.seat, replace(st, riichi="accepted", ippatsu=rs.riichi.ippatsu))
    out.emit(RiichiAccepted(seat=last.seat, deposits=h.deposits, score=h.scores[last.seat]))
    return h


def _pass_discard(rs: Ruleset, h: HandState, out: _Out, taker: Seat | None) -> HandState:
    """The last discard is no longer claimable: riichi sticks go down and every seat that
    could have won on it and did not becomes furiten (S §51(2)(3), M 5-5, μ §64)."""
    last = h.last
    if last is None or last.passed:
        return h
    h = _accept_riichi(rs, h, out)
    h = _mark_passed(rs, h, last.seat, last.tile, taker)
    return replace(h, last=replace(last, passed=True))


def _mark_passed(rs: Ruleset, h: HandState, owner: Seat, tile: Tile | None,
                 taker: Seat | None) -> HandState:
    """Seats that let a winning ``tile`` go by are furiten: until their next discard, or for
    the rest of the hand after riichi (S §51(2)(3), §39-9; M 5-5; μ §64)."""
    if not rs.furiten.enabled or tile is None:
        return h
    for s in ron_order(owner):
        if s == taker:
            continue
        st = h.seats[s]
        if st.concealed is None or not hand_shape.wins_on(
                hand_shape.counts_of(st.concealed), tile.kind.value, _held_counts(st)):
            continue
        if st.riichi == "accepted":
            if not st.furiten_riichi:
                h = _set_seat(h, s, replace(st, furiten_riichi=True))
        elif not st.furiten_temp:
            h = _set_seat(h, s, replace(st, furiten_temp=True))
    return h


def _close_kan_window(rs: Ruleset, h: HandState) -> HandState:
    """The kan stands: a kakan tile nobody robbed counts as passed (S §51(2) names kakan)."""
    window = h.kan_window
    if window is None:
        return h
    seat, tile, is_ankan, _ = window
    h = replace(h, kan_window=None)
    return h if is_ankan else _mark_passed(rs, h, seat, tile, None)


def _break_ippatsu(h: HandState) -> HandState:
    if not any(st.ippatsu for st in h.seats):
        return h
    seats = tuple(replace(st, ippatsu=False) for st in h.seats)
    return replace(h, seats=(seats[0], seats[1], seats[2], seats[3]))


def _wall_for(h: HandState) -> Wall | None:
    return None if h.brk is None else Wall(h.brk)


# --- game ----------------------------------------------------------------------------------------
def _game_start(t: TableState, inp: GameStart, out: _Out) -> TableState:
    if t.game is not None and not t.game_over:
        raise out.reject("game_in_progress", None, "end_game first", "game_start")
    try:
        rs = load_ruleset(inp.ruleset)
    except (RulesetError, OSError) as exc:
        raise out.reject("unknown_ruleset", None, "a builtin ruleset or .toml path",
                         f"{inp.ruleset}: {exc}") from exc
    out.ruleset = rs
    if inp.rounds is not None and not 1 <= inp.rounds <= 4:
        raise out.reject("bad_input", None, "rounds 1..4", inp.rounds)
    progress = start_game(rs, inp.first_dealer, scores=inp.scores, rounds=inp.rounds)
    number = (t.game.number + 1) if t.game is not None else 1
    aka = rs.dora.red_fives if inp.aka is None else inp.aka
    game = GameInfo(number=number, names=inp.names, aka=aka, confirm_wins=inp.confirm_wins)
    out.emit(GameStarted(game=number, ruleset=rs.name, first_dealer=inp.first_dealer,
                         names=inp.names, scores=progress.scores, aka=aka,
                         rounds=progress.rounds, confirm_wins=inp.confirm_wins))
    return replace(t, ruleset=rs, game=game, progress=progress, hand=None, game_over=False,
                   referee_log=(), open_violations=(), last_result=None)


def _hand_start(t: TableState, rs: Ruleset, p: GameProgress, inp: HandStart,
                out: _Out) -> TableState:
    if t.game_over or p.finished:
        raise out.reject("game_over", None, "game_start", "hand_start")
    if t.hand is not None and t.hand.step != "ended":
        raise out.reject("hand_in_progress", None, "the hand to end", "hand_start")
    given = {
        "dealer": inp.dealer, "round_wind": inp.round_wind, "honba": inp.honba,
        "deposits": inp.deposits, "scores": inp.scores,
    }
    have = {"dealer": p.dealer, "round_wind": p.round_wind, "honba": p.honba,
            "deposits": p.deposits, "scores": p.scores}
    diff = {k: v for k, v in given.items() if v is not None and v != have[k]}
    if diff:
        if p.hands_played == 0:
            # A record excerpt starts mid-game: its first hand sets the game's values.
            hand_in_round = p.hand_in_round
            dealer = inp.dealer if inp.dealer is not None else p.dealer
            if inp.dealer is not None:
                hand_in_round = (dealer - p.first_dealer) % 4
            p = replace(
                p,
                dealer=dealer,
                round_wind=inp.round_wind if inp.round_wind is not None else p.round_wind,
                hand_in_round=hand_in_round,
                honba=inp.honba if inp.honba is not None else p.honba,
                deposits=inp.deposits if inp.deposits is not None else p.deposits,
                scores=inp.scores if inp.scores is not None else p.scores,
            )
        else:
            out.violation("progress_mismatch", None,
                          {k: _json(have[k]) for k in diff}, {k: _json(v) for k, v in diff.items()})
    number = t.hands + 1
    h = HandState(
        number=number,
        dealer=p.dealer,
        round_wind=p.round_wind,
        hand_in_round=p.hand_in_round,
        honba=p.honba,
        deposits=p.deposits,
        scores=p.scores,
        seats=(SeatState(), SeatState(), SeatState(), SeatState()),
        located=(LOC_UNKNOWN,) * 136,
        turn=p.dealer,
    )
    out.emit(HandStarted(hand=number, dealer=p.dealer, round_wind=p.round_wind,
                         hand_in_round=p.hand_in_round, honba=p.honba, deposits=p.deposits,
                         scores=p.scores))
    return replace(t, progress=p, hand=h, hands=number)


def _json(v: Any) -> Any:
    if isinstance(v, Seat | Wind):
        return int(v)
    if isinstance(v, tuple):
        return list(v)
    return v


# --- setup: wall, dice, break, indicators, deal ------------------------------------------------
def _in_setup(h: HandState, out: _Out, what: str) -> None:
    if h.step != "setup":
        raise out.reject("out_of_phase", None, "before the deal", what)


def _wall_raised(h: HandState, inp: WallRaised, out: _Out) -> HandState:
    _in_setup(h, out, "wall_raised")
    if h.wall_raised:
        raise out.reject("out_of_phase", None, "one wall per hand", "a second wall_raised")
    if inp.wall is None:
        return replace(h, wall_raised=True)
    if sorted(t.id for t in inp.wall) != list(range(136)):
        raise out.reject("bad_input", None, "the 136 distinct tiles", f"{len(inp.wall)} tiles")
    out.emit(WallKnown(tiles=136))
    return replace(h, wall=inp.wall, wall_raised=True, located=(LOC_WALL,) * 136)


def _rolls_needed(rs: Ruleset) -> int:
    return 2 if rs.wall.break_method == "two_rolls" else 1


def _dice(rs: Ruleset, h: HandState, inp: DiceInput, out: _Out) -> HandState:
    _in_setup(h, out, "dice")
    if h.brk is not None:
        raise out.reject("out_of_phase", inp.seat, "dice before the break", "dice after it")
    if any(isinstance(d, bool) or not isinstance(d, int) or not 1 <= d <= 6 for d in inp.dice):
        raise out.reject("bad_input", inp.seat, "two dice 1..6", list(inp.dice))
    n = len(h.rolls)
    if n >= _rolls_needed(rs):
        raise out.reject("dice_extra_roll", inp.seat, _rolls_needed(rs), n + 1)
    # S §28-3(3), μ §14(1): the dealer rolls; W 开门-2: then the breaker the dealer's roll names.
    expected = h.dealer if n == 0 else seat_by_dice(h.dealer, sum(h.rolls[0][1]))
    if inp.seat != expected:
        raise out.reject("dice_wrong_seat", inp.seat, int(expected), int(inp.seat))
    out.emit(DiceRolled(seat=inp.seat, dice=inp.dice, roll=n + 1))
    return replace(h, rolls=(*h.rolls, (inp.seat, inp.dice)))


def _break_opened(rs: Ruleset, h: HandState, inp: BreakOpened, out: _Out) -> HandState:
    _in_setup(h, out, "break_opened")
    if h.brk is not None:
        raise out.reject("out_of_phase", inp.seat, "one break", "a second break")
    try:
        brk = Break(inp.seat, inp.count)
    except WallError as exc:
        raise out.reject("bad_input", inp.seat, "a count 1..24", inp.count) from exc
    expected: Break | None = None
    source = "table"
    if len(h.rolls) == _rolls_needed(rs):
        expected = break_from_dice(rs, h.dealer, tuple(r for _, r in h.rolls))
        source = "dice"
    elif rs.wall.break_method != "auto":
        out.violation("break_before_dice", inp.seat, _rolls_needed(rs), len(h.rolls))
    ok = expected is None or expected == brk
    if expected is not None and expected.seat != brk.seat:
        out.violation("break_wrong_seat", inp.seat, expected.to_json(), brk.to_json())
    elif expected is not None and expected.count != brk.count:
        out.violation("break_wrong_count", inp.seat, expected.to_json(), brk.to_json())
    out.emit(BreakChecked(brk=brk, expected=expected, ok=ok, source=source))
    # The wall is opened where it physically is: play follows the real break. A wall manifest
    # read relative to the break the dice called is re-indexed to the real ring.
    if h.wall is not None and expected is not None and expected != brk:
        called, real = Wall(expected), Wall(brk)
        ring: list[Tile] = list(h.wall)
        for i, tile in enumerate(h.wall):
            ring[real.index(called.position(i))] = tile
        h = replace(h, wall=tuple(ring))
    h = replace(h, brk=brk, break_source=source)
    if h.indicators and h.indicators[0].position is not None:
        h = _check_indicator_position(h, 0, h.indicators[0].position, None, out)
    return h


def _indicator_index(number: int) -> int:
    return Wall.DORA if number == 0 else Wall.KAN_DORA[number - 1]


def _check_indicator_position(h: HandState, number: int, pos: Position, seat: Seat | None,
                              out: _Out) -> HandState:
    w = _wall_for(h)
    if w is None:
        return h
    expected = w.position(_indicator_index(number))
    if pos != expected:
        out.violation("indicator_wrong_position", seat, expected.to_json(), pos.to_json())
    return h


def _indicator(rs: Ruleset, h: HandState, inp: IndicatorShown, out: _Out) -> HandState:
    if h.step == "ended":
        raise out.reject("out_of_phase", None, "an indicator during the hand", "after its end")
    number = len(h.indicators)
    if not rs.dora.indicator:
        raise out.reject("indicator_not_in_ruleset", None, 0, number + 1)
    correction = False
    due_index: int | None = None
    if number >= 1:
        first_discard_done = h.seats[h.dealer].discards > 0 or h.interrupted
        if (
            not h.dora_due
            and number == 1
            and rs.wall.indicator_correction == "until_first_discard"
            and not first_discard_done
        ):
            correction = True  # μ §16
        else:
            if not rs.dora.kan_dora or number >= 1 + len(Wall.KAN_DORA):
                raise out.reject("indicator_not_in_ruleset", None, number, number + 1)
            if not h.dora_due:
                code = "indicator_after_chankan" if h.robbed else "indicator_not_in_ruleset"
                raise out.reject(code, None, number, number + 1)
            due_index = next(
                (i for i, d in enumerate(h.dora_due)
                 if d.timing == "now" or d.discarded or d.late), None)
            if due_index is None:
                d0 = h.dora_due[0]
                out.violation("indicator_early", d0.seat, "after the kan player's discard",
                              "before it")
                due_index = 0
    slot = 0 if correction else number
    tile = inp.tile
    if tile is not None:
        _check_free(h, [tile], None, out, (LOC_INDICATOR,) if correction else ())
    if inp.position is not None:
        h = _check_indicator_position(h, slot, inp.position, None, out)
    if h.wall is not None:
        expected_tile = h.wall[_indicator_index(slot)]
        if tile is None:
            tile = expected_tile  # read from the wall manifest: known, not guessed
        elif tile != expected_tile:
            out.violation("indicator_wrong_tile", None, expected_tile.id, tile.id)
    ind = Indicator(position=inp.position, tile=tile)
    if correction:
        old = h.indicators[0]
        if old.tile is not None:
            h = _locate(h, [old.tile], LOC_WALL if h.wall is not None else LOC_UNKNOWN)
        h = replace(h, indicators=(ind,))
        out.emit(IndicatorCorrected(position=inp.position, tile=tile))
    else:
        h = replace(h, indicators=(*h.indicators, ind))
        if due_index is not None:
            h = replace(h, dora_due=h.dora_due[:due_index] + h.dora_due[due_index + 1:])
    if tile is not None:
        h = _locate(h, [tile], LOC_INDICATOR)
    out.emit(DoraRevealed(number=slot, position=inp.position, tile=tile,
                          dora_kind=None if tile is None else
                          int(tile.kind.dora_from_indicator())))
    if h.kan_window is not None:
        # The kan is established once its indicator is turned (S §43-4): no chankan after.
        h = _close_kan_window(rs, h)
    return h


def _deal_done(rs: Ruleset, h: HandState, inp: DealDone, out: _Out) -> HandState:
    _in_setup(h, out, "deal_done")
    jump = rs.wall.dealer_fourteenth == "jump"
    if h.brk is None and rs.wall.auto_fallbacks and h.wall_raised:
        shown = h.indicators[0].position if h.indicators else None
        if shown is not None:
            # M 3-4-5: the indicator was shown but the wall not opened: break from the
            # indicator (it stays the 3rd stack of the dead wall, M 2-6-6).
            brk = fallback_break_from_indicator(shown)
            out.emit(WallFallback(article="M 3-4-5", brk=brk, indicator=shown))
        else:
            # M 3-4-6: nothing opened or shown: the dealer breaks at 自7 and the indicator
            # is due at the dealer's 5th stack (ring index 130).
            brk = fallback_break_no_indicator(h.dealer)
            out.emit(WallFallback(article="M 3-4-6", brk=brk,
                                  indicator=Wall(brk).position(Wall.DORA)))
        h = replace(h, brk=brk, break_source="fallback")
    deal = Wall.deal_indices(h.dealer)
    expected_size = {s: (14 if (s == h.dealer and jump) else 13) for s in SEATS}
    hands: list[tuple[Tile, ...] | None] = [None, None, None, None]
    if inp.hands is not None:
        all_tiles = [t for hand in inp.hands for t in hand]
        _check_free(h, all_tiles, None, out)
        for s in SEATS:
            hands[s] = tuple(sorted(inp.hands[s]))
        if h.wall is not None:
            for s in SEATS:
                idx = [i for i in deal[s] if jump or i != 52]
                want = sorted(h.wall[i].id for i in idx)
                got = sorted(t.id for t in inp.hands[s])
                if want != got:
                    out.violation("wrong_tile_drawn", s, want, got)
    elif h.wall is not None:
        for s in SEATS:
            idx = [i for i in deal[s] if jump or i != 52]
            hands[s] = tuple(sorted((h.wall[i] for i in idx), key=lambda t: t.id))
    seats = list(h.seats)
    for s in SEATS:
        hand = hands[s]
        count = len(hand) if hand is not None else expected_size[s]
        fourteenth = h.wall[52] if (h.wall is not None and s == h.dealer and jump) else None
        seats[s] = replace(seats[s], concealed=hand, count=count, drawn=fourteenth,
                           has_drawn=(s == h.dealer and jump))
    h = replace(h, seats=(seats[0], seats[1], seats[2], seats[3]), dealt=True,
                next_live=53 if jump else 52, turn=h.dealer,
                step="discard" if jump else "draw")
    for s in SEATS:
        hand = hands[s]
        if hand is not None:
            h = _locate(h, hand, LOC_HAND + s)
    for s in SEATS:
        if h.seats[s].count != expected_size[s]:
            out.violation("wrong_hand_size", s, expected_size[s], h.seats[s].count)
            h = _kill(rs, h, s, "wrong_hand_size", out)
    out.emit(Dealt(counts=tuple(st.count for st in h.seats),
                   hands_known=all(x is not None for x in hands)))
    return h


# --- draws ---------------------------------------------------------------------------------------
def _draw(rs: Ruleset, h: HandState, inp: Draw, out: _Out) -> HandState:
    s = inp.seat
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
        dead = _kill(rs, h, s, code, out)
        raise _Dead(dead)
    if s != h.turn:
        out.violation("draw_out_of_turn", s, int(h.turn), int(s))
        raise _Dead(_kill(rs, h, s, "draw_out_of_turn", out))
    if h.live_left() <= 0:
        raise out.reject("out_of_phase", s, "exhaustive_draw (no live tile left)", "draw")
    tile = inp.tile
    if tile is not None:
        _check_free(h, [tile], s, out)
    if h.wall is not None:
        want = h.wall[h.next_live]
        if tile is None:
            tile = _from_manifest(h, want)
        elif tile != want:
            out.violation("wrong_tile_drawn", s, want.id, tile.id)
    if inp.position is not None and h.brk is not None:
        want_pos = Wall(h.brk).position(h.next_live)
        if inp.position != want_pos:
            out.violation("wrong_tile_drawn", s, want_pos.to_json(), inp.position.to_json())
    h = _pass_discard(rs, h, out, None)
    h = _after_discard_dora_check(h, out)
    st = h.seats[s]
    concealed = None if st.concealed is None or tile is None else tuple(
        sorted((*st.concealed, tile), key=lambda x: x.id))
    if st.concealed is not None and tile is None:
        concealed = None
    st = replace(st, concealed=concealed, count=st.count + 1, drawn=tile, has_drawn=True,
                 rinshan=False, kuikae=())
    h = _set_seat(h, s, st)
    if tile is not None:
        h = _locate(h, [tile], LOC_HAND + s)
    h = replace(h, next_live=h.next_live + 1, step="discard", turn=s, pre_call=None,
                pre_call_seat=None)
    out.emit(Drew(seat=s, tile=tile, position=inp.position, rinshan=False,
                  live_left=h.live_left()))
    if h.live_left() == 0:
        out.emit(HaiteiReached(seat=s))
    return h


class _Dead(Exception):
    """Internal: the input is refused but the sanction (a dead hand) applies."""

    def __init__(self, hand: HandState) -> None:
        super().__init__("dead")
        self.hand = hand


def _after_discard_dora_check(h: HandState, out: _Out) -> HandState:
    """An after-discard kan indicator still owed when play moves on is missing."""
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


def _rinshan(rs: Ruleset, h: HandState, inp: RinshanDraw, out: _Out) -> HandState:
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
        _check_free(h, [tile], s, out)
    if h.wall is not None:
        want = h.wall[index]
        if tile is None:
            tile = _from_manifest(h, want)
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
    h = _close_kan_window(rs, replace(h, dora_due=tuple(dues)))
    st = h.seats[s]
    concealed = None if st.concealed is None or tile is None else tuple(
        sorted((*st.concealed, tile), key=lambda x: x.id))
    h = _set_seat(h, s, replace(st, concealed=concealed, count=st.count + 1, drawn=tile,
                                has_drawn=True, rinshan=True, kuikae=()))
    if tile is not None:
        h = _locate(h, [tile], LOC_HAND + s)
    # The replacement tile is drawn: a daiminkan can no longer be undone by a ron on its tile.
    h = replace(h, rinshan_taken=h.rinshan_taken + 1, step="discard", pre_call=None,
                pre_call_seat=None)
    out.emit(Drew(seat=s, tile=tile, position=None if h.brk is None else
                  Wall(h.brk).position(index), rinshan=True, live_left=h.live_left()))
    return h


# --- discards ------------------------------------------------------------------------------------
def _discard(rs: Ruleset, t: TableState, h: HandState, inp: Discard, out: _Out) -> HandState:
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
        _check_free(h, [tile], s, out, (LOC_HAND + s,))
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
        h = _pass_discard(rs, h, out, None)
        h = _kill(rs, h, s, "discard_without_draw", out)
        st = h.seats[s]
    if tile is not None and tile.kind in st.kuikae and rs.calls.kuikae == "forbidden":
        out.violation("kuikae", s, [Kind(k).mjai for k in st.kuikae], tile.mjai(False))
        h = _kill(rs, h, s, "kuikae", out)
        st = h.seats[s]
    if rs.dora.indicator and not h.indicators and st.discards == 0 and s == h.dealer:
        out.violation("indicator_missing", s, "the dora indicator before the first discard",
                      "none")
    houtei = h.live_left() == 0
    tsumogiri = inp.tsumogiri
    if tsumogiri is None and tile is not None and st.drawn is not None:
        tsumogiri = tile == st.drawn
    concealed = st.concealed
    if concealed is not None:
        concealed = None if tile is None else tuple(x for x in concealed if x != tile)
    first = st.discards == 0
    double = bool(inp.riichi and first and not h.interrupted and rs.riichi.double_riichi)
    st = replace(
        st,
        concealed=concealed,
        count=st.count - 1,
        river=(*st.river, RiverTile(tile=tile, riichi=inp.riichi, tsumogiri=tsumogiri)),
        discards=st.discards + 1,
        drawn=None,
        has_drawn=False,
        rinshan=False,
        kuikae=(),
        furiten_temp=False,  # S §51(2): the same-go-around furiten ends at one's discard
        ippatsu=False,
        riichi="declared" if inp.riichi else st.riichi,
        double_riichi=double or st.double_riichi,
    )
    h = _set_seat(h, s, st)
    if tile is not None:
        h = _locate(h, [tile], LOC_RIVER + s)
    first_discards = h.first_discards
    if first and not h.interrupted and len(first_discards) < 4:
        first_discards = (*first_discards, tile)
    dues = tuple(replace(d, discarded=True) if d.seat == s and d.timing == "after_discard"
                 else d for d in h.dora_due)
    h = replace(h, last=LastDiscard(seat=s, tile=tile, riichi=inp.riichi, houtei=houtei),
                discard_log=(*h.discard_log, (s, tile)),
                step="draw", turn=s.plus(1), first_discards=first_discards, dora_due=dues,
                pre_call=None, pre_call_seat=None, kan_window=None, robbed=False)
    out.emit(Discarded(seat=s, tile=tile, riichi=inp.riichi, tsumogiri=tsumogiri,
                       houtei=houtei))
    if inp.riichi:
        out.emit(RiichiDeclared(seat=s, double=double))
    return h


def _check_riichi(rs: Ruleset, h: HandState, st: SeatState, s: Seat, tile: Tile | None,
                  out: _Out) -> None:
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
        w = _waits(after)
        river = {r.tile.kind for r in st.river if r.tile is not None} | {tile.kind}
        if w and any(k in river for k in w):
            raise out.reject("riichi_furiten", s, "not furiten", [Kind(k).mjai for k in w])


# --- calls ---------------------------------------------------------------------------------------
def _claimable(h: HandState, seat: Seat, out: _Out) -> LastDiscard:
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


def _call(rs: Ruleset, h: HandState, inp: Call, out: _Out) -> HandState:
    s = inp.seat
    last = _claimable(h, s, out)
    st = h.seats[s]
    if last.houtei:
        raise out.reject("call_on_houtei", s, "ron only", inp.kind)
    if st.dead is not None:
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
        _check_free(h, tiles, s, out, (LOC_HAND + s,))
        if last.tile is not None and not _forms(inp.kind, last.tile, tiles):
            raise out.reject("call_bad_tiles", s, f"a {inp.kind} with {last.tile.mjai(False)}",
                             [x.mjai(False) for x in tiles])
    if st.count < need + 1:
        raise out.reject("wrong_hand_size", s, f">= {need + 1} tiles", st.count)
    before = h
    h = _pass_discard(rs, h, out, s)
    h = _break_ippatsu(h)
    # mark the called river tile
    d = h.seats[last.seat]
    river = (*d.river[:-1], replace(d.river[-1], called=True)) if d.river else d.river
    h = _set_seat(h, last.seat, replace(d, river=river))
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
    h = _set_seat(h, s, st)
    if known:
        h = _locate(h, meld_tiles, LOC_MELD + s)
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


def _kan_allowed(rs: Ruleset, h: HandState, s: Seat, out: _Out) -> None:
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


def _ankan(rs: Ruleset, h: HandState, inp: Ankan, out: _Out) -> HandState:
    s = inp.seat
    st = h.seats[s]
    if h.step != "discard" or s != h.turn or not st.has_drawn:
        raise out.reject("kan_not_in_turn", s, int(h.turn), int(s))
    if st.dead is not None:
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
        _check_free(h, tiles, s, out, (LOC_HAND + s,))
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
    h = _pass_discard(rs, h, out, None)
    h = _break_ippatsu(h)
    meld_tiles = tuple(sorted(tiles, key=lambda x: x.id)) if tiles is not None else ()
    meld = Meld(kind="ankan", tiles=meld_tiles, called=None, from_seat=None)
    st = h.seats[s]
    concealed = st.concealed
    if concealed is not None:
        concealed = None if tiles is None else tuple(x for x in concealed if x not in tiles)
    st = replace(st, concealed=concealed, count=st.count - 4, melds=(*st.melds, meld),
                 drawn=None, kuikae=())
    h = _set_seat(h, s, st)
    if tiles is not None:
        h = _locate(h, meld_tiles, LOC_MELD + s)
    h = _register_kan(rs, h, s, open_kan=False)
    window = None
    if rs.calls.kokushi_robs_ankan:
        window = (s, meld_tiles[0] if meld_tiles else None, True, window_base)
    h = replace(h, step="rinshan", interrupted=True, kan_window=window)
    out.emit(Kan(seat=s, meld=meld, kans=h.kans))
    return h


def _kakan(rs: Ruleset, h: HandState, inp: Kakan, out: _Out) -> HandState:
    s = inp.seat
    st = h.seats[s]
    if h.step != "discard" or s != h.turn or not st.has_drawn:
        raise out.reject("kan_not_in_turn", s, int(h.turn), int(s))
    if st.dead is not None:
        raise out.reject("dead_hand_call", s, "no kan with a dead hand", "kakan")
    _kan_allowed(rs, h, s, out)
    tile = inp.tile
    pons = [i for i, m in enumerate(st.melds) if m.kind == "pon"]
    if tile is not None:
        pons = [i for i in pons if not st.melds[i].tiles or st.melds[i].tiles[0].kind ==
                tile.kind]
        if st.concealed is not None and tile not in st.concealed:
            raise out.reject("tile_not_in_hand", s, [x.id for x in st.concealed], tile.id)
        _check_free(h, [tile], s, out, (LOC_HAND + s,))
    if tile is None and pons and all(not st.melds[i].tiles for i in pons):
        pons = pons[:1]  # a table without sensors: which unseen pon is not known, nor needed
    if len(pons) != 1:
        raise out.reject("kan_bad_tiles", s, "a pon of the added tile",
                         None if tile is None else tile.mjai(False))
    window_base = h
    h = _pass_discard(rs, h, out, None)
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
    h = _set_seat(h, s, st)
    if tile is not None:
        h = _locate(h, [tile], LOC_MELD + s)
    h = _register_kan(rs, h, s, open_kan=True)
    # The chankan window: the added tile may be robbed until the kan is established.
    h = replace(h, step="rinshan", interrupted=True, kan_window=(s, tile, False, window_base))
    out.emit(Kan(seat=s, meld=meld, kans=h.kans))
    return h


# --- wins ----------------------------------------------------------------------------------------
def _tsumo(rs: Ruleset, t: TableState, h: HandState, inp: Tsumo, out: _Out) -> HandState:
    s = inp.seat
    st = h.seats[s]
    if h.step != "discard" or s != h.turn or not st.has_drawn:
        raise out.reject("tsumo_not_in_turn", s, int(h.turn), int(s))
    if st.dead is not None:
        raise out.reject("dead_hand_call", s, "no win with a dead hand", "tsumo")
    if st.concealed is not None and not hand_shape.is_complete(
            hand_shape.counts_of(st.concealed)):
        raise out.reject("false_win", s, "a complete hand", [x.mjai(False)
                                                              for x in st.concealed])
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


def _ron(rs: Ruleset, t: TableState, h: HandState, inp: Ron, out: _Out) -> HandState:
    s = inp.seat
    chankan = False
    if h.step == "won":
        if not h.wins or h.wins[0].loser is None:
            raise out.reject("no_discard_to_claim", s, "a discard", "a tsumo is declared")
        if any(w.seat == s for w in h.wins):
            raise out.reject("no_discard_to_claim", s, "one ron per seat", "a second ron")
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
        last = h.last
        if last is None:
            raise out.reject("no_discard_to_claim", s, "a discard", "none")
        if last.passed or h.step != "draw":
            raise out.reject("call_after_draw", s, "ron before the next draw", "after it")
        if s == last.seat:
            raise out.reject("ron_own_discard", s, "another seat's discard", "own")
        loser, tile, ref, base = last.seat, last.tile, h, h
    assert loser is not None
    if s == loser:
        raise out.reject("ron_own_discard", s, "another seat's discard", "own")
    st = ref.seats[s]
    if st.dead is not None:
        raise out.reject("dead_hand_call", s, "no win with a dead hand", "ron")
    if st.concealed is not None and tile is not None:
        if not hand_shape.is_complete(hand_shape.counts_of((*st.concealed, tile))):
            raise out.reject("false_win", s, "a complete hand",
                             [x.mjai(False) for x in (*st.concealed, tile)])
        if rs.furiten.enabled:
            w = _waits(st) or ()
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
        h2 = replace(h2, robbed=True, kan_window=None)
    if t.game is not None and t.game.confirm_wins:
        out.emit(AwaitingConfirmation(seats=tuple(w.seat for w in h2.wins)))
    return h2


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


def _win_shown(h: HandState, inp: WinShown, out: _Out) -> HandState:
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
        _check_free(h, [x for m in inp.melds for x in m], s, out,
                    (LOC_MELD + s, LOC_HAND + s, LOC_RIVER + s.plus(1), LOC_RIVER + s.plus(2),
                     LOC_RIVER + s.plus(3)))
    elif not all(m.tiles for m in st.melds):
        raise out.reject("bad_input", s, "the tiles of the melds the engine did not see",
                         "none")
    shown = (*tuple(x for x in h.shown if x[0] != s), (s, hand, inp.win_tile, inp.melds))
    return replace(h, shown=shown)


def _ura_indices(rs: Ruleset, n: int) -> list[int]:
    count = n if (rs.dora.kan_dora and rs.dora.kan_ura) else min(n, 1)
    return list(Wall.URA[:count])


def _ura(rs: Ruleset, h: HandState, inp: UraRevealed, out: _Out) -> HandState:
    if h.step != "won":
        raise out.reject("out_of_phase", None, "ura after a win", "ura")
    if not (rs.dora.indicator and rs.dora.ura):
        raise out.reject("indicator_not_in_ruleset", None, 0, len(inp.tiles))
    idx = _ura_indices(rs, len(h.indicators))
    if len(inp.tiles) > len(idx):
        raise out.reject("indicator_not_in_ruleset", None, len(idx), len(inp.tiles))
    _check_free(h, inp.tiles, None, out)
    if h.wall is not None:
        for i, tile in zip(idx, inp.tiles, strict=False):
            if h.wall[i] != tile:
                out.violation("indicator_wrong_tile", None, h.wall[i].id, tile.id)
    out.emit(UraShown(tiles=inp.tiles))
    return _locate(replace(h, ura=inp.tiles), inp.tiles, LOC_URA)


# --- sealing a win -------------------------------------------------------------------------------
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


def _try_finalize(t: TableState, out: _Out) -> TableState:
    h = t.hand
    if h is None or h.step != "won" or t.game is None or t.game.confirm_wins:
        return t
    wins, _, abort = _resolved_wins(_rs(t), h)
    if abort:
        return _seal(t, h, out, closing=None)
    if _more_rons_possible(_rs(t), h):
        return t
    if not all(_scorable(h, w) for w in wins) or _ura_pending(_rs(t), h, wins):
        return t
    return _seal(t, h, out, closing=None)


def _rs(t: TableState) -> Ruleset:
    assert t.ruleset is not None
    return t.ruleset


def _context(rs: Ruleset, t: TableState, h: HandState, riichi_seats: Sequence[Seat]
             ) -> HandContext:
    assert t.game is not None
    dora = tuple(i.tile for i in h.indicators if i.tile is not None)
    ura = h.ura
    if not ura and h.wall is not None and rs.dora.ura:
        ura = tuple(h.wall[i] for i in _ura_indices(rs, len(h.indicators)))
    return HandContext(
        dealer=h.dealer,
        round_wind=h.round_wind,
        honba=h.honba,
        deposits=h.deposits,
        scores=h.scores,
        aka=t.game.aka,
        dora_indicators=dora,
        ura_indicators=ura,
        riichi_seats=tuple(riichi_seats),
    )


def _seal(t: TableState, h: HandState, out: _Out, closing: str | None) -> TableState:
    """End a declared win: resolve head-bumps, build the outcome, settle."""
    rs = _rs(t)
    wins, bumped, abort = _resolved_wins(rs, h)
    base = h.win_base or h
    riichi_seats = [s for s in SEATS if base.seats[s].riichi == "accepted"]
    if abort:
        out_h = replace(h, step="ended")
        outcome = HandOutcome(kind="abortive", context=_context(rs, t, h, riichi_seats),
                              abort_kind="triple_ron")
        return _end_hand(t, out_h, outcome, out)
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
    outcome = HandOutcome(kind="win", context=_context(rs, t, h, riichi_seats),
                          wins=tuple(built))
    return _end_hand(t, replace(h, step="ended"), outcome, out)


def _end_hand(t: TableState, h: HandState, outcome: HandOutcome, out: _Out) -> TableState:
    rs = _rs(t)
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
        t = _game_over(t, "flow", out)
    return t


def _game_over(t: TableState, by: str, out: _Out) -> TableState:
    rs = _rs(t)
    p = t.progress
    assert p is not None and t.game is not None
    if not p.finished:
        p = replace(p, finished=True, end_reason="referee")
    st = standings(rs, p)
    out.emit(GameEnded(game=t.game.number, standings=st.to_json(), by=by))
    return replace(t, progress=p, game_over=True)


# --- draws at the end of a hand ------------------------------------------------------------------
def _exhaustive(rs: Ruleset, t: TableState, h: HandState, inp: ExhaustiveDraw,
                out: _Out) -> HandState:
    last = h.last
    if h.step != "draw" or last is None or last.passed or not last.houtei:
        raise out.reject("exhaustive_too_early", None, "the houtei discard passed",
                         f"{h.live_left()} live tiles left")
    h = _pass_discard(rs, h, out, None)
    declared = sorted(set(inp.tenpai))
    tenpai: list[Seat] = []
    chombo: Seat | None = None
    for s in SEATS:
        st = h.seats[s]
        says = s in declared
        w = _waits(st)
        noten_riichi = st.riichi == "accepted" and (not says or (w is not None and not w))
        if noten_riichi and rs.penalties.noten_riichi_chombo and chombo is None:
            # S §54-1, M 7-4-1, μ §68: a noten riichi reaching the draw.
            out.violation("noten_riichi", s, "tenpai", "noten")
            chombo = s
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
    ctx = _context(rs, t, h, riichi_seats)
    if chombo is not None:
        return replace(h, step="ended", outcome=HandOutcome(kind="chombo", context=ctx,
                                                            offender=chombo))
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


def _abortive(rs: Ruleset, t: TableState, h: HandState, inp: AbortiveDraw,
              out: _Out) -> HandState:
    kind = inp.kind
    if kind not in rs.draws.abortive:
        raise out.reject("abortive_not_in_ruleset", inp.seat, list(rs.draws.abortive), kind)
    if h.step == "setup":
        raise out.reject("out_of_phase", inp.seat, "deal_done", "abortive_draw")
    why = _abort_unmet(h, inp)
    if why is not None:
        raise out.reject("abortive_conditions", inp.seat, kind, why)
    h = _pass_discard(rs, h, out, None)
    riichi_seats = [s for s in SEATS if h.seats[s].riichi == "accepted"]
    return replace(h, step="ended", outcome=HandOutcome(
        kind="abortive", context=_context(rs, t, h, riichi_seats), abort_kind=kind))


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


# --- referee -------------------------------------------------------------------------------------
# Every referee action (docs/rules-engine.md "Referee").
REFEREE_ACTIONS = (
    "accept_violation", "dead_hand", "set_scores", "swap_seats", "confirm_win", "reject_win",
    "chombo", "penalty", "manual_result", "end_game", "undo_last",
)


def _arg_seat(args: Mapping[str, Any], key: str, out: _Out) -> Seat:
    try:
        return Seat.of(args[key])
    except (KeyError, ValueError) as exc:
        raise out.reject("referee_bad_args", None, f"{key}: a seat 0..3", args.get(key)) from exc


def _arg_int(args: Mapping[str, Any], key: str, out: _Out, default: int | None = None) -> int:
    v = args.get(key, default)
    if isinstance(v, bool) or not isinstance(v, int):
        raise out.reject("referee_bad_args", None, f"{key}: an integer", v)
    return v


def _referee(t: TableState, inp: RefereeOverride, out: _Out) -> TableState:
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



def _ref_accept(t: TableState, args: Mapping[str, Any], by: str, out: _Out
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


def _live_hand(t: TableState, out: _Out, action: str) -> HandState:
    h = t.hand
    if h is None or h.step == "ended":
        raise out.reject("referee_bad_args", None, "a hand in play", action)
    return h


def _ref_dead_hand(t: TableState, args: Mapping[str, Any], by: str, out: _Out
                   ) -> tuple[TableState, Mapping[str, Any]]:
    h = _live_hand(t, out, "dead_hand")
    s = _arg_seat(args, "seat", out)
    if h.seats[s].dead is not None:
        raise out.reject("referee_bad_args", s, "a live hand", "already dead")
    h = _kill(_rs(t), h, s, "referee", out)
    return replace(t, hand=h), {"lift": int(s)}


def _scores_arg(args: Mapping[str, Any], key: str, out: _Out) -> tuple[int, int, int, int]:
    v = args.get(key)
    if not isinstance(v, list | tuple) or len(v) != 4 or any(
            isinstance(x, bool) or not isinstance(x, int) for x in v):
        raise out.reject("referee_bad_args", None, f"{key}: four integers", v)
    return (v[0], v[1], v[2], v[3])


def _apply_deltas(t: TableState, deltas: Sequence[int], pt: Sequence[float], by: str,
                  reason: str, out: _Out) -> TableState:
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


def _ref_set_scores(t: TableState, args: Mapping[str, Any], by: str, out: _Out
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


def _ref_penalty(t: TableState, args: Mapping[str, Any], by: str, out: _Out
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


def _ref_swap(t: TableState, args: Mapping[str, Any], by: str, out: _Out
              ) -> tuple[TableState, Mapping[str, Any]]:
    a, b = _arg_seat(args, "a", out), _arg_seat(args, "b", out)
    if a == b:
        raise out.reject("referee_bad_args", a, "two different seats", int(b))
    if t.hand is not None and t.hand.step != "ended":
        raise out.reject("referee_bad_args", a, "between hands", "during a hand")
    return _swap(t, a, b, out), {"a": int(a), "b": int(b)}


def _swap(t: TableState, a: Seat, b: Seat, out: _Out) -> TableState:
    p, g = t.progress, t.game
    assert p is not None and g is not None

    def sw(xs: Sequence[Any]) -> tuple[Any, Any, Any, Any]:
        ys = list(xs)
        ys[a], ys[b] = ys[b], ys[a]
        return (ys[0], ys[1], ys[2], ys[3])

    names = sw(g.names)
    new_p = replace(p, scores=sw(p.scores), pt_adjustments=sw(p.pt_adjustments))
    out.emit(SeatsSwapped(a=a, b=b, names=names, scores=new_p.scores))
    return replace(t, game=replace(g, names=names), progress=new_p)


def _ref_confirm(t: TableState, args: Mapping[str, Any], by: str, out: _Out
                 ) -> tuple[TableState, Mapping[str, Any]]:
    h = t.hand
    if h is None or h.step != "won":
        raise out.reject("referee_bad_args", None, "a declared win", "confirm_win")
    return _seal(t, h, out, closing="confirm_win"), {}


def _ref_reject(t: TableState, args: Mapping[str, Any], by: str, out: _Out
                ) -> tuple[TableState, Mapping[str, Any]]:
    h = t.hand
    if h is None or h.step != "won" or h.win_base is None:
        raise out.reject("referee_bad_args", None, "a declared win", "reject_win")
    rs = _rs(t)
    chombo = args.get("chombo", rs.penalties.chombo != "none")
    if not isinstance(chombo, bool):
        raise out.reject("referee_bad_args", None, "chombo: true/false", chombo)
    offender = h.wins[0].seat
    if "seat" in args:
        offender = _arg_seat(args, "seat", out)
    base = h.win_base
    if chombo:
        return _chombo(t, base, offender, out), {}
    # W 错鸣-6: a false win is played on; the seat cannot win this hand.
    base = _kill(rs, base, offender, "referee", out)
    return replace(t, hand=base), {}


def _chombo(t: TableState, h: HandState, seat: Seat, out: _Out) -> TableState:
    rs = _rs(t)
    riichi_seats = [s for s in SEATS if h.seats[s].riichi == "accepted"]
    outcome = HandOutcome(kind="chombo", context=_context(rs, t, h, riichi_seats),
                          offender=seat)
    return _end_hand(t, replace(h, step="ended"), outcome, out)


def _ref_chombo(t: TableState, args: Mapping[str, Any], by: str, out: _Out
                ) -> tuple[TableState, Mapping[str, Any]]:
    h = _live_hand(t, out, "chombo")
    s = _arg_seat(args, "seat", out)
    return _chombo(t, h.win_base or h, s, out), {}


def _manual_win(args: Mapping[str, Any], out: _Out, tsumo: bool) -> Win:
    winner = _arg_seat(args, "winner", out)
    loser = None if tsumo else _arg_seat(args, "loser", out)
    if loser == winner:
        raise out.reject("referee_bad_args", winner, "a loser other than the winner", loser)
    value = ManualValue(
        han=_arg_int(args, "han", out, 0),
        fu=_arg_int(args, "fu", out, 0),
        yakuman=_arg_int(args, "yakuman", out, 0),
        points=_arg_int(args, "points", out, 0),
    )
    if value == ManualValue():
        raise out.reject("referee_bad_args", winner, "han/fu, yakuman or points", "none")
    riichi = args.get("riichi", False)
    pao_raw = args.get("pao")
    pao = None if pao_raw is None else _arg_seat(args, "pao", out)
    return Win(winner=winner, loser=loser, hand=(), win_tile=None, riichi=bool(riichi),
               pao=pao, manual=value)


def _ref_manual(t: TableState, args: Mapping[str, Any], by: str, out: _Out
                ) -> tuple[TableState, Mapping[str, Any]]:
    h = _live_hand(t, out, "manual_result")
    rs = _rs(t)
    base = h.win_base or h
    kind = args.get("kind")
    riichi_seats = [s for s in SEATS if base.seats[s].riichi == "accepted"]
    ctx = _context(rs, t, base, riichi_seats)
    if kind in ("ron", "tsumo"):
        entries = args.get("wins")
        if entries is None:
            entries = [args]
        if not isinstance(entries, list | tuple) or not entries or not all(
                isinstance(e, Mapping) for e in entries):
            raise out.reject("referee_bad_args", None, "wins: a list of objects", entries)
        wins = tuple(_manual_win(e, out, kind == "tsumo") for e in entries)
        if len({w.winner for w in wins}) != len(wins) or (kind == "tsumo" and len(wins) != 1):
            raise out.reject("referee_bad_args", None, "distinct winners", len(wins))
        outcome = HandOutcome(kind="win", context=ctx, wins=wins)
    elif kind == "exhaustive":
        raw = args.get("tenpai", [])
        if not isinstance(raw, list | tuple):
            raise out.reject("referee_bad_args", None, "tenpai: a list of seats", raw)
        try:
            tenpai = tuple(sorted({Seat.of(x) for x in raw}))
        except ValueError as exc:
            raise out.reject("referee_bad_args", None, "tenpai: seats 0..3", raw) from exc
        outcome = HandOutcome(kind="exhaustive", context=ctx, tenpai=tenpai)
    else:
        raise out.reject("referee_bad_args", None, "kind: ron, tsumo or exhaustive", kind)
    return _end_hand(t, replace(base, step="ended"), outcome, out), {}


def _ref_end_game(t: TableState, args: Mapping[str, Any], by: str, out: _Out
                  ) -> tuple[TableState, Mapping[str, Any]]:
    if t.game_over:
        raise out.reject("referee_bad_args", None, "a running game", "game over")
    t = _game_over(t, by, out)
    h = t.hand
    if h is not None and h.step != "ended":
        t = replace(t, hand=replace(h, step="ended"))
    return t, {}


def _undo(t: TableState, inp: RefereeOverride, out: _Out) -> TableState:
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
        h = _set_seat(h, s, replace(h.seats[s], dead=None))
        out.emit(DeadHandLifted(seat=s, by=inp.by))
        new = replace(t, hand=h)
    elif rec.action == "swap_seats":
        if t.hand is not None and t.hand.step != "ended":
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

