"""What the table reports (docs/protocol/table-link.md §6): start pressed, wall raised, dice,
break, indicator, wall manifest, seat-panel keys (:class:`SeatKey`, the one numbering), faults."""

from __future__ import annotations

import struct
from collections.abc import Mapping
from dataclasses import dataclass
from enum import IntEnum
from typing import ClassVar

from drivers.link.messages.fields import (
    Obj,
    check_int,
    check_opt_int,
    expect_size,
    fail,
    none_if,
    u8_or_none,
)
from drivers.link.messages.kinds import (
    NONE_U8,
    WALL_TILES,
    FaultCode,
    Json,
    Layer,
    MessageType,
    tile_from_code,
    tile_to_code,
)


@dataclass(frozen=True, slots=True)
class StartPressed:
    """The start button was pressed: at a seat (``seat``) or the centre/console (``None``)."""

    TYPE: ClassVar[MessageType] = MessageType.START_PRESSED
    seat: int | None = None

    def __post_init__(self) -> None:
        check_opt_int("start_pressed", "seat", self.seat, 0, 3)

    def payload(self) -> bytes:
        return bytes((u8_or_none(self.seat),))

    @classmethod
    def from_payload(cls, data: bytes) -> StartPressed:
        expect_size(cls.TYPE, data, 1)
        return cls(none_if(data[0], NONE_U8))

    def to_json(self) -> Json:
        return {"type": "start_pressed", "seat": self.seat}

    @classmethod
    def from_json(cls, obj: Mapping[str, object]) -> StartPressed:
        return cls(Obj(obj, "start_pressed", ("seat",)).opt_int("seat", 0, 3))


@dataclass(frozen=True, slots=True)
class WallRaised:
    """The four walls are up (the lift finished)."""

    TYPE: ClassVar[MessageType] = MessageType.WALL_RAISED

    def payload(self) -> bytes:
        return b""

    @classmethod
    def from_payload(cls, data: bytes) -> WallRaised:
        expect_size(cls.TYPE, data, 0)
        return cls()

    def to_json(self) -> Json:
        return {"type": "wall_raised"}

    @classmethod
    def from_json(cls, obj: Mapping[str, object]) -> WallRaised:
        Obj(obj, "wall_raised", ())
        return cls()


@dataclass(frozen=True, slots=True)
class Dice:
    """One roll of the two dice (a W hand has two rolls, hence two messages)."""

    TYPE: ClassVar[MessageType] = MessageType.DICE
    values: tuple[int, int]

    def __post_init__(self) -> None:
        values = self.values
        if type(values) is tuple and len(values) == 2:
            first, second = values
            # every roll read off the wire passes here: the checks below in one expression
            # (~3,000 instructions fewer a frame); anything else gets their precise error
            if type(first) is int and type(second) is int and 1 <= first <= 6 \
                    and 1 <= second <= 6:
                return
        if not isinstance(self.values, tuple) or len(self.values) != 2:
            raise fail("dice", f"values must be two dice, got {self.values!r}")
        for value in self.values:
            check_int("dice", "values[]", value, 1, 6)

    @property
    def total(self) -> int:
        return self.values[0] + self.values[1]

    def payload(self) -> bytes:
        return bytes(self.values)

    @classmethod
    def from_payload(cls, data: bytes) -> Dice:
        expect_size(cls.TYPE, data, 2)
        return cls((data[0], data[1]))

    def to_json(self) -> Json:
        return {"type": "dice", "values": list(self.values)}

    @classmethod
    def from_json(cls, obj: Mapping[str, object]) -> Dice:
        values = Obj(obj, "dice", ("values",)).list_("values", 2)
        return cls((check_int("dice", "values[0]", values[0], 1, 6),
                    check_int("dice", "values[1]", values[1], 1, 6)))


