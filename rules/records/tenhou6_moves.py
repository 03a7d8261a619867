"""The moves of one tenhou.net/6 hand: each seat's ``takes`` (a draw, or a call string: ``c``
chi, ``p`` pon, ``m`` daiminkan, the letter's place telling whom it was called from) and
``discards`` (a tile, ``60`` for the drawn tile, ``r``+tile for a riichi discard, ``0`` after a
daiminkan, or a kan string: ``a`` ankan, ``k`` kakan), and the play order rebuilt from them
(rules/records/tenhou6.py has the record's whole layout)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from rules.records.builder import TileName
from rules.records.model import RecordError
from rules.tiles import TileError, parse_tenhou


@dataclass(frozen=True, slots=True)
class Take:
    kind: Literal["draw", "chi", "pon", "daiminkan"]
    tile: TileName  # the drawn or the called tile
    consumed: tuple[TileName, ...] = ()
    rel: int = 0  # the source seat, counted from the taker: 1 right, 2 opposite, 3 left

    def calls(self, taker: int, src: int, tile: TileName) -> bool:
        return self.kind != "draw" and (taker + self.rel) % 4 == src and self.tile == tile


@dataclass(frozen=True, slots=True)
class Cut:
    kind: Literal["discard", "ankan", "kakan", "skip"]
    tile: TileName | None = None  # None: the drawn tile (60)
    riichi: bool = False
    consumed: tuple[TileName, ...] = ()


class BadEntry(RecordError):
    """One entry of a hand that cannot be read (a tile code, a call string, a result): the
    importer reports the hand as an import issue and goes on with the record."""


def tile_name(code: Any, aka: bool, notes: set[str]) -> TileName:
    try:
        kind, red = parse_tenhou(code)
    except TileError as exc:
        raise BadEntry(str(exc)) from exc
    if red and not aka:
        notes.add("red-five codes in a game without red fives are read as ordinary fives")
        red = False
    return kind, red


def call_codes(text: str, letter_at: int) -> list[int]:
    digits = text[:letter_at] + text[letter_at + 1 :]
    if len(digits) % 2 or not digits.isdigit():
        raise BadEntry(f"bad call string {text!r}")
    return [int(digits[i : i + 2]) for i in range(0, len(digits), 2)]


def parse_take(item: Any, aka: bool, notes: set[str]) -> Take:
    if isinstance(item, int) and not isinstance(item, bool):
        return Take("draw", tile_name(item, aka, notes))
    if not isinstance(item, str):
        raise BadEntry(f"bad take {item!r}")
    for letter, kind, places in (
        ("c", "chi", {0: 3}),
        ("p", "pon", {0: 3, 2: 2, 4: 1}),
        ("m", "daiminkan", {0: 3, 2: 2, 6: 1}),
    ):
        at = item.find(letter)
        if at < 0:
            continue
        if at not in places:
            raise BadEntry(f"bad call string {item!r}: {letter!r} at {at}")
        codes = call_codes(item, at)
        if len(codes) != (4 if kind == "daiminkan" else 3):
            raise BadEntry(f"bad call string {item!r}")
        called = at // 2
        tiles = [tile_name(c, aka, notes) for c in codes]
        consumed = tuple(t for i, t in enumerate(tiles) if i != called)
        return Take(kind, tiles[called], consumed, places[at])  # type: ignore[arg-type]
    raise BadEntry(f"bad take {item!r}")


def parse_discard(item: Any, aka: bool, notes: set[str]) -> Cut:
    if isinstance(item, int) and not isinstance(item, bool):
        if item == 60:
            return Cut("discard", None)
        if item == 0:
            return Cut("skip")
        return Cut("discard", tile_name(item, aka, notes))
    if not isinstance(item, str):
        raise BadEntry(f"bad discard {item!r}")
    if item.startswith("r") and len(item) == 3 and item[1:].isdigit():
        code = int(item[1:])
        return Cut("discard", None if code == 60 else tile_name(code, aka, notes), riichi=True)
    at = item.find("a")
    if at >= 0:
        codes = call_codes(item, at)
        if len(codes) != 4:
            raise BadEntry(f"bad ankan string {item!r}")
        return Cut("ankan", consumed=tuple(tile_name(c, aka, notes) for c in codes))
    at = item.find("k")
    if at >= 0:
        if at not in (0, 2, 4):
            raise BadEntry(f"bad kakan string {item!r}")
        codes = call_codes(item, at)
        if len(codes) != 4:
            raise BadEntry(f"bad kakan string {item!r}")
        added = codes[at // 2]
        return Cut("kakan", tile_name(added, aka, notes))
    raise BadEntry(f"bad discard {item!r}")


Step = tuple[Literal["t", "d"], int]


def play_order(takes: list[list[Take]], discards: list[list[Cut]], dealer: int) -> list[Step]:
    """The play order of the four seats' moves; raises :class:`BadEntry` when none fits."""
    n_takes = [len(t) for t in takes]
    n_discards = [len(d) for d in discards]
    budget = [20000]

    def done(ti: list[int], di: list[int]) -> bool:
        return ti == n_takes and di == n_discards

    def turn(
        actor: int, ti: list[int], di: list[int], last: tuple[int, TileName] | None
    ) -> list[Step] | None:
        budget[0] -= 1
        if budget[0] < 0:
            return None
        seq: list[Step] = []
        drawn: TileName | None = None
        while True:
            if ti[actor] >= n_takes[actor]:
                return None
            take = takes[actor][ti[actor]]
            if take.kind != "draw" and (last is None or not take.calls(actor, *last)):
                return None
            ti[actor] += 1
            seq.append(("t", actor))
            drawn = take.tile if take.kind == "draw" else None
            last = None
            if take.kind == "daiminkan":
                if di[actor] < n_discards[actor] and discards[actor][di[actor]].kind == "skip":
                    di[actor] += 1
                    seq.append(("d", actor))
                continue
            if di[actor] >= n_discards[actor]:
                return seq if done(ti, di) else None  # tsumo or nine terminals
            d = discards[actor][di[actor]]
            if d.kind == "skip":
                return None
            if d.kind == "discard" and d.tile is None and drawn is None:
                return None
            di[actor] += 1
            seq.append(("d", actor))
            if d.kind in ("ankan", "kakan"):
                if done(ti, di):
                    return seq  # robbed kakan (chankan)
                continue  # the replacement draw
            tile = d.tile if d.tile is not None else drawn
            assert tile is not None
            if done(ti, di):
                return seq  # ron, exhaustive or abortive draw on this discard
            break
        # Who acts next: a caller of this tile (pon/kan first), else the next seat draws.
        cands: list[tuple[int, int]] = []
        for a in range(4):
            if a == actor or ti[a] >= n_takes[a]:
                continue
            nxt = takes[a][ti[a]]
            if nxt.calls(a, actor, tile):
                cands.append((0 if nxt.kind != "chi" else 1, a))
        cands.sort()
        following = (actor + 1) % 4
        options = [a for _, a in cands]
        if following not in options:
            options.append(following)
        for a in options:
            rest = turn(a, list(ti), list(di), (actor, tile))
            if rest is not None:
                return seq + rest
        return None

    result = turn(dealer, [0, 0, 0, 0], [0, 0, 0, 0], None)
    if result is None:
        raise BadEntry("the four seats' takes and discards do not fit one play order")
    return result
