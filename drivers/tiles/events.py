"""What tile sensors report. Every byte a reader sends ends up in exactly one of these.

Reader level (per physical reader, named by its config ``name``):

* :class:`TagSeen` — a complete, well-formed tag id;
* :class:`ReaderFault` — bytes that did not make a tag (garbage, truncated, bad checksum, ...), or
  the reader going away / coming back. Faults are reported, never repaired into a guessed tag.

Tile level (:class:`~drivers.tiles.sensor.TileSensor`):

* :class:`TileRead` — a known tile placed at a place;
* :class:`Rejection` — a tag that was seen but is not a new read: unknown tag, a repeat of the same
  placement, or a tile that cannot be where it was read.

Times are nanoseconds of the reader's clock: the kernel's event timestamp for evdev readers, the
daemon's monotonic clock at reception for serial readers.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from drivers.tiles.places import Place
from rules.tiles import Tile


@dataclass(frozen=True, slots=True)
class TagSeen:
    reader: str
    tag: str  # upper-case hex digits
    t_ns: int

    def as_json(self) -> dict[str, object]:
        return {"type": "tag_seen", "reader": self.reader, "tag": self.tag, "t_ns": self.t_ns}


class FaultKind(Enum):
    GARBAGE = "garbage"  # bytes or keys that are not part of any frame/tag
    TRUNCATED = "truncated"  # a tag or frame that stopped before its end
    TOO_LONG = "too-long"  # a tag or frame longer than any tag id
    BAD_CHECKSUM = "bad-checksum"  # a complete serial frame whose checksum does not match
    DROPPED = "dropped"  # the kernel dropped input events (SYN_DROPPED): a tag may be lost
    GRAB_FAILED = "grab-failed"  # EVIOCGRAB refused: keystrokes may also reach the console
    UNPLUGGED = "unplugged"  # the device went away (read error or end of file)
    CONNECTED = "connected"  # the device was opened (at start and after every re-plug)


@dataclass(frozen=True, slots=True)
class ReaderFault:
    reader: str
    kind: FaultKind
    detail: str
    t_ns: int

    def as_json(self) -> dict[str, object]:
        return {"type": "reader_fault", "reader": self.reader, "fault": self.kind.value,
                "detail": self.detail, "t_ns": self.t_ns}


ReaderEvent = TagSeen | ReaderFault


@dataclass(frozen=True, slots=True)
class TileRead:
    """A tile placed at ``place``. ``previous`` is where the location model had it (None: unseen
    since the last reset)."""

    reader: str
    tag: str
    tile: Tile
    place: Place
    previous: Place | None
    t_ns: int

    def as_json(self, aka: bool = True) -> dict[str, object]:
        return {
            "type": "tile_read",
            "reader": self.reader,
            "tag": self.tag,
            "tile": self.tile.id,
            "mjai": self.tile.mjai(aka),
            "place": self.place.as_json(),
            "previous": None if self.previous is None else self.previous.as_json(),
            "t_ns": self.t_ns,
        }


class RejectReason(Enum):
    UNKNOWN_TAG = "unknown-tag"  # not in the enrolled tile set
    REPEAT = "repeat"  # the same tag on the same reader within the debounce window
    IMPOSSIBLE = "impossible"  # the tile cannot move from where it is to where it was read
    UNMAPPED_READER = "unmapped-reader"  # a reader with no place in the config


@dataclass(frozen=True, slots=True)
class Rejection:
    reader: str
    tag: str
    reason: RejectReason
    detail: str
    t_ns: int
    tile: Tile | None = None

    def as_json(self) -> dict[str, object]:
        return {
            "type": "tile_rejected",
            "reader": self.reader,
            "tag": self.tag,
            "reason": self.reason.value,
            "detail": self.detail,
            "tile": None if self.tile is None else self.tile.id,
            "t_ns": self.t_ns,
        }