@dataclass(frozen=True, slots=True)
class BreakOpened:
    """The table opened the wall of ``seat`` leaving ``count`` stacks on its right (the geometry
    spec's ``b`` and ``t``; ``count`` is 2..12, or 4..24 under W)."""

    TYPE: ClassVar[MessageType] = MessageType.BREAK_OPENED
    seat: int
    count: int

    def __post_init__(self) -> None:
        check_int("break_opened", "seat", self.seat, 0, 3)
        check_int("break_opened", "count", self.count, 2, 24)

    def payload(self) -> bytes:
        return bytes((self.seat, self.count))

    @classmethod
    def from_payload(cls, data: bytes) -> BreakOpened:
        expect_size(cls.TYPE, data, 2)
        return cls(data[0], data[1])

    def to_json(self) -> Json:
        return {"type": "break_opened", "seat": self.seat, "count": self.count}

    @classmethod
    def from_json(cls, obj: Mapping[str, object]) -> BreakOpened:
        o = Obj(obj, "break_opened", ("seat", "count"))
        return cls(o.int_("seat", 0, 3), o.int_("count", 2, 24))


@dataclass(frozen=True, slots=True)
class IndicatorTurned:
    """A tile was turned face up at ``seat``/``stack``/``layer``; ``ring`` is its ring index when
    the table knows the break, ``tile`` its face when the table can read it."""

    TYPE: ClassVar[MessageType] = MessageType.INDICATOR_TURNED
    seat: int
    stack: int
    layer: Layer = Layer.TOP
    ring: int | None = None
    tile: str | None = None

    def __post_init__(self) -> None:
        check_int("indicator_turned", "seat", self.seat, 0, 3)
        check_int("indicator_turned", "stack", self.stack, 1, 17)
        if not isinstance(self.layer, Layer):
            raise fail("indicator_turned", f"layer must be a Layer, got {self.layer!r}")
        check_opt_int("indicator_turned", "ring", self.ring, 0, 135)
        tile_to_code(self.tile)

    def payload(self) -> bytes:
        layer = 0 if self.layer is Layer.TOP else 1
        return bytes((self.seat, self.stack, layer, u8_or_none(self.ring),
                      tile_to_code(self.tile)))

    @classmethod
    def from_payload(cls, data: bytes) -> IndicatorTurned:
        expect_size(cls.TYPE, data, 5)
        if data[2] > 1:
            raise fail("indicator_turned", f"layer byte must be 0 or 1, got {data[2]}")
        return cls(data[0], data[1], Layer.TOP if data[2] == 0 else Layer.BOTTOM,
                   none_if(data[3], NONE_U8), tile_from_code(data[4]))

    def to_json(self) -> Json:
        return {"type": "indicator_turned", "seat": self.seat, "stack": self.stack,
                "layer": self.layer.value, "ring": self.ring, "tile": self.tile}

    @classmethod
    def from_json(cls, obj: Mapping[str, object]) -> IndicatorTurned:
        o = Obj(obj, "indicator_turned", ("seat", "stack", "layer", "ring", "tile"))
        layer = o.str_("layer")
        if layer not in ("top", "bottom"):
            raise fail("indicator_turned", f"layer must be 'top' or 'bottom', got {layer!r}")
        tile = obj["tile"]
        if tile is not None and not isinstance(tile, str):
            raise fail("indicator_turned", f"tile must be an mjai tile or null, got {tile!r}")
        return cls(o.int_("seat", 0, 3), o.int_("stack", 1, 17), Layer(layer),
                   o.opt_int("ring", 0, 135), tile)


@dataclass(frozen=True, slots=True)
class WallManifest:
    """The 136 tiles of the raised wall by physical position (:func:`manifest_index`), ``None``
    for a tile the table could not read."""

    TYPE: ClassVar[MessageType] = MessageType.WALL_MANIFEST
    tiles: tuple[str | None, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.tiles, tuple) or len(self.tiles) != WALL_TILES:
            raise fail("wall_manifest", f"tiles must be {WALL_TILES} entries, got {self.tiles!r}")
        for tile in self.tiles:
            if tile is not None and not isinstance(tile, str):
                raise fail("wall_manifest", f"tile must be an mjai tile or null, got {tile!r}")
            tile_to_code(tile)

    def payload(self) -> bytes:
        return bytes(tile_to_code(tile) for tile in self.tiles)

    @classmethod
    def from_payload(cls, data: bytes) -> WallManifest:
        expect_size(cls.TYPE, data, WALL_TILES)
        return cls(tuple(tile_from_code(code) for code in data))

    def to_json(self) -> Json:
        return {"type": "wall_manifest", "tiles": list(self.tiles)}

    @classmethod
    def from_json(cls, obj: Mapping[str, object]) -> WallManifest:
        tiles = Obj(obj, "wall_manifest", ("tiles",)).list_("tiles", WALL_TILES)
        for tile in tiles:
            if tile is not None and not isinstance(tile, str):
                raise fail("wall_manifest", f"tile must be an mjai tile or null, got {tile!r}")
        return cls(tuple(tile if isinstance(tile, str) else None for tile in tiles))


