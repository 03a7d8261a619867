"""Table-link messages: value types, their payload encoding and their JSON form.

Every message is a frozen dataclass whose constructor validates it, so a message that exists is a
valid one. Each has ``payload()``/``from_payload()`` (the bytes inside a frame, see
docs/protocol/table-link.md §6) and ``to_json()``/``from_json()`` (stable snake_case keys, ``type``
first). Names follow ../shared/spec/table-geometry.md: seats 0..3, stacks 1..17, layers top/bottom,
ring indices 0..135; tiles use the mjai notation of :mod:`rules.tiles` (``"5mr"`` is a red five).
"""

from __future__ import annotations

import struct
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum, IntEnum, StrEnum
from typing import ClassVar, TypeAlias

from drivers.link.errors import MalformedMessageError
from rules.tiles import Kind, TileError, parse_mjai

Json: TypeAlias = dict[str, object]

NONE_U8 = 0xFF
NONE_U16 = 0xFFFF
MAX_FIRMWARE_BYTES = 32
WALL_TILES = 136


class MessageType(IntEnum):
    """The ``type`` byte of a frame (offset 3)."""

    # control: unsequenced, never acknowledged
    HELLO = 0x01
    WELCOME = 0x02
    HEARTBEAT = 0x03
    ACK = 0x04
    NAK = 0x05
    # table events: controller -> host, sequenced and acknowledged
    START_PRESSED = 0x10
    WALL_RAISED = 0x11
    DICE = 0x12
    BREAK_OPENED = 0x13
    INDICATOR_TURNED = 0x14
    WALL_MANIFEST = 0x15
    SEAT_BUTTON = 0x16
    FAULT = 0x17
    # commands: host -> controller, sequenced and acknowledged
    HONBA_DISPLAY = 0x20
    SCORE_DISPLAY = 0x21
    BUZZER = 0x22
    LED = 0x23
    PRESS_START = 0x24

    @property
    def json_name(self) -> str:
        return self.name.lower()


class Direction(Enum):
    CONTROL = "control"
    EVENT = "event"  # controller -> host
    COMMAND = "command"  # host -> controller


def direction_of(kind: MessageType) -> Direction:
    if kind < 0x10:
        return Direction.CONTROL
    return Direction.EVENT if kind < 0x20 else Direction.COMMAND


class Capability(StrEnum):
    """What a table can do, announced as a bit set in its welcome (§5)."""

    AUTO_OPEN = "auto_open"
    AUTO_DORA_FLIP = "auto_dora_flip"
    WALL_MANIFEST = "wall_manifest"
    HONBA_DISPLAY = "honba_display"
    SCORE_DISPLAYS = "score_displays"
    SEAT_BUTTONS = "seat_buttons"

    @property
    def bit(self) -> int:
        return 1 << list(Capability).index(self)


def capabilities_to_bits(caps: frozenset[Capability]) -> int:
    bits = 0
    for cap in caps:
        bits |= cap.bit
    return bits


def capabilities_from_bits(bits: int) -> frozenset[Capability]:
    """Unknown bits (a newer table) are ignored: they name nothing this host can use."""
    return frozenset(cap for cap in Capability if bits & cap.bit)


class Layer(StrEnum):
    TOP = "top"
    BOTTOM = "bottom"


class NakReason(IntEnum):
    CORRUPT = 1  # a damaged frame was seen: resend what is outstanding now
    REJECTED = 2  # frame `seq` was read intact but cannot be carried out: do not resend


class LedMode(IntEnum):
    OFF = 0
    ON = 1
    BLINK = 2


class FaultCode(IntEnum):
    """Fault codes reported by the controller (§6.8). Codes not listed here are still carried."""

    MOTOR_STALL = 1
    WALL_LIFT_JAM = 2
    TILE_COUNT_MISMATCH = 3
    TILE_READ_ERROR = 4
    DICE_ERROR = 5
    LID_OPEN = 6
    OVERHEAT = 7
    POWER_LOW = 8
    FIRMWARE = 9
    INPUT_STUCK = 10  # the reference firmware's adapters (§12): an input held far too long
    DISPLAY = 11  # a display that does not answer


