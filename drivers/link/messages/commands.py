"""What the host tells the table (docs/protocol/table-link.md §6): honba and score displays,
buzzer, LEDs, press start."""

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
from drivers.link.messages.kinds import NONE_U8, Json, LedMode, MessageType


@dataclass(frozen=True, slots=True)
class HonbaDisplay:
    """Show the honba counter and the deposits (riichi sticks on the table)."""

    TYPE: ClassVar[MessageType] = MessageType.HONBA_DISPLAY
    honba: int
    deposits: int

    def __post_init__(self) -> None:
        check_int("honba_display", "honba", self.honba, 0, 255)
        check_int("honba_display", "deposits", self.deposits, 0, 255)

    def payload(self) -> bytes:
        return bytes((self.honba, self.deposits))

    @classmethod
    def from_payload(cls, data: bytes) -> HonbaDisplay:
        expect_size(cls.TYPE, data, 2)
        return cls(data[0], data[1])

    def to_json(self) -> Json:
        return {"type": "honba_display", "honba": self.honba, "deposits": self.deposits}

    @classmethod
    def from_json(cls, obj: Mapping[str, object]) -> HonbaDisplay:
        o = Obj(obj, "honba_display", ("honba", "deposits"))
        return cls(o.int_("honba", 0, 255), o.int_("deposits", 0, 255))


_I32 = (-(2**31), 2**31 - 1)


@dataclass(frozen=True, slots=True)
class ScoreDisplay:
    """Show the four scores, ``scores[k]`` on seat k's display."""

    TYPE: ClassVar[MessageType] = MessageType.SCORE_DISPLAY
    scores: tuple[int, int, int, int]

    def __post_init__(self) -> None:
        if not isinstance(self.scores, tuple) or len(self.scores) != 4:
            raise fail("score_display", f"scores must be 4 integers, got {self.scores!r}")
        for score in self.scores:
            check_int("score_display", "scores[]", score, *_I32)

    def payload(self) -> bytes:
        return struct.pack("<4i", *self.scores)

    @classmethod
    def from_payload(cls, data: bytes) -> ScoreDisplay:
        expect_size(cls.TYPE, data, 16)
        a, b, c, d = struct.unpack("<4i", data)
        return cls((a, b, c, d))

    def to_json(self) -> Json:
        return {"type": "score_display", "scores": list(self.scores)}

    @classmethod
    def from_json(cls, obj: Mapping[str, object]) -> ScoreDisplay:
        raw = Obj(obj, "score_display", ("scores",)).list_("scores", 4)
        a, b, c, d = (check_int("score_display", "scores[]", s, *_I32) for s in raw)
        return cls((a, b, c, d))


@dataclass(frozen=True, slots=True)
class Buzzer:
    """Sound the buzzer ``count`` times for ``duration_ms`` each."""

    TYPE: ClassVar[MessageType] = MessageType.BUZZER
    duration_ms: int
    count: int = 1

    def __post_init__(self) -> None:
        check_int("buzzer", "duration_ms", self.duration_ms, 1, 10_000)
        check_int("buzzer", "count", self.count, 1, 10)

    def payload(self) -> bytes:
        return struct.pack("<HB", self.duration_ms, self.count)

    @classmethod
    def from_payload(cls, data: bytes) -> Buzzer:
        expect_size(cls.TYPE, data, 3)
        duration, count = struct.unpack("<HB", data)
        return cls(duration, count)

    def to_json(self) -> Json:
        return {"type": "buzzer", "duration_ms": self.duration_ms, "count": self.count}

    @classmethod
    def from_json(cls, obj: Mapping[str, object]) -> Buzzer:
        o = Obj(obj, "buzzer", ("duration_ms", "count"))
        return cls(o.int_("duration_ms", 1, 10_000), o.int_("count", 1, 10))


@dataclass(frozen=True, slots=True)
class Led:
    """Set the LED of ``seat`` (``None``: all seats) to ``mode`` in colour ``color`` (RGB)."""

    TYPE: ClassVar[MessageType] = MessageType.LED
    seat: int | None
    mode: LedMode
    color: tuple[int, int, int] = (255, 255, 255)

    def __post_init__(self) -> None:
        check_opt_int("led", "seat", self.seat, 0, 3)
        if not isinstance(self.mode, LedMode):
            raise fail("led", f"mode must be a LedMode, got {self.mode!r}")
        if not isinstance(self.color, tuple) or len(self.color) != 3:
            raise fail("led", f"color must be [r, g, b], got {self.color!r}")
        for channel in self.color:
            check_int("led", "color[]", channel, 0, 255)

    def payload(self) -> bytes:
        return bytes((u8_or_none(self.seat), self.mode, *self.color))

    @classmethod
    def from_payload(cls, data: bytes) -> Led:
        expect_size(cls.TYPE, data, 5)
        if data[1] not in LedMode.__members__.values():
            raise fail("led", f"mode byte must be 0..2, got {data[1]}")
        return cls(none_if(data[0], NONE_U8), LedMode(data[1]), (data[2], data[3], data[4]))

    def to_json(self) -> Json:
        return {"type": "led", "seat": self.seat, "mode": self.mode.name.lower(),
                "color": list(self.color)}

    @classmethod
    def from_json(cls, obj: Mapping[str, object]) -> Led:
        o = Obj(obj, "led", ("seat", "mode", "color"))
        mode = o.str_("mode")
        if mode not in ("off", "on", "blink"):
            raise fail("led", f"mode must be 'off', 'on' or 'blink', got {mode!r}")
        r, g, b = (check_int("led", "color[]", c, 0, 255) for c in o.list_("color", 3))
        return cls(o.opt_int("seat", 0, 3), LedMode[mode.upper()], (r, g, b))


@dataclass(frozen=True, slots=True)
class PressStart:
    """Act as if the start button were pressed (start the shuffle and lift cycle)."""

    TYPE: ClassVar[MessageType] = MessageType.PRESS_START

    def payload(self) -> bytes:
        return b""

    @classmethod
    def from_payload(cls, data: bytes) -> PressStart:
        expect_size(cls.TYPE, data, 0)
        return cls()

    def to_json(self) -> Json:
        return {"type": "press_start"}

    @classmethod
    def from_json(cls, obj: Mapping[str, object]) -> PressStart:
        Obj(obj, "press_start", ())
        return cls()
