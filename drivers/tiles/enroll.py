"""Enrolment of a tile set's RFID tags (pure): which tag id is in which of the 136 tiles.

Guided: tiles are asked for in id order (``rules/tiles.py``: 1m copies 0..3, 2m, ..., C), so the
operator sorts the set once and scans it in that order; with red fives (``aka``) copy 0 of each
five is the red one and is asked for by name. Resumable: the state is a small JSON document that
the CLI writes (atomically) after every accepted scan. Refusals, with a message naming both tiles:

* a tag that is already enrolled (the same tile scanned twice, or two tiles reading the same UID);
* a second tag for a tile that already has one (only possible when a tile is named explicitly).

State file (``docs/tiles.md``)::

    {"format": "jantaku-tile-enrolment", "version": 1, "aka": true,
     "tags": {"04A1B2C3D4": 0, ...}}      # tag id → tile id
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Final

from drivers.tiles.errors import EnrolmentError
from drivers.tiles.registry import TagRegistry, normalize_tag
from rules.tiles import ALL_TILES, Tile

FORMAT: Final = "jantaku-tile-enrolment"
VERSION: Final = 1


def describe(tile: Tile, aka: bool) -> str:
    """``"5m (red)"``, ``"5m copy 2 of 4"`` — what the operator should pick up next."""
    if tile.is_red(aka):
        return f"{tile.kind.mjai} (red) [tile {tile.id}]"
    return f"{tile.kind.mjai} copy {tile.copy + 1} of 4 [tile {tile.id}]"


@dataclass(frozen=True, slots=True)
class Enrolment:
    aka: bool = True
    tags: Mapping[str, Tile] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def by_tile(self) -> dict[Tile, str]:
        return {tile: tag for tag, tile in self.tags.items()}

    @property
    def complete(self) -> bool:
        return len(self.tags) == len(ALL_TILES)

    def next_tile(self) -> Tile | None:
        """The first tile in id order that has no tag yet (None when the set is complete)."""
        enrolled = set(self.tags.values())
        return next((t for t in ALL_TILES if t not in enrolled), None)

    def scan(self, raw_tag: str, tile: Tile | None = None) -> Enrolment:
        """Enrol ``raw_tag`` for ``tile`` (default: :meth:`next_tile`); raise EnrolmentError."""
        try:
            tag = normalize_tag(raw_tag)
        except ValueError as exc:
            raise EnrolmentError(str(exc)) from None
        target = tile if tile is not None else self.next_tile()
        if target is None:
            raise EnrolmentError("the tile set is complete: all 136 tiles have a tag")
        owner = self.tags.get(tag)
        if owner is not None:
            raise EnrolmentError(
                f"tag {tag} is already enrolled for {describe(owner, self.aka)}; "
                f"refused for {describe(target, self.aka)} (same tile scanned twice, or two tiles "
                f"with the same UID)"
            )
        existing = self.by_tile.get(target)
        if existing is not None:
            raise EnrolmentError(
                f"{describe(target, self.aka)} already has tag {existing}; refused tag {tag} "
                f"(forget the old tag first to replace a tile's tag)"
            )
        tags = dict(self.tags)
        tags[tag] = target
        return Enrolment(self.aka, MappingProxyType(tags))

    def forget(self, raw_tag: str) -> Enrolment:
        tag = normalize_tag(raw_tag)
        if tag not in self.tags:
            raise EnrolmentError(f"tag {tag} is not enrolled")
        return Enrolment(self.aka, MappingProxyType({k: v for k, v in self.tags.items()
                                                     if k != tag}))

    def registry(self) -> TagRegistry:
        return TagRegistry(self.tags, self.aka)

    def to_json(self) -> dict[str, object]:
        ordered = sorted(self.tags.items(), key=lambda kv: kv[1].id)
        return {"format": FORMAT, "version": VERSION, "aka": self.aka,
                "tags": {tag: tile.id for tag, tile in ordered}}

    @classmethod
    def from_json(cls, doc: object) -> Enrolment:
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise EnrolmentError(f"not a {FORMAT} document")
        if doc.get("version") != VERSION:
            raise EnrolmentError(f"enrolment version {doc.get('version')!r}, expected {VERSION}")
        aka, tags = doc.get("aka"), doc.get("tags")
        if not isinstance(aka, bool) or not isinstance(tags, dict):
            raise EnrolmentError("enrolment needs 'aka' (bool) and 'tags' (object)")
        state = cls(aka)
        for tag, tile_id in tags.items():
            if isinstance(tile_id, bool) or not isinstance(tile_id, int) or not 0 <= tile_id < 136:
                raise EnrolmentError(f"tag {tag!r}: tile id must be 0..135, got {tile_id!r}")
            state = state.scan(tag, Tile(tile_id))
        return state


def load(path: Path) -> Enrolment:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise EnrolmentError(f"cannot read enrolment {path}: {exc.strerror}") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise EnrolmentError(f"enrolment {path} is not JSON: {exc}") from None
    try:
        return Enrolment.from_json(doc)
    except EnrolmentError as exc:
        raise EnrolmentError(f"enrolment {path}: {exc}") from None


def save(state: Enrolment, path: Path) -> None:
    """Write atomically (temp file, fsync, rename): a crash mid-write never loses a scan."""
    tmp = path.with_name(path.name + ".tmp")
    data = json.dumps(state.to_json(), indent=1) + "\n"
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