# --- tiles on the wire ------------------------------------------------------------------------
# One byte: the 34-kind index of rules.tiles.Kind (0..33), 34/35/36 for a red 5m/5p/5s,
# 0xFF when the table could not read the tile.
_RED_CODES = {Kind.M5: 34, Kind.P5: 35, Kind.S5: 36}
_RED_KINDS = {code: kind for kind, code in _RED_CODES.items()}


def tile_to_code(name: str | None) -> int:
    if name is None:
        return NONE_U8
    try:
        kind, red = parse_mjai(name)
    except TileError as exc:
        raise MalformedMessageError(str(exc)) from None
    return _RED_CODES[kind] if red else int(kind)


def tile_from_code(code: int) -> str | None:
    if code == NONE_U8:
        return None
    if code in _RED_KINDS:
        return _RED_KINDS[code].mjai + "r"
    if 0 <= code < 34:
        return Kind(code).mjai
    raise MalformedMessageError(f"tile code {code} is not 0..36 or 0xFF")


def manifest_index(seat: int, stack: int, layer: Layer) -> int:
    """Position of a tile in the wall manifest: seat-major, then stack 1..17, top before bottom."""
    return seat * 34 + (stack - 1) * 2 + (0 if layer is Layer.TOP else 1)


# --- validation helpers -----------------------------------------------------------------------


def _fail(kind: str, what: str) -> MalformedMessageError:
    return MalformedMessageError(f"{kind}: {what}")