class SeatKey(IntEnum):
    """The keys of a seat panel: ``seat_button.button`` (docs/protocol/table-link.md §6.2). A key
    means what its label says whatever sensors the table has (daemon/tracker.py turns it into
    the input). Numbers not listed are refused by the host (a ``tile_rejected`` marker,
    ``no_such_key``)."""

    CLOCK = 0  # the seat's chess-clock button: a clock record (W 打牌时限)
    RIICHI = 1  # riichi with the next discard
    TSUMO = 2
    RON = 3
    TENPAI = 4  # the answer at an exhaustive draw
    NOTEN = 5
    NINE_TERMINALS = 6  # abortive draws
    FOUR_WINDS = 7
    FOUR_RIICHI = 8
    FOUR_KANS = 9


@dataclass(frozen=True, slots=True)
class SeatButton:
    """A button at a seat was pressed (tables with capability ``seat_buttons``)."""

    TYPE: ClassVar[MessageType] = MessageType.SEAT_BUTTON
    seat: int
    button: int = 0

    def __post_init__(self) -> None:
        check_int("seat_button", "seat", self.seat, 0, 3)
        check_int("seat_button", "button", self.button, 0, 254)

    def payload(self) -> bytes:
        return bytes((self.seat, self.button))

    @classmethod
    def from_payload(cls, data: bytes) -> SeatButton:
        expect_size(cls.TYPE, data, 2)
        return cls(data[0], data[1])

    def to_json(self) -> Json:
        return {"type": "seat_button", "seat": self.seat, "button": self.button}

    @classmethod
    def from_json(cls, obj: Mapping[str, object]) -> SeatButton:
        o = Obj(obj, "seat_button", ("seat", "button"))
        return cls(o.int_("seat", 0, 3), o.int_("button", 0, 254))


@dataclass(frozen=True, slots=True)
class Fault:
    """A fault of the table (``code``: :class:`FaultCode` or a newer one), at a seat if local."""

    TYPE: ClassVar[MessageType] = MessageType.FAULT
    code: int
    seat: int | None = None

    def __post_init__(self) -> None:
        check_int("fault", "code", self.code, 1, 0xFFFF)
        check_opt_int("fault", "seat", self.seat, 0, 3)

    @property
    def name(self) -> str:
        """The code's name, ``"unknown"`` for a code newer than this host."""
        known = FaultCode.__members__.values()
        return FaultCode(self.code).name.lower() if self.code in known else "unknown"

    def payload(self) -> bytes:
        return struct.pack("<HB", self.code, u8_or_none(self.seat))

    @classmethod
    def from_payload(cls, data: bytes) -> Fault:
        expect_size(cls.TYPE, data, 3)
        code, seat = struct.unpack("<HB", data)
        return cls(code, none_if(seat, NONE_U8))

    def to_json(self) -> Json:
        return {"type": "fault", "code": self.code, "name": self.name, "seat": self.seat}

    @classmethod
    def from_json(cls, obj: Mapping[str, object]) -> Fault:
        # `name` is derived from `code`; accepted on input so that decode output re-encodes
        keys = ("code", "name", "seat") if "name" in obj else ("code", "seat")
        o = Obj(obj, "fault", keys)
        fault = cls(o.int_("code", 1, 0xFFFF), o.opt_int("seat", 0, 3))
        if "name" in obj and obj["name"] != fault.name:
            raise fail("fault", f"name {obj['name']!r} does not match code {fault.code} "
                                 f"({fault.name!r})")
        return fault
