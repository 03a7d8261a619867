"""Setup of a game and of a hand: game and hand start, the wall, dice, the break and its
fallbacks, dora indicators (kan indicators too), the deal."""

from __future__ import annotations

from typing import Any

from rules.events import (
    BreakChecked,
    Dealt,
    DiceRolled,
    DoraRevealed,
    GameStarted,
    HandStarted,
    IndicatorCorrected,
    WallFallback,
    WallKnown,
)
from rules.evolve import replace
from rules.game_flow import GameProgress, start_game
from rules.inputs import (
    BreakOpened,
    DealDone,
    GameStart,
    HandStart,
    IndicatorShown,
    WallRaised,
)
from rules.inputs import DiceRolled as DiceInput
from rules.reducer.hand_ops import check_free, close_kan_window, kill, locate, wall_for
from rules.reducer.output import Out
from rules.ruleset import Ruleset, RulesetError, load_ruleset
from rules.seats import SEATS, Seat, Wind, seat_by_dice
from rules.table_state import (
    LOC_HAND,
    LOC_INDICATOR,
    LOC_UNKNOWN,
    LOC_WALL,
    GameInfo,
    HandState,
    Indicator,
    SeatState,
    TableState,
)
from rules.tiles import BY_ID, Tile
from rules.wall import (
    Break,
    Position,
    Wall,
    WallError,
    break_from_dice,
    fallback_break_from_indicator,
    fallback_break_no_indicator,
)


def on_game_start(t: TableState, inp: GameStart, out: Out) -> TableState:
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
    game = GameInfo(number=number, names=inp.names, aka=aka, confirm_wins=inp.confirm_wins,
                    auto_hands=inp.auto_hands)
    out.emit(GameStarted(game=number, ruleset=rs.name, first_dealer=inp.first_dealer,
                         names=inp.names, scores=progress.scores, aka=aka,
                         rounds=progress.rounds, confirm_wins=inp.confirm_wins))
    t = replace(t, ruleset=rs, game=game, progress=progress, hand=None, game_over=False,
                referee_log=(), open_violations=(), last_result=None)
    # A table without a data link: nothing presses the start button, the first hand begins now.
    return begin_hand(t, progress, out) if inp.auto_hands else t


def on_hand_start(t: TableState, rs: Ruleset, p: GameProgress, inp: HandStart,
                out: Out) -> TableState:
    if t.game_over or p.finished:
        raise out.reject("game_over", None, "game_start", "hand_start")
    if untouched_auto_hand(t):
        # The start button of a table whose hands begin by themselves (sensors switched off):
        # the hand it starts is the one already begun.
        return t
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
    return begin_hand(t, p, out)


def untouched_auto_hand(t: TableState) -> bool:
    """A hand that began by itself (``auto_hands``) and has seen nothing yet."""
    h = t.hand
    return (t.game is not None and t.game.auto_hands and h is not None and h.step == "setup"
            and not h.rolls and h.brk is None and not h.indicators and h.wall is None)


#: a seat before the deal (one value for the four: it is frozen, and every hand starts so)
_NEW_SEAT = SeatState()


