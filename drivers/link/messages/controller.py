"""What the controller reports about itself (docs/protocol/table-link.md §12): that it started
afresh and lost the events it had not sent, that its queue overflowed, that its configuration is
wrong. Table events on the wire (sequenced, acknowledged), but about the board, not the game."""

from __future__ import annotations

import struct
from collections.abc import Mapping
from dataclasses import dataclass
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
    NONE_U16,
    ConfigProblem,
    Json,
    MessageType,
    ResetCause,
)

MAX_KEY_BYTES = 32


def _name(enum: type[ResetCause] | type[ConfigProblem], value: int) -> str:
    """The member's name, ``"unknown"`` for a value newer than this host."""
    known = enum.__members__.values()
    return enum(value).name.lower() if value in known else "unknown"


def _check_name(kind: str, obj: Mapping[str, object], name: str) -> None:
    # `name` is derived from the code; accepted on input so that decode output re-encodes
    if "name" in obj and obj["name"] != name:
        raise fail(kind, f"name {obj['name']!r} does not match the code ({name!r})")


@dataclass(frozen=True, slots=True)
class ControllerReset:
    """The controller started afresh (the first event of each of its boots): why (``cause``, a
    :class:`ResetCause` or a newer one) and how many events it held unacknowledged when it went
    down (``lost``; None: it cannot know, e.g. after a power-on)."""

    TYPE: ClassVar[MessageType] = MessageType.CONTROLLER_RESET
    cause: int
    lost: int | None = None

    def __post_init__(self) -> None:
        check_int("controller_reset", "cause", self.cause, 0, 255)
        check_opt_int("controller_reset", "lost", self.lost, 0, NONE_U16 - 1)

    @property
    def name(self) -> str:
        return _name(ResetCause, self.cause)

    def payload(self) -> bytes:
        return struct.pack("<BH", self.cause, NONE_U16 if self.lost is None else self.lost)

    @classmethod
    def from_payload(cls, data: bytes) -> ControllerReset:
        expect_size(cls.TYPE, data, 3)
        cause, lost = struct.unpack("<BH", data)
        return cls(cause, none_if(lost, NONE_U16))

    def to_json(self) -> Json:
        return {"type": "controller_reset", "cause": self.cause, "name": self.name,
                "lost": self.lost}

    @classmethod
    def from_json(cls, obj: Mapping[str, object]) -> ControllerReset:
        keys = ("cause", "name", "lost") if "name" in obj else ("cause", "lost")
        o = Obj(obj, "controller_reset", keys)
        reset = cls(o.int_("cause", 0, 255), o.opt_int("lost", 0, NONE_U16 - 1))
        _check_name("controller_reset", obj, reset.name)
        return reset


@dataclass(frozen=True, slots=True)
class EventsDropped:
    """Events the controller dropped because its queue was full (the host away for long), since
    its previous report of this kind."""

    TYPE: ClassVar[MessageType] = MessageType.EVENTS_DROPPED
    count: int

    def __post_init__(self) -> None:
        check_int("events_dropped", "count", self.count, 1, 0xFFFF)

    def payload(self) -> bytes:
        return struct.pack("<H", self.count)

    @classmethod
    def from_payload(cls, data: bytes) -> EventsDropped:
        expect_size(cls.TYPE, data, 2)
        return cls(struct.unpack("<H", data)[0])

    def to_json(self) -> Json:
        return {"type": "events_dropped", "count": self.count}

    @classmethod
    def from_json(cls, obj: Mapping[str, object]) -> EventsDropped:
        return cls(Obj(obj, "events_dropped", ("count",)).int_("count", 1, 0xFFFF))


@dataclass(frozen=True, slots=True)
class ConfigFault:
    """The controller's configuration (``config.json``) is wrong: ``problem`` (a
    :class:`ConfigProblem` or a newer one) with the ``key`` it is about (None: the file as a
    whole) and, for a pin conflict, the ``pin``. The controller runs the link only."""

    TYPE: ClassVar[MessageType] = MessageType.CONFIG_FAULT
    problem: int
    key: str | None = None
    pin: int | None = None

    def __post_init__(self) -> None:
        check_int("config_fault", "problem", self.problem, 1, 255)
        check_opt_int("config_fault", "pin", self.pin, 0, 254)
        if self.key is not None and not 1 <= len(self.key.encode()) <= MAX_KEY_BYTES:
            raise fail("config_fault", f"key must be 1..{MAX_KEY_BYTES} bytes of UTF-8 or null, "
                                       f"got {self.key!r}")

    @property
    def name(self) -> str:
        return _name(ConfigProblem, self.problem)

    def payload(self) -> bytes:
        key = b"" if self.key is None else self.key.encode()
        return bytes((self.problem, u8_or_none(self.pin), len(key))) + key

    @classmethod
    def from_payload(cls, data: bytes) -> ConfigFault:
        if len(data) < 3 or len(data) != 3 + data[2]:
            raise fail("config_fault", f"payload must be 3 bytes + key, got {data.hex()}")
        try:
            key = data[3:].decode()
        except UnicodeDecodeError:
            raise fail("config_fault", f"key is not UTF-8: {data[3:].hex()}") from None
        return cls(data[0], key or None, none_if(data[1], 0xFF))

    def to_json(self) -> Json:
        return {"type": "config_fault", "problem": self.problem, "name": self.name,
                "key": self.key, "pin": self.pin}

    @classmethod
    def from_json(cls, obj: Mapping[str, object]) -> ConfigFault:
        keys = ("problem", "name", "key", "pin") if "name" in obj else ("problem", "key", "pin")
        o = Obj(obj, "config_fault", keys)
        key = obj["key"]
        if key is not None and not isinstance(key, str):
            raise fail("config_fault", f"key must be a string or null, got {key!r}")
        fault = cls(o.int_("problem", 1, 255), key, o.opt_int("pin", 0, 254))
        _check_name("config_fault", obj, fault.name)
        return fault
