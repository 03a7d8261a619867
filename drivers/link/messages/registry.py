"""Every message class by type and by JSON name, the unions, and one example of each."""

from __future__ import annotations

from typing import TypeAlias

from drivers.link.errors import MalformedMessageError
from drivers.link.messages.commands import Buzzer, HonbaDisplay, Led, PressStart, ScoreDisplay
from drivers.link.messages.control import Ack, Heartbeat, Hello, Nak, Welcome
from drivers.link.messages.controller import ConfigFault, ControllerReset, EventsDropped
from drivers.link.messages.events import (
    BreakOpened,
    Dice,
    Fault,
    IndicatorTurned,
    SeatButton,
    StartPressed,
    WallManifest,
    WallRaised,
)
from drivers.link.messages.kinds import (
    WALL_TILES,
    Capability,
    ConfigProblem,
    FaultCode,
    Layer,
    LedMode,
    MessageType,
    NakReason,
    ResetCause,
    manifest_index,
)
from rules.tiles import Kind

ControlMessage: TypeAlias = Hello | Welcome | Heartbeat | Ack | Nak
TableEvent: TypeAlias = (
    StartPressed | WallRaised | Dice | BreakOpened | IndicatorTurned | WallManifest | SeatButton
    | Fault | ControllerReset | EventsDropped | ConfigFault
)
Command: TypeAlias = HonbaDisplay | ScoreDisplay | Buzzer | Led | PressStart
Message: TypeAlias = ControlMessage | TableEvent | Command

MESSAGE_CLASSES: dict[MessageType, type[Message]] = {
    cls.TYPE: cls
    for cls in (
        Hello, Welcome, Heartbeat, Ack, Nak, StartPressed, WallRaised, Dice, BreakOpened,
        IndicatorTurned, WallManifest, SeatButton, Fault, ControllerReset, EventsDropped,
        ConfigFault, HonbaDisplay, ScoreDisplay, Buzzer, Led, PressStart,
    )
}
BY_JSON_NAME = {kind.json_name: cls for kind, cls in MESSAGE_CLASSES.items()}

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
    cls = BY_JSON_NAME.get(name) if isinstance(name, str) else None
    if cls is None:
        raise MalformedMessageError(
            f"unknown message type {name!r}; expected one of {sorted(BY_JSON_NAME)}")
    return cls.from_json(obj)


def example_manifest() -> tuple[str | None, ...]:
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
        WallManifest(example_manifest()),
        SeatButton(1, 0),
        Fault(int(FaultCode.WALL_LIFT_JAM), 3),
        ControllerReset(int(ResetCause.WATCHDOG), 2),
        EventsDropped(40),
        ConfigFault(int(ConfigProblem.PIN_CONFLICT), "buzzer", 5),
        HonbaDisplay(2, 1),
        ScoreDisplay((25000, 31000, -1200, 45200)),
        Buzzer(200, 2),
        Led(0, LedMode.BLINK, (255, 64, 0)),
        PressStart(),
    ]
