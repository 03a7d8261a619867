"""What every phase does to a hand: one seat's state, where each tile is, the tiles-free check,
waits, dead hands, a discard passing (riichi stick, furiten), ippatsu, the kan window, and the
scoring context of a hand."""

from __future__ import annotations

from collections.abc import Sequence

from rules import hand_shape
from rules.claims import ron_order
from rules.events import (
    DeadHand,
    PenaltyTiles,
    RiichiAccepted,
)
from rules.evolve import replace
from rules.outcome import HandContext
from rules.reducer.output import Out
from rules.ruleset import Ruleset
from rules.seats import Seat
from rules.table_state import (
    LOC_HAND,
    LOC_INDICATOR,
    LOC_MELD,
    LOC_RIVER,
    LOC_UNKNOWN,
    LOC_URA,
    LOC_WALL,
    HandState,
    LastDiscard,
    SeatState,
    TableState,
)
from rules.tiles import Tile
from rules.wall import (
    Wall,
)


def set_seat(h: HandState, s: Seat, st: SeatState) -> HandState:
    return replace(h, seats=seats_with(h, s, st))


def seats_with(h: HandState, s: Seat, st: SeatState
               ) -> tuple[SeatState, SeatState, SeatState, SeatState]:
    """``h.seats`` with seat ``s`` replaced: for a handler that changes more of the hand in the
    same ``replace``."""
    seats = list(h.seats)
    seats[s] = st
    return (seats[0], seats[1], seats[2], seats[3])


def locate(h: HandState, tiles: Sequence[Tile], where: int) -> HandState:
    if not tiles:
        return h
    return replace(h, located=located_with(h, tiles, where))


def located_with(h: HandState, tiles: Sequence[Tile], where: int) -> bytes:
    """``h.located`` with ``tiles`` moved to ``where`` (see :func:`seats_with`)."""
    loc = bytearray(h.located)  # one copy of 136 bytes, not of 136 objects
    for t in tiles:
        loc[t.id] = where
    return bytes(loc)


def check_free(h: HandState, tiles: Sequence[Tile], seat: Seat | None, out: Out,
                allowed: tuple[int, ...] = ()) -> None:
    """Each tile must not be elsewhere already: unknown, in the wall manifest, or one of the
    ``allowed`` places. A tile id twice in ``tiles`` is one tile in two places too."""
    if len(tiles) > 1:  # (a draw or a discard names one tile: nothing to compare)
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


def from_manifest(h: HandState, want: Tile) -> Tile | None:
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


def seat_waits(st: SeatState) -> tuple[int, ...] | None:
    if st.concealed is None or len(st.concealed) % 3 != 1:
        return None
    return hand_shape.waits(hand_shape.counts_of(st.concealed), _held_counts(st))


#: The dead-hand causes that are a wrong tile count (W 相公: 13 tiles, 14 before one's discard,
#: a kan counting as 3): dealt the wrong size, or a discard without the draw (W 摸打-3).
HAND_SIZE_CAUSES = frozenset({"wrong_hand_size", "discard_without_draw"})


def may_call(rs: Ruleset, st: SeatState, holding: int) -> bool:
    """Whether a seat may chi, pon or kan (``holding``: the tiles its hand should hold now, 13
    or 14 in its own turn). A dead hand may not (M 7-2, S §55, μ §70), except a short one under
    相公: W 相公-3 (小相公) takes only the right to win; a long hand (大相公, W 相公-4) loses its
    calls and kans too."""
    if st.dead is None:
        return True
    short = st.count + 3 * len(st.melds) < holding
    return rs.penalties.dead_hand == "xianggong" and st.dead in HAND_SIZE_CAUSES and short


def kill(rs: Ruleset, h: HandState, seat: Seat, reason: str, out: Out) -> HandState:
    st = h.seats[seat]
    if st.dead is not None:
        if st.dead == "referee" and reason != "referee":
            # A rules sanction on a hand the referee had already ruled dead stands on its own:
            # undoing the referee's ruling must not revive a hand that is dead anyway.
            return set_seat(h, seat, replace(st, dead=reason))
        return h
    out.emit(DeadHand(seat=seat, kind=rs.penalties.dead_hand, reason=reason))
    return set_seat(h, seat, replace(st, dead=reason))


