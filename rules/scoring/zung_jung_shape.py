"""Zung Jung winning shapes and every arrangement of a winning hand (ZJ Freedom of Count).

A winning hand is a *regular hand* (4 sets + the eyes), or one of the two *irregular hands* of
category 10: Seven Pairs and Thirteen Terminals ([MT2]; anything else is a "false win").
:func:`arrangements` lists every way to read the concealed tiles, each with the group that holds
the winning tile: under Freedom of Count ([ZJbk]) the winner picks the arrangement that scores
best, and patterns from different arrangements never mix, so the scorer values each one alone.

Everything here works on the 34 kinds (``rules.tiles.Kind`` values), never on physical ids, so
the result cannot depend on which copy of a tile was drawn or on the order of the tiles.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from rules.tiles import Kind

GroupKind = Literal["chow", "pung", "kong", "pair"]
Shape = Literal["regular", "seven_pairs", "thirteen_terminals"]

YAOCHU: tuple[int, ...] = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)
"""Terminal and honor kinds: the thirteen of Thirteen Terminals (10.1)."""


def kind_text(kind: int) -> str:
    return Kind(kind).mjai


@dataclass(frozen=True, slots=True, order=True)
class Group:
    """A set (chow/pung/kong) or a pair. ``first`` is the lowest kind; ``concealed`` is the
    concealed-triplet sense (4.2): no tile of it came from a discard — a shown meld other than
    a concealed kong is not concealed, and neither is a pung completed by the winning discard.
    ``melded`` marks a set that was shown before the win (Win.melds)."""

    kind: GroupKind
    first: int
    concealed: bool
    melded: bool = False

    @property
    def kinds(self) -> tuple[int, ...]:
        if self.kind == "chow":
            return (self.first, self.first + 1, self.first + 2)
        size = {"pung": 3, "kong": 4, "pair": 2}[self.kind]
        return (self.first,) * size

    @property
    def is_set(self) -> bool:
        return self.kind != "pair"

    @property
    def is_triplet(self) -> bool:
        """A pung or a kong: "triplet/kong" in the pattern texts."""
        return self.kind in ("pung", "kong")

    def contains(self, kind: int) -> bool:
        return kind in self.kinds

    def text(self) -> str:
        kinds = self.kinds
        if kinds[0] >= 27:
            return "".join(kind_text(k) for k in kinds)
        return "".join(str(Kind(k).number) for k in kinds) + "mps"[kinds[0] // 9]

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "tiles": self.text(),
            "concealed": self.concealed,
            "melded": self.melded,
        }


@dataclass(frozen=True, slots=True)
class Arrangement:
    """One reading of a winning hand.

    ``groups``: regular — the 4 sets (shown melds included) then the eyes; Seven Pairs — the 7
    pairs; Thirteen Terminals — empty. ``tiles``: every tile's kind, sorted (a kong counts 4).
    ``win_group``: index in ``groups`` of the group read as completed by the winning tile
    (``None`` for Thirteen Terminals)."""

    shape: Shape
    groups: tuple[Group, ...]
    tiles: tuple[int, ...]
    win_group: int | None

    @property
    def sets(self) -> tuple[Group, ...]:
        return tuple(g for g in self.groups if g.is_set)

    @property
    def eyes(self) -> Group | None:
        if self.shape != "regular":
            return None
        return self.groups[-1]

    def sort_key(self) -> tuple[Any, ...]:
        return (self.shape, self.groups, -1 if self.win_group is None else self.win_group)

    def to_json(self) -> dict[str, Any]:
        return {
            "shape": self.shape,
            "groups": [g.to_json() for g in self.groups],
            "tiles": " ".join(kind_text(k) for k in self.tiles),
            "win_group": self.win_group,
        }


Split = list[tuple[GroupKind, int]]


def _decompose(counts: list[int], start: int, need_pair: bool) -> list[Split]:
    """Every split of ``counts`` into pungs and chows (and one pair if ``need_pair``)."""
    i = start
    while i < 34 and counts[i] == 0:
        i += 1
    if i == 34:
        return [] if need_pair else [[]]
    out: list[Split] = []
    if need_pair and counts[i] >= 2:
        counts[i] -= 2
        out.extend([("pair", i), *rest] for rest in _decompose(counts, i, False))
        counts[i] += 2
    if counts[i] >= 3:
        counts[i] -= 3
        out.extend([("pung", i), *rest] for rest in _decompose(counts, i, need_pair))
        counts[i] += 3
    if i < 27 and i % 9 <= 6 and counts[i + 1] and counts[i + 2]:
        for k in (i, i + 1, i + 2):
            counts[k] -= 1
        out.extend([("chow", i), *rest] for rest in _decompose(counts, i, need_pair))
        for k in (i, i + 1, i + 2):
            counts[k] += 1
    return out


def _regular(
    concealed_counts: list[int], melds: tuple[Group, ...], win_kind: int, ron: bool
) -> list[Arrangement]:
    if sum(concealed_counts) != (4 - len(melds)) * 3 + 2:
        return []
    all_tiles = list(concealed_counts)
    for m in melds:
        for k in m.kinds:
            all_tiles[k] += 1
    tiles = tuple(k for k in range(34) for _ in range(all_tiles[k]))
    out: dict[tuple[Any, ...], Arrangement] = {}
    for split in _decompose(list(concealed_counts), 0, True):
        hand_sets = sorted((kind, first) for kind, first in split if kind != "pair")
        pair = next(first for kind, first in split if kind == "pair")
        # Any concealed group holding the winning kind may be read as the one the winning tile
        # completed (Freedom of Count); on a discard that group is not concealed (ZJ 4.2).
        options: list[int | None] = []
        seen: set[tuple[GroupKind, int]] = set()
        for idx, (kind, first) in enumerate(hand_sets):
            if (kind, first) not in seen and win_kind in Group(kind, first, True).kinds:
                seen.add((kind, first))
                options.append(idx)
        if pair == win_kind:
            options.append(None)  # the eyes
        for opt in options:
            sets = [
                Group(kind, first, not (ron and idx == opt and kind == "pung"))
                for idx, (kind, first) in enumerate(hand_sets)
            ]
            ordered = sorted([*sets, *melds])
            if opt is None:
                win_index = len(ordered)
            else:
                win_index = next(i for i, g in enumerate(ordered) if g is sets[opt])
            arr = Arrangement("regular", (*ordered, Group("pair", pair, True)), tiles, win_index)
            out.setdefault(arr.sort_key(), arr)
    return list(out.values())


def _seven_pairs(counts: list[int], win_kind: int) -> list[Arrangement]:
    # 10.2: seven pairs; four of a kind may stand as two pairs unless declared as a kong.
    if sum(counts) != 14 or any(c % 2 for c in counts):
        return []
    pairs = tuple(Group("pair", k, True) for k in range(34) for _ in range(counts[k] // 2))
    tiles = tuple(k for k in range(34) for _ in range(counts[k]))
    win_index = next(i for i, g in enumerate(pairs) if g.first == win_kind)
    return [Arrangement("seven_pairs", pairs, tiles, win_index)]


def _thirteen_terminals(counts: list[int]) -> list[Arrangement]:
    # 10.1: one of each terminal and honor, plus one more of them.
    if sum(counts) != 14 or any(counts[k] == 0 for k in YAOCHU):
        return []
    if sum(counts[k] for k in YAOCHU) != 14:
        return []
    tiles = tuple(k for k in range(34) for _ in range(counts[k]))
    return [Arrangement("thirteen_terminals", (), tiles, None)]


def arrangements(
    concealed: tuple[int, ...], melds: tuple[Group, ...], win_kind: int, ron: bool
) -> list[Arrangement]:
    """Every arrangement of a winning hand, sorted canonically; ``[]`` if it is no winning shape.

    ``concealed``: the kinds of the tiles in hand, winning tile included; ``melds``: the shown
    sets (a concealed kong is ``concealed=True``); ``ron``: won on a discard (or a robbed kong).
    """
    counts = [0] * 34
    for k in concealed:
        counts[k] += 1
    if win_kind not in concealed:
        return []
    found = _regular(counts, melds, win_kind, ron)
    if not melds:
        found += _seven_pairs(counts, win_kind)
        found += _thirteen_terminals(counts)
    return sorted(found, key=Arrangement.sort_key)