def _check_int(kind: str, name: str, value: object, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _fail(kind, f"{name} must be an integer {lo}..{hi}, got {value!r}")
    if not lo <= value <= hi:
        raise _fail(kind, f"{name} must be {lo}..{hi}, got {value!r}")
    return value


def _check_opt_int(kind: str, name: str, value: object, lo: int, hi: int) -> int | None:
    return None if value is None else _check_int(kind, name, value, lo, hi)


class _Obj:
    """Reads the fields of one JSON object, rejecting missing, unknown and mistyped keys."""

    def __init__(self, obj: Mapping[str, object], kind: str, keys: tuple[str, ...]) -> None:
        unknown = sorted(set(obj) - {"type", *keys})
        if unknown:
            raise _fail(kind, f"unknown key(s) {unknown}; expected {['type', *keys]}")
        missing = [key for key in keys if key not in obj]
        if missing:
            raise _fail(kind, f"missing key(s) {missing} in {dict(obj)!r}")
        self.obj, self.kind = obj, kind

    def int_(self, key: str, lo: int, hi: int) -> int:
        return _check_int(self.kind, key, self.obj[key], lo, hi)

    def opt_int(self, key: str, lo: int, hi: int) -> int | None:
        return _check_opt_int(self.kind, key, self.obj[key], lo, hi)

    def list_(self, key: str, size: int) -> list[object]:
        value = self.obj[key]
        if not isinstance(value, list) or len(value) != size:
            raise _fail(self.kind, f"{key} must be a list of {size}, got {value!r}")
        return value

    def str_(self, key: str) -> str:
        value = self.obj[key]
        if not isinstance(value, str):
            raise _fail(self.kind, f"{key} must be a string, got {value!r}")
        return value


def _expect_size(kind: MessageType, data: bytes, size: int) -> None:
    if len(data) != size:
        raise _fail(kind.json_name, f"payload must be {size} bytes, got {len(data)}: {data.hex()}")


def _u8_or_none(value: int | None) -> int:
    return NONE_U8 if value is None else value


def _none_if(value: int, none: int) -> int | None:
    return None if value == none else value


# --- control ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Hello:
    """Host -> controller, opens (or reopens) the link. ``rx_last`` is the last event sequence
    number the host delivered from the controller whose boot id is ``rx_boot_id``."""

    TYPE: ClassVar[MessageType] = MessageType.HELLO
    min_version: int
    max_version: int
    boot_id: int
    rx_boot_id: int | None = None
    rx_last: int | None = None

    def __post_init__(self) -> None:
        _check_int("hello", "min_version", self.min_version, 1, 254)
        _check_int("hello", "max_version", self.max_version, self.min_version, 254)
        _check_int("hello", "boot_id", self.boot_id, 1, 0xFFFFFFFF)
        _check_opt_int("hello", "rx_boot_id", self.rx_boot_id, 1, 0xFFFFFFFF)
        _check_opt_int("hello", "rx_last", self.rx_last, 0, 255)

    def payload(self) -> bytes:
        return struct.pack(
            "<BBIIH", self.min_version, self.max_version, self.boot_id, self.rx_boot_id or 0,
            NONE_U16 if self.rx_last is None else self.rx_last,
        )

    @classmethod
    def from_payload(cls, data: bytes) -> Hello:
        _expect_size(cls.TYPE, data, 12)
        lo, hi, boot, rx_boot, rx_last = struct.unpack("<BBIIH", data)
        return cls(lo, hi, boot, rx_boot or None, _none_if(rx_last, NONE_U16))

    def to_json(self) -> Json:
        return {"type": "hello", "min_version": self.min_version, "max_version": self.max_version,
                "boot_id": self.boot_id, "rx_boot_id": self.rx_boot_id, "rx_last": self.rx_last}

    @classmethod
    def from_json(cls, obj: Mapping[str, object]) -> Hello:
        o = _Obj(obj, "hello", ("min_version", "max_version", "boot_id", "rx_boot_id", "rx_last"))
        return cls(o.int_("min_version", 0, 255), o.int_("max_version", 0, 255),
                   o.int_("boot_id", 0, 0xFFFFFFFF), o.opt_int("rx_boot_id", 0, 0xFFFFFFFF),
                   o.opt_int("rx_last", 0, 255))


@dataclass(frozen=True, slots=True)
class Welcome:
    """Controller -> host, answers a hello. ``version`` 0 means no common version."""

    TYPE: ClassVar[MessageType] = MessageType.WELCOME
    version: int
    capabilities: frozenset[Capability]
    boot_id: int
    rx_last: int | None = None
    firmware: str = ""

    def __post_init__(self) -> None:
        _check_int("welcome", "version", self.version, 0, 254)
        _check_int("welcome", "boot_id", self.boot_id, 1, 0xFFFFFFFF)
        _check_opt_int("welcome", "rx_last", self.rx_last, 0, 255)
        if len(self.firmware.encode()) > MAX_FIRMWARE_BYTES:
            raise _fail("welcome", f"firmware is longer than {MAX_FIRMWARE_BYTES} bytes: "
                                   f"{self.firmware!r}")

    def payload(self) -> bytes:
        fw = self.firmware.encode()
        return struct.pack(
            "<BHIHB", self.version, capabilities_to_bits(self.capabilities), self.boot_id,
            NONE_U16 if self.rx_last is None else self.rx_last, len(fw),
        ) + fw

    @classmethod
    def from_payload(cls, data: bytes) -> Welcome:
        if len(data) < 10 or len(data) != 10 + data[9]:
            raise _fail("welcome", f"payload must be 10 bytes + firmware, got {data.hex()}")
        version, bits, boot, rx_last, _ = struct.unpack("<BHIHB", data[:10])
        try:
            firmware = data[10:].decode()
        except UnicodeDecodeError:
            raise _fail("welcome", f"firmware is not UTF-8: {data[10:].hex()}") from None
        return cls(version, capabilities_from_bits(bits), boot, _none_if(rx_last, NONE_U16),
                   firmware)

    def to_json(self) -> Json:
        return {"type": "welcome", "version": self.version,
                "capabilities": [c.value for c in Capability if c in self.capabilities],
                "boot_id": self.boot_id, "rx_last": self.rx_last, "firmware": self.firmware}

    @classmethod
    def from_json(cls, obj: Mapping[str, object]) -> Welcome:
        o = _Obj(obj, "welcome", ("version", "capabilities", "boot_id", "rx_last", "firmware"))
        caps = obj["capabilities"]
        if not isinstance(caps, list) or not all(
            isinstance(c, str) and c in Capability.__members__.values() for c in caps
        ):
            raise _fail("welcome", f"capabilities must be a list of {[c.value for c in Capability]}"
                                   f", got {caps!r}")
        return cls(o.int_("version", 0, 255), frozenset(Capability(c) for c in caps),
                   o.int_("boot_id", 0, 0xFFFFFFFF), o.opt_int("rx_last", 0, 255),
                   o.str_("firmware"))


@dataclass(frozen=True, slots=True)
class Heartbeat:
    """Either side, while connected and otherwise idle (§7.5)."""

    TYPE: ClassVar[MessageType] = MessageType.HEARTBEAT

    def payload(self) -> bytes:
        return b""

    @classmethod
    def from_payload(cls, data: bytes) -> Heartbeat:
        _expect_size(cls.TYPE, data, 0)
        return cls()

    def to_json(self) -> Json:
        return {"type": "heartbeat"}

    @classmethod
    def from_json(cls, obj: Mapping[str, object]) -> Heartbeat:
        _Obj(obj, "heartbeat", ())
        return cls()


@dataclass(frozen=True, slots=True)
class Ack:
    """Either side: frame ``seq`` (the frame header's seq) was received and carried out."""

    TYPE: ClassVar[MessageType] = MessageType.ACK

    def payload(self) -> bytes:
        return b""

    @classmethod
    def from_payload(cls, data: bytes) -> Ack:
        _expect_size(cls.TYPE, data, 0)
        return cls()

    def to_json(self) -> Json:
        return {"type": "ack"}

    @classmethod
    def from_json(cls, obj: Mapping[str, object]) -> Ack:
        _Obj(obj, "ack", ())
        return cls()


@dataclass(frozen=True, slots=True)
class Nak:
    """Either side: ``corrupt`` (a damaged frame was seen) or ``rejected`` (frame ``seq`` was read
    intact but will not be carried out)."""

    TYPE: ClassVar[MessageType] = MessageType.NAK
    reason: NakReason

    def __post_init__(self) -> None:
        if not isinstance(self.reason, NakReason):
            raise _fail("nak", f"reason must be a NakReason, got {self.reason!r}")

    def payload(self) -> bytes:
        return bytes((self.reason,))

    @classmethod
    def from_payload(cls, data: bytes) -> Nak:
        _expect_size(cls.TYPE, data, 1)
        if data[0] not in NakReason.__members__.values():
            raise _fail("nak", f"reason {data[0]} is not one of {[int(r) for r in NakReason]}")
        return cls(NakReason(data[0]))

    def to_json(self) -> Json:
        return {"type": "nak", "reason": self.reason.name.lower()}

    @classmethod
    def from_json(cls, obj: Mapping[str, object]) -> Nak:
        o = _Obj(obj, "nak", ("reason",))
        name = o.str_("reason")
        if name.upper() not in NakReason.__members__ or name != name.lower():
            raise _fail("nak", f"reason must be 'corrupt' or 'rejected', got {name!r}")
        return cls(NakReason[name.upper()])


# --- table events -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StartPressed:
    """The start button was pressed: at a seat (``seat``) or the centre/console (``None``)."""

    TYPE: ClassVar[MessageType] = MessageType.START_PRESSED
    seat: int | None = None

    def __post_init__(self) -> None:
        _check_opt_int("start_pressed", "seat", self.seat, 0, 3)

    def payload(self) -> bytes:
        return bytes((_u8_or_none(self.seat),))

    @classmethod
    def from_payload(cls, data: bytes) -> StartPressed:
        _expect_size(cls.TYPE, data, 1)
        return cls(_none_if(data[0], NONE_U8))

    def to_json(self) -> Json:
        return {"type": "start_pressed", "seat": self.seat}

    @classmethod
    def from_json(cls, obj: Mapping[str, object]) -> StartPressed:
        return cls(_Obj(obj, "start_pressed", ("seat",)).opt_int("seat", 0, 3))


@dataclass(frozen=True, slots=True)
class WallRaised:
    """The four walls are up (the lift finished)."""

    TYPE: ClassVar[MessageType] = MessageType.WALL_RAISED

    def payload(self) -> bytes:
        return b""

    @classmethod
    def from_payload(cls, data: bytes) -> WallRaised:
        _expect_size(cls.TYPE, data, 0)
        return cls()

    def to_json(self) -> Json:
        return {"type": "wall_raised"}

    @classmethod
    def from_json(cls, obj: Mapping[str, object]) -> WallRaised:
        _Obj(obj, "wall_raised", ())
        return cls()


@dataclass(frozen=True, slots=True)
class Dice:
    """One roll of the two dice (a W hand has two rolls, hence two messages)."""

    TYPE: ClassVar[MessageType] = MessageType.DICE
    values: tuple[int, int]

    def __post_init__(self) -> None:
        if not isinstance(self.values, tuple) or len(self.values) != 2:
            raise _fail("dice", f"values must be two dice, got {self.values!r}")
        for value in self.values:
            _check_int("dice", "values[]", value, 1, 6)

    @property
    def total(self) -> int:
        return self.values[0] + self.values[1]

    def payload(self) -> bytes:
        return bytes(self.values)

    @classmethod
    def from_payload(cls, data: bytes) -> Dice:
        _expect_size(cls.TYPE, data, 2)
        return cls((data[0], data[1]))

    def to_json(self) -> Json:
        return {"type": "dice", "values": list(self.values)}

    @classmethod
    def from_json(cls, obj: Mapping[str, object]) -> Dice:
        values = _Obj(obj, "dice", ("values",)).list_("values", 2)
        return cls((_check_int("dice", "values[0]", values[0], 1, 6),
                    _check_int("dice", "values[1]", values[1], 1, 6)))


@dataclass(frozen=True, slots=True)
class BreakOpened:
    """The table opened the wall of ``seat`` leaving ``count`` stacks on its right (the geometry
    spec's ``b`` and ``t``; ``count`` is 2..12, or 4..24 under W)."""

    TYPE: ClassVar[MessageType] = MessageType.BREAK_OPENED
    seat: int
    count: int

    def __post_init__(self) -> None:
        _check_int("break_opened", "seat", self.seat, 0, 3)
        _check_int("break_opened", "count", self.count, 2, 24)

    def payload(self) -> bytes:
        return bytes((self.seat, self.count))

    @classmethod
    def from_payload(cls, data: bytes) -> BreakOpened:
        _expect_size(cls.TYPE, data, 2)
        return cls(data[0], data[1])

    def to_json(self) -> Json:
        return {"type": "break_opened", "seat": self.seat, "count": self.count}

    @classmethod
    def from_json(cls, obj: Mapping[str, object]) -> BreakOpened:
        o = _Obj(obj, "break_opened", ("seat", "count"))
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
        _check_int("indicator_turned", "seat", self.seat, 0, 3)
        _check_int("indicator_turned", "stack", self.stack, 1, 17)
        if not isinstance(self.layer, Layer):
            raise _fail("indicator_turned", f"layer must be a Layer, got {self.layer!r}")
        _check_opt_int("indicator_turned", "ring", self.ring, 0, 135)
        tile_to_code(self.tile)

    def payload(self) -> bytes:
        layer = 0 if self.layer is Layer.TOP else 1
        return bytes((self.seat, self.stack, layer, _u8_or_none(self.ring),
                      tile_to_code(self.tile)))

    @classmethod
    def from_payload(cls, data: bytes) -> IndicatorTurned:
        _expect_size(cls.TYPE, data, 5)
        if data[2] > 1:
            raise _fail("indicator_turned", f"layer byte must be 0 or 1, got {data[2]}")
        return cls(data[0], data[1], Layer.TOP if data[2] == 0 else Layer.BOTTOM,
                   _none_if(data[3], NONE_U8), tile_from_code(data[4]))

    def to_json(self) -> Json:
        return {"type": "indicator_turned", "seat": self.seat, "stack": self.stack,
                "layer": self.layer.value, "ring": self.ring, "tile": self.tile}

    @classmethod
    def from_json(cls, obj: Mapping[str, object]) -> IndicatorTurned:
        o = _Obj(obj, "indicator_turned", ("seat", "stack", "layer", "ring", "tile"))
        layer = o.str_("layer")
        if layer not in ("top", "bottom"):
            raise _fail("indicator_turned", f"layer must be 'top' or 'bottom', got {layer!r}")
        tile = obj["tile"]
        if tile is not None and not isinstance(tile, str):
            raise _fail("indicator_turned", f"tile must be an mjai tile or null, got {tile!r}")
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
            raise _fail("wall_manifest", f"tiles must be {WALL_TILES} entries, got {self.tiles!r}")
        for tile in self.tiles:
            if tile is not None and not isinstance(tile, str):
                raise _fail("wall_manifest", f"tile must be an mjai tile or null, got {tile!r}")
            tile_to_code(tile)

    def tile_at(self, seat: int, stack: int, layer: Layer) -> str | None:
        return self.tiles[manifest_index(seat, stack, layer)]

    def payload(self) -> bytes:
        return bytes(tile_to_code(tile) for tile in self.tiles)

    @classmethod
    def from_payload(cls, data: bytes) -> WallManifest:
        _expect_size(cls.TYPE, data, WALL_TILES)
        return cls(tuple(tile_from_code(code) for code in data))

    def to_json(self) -> Json:
        return {"type": "wall_manifest", "tiles": list(self.tiles)}

    @classmethod
    def from_json(cls, obj: Mapping[str, object]) -> WallManifest:
        tiles = _Obj(obj, "wall_manifest", ("tiles",)).list_("tiles", WALL_TILES)
        for tile in tiles:
            if tile is not None and not isinstance(tile, str):
                raise _fail("wall_manifest", f"tile must be an mjai tile or null, got {tile!r}")
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
        _check_int("seat_button", "seat", self.seat, 0, 3)
        _check_int("seat_button", "button", self.button, 0, 254)

    def payload(self) -> bytes:
        return bytes((self.seat, self.button))

    @classmethod
    def from_payload(cls, data: bytes) -> SeatButton:
        _expect_size(cls.TYPE, data, 2)
        return cls(data[0], data[1])

    def to_json(self) -> Json:
        return {"type": "seat_button", "seat": self.seat, "button": self.button}

    @classmethod
    def from_json(cls, obj: Mapping[str, object]) -> SeatButton:
        o = _Obj(obj, "seat_button", ("seat", "button"))
        return cls(o.int_("seat", 0, 3), o.int_("button", 0, 254))


@dataclass(frozen=True, slots=True)
class Fault:
    """A fault of the table (``code``: :class:`FaultCode` or a newer one), at a seat if local."""

    TYPE: ClassVar[MessageType] = MessageType.FAULT
    code: int
    seat: int | None = None

    def __post_init__(self) -> None:
        _check_int("fault", "code", self.code, 1, 0xFFFF)
        _check_opt_int("fault", "seat", self.seat, 0, 3)

    @property
    def name(self) -> str:
        """The code's name, ``"unknown"`` for a code newer than this host."""
        known = FaultCode.__members__.values()
        return FaultCode(self.code).name.lower() if self.code in known else "unknown"

    def payload(self) -> bytes:
        return struct.pack("<HB", self.code, _u8_or_none(self.seat))

    @classmethod
    def from_payload(cls, data: bytes) -> Fault:
        _expect_size(cls.TYPE, data, 3)
        code, seat = struct.unpack("<HB", data)
        return cls(code, _none_if(seat, NONE_U8))

    def to_json(self) -> Json:
        return {"type": "fault", "code": self.code, "name": self.name, "seat": self.seat}

    @classmethod
    def from_json(cls, obj: Mapping[str, object]) -> Fault:
        # `name` is derived from `code`; accepted on input so that decode output re-encodes
        keys = ("code", "name", "seat") if "name" in obj else ("code", "seat")
        o = _Obj(obj, "fault", keys)
        fault = cls(o.int_("code", 1, 0xFFFF), o.opt_int("seat", 0, 3))
        if "name" in obj and obj["name"] != fault.name:
            raise _fail("fault", f"name {obj['name']!r} does not match code {fault.code} "
                                 f"({fault.name!r})")
        return fault


# --- commands ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class HonbaDisplay:
    """Show the honba counter and the deposits (riichi sticks on the table)."""

    TYPE: ClassVar[MessageType] = MessageType.HONBA_DISPLAY
    honba: int
    deposits: int

    def __post_init__(self) -> None:
        _check_int("honba_display", "honba", self.honba, 0, 255)
        _check_int("honba_display", "deposits", self.deposits, 0, 255)

    def payload(self) -> bytes:
        return bytes((self.honba, self.deposits))

    @classmethod
    def from_payload(cls, data: bytes) -> HonbaDisplay:
        _expect_size(cls.TYPE, data, 2)
        return cls(data[0], data[1])

    def to_json(self) -> Json:
        return {"type": "honba_display", "honba": self.honba, "deposits": self.deposits}

    @classmethod
    def from_json(cls, obj: Mapping[str, object]) -> HonbaDisplay:
        o = _Obj(obj, "honba_display", ("honba", "deposits"))
        return cls(o.int_("honba", 0, 255), o.int_("deposits", 0, 255))


_I32 = (-(2**31), 2**31 - 1)


@dataclass(frozen=True, slots=True)
class ScoreDisplay:
    """Show the four scores, ``scores[k]`` on seat k's display."""

    TYPE: ClassVar[MessageType] = MessageType.SCORE_DISPLAY
    scores: tuple[int, int, int, int]

    def __post_init__(self) -> None:
        if not isinstance(self.scores, tuple) or len(self.scores) != 4:
            raise _fail("score_display", f"scores must be 4 integers, got {self.scores!r}")
        for score in self.scores:
            _check_int("score_display", "scores[]", score, *_I32)

    def payload(self) -> bytes:
        return struct.pack("<4i", *self.scores)

    @classmethod
    def from_payload(cls, data: bytes) -> ScoreDisplay:
        _expect_size(cls.TYPE, data, 16)
        a, b, c, d = struct.unpack("<4i", data)
        return cls((a, b, c, d))

    def to_json(self) -> Json:
        return {"type": "score_display", "scores": list(self.scores)}

    @classmethod
    def from_json(cls, obj: Mapping[str, object]) -> ScoreDisplay:
        raw = _Obj(obj, "score_display", ("scores",)).list_("scores", 4)
        a, b, c, d = (_check_int("score_display", "scores[]", s, *_I32) for s in raw)
        return cls((a, b, c, d))


@dataclass(frozen=True, slots=True)
class Buzzer:
    """Sound the buzzer ``count`` times for ``duration_ms`` each."""

    TYPE: ClassVar[MessageType] = MessageType.BUZZER
    duration_ms: int
    count: int = 1

    def __post_init__(self) -> None:
        _check_int("buzzer", "duration_ms", self.duration_ms, 1, 10_000)
        _check_int("buzzer", "count", self.count, 1, 10)

    def payload(self) -> bytes:
        return struct.pack("<HB", self.duration_ms, self.count)

    @classmethod
    def from_payload(cls, data: bytes) -> Buzzer:
        _expect_size(cls.TYPE, data, 3)
        duration, count = struct.unpack("<HB", data)
        return cls(duration, count)

    def to_json(self) -> Json:
        return {"type": "buzzer", "duration_ms": self.duration_ms, "count": self.count}

    @classmethod
    def from_json(cls, obj: Mapping[str, object]) -> Buzzer:
        o = _Obj(obj, "buzzer", ("duration_ms", "count"))
        return cls(o.int_("duration_ms", 1, 10_000), o.int_("count", 1, 10))


@dataclass(frozen=True, slots=True)
class Led:
    """Set the LED of ``seat`` (``None``: all seats) to ``mode`` in colour ``color`` (RGB)."""

    TYPE: ClassVar[MessageType] = MessageType.LED
    seat: int | None
    mode: LedMode
    color: tuple[int, int, int] = (255, 255, 255)

    def __post_init__(self) -> None:
        _check_opt_int("led", "seat", self.seat, 0, 3)
        if not isinstance(self.mode, LedMode):
            raise _fail("led", f"mode must be a LedMode, got {self.mode!r}")
        if not isinstance(self.color, tuple) or len(self.color) != 3:
            raise _fail("led", f"color must be [r, g, b], got {self.color!r}")
        for channel in self.color:
            _check_int("led", "color[]", channel, 0, 255)

    def payload(self) -> bytes:
        return bytes((_u8_or_none(self.seat), self.mode, *self.color))

    @classmethod
    def from_payload(cls, data: bytes) -> Led:
        _expect_size(cls.TYPE, data, 5)
        if data[1] not in LedMode.__members__.values():
            raise _fail("led", f"mode byte must be 0..2, got {data[1]}")
        return cls(_none_if(data[0], NONE_U8), LedMode(data[1]), (data[2], data[3], data[4]))

    def to_json(self) -> Json:
        return {"type": "led", "seat": self.seat, "mode": self.mode.name.lower(),
                "color": list(self.color)}

    @classmethod
    def from_json(cls, obj: Mapping[str, object]) -> Led:
        o = _Obj(obj, "led", ("seat", "mode", "color"))
        mode = o.str_("mode")
        if mode not in ("off", "on", "blink"):
            raise _fail("led", f"mode must be 'off', 'on' or 'blink', got {mode!r}")
        r, g, b = (_check_int("led", "color[]", c, 0, 255) for c in o.list_("color", 3))
        return cls(o.opt_int("seat", 0, 3), LedMode[mode.upper()], (r, g, b))


@dataclass(frozen=True, slots=True)
class PressStart:
    """Act as if the start button were pressed (start the shuffle and lift cycle)."""

    TYPE: ClassVar[MessageType] = MessageType.PRESS_START

    def payload(self) -> bytes:
        return b""

    @classmethod
    def from_payload(cls, data: bytes) -> PressStart:
        _expect_size(cls.TYPE, data, 0)
        return cls()

    def to_json(self) -> Json:
        return {"type": "press_start"}

    @classmethod
    def from_json(cls, obj: Mapping[str, object]) -> PressStart:
        _Obj(obj, "press_start", ())
        return cls()


ControlMessage: TypeAlias = Hello | Welcome | Heartbeat | Ack | Nak
TableEvent: TypeAlias = (
    StartPressed | WallRaised | Dice | BreakOpened | IndicatorTurned | WallManifest | SeatButton
    | Fault
)
Command: TypeAlias = HonbaDisplay | ScoreDisplay | Buzzer | Led | PressStart
Message: TypeAlias = ControlMessage | TableEvent | Command

MESSAGE_CLASSES: dict[MessageType, type[Message]] = {
    cls.TYPE: cls
    for cls in (
        Hello, Welcome, Heartbeat, Ack, Nak, StartPressed, WallRaised, Dice, BreakOpened,
        IndicatorTurned, WallManifest, SeatButton, Fault, HonbaDisplay, ScoreDisplay, Buzzer,
        Led, PressStart,
    )
}
_BY_JSON_NAME = {kind.json_name: cls for kind, cls in MESSAGE_CLASSES.items()}

#: the capability a table must announce before it is sent a command (absent: every table)
REQUIRED_CAPABILITY: dict[MessageType, Capability] = {
    MessageType.HONBA_DISPLAY: Capability.HONBA_DISPLAY,
    MessageType.SCORE_DISPLAY: Capability.SCORE_DISPLAYS,
}


def message_from_payload(kind: MessageType, data: bytes) -> Message:
    """Raises :class:`MalformedMessageError` when ``data`` is not a valid payload for ``kind``."""
    return MESSAGE_CLASSES[kind].from_payload(data)


def message_from_json(obj: object) -> Message:
    """The message of a JSON object ``{"type": ..., ...}``; raises :class:`MalformedMessageError`
    naming the input and what was expected."""
    if not isinstance(obj, dict):
        raise MalformedMessageError(f"a message must be a JSON object, got {obj!r}")
    name = obj.get("type")
    cls = _BY_JSON_NAME.get(name) if isinstance(name, str) else None
    if cls is None:
        raise MalformedMessageError(
            f"unknown message type {name!r}; expected one of {sorted(_BY_JSON_NAME)}")
    return cls.from_json(obj)


def _example_manifest() -> tuple[str | None, ...]:
    tiles: list[str | None] = [Kind(i // 4).mjai for i in range(WALL_TILES)]
    tiles[manifest_index(0, 5, Layer.TOP)] = "5mr"
    tiles[manifest_index(2, 9, Layer.BOTTOM)] = None
    return tuple(tiles)


def examples() -> list[Message]:
    """One valid message of every type, in type order (``jantaku link encode --examples``)."""
    return [
        Hello(1, 1, 0x1234ABCD, 0x0BADF00D, 41),
        Welcome(1, frozenset(Capability), 0x0BADF00D, 7, "jantaku-ctl 1.0.0"),
        Heartbeat(),
        Ack(),
        Nak(NakReason.CORRUPT),
        StartPressed(None),
        WallRaised(),
        Dice((3, 4)),
        BreakOpened(2, 7),
        IndicatorTurned(2, 5, Layer.TOP, 130, "3p"),
        WallManifest(_example_manifest()),
        SeatButton(1, 0),
        Fault(int(FaultCode.WALL_LIFT_JAM), 3),
        HonbaDisplay(2, 1),
        ScoreDisplay((25000, 31000, -1200, 45200)),
        Buzzer(200, 2),
        Led(0, LedMode.BLINK, (255, 64, 0)),
        PressStart(),
    ]