def expose(h: HandState, seat: Seat, tiles: Sequence[Tile], reason: str, out: Out
           ) -> HandState:
    """W 罚张-1, 错鸣-6: ``tiles`` of the seat's concealed hand lie face up as penalty tiles;
    the hand stays alive."""
    st = h.seats[seat]
    held = set(st.concealed) if st.concealed is not None else set(tiles)
    penalty = tuple(sorted({*st.penalty, *(t for t in tiles if t in held)}, key=lambda x: x.id))
    out.emit(PenaltyTiles(seat=seat, tiles=penalty, reason=reason))
    return set_seat(h, seat, replace(st, penalty=penalty))


def _accept_riichi(rs: Ruleset, h: HandState, out: Out) -> HandState:
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
    h = set_seat(h, last.seat, replace(st, riichi="accepted", ippatsu=rs.riichi.ippatsu))
    out.emit(RiichiAccepted(seat=last.seat, deposits=h.deposits, score=h.scores[last.seat]))
    return h


def pass_discard(rs: Ruleset, h: HandState, out: Out, taker: Seat | None) -> HandState:
    """The last discard is no longer claimable: riichi sticks go down and every seat that
    could have won on it and did not becomes furiten (S §51(2)(3), M 5-5, μ §64)."""
    h, last = passing(rs, h, out, taker)
    return h if last is None else replace(h, last=last)


def passing(rs: Ruleset, h: HandState, out: Out, taker: Seat | None
            ) -> tuple[HandState, LastDiscard | None]:
    """:func:`pass_discard` but for the passed ``last`` itself, which is returned (None: nothing
    to pass) for the caller's own copy of the hand to take (a draw's: one copy, not two)."""
    last = h.last
    if last is None or last.passed:
        return h, None
    if last.riichi:
        h = _accept_riichi(rs, h, out)
    return _mark_passed(rs, h, last.seat, last.tile, taker), last.as_passed()


def _mark_passed(rs: Ruleset, h: HandState, owner: Seat, tile: Tile | None,
                 taker: Seat | None) -> HandState:
    """Seats that let a winning ``tile`` go by are furiten: until their next discard, or for
    the rest of the hand after riichi (S §51(2)(3), §39-9; M 5-5; μ §64)."""
    if not rs.furiten.enabled or tile is None:
        return h
    kind = tile.id >> 2
    seats = h.seats
    completes = hand_shape.completes
    for s in ron_order(owner):
        st = seats[s]
        # hand_shape.wins_on, the hand's own tiles first: the melds (a kind all four of which
        # the seat holds is no wait, M 3-11-2) only matter for the rare hand the tile completes.
        concealed = st.concealed
        if concealed is None or len(concealed) % 3 != 1 or not completes(concealed, tile) \
                or s == taker or _held_counts(st)[kind] >= 4:
            continue
        if st.riichi == "accepted":
            if not st.furiten_riichi:
                h = set_seat(h, s, replace(st, furiten_riichi=True))
        elif not st.furiten_temp:
            h = set_seat(h, s, replace(st, furiten_temp=True))
    return h


def close_kan_window(rs: Ruleset, h: HandState) -> HandState:
    """The kan stands: a kakan tile nobody robbed counts as passed (S §51(2) names kakan)."""
    window = h.kan_window
    if window is None:
        return h
    seat, tile, is_ankan, _ = window
    h = replace(h, kan_window=None)
    return h if is_ankan else _mark_passed(rs, h, seat, tile, None)


def break_ippatsu(h: HandState) -> HandState:
    if not any(st.ippatsu for st in h.seats):
        return h
    seats = tuple(replace(st, ippatsu=False) for st in h.seats)
    return replace(h, seats=(seats[0], seats[1], seats[2], seats[3]))


def wall_for(h: HandState) -> Wall | None:
    return None if h.brk is None else Wall(h.brk)


def ruleset_of(t: TableState) -> Ruleset:
    assert t.ruleset is not None
    return t.ruleset


def ura_indices(rs: Ruleset, n: int) -> list[int]:
    count = n if (rs.dora.kan_dora and rs.dora.kan_ura) else min(n, 1)
    return list(Wall.URA[:count])


def hand_context(rs: Ruleset, t: TableState, h: HandState, riichi_seats: Sequence[Seat]
             ) -> HandContext:
    assert t.game is not None
    dora = tuple(i.tile for i in h.indicators if i.tile is not None)
    ura = h.ura
    if not ura and h.wall is not None and rs.dora.ura:
        ura = tuple(h.wall[i] for i in ura_indices(rs, len(h.indicators)))
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
