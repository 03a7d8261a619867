"""Checking a message's fields as it is made or read (one :class:`MalformedMessageError` naming
the message and the field), shared by every message class."""

from __future__ import annotations

from collections.abc import Mapping

from drivers.link.errors import MalformedMessageError
from drivers.link.messages.kinds import NONE_U8, MessageType


def fail(kind: str, what: str) -> MalformedMessageError:
    return MalformedMessageError(f"{kind}: {what}")


def check_int(kind: str, name: str, value: object, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise fail(kind, f"{name} must be an integer {lo}..{hi}, got {value!r}")
    if not lo <= value <= hi:
        raise fail(kind, f"{name} must be {lo}..{hi}, got {value!r}")
    return value


def check_opt_int(kind: str, name: str, value: object, lo: int, hi: int) -> int | None:
    return None if value is None else check_int(kind, name, value, lo, hi)


class Obj:
    """Reads the fields of one JSON object, rejecting missing, unknown and mistyped keys."""

    def __init__(self, obj: Mapping[str, object], kind: str, keys: tuple[str, ...]) -> None:
        unknown = sorted(set(obj) - {"type", *keys})
        if unknown:
            raise fail(kind, f"unknown key(s) {unknown}; expected {['type', *keys]}")
        missing = [key for key in keys if key not in obj]
        if missing:
            raise fail(kind, f"missing key(s) {missing} in {dict(obj)!r}")
        self.obj, self.kind = obj, kind

    def int_(self, key: str, lo: int, hi: int) -> int:
        return check_int(self.kind, key, self.obj[key], lo, hi)

    def opt_int(self, key: str, lo: int, hi: int) -> int | None:
        return check_opt_int(self.kind, key, self.obj[key], lo, hi)

    def list_(self, key: str, size: int) -> list[object]:
        value = self.obj[key]
        if not isinstance(value, list) or len(value) != size:
            raise fail(self.kind, f"{key} must be a list of {size}, got {value!r}")
        return value

    def str_(self, key: str) -> str:
        value = self.obj[key]
        if not isinstance(value, str):
            raise fail(self.kind, f"{key} must be a string, got {value!r}")
        return value


def expect_size(kind: MessageType, data: bytes, size: int) -> None:
    if len(data) != size:
        raise fail(kind.json_name, f"payload must be {size} bytes, got {len(data)}: {data.hex()}")


def u8_or_none(value: int | None) -> int:
    return NONE_U8 if value is None else value


def none_if(value: int, none: int) -> int | None:
    return None if value == none else value
