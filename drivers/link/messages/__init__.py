"""Table-link messages: value types, their payload encoding and their JSON form.

Every message is a frozen dataclass whose constructor validates it, so a message that exists is a
valid one. Each has ``payload()``/``from_payload()`` (the bytes inside a frame, see
docs/protocol/table-link.md §6) and ``to_json()``/``from_json()`` (stable snake_case keys, ``type``
first). Names follow docs/table-geometry.md: seats 0..3, stacks 1..17, layers top/bottom,
ring indices 0..135; tiles use the mjai notation of :mod:`rules.tiles` (``"5mr"`` is a red five).
"""

from __future__ import annotations

from drivers.link.messages.commands import Buzzer, HonbaDisplay, Led, PressStart, ScoreDisplay
from drivers.link.messages.control import Ack, Heartbeat, Hello, Nak, Welcome
from drivers.link.messages.controller import ConfigFault, ControllerReset, EventsDropped
from drivers.link.messages.events import (
    BreakOpened,
    Dice,
    Fault,
    IndicatorTurned,
    SeatButton,
    SeatKey,
    StartPressed,
    WallManifest,
    WallRaised,
)
from drivers.link.messages.kinds import (
    MAX_FIRMWARE_BYTES,
    NONE_U8,
    NONE_U16,
    WALL_TILES,
    Capability,
    ConfigProblem,
    Direction,
    FaultCode,
    Json,
    Layer,
    LedMode,
    MessageType,
    NakReason,
    ResetCause,
    capabilities_from_bits,
    capabilities_to_bits,
    direction_of,
    manifest_index,
    tile_from_code,
    tile_to_code,
)
from drivers.link.messages.registry import (
    MESSAGE_CLASSES,
    REQUIRED_CAPABILITY,
    Command,
    ControlMessage,
    Message,
    TableEvent,
    examples,
    message_from_json,
    message_from_payload,
)

__all__ = [
    "MAX_FIRMWARE_BYTES", "MESSAGE_CLASSES", "NONE_U8", "NONE_U16", "REQUIRED_CAPABILITY",
    "WALL_TILES", "Ack", "BreakOpened", "Buzzer", "Capability", "Command", "ConfigFault",
    "ConfigProblem", "ControlMessage", "ControllerReset", "Dice", "Direction", "EventsDropped",
    "Fault", "FaultCode", "Heartbeat", "Hello", "HonbaDisplay",
    "IndicatorTurned", "Json", "Layer", "Led", "LedMode", "Message", "MessageType", "Nak",
    "NakReason", "PressStart", "ResetCause", "ScoreDisplay", "SeatButton", "SeatKey",
    "StartPressed",
    "TableEvent", "WallManifest", "WallRaised", "Welcome", "capabilities_from_bits",
    "capabilities_to_bits", "direction_of", "examples", "manifest_index", "message_from_json",
    "message_from_payload", "tile_from_code", "tile_to_code",
]
