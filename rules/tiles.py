"""The 136 physical tiles and their notations.

A physical tile is identified by its id ``0..135``, the same numbering as the ``mahjong`` package's
136-array: ``id = kind * 4 + copy``. Kinds ``0..33`` are 1m..9m, 1p..9p, 1s..9s, E S W N, P F C
(haku, hatsu, chun). When a game plays with red fives, the red ones are copy 0 of each five:
ids 16 (5m), 52 (5p) and 88 (5s) — again the ``mahjong`` package's convention.

Notations converted losslessly here:

* mjai: ``1m``..``9m``, ``5mr`` (red), ``E S W N P F C``, ``?`` (hidden, not a tile);
* tenhou.net/6 numbers: 11..19, 21..29, 31..39, 41..47, and 51/52/53 for red 5m/5p/5s;
* the ``mahjong`` package's 136 ids (identity) and 34 kinds.

Whether a game uses red fives is a property of the game (ruleset or record), so conversions that
depend on it take ``aka``; with ``aka=False`` copy 0 of a five is an ordinary five.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from enum import IntEnum
from operator import attrgetter

from rules.errors import RulesError


class TileError(RulesError, ValueError):
    """A tile notation or id that does not name a tile."""


class Suit(IntEnum):
    MAN = 0
    PIN = 1
    SOU = 2
    HONOR = 3


_SUIT_LETTER = "mps"
_HONOR_MJAI = ("E", "S", "W", "N", "P", "F", "C")


class Kind(IntEnum):
    """The 34 kinds of tile, numbered as the ``mahjong`` package's 34-array."""

    M1 = 0
    M2 = 1
    M3 = 2
    M4 = 3
    M5 = 4
    M6 = 5
    M7 = 6
    M8 = 7
    M9 = 8
    P1 = 9
    P2 = 10
    P3 = 11
    P4 = 12
    P5 = 13
    P6 = 14
    P7 = 15
    P8 = 16
    P9 = 17
    S1 = 18
    S2 = 19
    S3 = 20
    S4 = 21
    S5 = 22
    S6 = 23
    S7 = 24
    S8 = 25
    S9 = 26
    EAST = 27
    SOUTH = 28
    WEST = 29
    NORTH = 30
    HAKU = 31
    HATSU = 32
    CHUN = 33

    @property
    def suit(self) -> Suit:
        return Suit(min(self.value // 9, 3))

    @property
    def number(self) -> int:
        """1..9 for suited tiles; 1..7 for honors (E S W N P F C)."""
        return self.value % 9 + 1 if self.value < 27 else self.value - 26

    @property
    def is_honor(self) -> bool:
        return self.value >= 27

    @property
    def is_terminal(self) -> bool:
        return self.value < 27 and self.number in (1, 9)

    @property
    def is_yaochu(self) -> bool:
        return self.is_honor or self.is_terminal

    @property
    def is_wind(self) -> bool:
        return 27 <= self.value <= 30

    @property
    def is_dragon(self) -> bool:
        return self.value >= 31

    @property
    def mjai(self) -> str:
        names = _KIND_MJAI
        if names:  # a table once the 34 names exist (every event carries tile names)
            return names[self]
        if self.value >= 27:
            return _HONOR_MJAI[self.value - 27]
        return f"{self.number}{_SUIT_LETTER[self.suit]}"

    @property
    def tenhou(self) -> int:
        return (self.suit + 1) * 10 + self.number

    def dora_from_indicator(self) -> Kind:
        """The dora that this kind indicates: 9→1, E→S→W→N→E, P→F→C→P (S §24-3, M 2-6-1)."""
        v = self.value
        if v < 27:
            return Kind(v - 8 if v % 9 == 8 else v + 1)
        if v <= 30:
            return Kind(27 if v == 30 else v + 1)
        return Kind(31 if v == 33 else v + 1)

    @classmethod
    def from_mjai(cls, text: str) -> Kind:
        kind, _ = parse_mjai(text)
        return kind

    def __repr__(self) -> str:
        return f"Kind.{self.name}"


_KIND_MJAI: tuple[str, ...] = ()
_KIND_MJAI = tuple(k.mjai for k in Kind)

RED_IDS: frozenset[int] = frozenset({16, 52, 88})
"""Physical ids of the red fives when a game plays with them (copy 0 of 5m, 5p, 5s)."""

_RED_KIND_OF_TENHOU = {51: Kind.M5, 52: Kind.P5, 53: Kind.S5}
#: every valid mjai tile name: "1m".."9s", "5mr"/"5pr"/"5sr", "E".."C"
_MJAI_NAMES: dict[str, tuple[Kind, bool]] = {
    **{k.mjai: (k, False) for k in Kind},
    **{Kind(s * 9 + 4).mjai + "r": (Kind(s * 9 + 4), True) for s in range(3)},
}


def parse_mjai(text: str) -> tuple[Kind, bool]:
    """``"5mr"`` → ``(Kind.M5, True)``; raises :class:`TileError` for anything else."""
    if text.__class__ is str:
        known = _MJAI_NAMES.get(text)
        if known is not None:  # every record names tiles: one lookup (the rest says why not)
            return known
    if not isinstance(text, str):
        raise TileError(f"mjai tile must be a string, got {text!r}")
    if len(text) == 1 and text in _HONOR_MJAI:
        return Kind(27 + _HONOR_MJAI.index(text)), False
    red = False
    body = text
    if len(text) == 3 and text.endswith("r"):
        red, body = True, text[:2]
    if len(body) == 2 and body[0] in "123456789" and body[1] in _SUIT_LETTER:
        number = int(body[0])
        if red and number != 5:
            raise TileError(f"only fives can be red: {text!r}")
        return Kind(_SUIT_LETTER.index(body[1]) * 9 + number - 1), red
    raise TileError(f"not an mjai tile: {text!r} (expected e.g. '1m', '5pr', 'E', 'P', 'C')")


def parse_tenhou(code: int) -> tuple[Kind, bool]:
    """tenhou.net/6 number → ``(kind, red)``. 11..19 man, 21..29 pin, 31..39 sou, 41..47 honors,
    51..53 red 5m/5p/5s."""
    if isinstance(code, bool) or not isinstance(code, int):
        raise TileError(f"tenhou tile must be an integer, got {code!r}")
    if code in _RED_KIND_OF_TENHOU:
        return _RED_KIND_OF_TENHOU[code], True
    suit, number = divmod(code, 10)
    if 1 <= suit <= 3 and 1 <= number <= 9:
        return Kind((suit - 1) * 9 + number - 1), False
    if suit == 4 and 1 <= number <= 7:
        return Kind(26 + number), False
    raise TileError(f"not a tenhou.net/6 tile: {code!r}")


@dataclass(frozen=True, slots=True, init=False, eq=False)
class Tile:
    """One physical tile, by its id 0..135 (``mahjong`` package numbering).

    There are 136 tiles and exactly one object for each (``Tile(i)`` is ``ALL_TILES[i]``), so
    equality is identity: comparing, finding and removing tiles in a hand, which every input
    does, never calls Python code. The hash stays the value a dataclass gives (deterministic, so
    set order is the same from run to run). Tiles have no order of their own: sort them with
    ``key=BY_ID``. (Any ordering method written in Python makes CPython route *every*
    comparison of the class through Python, equality included: ``tile in hand`` cost a tenth of
    a replay.)
    """

    id: int

    def __new__(cls, id: int) -> Tile:
        if isinstance(id, bool) or not isinstance(id, int) or not 0 <= id < 136:
            raise TileError(f"tile id must be 0..135, got {id!r}")
        if _MADE:
            return ALL_TILES[id]
        tile = object.__new__(cls)
        object.__setattr__(tile, "id", id)
        return tile

    def __hash__(self) -> int:
        return hash((self.id,))

    def __reduce__(self) -> tuple[type[Tile], tuple[int]]:
        return Tile, (self.id,)  # unpickled and copied as the one object of its id

    @property
    def kind(self) -> Kind:
        return _KINDS[self.id >> 2]  # a table, not Kind(...): the enum call is the hot path

    @property
    def copy(self) -> int:
        return self.id % 4

    def is_red(self, aka: bool = True) -> bool:
        return aka and self.id in RED_IDS

    def mjai(self, aka: bool = True) -> str:
        return (_TILE_MJAI_AKA if aka else _TILE_MJAI)[self.id]

    def tenhou(self, aka: bool = True) -> int:
        if self.is_red(aka):
            return 51 + self.kind.suit
        return self.kind.tenhou

    def __repr__(self) -> str:
        return f"Tile({self.id})"

    def __str__(self) -> str:
        return self.mjai()


#: the sort key of tiles (by id; a C function, not a lambda: every draw sorts a hand)
BY_ID = attrgetter("id")

_MADE: list[bool] = []  # empty while ALL_TILES is being made
ALL_TILES: tuple[Tile, ...] = tuple(Tile(i) for i in range(136))
_MADE.append(True)
#: every tile's mjai name, plain and with red fives (events name every tile they carry)
_TILE_MJAI: tuple[str, ...] = tuple(_KIND_MJAI[i >> 2] for i in range(136))
_TILE_MJAI_AKA: tuple[str, ...] = tuple(
    n + ("r" if i in RED_IDS else "") for i, n in enumerate(_TILE_MJAI))
_KINDS: tuple[Kind, ...] = tuple(Kind)  # by value: Kind(v) is _KINDS[v]


class TileAllocator:
    """Gives physical tiles to notations that only name kinds (mjai, tenhou.net/6 records).

    Records name ``5m`` four times; a physical model needs four distinct tiles. The allocator hands
    out the plain copies of a kind in order and the red copy only for a red name (with ``aka``), and
    refuses a fifth copy: that is how an impossible record is caught at import.
    """

    __slots__ = ("_aka", "_used")

    def __init__(self, *, aka: bool = True) -> None:
        self._aka = aka
        self._used: set[int] = set()

    @property
    def aka(self) -> bool:
        return self._aka

    def take(self, kind: Kind, red: bool = False) -> Tile:
        if red and not self._aka:
            raise TileError(f"red {kind.mjai} in a game without red fives")
        used = self._used
        # ids, not Tile methods, from a table: a record takes every tile
        for t in NAMED_COPIES[self._aka][red][kind]:
            if t.id not in used:
                used.add(t.id)
                return t
        what = f"red {kind.mjai}" if red else kind.mjai
        raise TileError(f"no {what} left: all copies are already in play")

    def release(self, tile: Tile) -> None:
        self._used.discard(tile.id)

    def remaining(self) -> Iterator[Tile]:
        return (t for t in ALL_TILES if t.id not in self._used)


#: ``NAMED_COPIES[aka][red][kind]``: the physical tiles a kind's name means, by id (the plain
#: copies, or the red one for a red name; with ``aka`` false every copy is plain): what
#: :meth:`TileAllocator.take` gives in this order
NAMED_COPIES: tuple[tuple[tuple[tuple[Tile, ...], ...], ...], ...] = tuple(
    tuple(
        tuple(
            tuple(t for t in ALL_TILES[4 * k:4 * k + 4] if (aka and t.id in RED_IDS) == red)
            for k in range(34)
        )
        for red in (False, True)
    )
    for aka in (False, True)
)


def kinds_to_34(tiles: Iterable[Tile]) -> list[int]:
    """Counts per kind (the ``mahjong`` package's 34-array)."""
    counts = [0] * 34
    for t in tiles:
        counts[t.id // 4] += 1
    return counts
