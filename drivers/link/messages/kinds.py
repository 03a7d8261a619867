"""The table link's vocabulary (docs/protocol/table-link.md §5-6): message types and their
direction, capabilities, layers, NAK reasons, LED modes, fault codes, tiles on the wire."""

from __future__ import annotations

from enum import Enum, IntEnum, StrEnum
from typing import TypeAlias

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
    CONTROLLER_RESET = 0x18  # the controller's own reports (§12), after table events proper
    EVENTS_DROPPED = 0x19
    CONFIG_FAULT = 0x1A
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


class ResetCause(IntEnum):
    """Why the controller last started (``controller_reset.cause``, §12). Causes not listed are
    carried as ``unknown``."""

    UNKNOWN = 0
    POWER_ON = 1  # power applied (on an RP2040 also a brown-out: the chip does not tell them apart)
    RESET_PIN = 2  # the RUN pin / a reset button
    WATCHDOG = 3  # the firmware stopped feeding its watchdog (a hang)
    SOFTWARE = 4  # the firmware reset itself (after an error it could not run on from)
    BROWN_OUT = 5  # the supply dipped (chips that report it apart from a power-on)


class ConfigProblem(IntEnum):
    """What is wrong with the controller's configuration (``config_fault.problem``, §12)."""

    JSON = 1  # the file is no JSON object
    UNKNOWN_KEY = 2
    TYPE = 3  # a value of the wrong type
    VALUE = 4  # a value out of range (not a usable pin, not one of the choices)
    PIN_CONFLICT = 5  # a pin used by two signals


# --- tiles on the wire ------------------------------------------------------------------------
# One byte: the 34-kind index of rules.tiles.Kind (0..33), 34/35/36 for a red 5m/5p/5s,
# 0xFF when the table could not read the tile.
RED_CODES = {Kind.M5: 34, Kind.P5: 35, Kind.S5: 36}
RED_KINDS = {code: kind for kind, code in RED_CODES.items()}


def tile_to_code(name: str | None) -> int:
    if name is None:
        return NONE_U8
    try:
        kind, red = parse_mjai(name)
    except TileError as exc:
        raise MalformedMessageError(str(exc)) from None
    return RED_CODES[kind] if red else int(kind)


def tile_from_code(code: int) -> str | None:
    if code == NONE_U8:
        return None
    if code in RED_KINDS:
        return RED_KINDS[code].mjai + "r"
    if 0 <= code < 34:
        return Kind(code).mjai
    raise MalformedMessageError(f"tile code {code} is not 0..36 or 0xFF")


def manifest_index(seat: int, stack: int, layer: Layer) -> int:
    """Position of a tile in the wall manifest: seat-major, then stack 1..17, top before bottom."""
    return seat * 34 + (stack - 1) * 2 + (0 if layer is Layer.TOP else 1)
