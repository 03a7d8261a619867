"""One hand played by the :class:`~hil.players.world.World` and a
:class:`~hil.players.policy.Policy`: the order of a table's actions (draw; tsumo, kan or discard;
rons before calls, S §45 and M 4-2-1; the kan's indicator and rinshan draw; the end of the hand by
a win, an exhaustive draw or a declared abortive draw).

Nothing here reads the reducer: the moves are the world's and the policy's alone, so the reducer
can be checked against them (tests/hil/test_players.py).
"""

from __future__ import annotations

from collections.abc import Generator, Iterator

from hil.players.policy import AnkanChoice, KakanChoice, Policy
from hil.players.world import Move, World
from rules import hand_shape
from rules.game_flow import GameProgress
from rules.inputs import (
    AbortiveDraw,
    ExhaustiveDraw,
    RefereeOverride,
    Ron,
    Tsumo,
    UraRevealed,
    WinShown,
)
from rules.seats import Seat
from rules.tiles import BY_ID, Tile

#: a turn: the moves, then the next (seat, must draw), or None when the hand is over
Turn = Generator[Move, None, tuple[Seat, bool] | None]


def play_hand(w: World, p: Policy, progress: GameProgress) -> Iterator[Move]:
    """The hand's moves after its ``HandStart`` (which gave ``progress``)."""
    yield from w.setup(progress)
    turn, must_draw = w.dealer, not w.jump
    while not w.ended:
        if must_draw:
            if w.live_left() == 0:
                break
            abort = w.abort_due() if p.declares_aborts else None
            if abort is not None:
                w.ended = True
                yield Move(AbortiveDraw(kind=abort))
                return
            yield w.draw(turn)
        nxt = yield from _act(w, p, turn)
        if w.ended or nxt is None:
            break
        turn, must_draw = nxt
    if not w.ended:
        w.ended = True
        yield Move(ExhaustiveDraw(tenpai=w.tenpai()))


def _act(w: World, p: Policy, s: Seat) -> Turn:
    """``s`` holds 14 after a draw: tsumo, kan or discard."""
    pl = w.players[s]
    if hand_shape.is_complete(pl.counts()) and p.tsumo(w, s):
        assert w.drawn is not None
        yield from _win(w, p, [s], None, w.drawn)
        return None
    match p.kan(w, s):
        case None:
            return (yield from _discard(w, p, s))
        case AnkanChoice(kind=kind):
            yield w.ankan(s, kind)
            yield from w.kan_indicators(s, open_kan=False)
        case KakanChoice(tile=t):
            yield w.kakan(s, t)
            robbers = _head_bumped(w, p.rons(w, s, t, True))
            if robbers:  # chankan (S §48, M 4-5-6)
                yield from _win(w, p, robbers, s, t)
                return None
            w.mark_passed(s, t, None)
            yield from w.kan_indicators(s, open_kan=True)
    yield w.rinshan_draw(s)
    return (yield from _act(w, p, s))


def _head_bumped(w: World, seats: list[Seat]) -> list[Seat]:
    return seats[:1] if w.rs.calls.multiple_ron == "head_bump" else seats


def _discard(w: World, p: Policy, s: Seat) -> Turn:
    tile, riichi = p.discard(w, s)
    yield w.discard(s, tile, riichi)
    yield from w.discard_indicators(s)
    houtei = w.live_left() == 0
    ronners = _head_bumped(w, p.rons(w, s, tile, False))
    if ronners:
        yield from _win(w, p, ronners, s, tile)
        return None
    w.mark_passed(s, tile, None)
    if riichi:
        w.riichi_stands(s)
    if houtei:
        return None
    call = p.call(w, s, tile)
    if call is None:
        return (s.plus(1), True)
    yield w.call(call.seat, call.kind, call.used, tile, s)
    if call.kind != "daiminkan":
        return (yield from _discard(w, p, call.seat))
    yield from w.kan_indicators(call.seat, open_kan=True)
    yield w.rinshan_draw(call.seat)
    return (yield from _act(w, p, call.seat))


def _win(w: World, p: Policy, seats: list[Seat], loser: Seat | None, tile: Tile
         ) -> Iterator[Move]:
    """The declarations, then what the table shows until the win is sealed: the hands (a table
    without sensors), the referee's confirmation, the ura indicators."""
    w.ended = True
    for i, o in enumerate(seats):
        yield Move(Tsumo(o) if loser is None and i == 0 else Ron(o), o)
    if w.sealed(seats, loser, tile, shown=False):
        return
    if w.mode == "blind":
        for o in seats:
            pl = w.players[o]
            hand = [*pl.hand, *([tile] if loser is not None else [])]
            melds = tuple(tuple(sorted(m.tiles, key=BY_ID)) for m in pl.melds)
            yield Move(WinShown(o, tuple(sorted(hand, key=BY_ID)), tile, melds), o)
        if w.sealed(seats, loser, tile, shown=True):
            return
    if p.referee_confirms and w.more_rons_possible(seats, loser, tile):
        yield Move(RefereeOverride(action="confirm_win", by="referee"))
        return
    if w.rs.dora.ura and w.rs.dora.indicator:
        yield Move(UraRevealed(w.ura()))
