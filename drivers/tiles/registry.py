"""Tag id → physical tile, for one enrolled tile set (pure lookup; loading in :mod:`.enroll`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from drivers.tiles.errors import EnrolmentError
from rules.tiles import Tile


def normalize_tag(text: str) -> str:
    """Tag ids are compared as upper-case hex without separators (``04:a1:b2`` → ``04A1B2``)."""
    tag = "".join(ch for ch in text.strip() if ch not in ": -").upper()
    if not tag or any(ch not in "0123456789ABCDEF" for ch in tag):
        raise EnrolmentError(f"not a tag id: {text!r} (expected hex digits, e.g. '04A1B2C3')")
    return tag


@dataclass(frozen=True, slots=True)
class TagRegistry:
    tiles: Mapping[str, Tile]
    aka: bool = True

    def __post_init__(self) -> None:
        seen: dict[Tile, str] = {}
        for tag, tile in self.tiles.items():
            if tag != normalize_tag(tag):
                raise EnrolmentError(f"tag {tag!r} is not normalized")
            if tile in seen:
                raise EnrolmentError(f"tile {tile.id} has two tags: {seen[tile]} and {tag}")
            seen[tile] = tag
        object.__setattr__(self, "tiles", MappingProxyType(dict(self.tiles)))

    def tile(self, tag: str) -> Tile | None:
        return self.tiles.get(tag)

    @property
    def complete(self) -> bool:
        return len(self.tiles) == 136
