"""A read-only mapping that hashes and pickles.

Ruleset tables (``minor_chombo_pt``, Zung Jung ``patterns``) sit inside frozen dataclasses that
are hashed (``functools.cache`` keys: rules/conditions.py) and pickled with the table state
(daemon checkpoints). ``types.MappingProxyType`` does neither, so one mapping field made the whole
``Ruleset`` unhashable and every checkpoint fail.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class FrozenMap(Mapping[K, V], Generic[K, V]):
    """A copy of ``items`` that cannot change; equal to any mapping with the same items."""

    __slots__ = ("_items",)

    def __init__(self, items: Mapping[K, V] | None = None) -> None:
        self._items: dict[K, V] = dict(items or {})

    def __getitem__(self, key: K) -> V:
        return self._items[key]

    def get(self, key: K, default: Any = None) -> Any:
        # (Mapping.get is __getitem__ in a try: a missing key, the common answer of a penalty
        # table, raised and caught a KeyError)
        return self._items.get(key, default)

    def __iter__(self) -> Iterator[K]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __hash__(self) -> int:
        return hash(frozenset(self._items.items()))

    def __reduce__(self) -> tuple[Any, ...]:
        return (FrozenMap, (self._items,))

    def __repr__(self) -> str:
        return f"FrozenMap({self._items!r})"
