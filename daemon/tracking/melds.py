"""A closed meld area → a call, a concealed or an added kan, or a rejection (pure).

A meld is complete when the seat's meld area stops changing: the next read elsewhere or the next
table event closes it. Then the last discard + 2 hand tiles is a chi or a pon, + 3 a daiminkan
(S §40, M 3-6); 4 hand tiles of one kind an ankan; 1 hand tile of an own pon's kind a kakan
(S §41-42). Anything else is not a meld: a ``tile_rejected`` marker naming the seat, and the tiles
are where they were (where the reducer has them: the players put them back).
"""

from __future__ import annotations

from collections.abc import Sequence

from daemon.tracking.held import MeldTile
from daemon.tracking.records import Entry, input_entry, rejected, seat_source
from drivers.tiles.places import Zone
from rules.inputs import Ankan, Call, Kakan
from rules.seats import Seat
from rules.table_state import TableState
from rules.tiles import Kind, Tile


def close(state: TableState | None, seat: Seat, tiles: Sequence[MeldTile], aka: bool) -> Entry:
    """The one record a closed meld area of ``seat`` makes."""
    h = None if state is None else state.hand
    if h is None:
        return _reject(seat, tiles, "no_hand", aka)
    st = h.seats[seat]
    called = [t for t, prev in tiles if prev is not None and prev.zone is Zone.RIVER]
    own = [t for t, prev in tiles if prev is None or prev.zone is not Zone.RIVER]
    source = seat_source(seat)
    if len(called) == 1 and len(own) in (2, 3):
        c = called[0]
        if h.last is None or h.last.tile != c:
            return _reject(seat, tiles, "not_last_discard", aka)
        hand_tiles = tuple(sorted(own, key=lambda t: t.id))
        same = all(t.kind == c.kind for t in hand_tiles)
        if len(own) == 3 and same:
            return input_entry(source, Call(seat=seat, kind="daiminkan", tiles=hand_tiles))
        if same:
            return input_entry(source, Call(seat=seat, kind="pon", tiles=hand_tiles))
        if len(own) == 2 and _is_run(c, hand_tiles):
            return input_entry(source, Call(seat=seat, kind="chi", tiles=hand_tiles))
        return _reject(seat, tiles, "not_a_meld", aka)
    if not called and len(own) == 4 and len({t.kind for t in own}) == 1:
        order = {t: i for i, t in enumerate(st.concealed or ())}
        four = sorted(own, key=lambda t: order.get(t, 99 + t.id))
        return input_entry(source, Ankan(seat=seat, tiles=(four[0], four[1], four[2], four[3])))
    if not called and len(own) == 1 and any(
        m.kind == "pon" and m.tiles[0].kind == own[0].kind for m in st.melds
    ):
        return input_entry(source, Kakan(seat=seat, tile=own[0]))
    return _reject(seat, tiles, "not_a_meld", aka)


def _reject(seat: Seat, tiles: Sequence[MeldTile], reason: str, aka: bool) -> Entry:
    desc = "+".join(t.mjai(aka) for t, _ in tiles)
    # ``seat``: the meld area this closes (daemon.tracking.held.settle reads it back)
    return rejected(f"meld {desc} of seat {int(seat)}", reason, seat=int(seat),
                    tiles=[t.id for t, _ in tiles])


def _is_run(called: Tile, two: Sequence[Tile]) -> bool:
    kinds = sorted([called.kind.value, *(t.kind.value for t in two)])
    if any(Kind(k).is_honor for k in kinds) or len({k // 9 for k in kinds}) != 1:
        return False
    return kinds[1] == kinds[0] + 1 and kinds[2] == kinds[1] + 1
