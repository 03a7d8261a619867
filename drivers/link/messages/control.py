"""The link's own messages (docs/protocol/table-link.md §7): hello, welcome, heartbeat, ack, NAK."""

from __future__ import annotations

import struct
from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from drivers.link.messages.fields import Obj, check_int, check_opt_int, expect_size, fail, none_if
from drivers.link.messages.kinds import (
    MAX_FIRMWARE_BYTES,
    NONE_U16,
    Capability,
    Json,
    MessageType,
    NakReason,
    capabilities_from_bits,
    capabilities_to_bits,
)


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
        check_int("hello", "min_version", self.min_version, 1, 254)
        check_int("hello", "max_version", self.max_version, self.min_version, 254)
        check_int("hello", "boot_id", self.boot_id, 1, 0xFFFFFFFF)
        check_opt_int("hello", "rx_boot_id", self.rx_boot_id, 1, 0xFFFFFFFF)
        check_opt_int("hello", "rx_last", self.rx_last, 0, 255)

    def payload(self) -> bytes:
        return struct.pack(
            "<BBIIH", self.min_version, self.max_version, self.boot_id, self.rx_boot_id or 0,
            NONE_U16 if self.rx_last is None else self.rx_last,
        )

    @classmethod
    def from_payload(cls, data: bytes) -> Hello:
        expect_size(cls.TYPE, data, 12)
        lo, hi, boot, rx_boot, rx_last = struct.unpack("<BBIIH", data)
        return cls(lo, hi, boot, rx_boot or None, none_if(rx_last, NONE_U16))

    def to_json(self) -> Json:
        return {"type": "hello", "min_version": self.min_version, "max_version": self.max_version,
                "boot_id": self.boot_id, "rx_boot_id": self.rx_boot_id, "rx_last": self.rx_last}

    @classmethod
    def from_json(cls, obj: Mapping[str, object]) -> Hello:
        o = Obj(obj, "hello", ("min_version", "max_version", "boot_id", "rx_boot_id", "rx_last"))
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
        check_int("welcome", "version", self.version, 0, 254)
        check_int("welcome", "boot_id", self.boot_id, 1, 0xFFFFFFFF)
        check_opt_int("welcome", "rx_last", self.rx_last, 0, 255)
        if len(self.firmware.encode()) > MAX_FIRMWARE_BYTES:
            raise fail("welcome", f"firmware is longer than {MAX_FIRMWARE_BYTES} bytes: "
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
            raise fail("welcome", f"payload must be 10 bytes + firmware, got {data.hex()}")
        version, bits, boot, rx_last, _ = struct.unpack("<BHIHB", data[:10])
        try:
            firmware = data[10:].decode()
        except UnicodeDecodeError:
            raise fail("welcome", f"firmware is not UTF-8: {data[10:].hex()}") from None
        return cls(version, capabilities_from_bits(bits), boot, none_if(rx_last, NONE_U16),
                   firmware)

    def to_json(self) -> Json:
        return {"type": "welcome", "version": self.version,
                "capabilities": [c.value for c in Capability if c in self.capabilities],
                "boot_id": self.boot_id, "rx_last": self.rx_last, "firmware": self.firmware}

    @classmethod
    def from_json(cls, obj: Mapping[str, object]) -> Welcome:
        o = Obj(obj, "welcome", ("version", "capabilities", "boot_id", "rx_last", "firmware"))
        caps = obj["capabilities"]
        if not isinstance(caps, list) or not all(
            isinstance(c, str) and c in Capability.__members__.values() for c in caps
        ):
            raise fail("welcome", f"capabilities must be a list of {[c.value for c in Capability]}"
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
        expect_size(cls.TYPE, data, 0)
        return cls()

    def to_json(self) -> Json:
        return {"type": "heartbeat"}

    @classmethod
    def from_json(cls, obj: Mapping[str, object]) -> Heartbeat:
        Obj(obj, "heartbeat", ())
        return cls()


@dataclass(frozen=True, slots=True)
class Ack:
    """Either side: frame ``seq`` (the frame header's seq) was received and carried out."""

    TYPE: ClassVar[MessageType] = MessageType.ACK

    def payload(self) -> bytes:
        return b""

    @classmethod
    def from_payload(cls, data: bytes) -> Ack:
        expect_size(cls.TYPE, data, 0)
        return cls()

    def to_json(self) -> Json:
        return {"type": "ack"}

    @classmethod
    def from_json(cls, obj: Mapping[str, object]) -> Ack:
        Obj(obj, "ack", ())
        return cls()


@dataclass(frozen=True, slots=True)
class Nak:
    """Either side: ``corrupt`` (a damaged frame was seen) or ``rejected`` (frame ``seq`` was read
    intact but will not be carried out)."""

    TYPE: ClassVar[MessageType] = MessageType.NAK
    reason: NakReason

    def __post_init__(self) -> None:
        if not isinstance(self.reason, NakReason):
            raise fail("nak", f"reason must be a NakReason, got {self.reason!r}")

    def payload(self) -> bytes:
        return bytes((self.reason,))

    @classmethod
    def from_payload(cls, data: bytes) -> Nak:
        expect_size(cls.TYPE, data, 1)
        if data[0] not in NakReason.__members__.values():
            raise fail("nak", f"reason {data[0]} is not one of {[int(r) for r in NakReason]}")
        return cls(NakReason(data[0]))

    def to_json(self) -> Json:
        return {"type": "nak", "reason": self.reason.name.lower()}

    @classmethod
    def from_json(cls, obj: Mapping[str, object]) -> Nak:
        o = Obj(obj, "nak", ("reason",))
        name = o.str_("reason")
        if name.upper() not in NakReason.__members__ or name != name.lower():
            raise fail("nak", f"reason must be 'corrupt' or 'rejected', got {name!r}")
        return cls(NakReason[name.upper()])