def begin_hand(t: TableState, p: GameProgress, out: Out) -> TableState:
    """The next hand, where the game flow stands (dealer, round, honba, deposits, scores): at a
    HandStart, or by itself in a game with ``auto_hands`` (docs/rules-engine.md)."""
    number = t.hands + 1
    h = HandState(
        number=number,
        dealer=p.dealer,
        round_wind=p.round_wind,
        hand_in_round=p.hand_in_round,
        honba=p.honba,
        deposits=p.deposits,
        scores=p.scores,
        seats=(_NEW_SEAT, _NEW_SEAT, _NEW_SEAT, _NEW_SEAT),
        located=bytes((LOC_UNKNOWN,)) * 136,
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


def _in_setup(h: HandState, out: Out, what: str) -> None:
    if h.step != "setup":
        raise out.reject("out_of_phase", None, "before the deal", what)


def on_wall_raised(h: HandState, inp: WallRaised, out: Out) -> HandState:
    _in_setup(h, out, "wall_raised")
    if h.wall_raised:
        raise out.reject("out_of_phase", None, "one wall per hand", "a second wall_raised")
    if inp.wall is None:
        return replace(h, wall_raised=True)
    if sorted(t.id for t in inp.wall) != list(range(136)):
        raise out.reject("bad_input", None, "the 136 distinct tiles", f"{len(inp.wall)} tiles")
    out.emit(WallKnown(tiles=136))
    return replace(h, wall=inp.wall, wall_raised=True, located=bytes((LOC_WALL,)) * 136)


def _rolls_needed(rs: Ruleset) -> int:
    return 2 if rs.wall.break_method == "two_rolls" else 1


def on_dice(rs: Ruleset, h: HandState, inp: DiceInput, out: Out) -> HandState:
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


def on_break_opened(rs: Ruleset, h: HandState, inp: BreakOpened, out: Out) -> HandState:
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
                              out: Out) -> HandState:
    w = wall_for(h)
    if w is None:
        return h
    expected = w.position(_indicator_index(number))
    if pos != expected:
        out.violation("indicator_wrong_position", seat, expected.to_json(), pos.to_json())
    return h


def on_indicator(rs: Ruleset, h: HandState, inp: IndicatorShown, out: Out) -> HandState:
    if h.step == "ended":
        raise out.reject("out_of_phase", None, "an indicator during the hand", "after its end")
    number = len(h.indicators)
    if not rs.dora.indicator:
        raise out.reject("indicator_not_in_ruleset", None, 0, number + 1)
    correction = False
    early = False
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
                early = True
    slot = 0 if correction else number
    tile = inp.tile
    if tile is not None:
        check_free(h, [tile], None, out, (LOC_INDICATOR,) if correction else ())
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
            h = locate(h, [old.tile], LOC_WALL if h.wall is not None else LOC_UNKNOWN)
        h = replace(h, indicators=(ind,))
        out.emit(IndicatorCorrected(position=inp.position, tile=tile))
    else:
        h = replace(h, indicators=(*h.indicators, ind))
        if due_index is not None:
            h = replace(h, dora_due=h.dora_due[:due_index] + h.dora_due[due_index + 1:])
    if tile is not None:
        h = locate(h, [tile], LOC_INDICATOR)
    out.emit(DoraRevealed(number=slot, position=inp.position, tile=tile,
                          dora_kind=None if tile is None else
                          int(tile.kind.dora_from_indicator())))
    if h.kan_window is not None and not early and rs.dora.indicator_establishes_kan:
        # The kan is established once its indicator is turned (S §43-4): no chankan after. An
        # indicator turned before its moment establishes nothing, nor one under M 4-5-5 (a
        # robbed kan is not established): the kan may still be robbed, and then the indicator
        # is withdrawn (rules/reducer/wins.py).
        h = close_kan_window(rs, h)
    return h


def on_deal_done(rs: Ruleset, h: HandState, inp: DealDone, out: Out) -> HandState:
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
        check_free(h, all_tiles, None, out)
        for s in SEATS:
            hands[s] = tuple(sorted(inp.hands[s], key=BY_ID))
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
    located = bytearray(h.located)  # (each seat's tiles in one copy of the places: locate)
    for s in SEATS:
        for tile in hands[s] or ():
            located[tile.id] = LOC_HAND + s
    h = replace(h, seats=(seats[0], seats[1], seats[2], seats[3]), dealt=True,
                next_live=53 if jump else 52, turn=h.dealer,
                step="discard" if jump else "draw", located=bytes(located))
    for s in SEATS:
        if h.seats[s].count != expected_size[s]:
            out.violation("wrong_hand_size", s, expected_size[s], h.seats[s].count)
            h = kill(rs, h, s, "wrong_hand_size", out)
    out.emit(Dealt(counts=tuple(st.count for st in h.seats),
                   hands_known=all(x is not None for x in hands)))
    return h
