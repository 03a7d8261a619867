"""MQTT packets as bytes, for the command intake's lean reader (daemon/mqtt_lean.py).

Only what a subscriber that reads one topic filter needs: CONNECT, SUBSCRIBE, PUBACK, PINGREQ and
DISCONNECT out; CONNACK, SUBACK, PUBLISH, PINGRESP and DISCONNECT in; MQTT 3.1.1 and 5. A PUBLISH
is cut into its topic, payload and raw v5 properties without building anything else: the
properties are read (:func:`publish_properties`) only for a message that is answered.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Final

from daemon.errors import BrokerError

CONNECT: Final = 0x10
CONNACK: Final = 0x20
PUBLISH: Final = 0x30
PUBACK: Final = 0x40
SUBSCRIBE: Final = 0x82
SUBACK: Final = 0x90
PINGREQ_PACKET: Final = b"\xc0\x00"
PINGRESP: Final = 0xD0
DISCONNECT: Final = 0xE0

#: v5 property identifiers of a PUBLISH read here
RESPONSE_TOPIC: Final = 0x08
CORRELATION_DATA: Final = 0x09
#: v5 property identifier -> its value's encoding (MQTT 5.0 §2.2.2.2): b byte, h two-byte
#: integer, i four-byte integer, v variable byte integer, s string, d binary data, p string pair
PROPERTY_KINDS: Final = {
    0x01: "b", 0x02: "i", 0x03: "s", 0x08: "s", 0x09: "d", 0x0B: "v", 0x11: "i", 0x12: "s",
    0x13: "h", 0x15: "s", 0x16: "d", 0x17: "b", 0x18: "i", 0x19: "b", 0x1A: "s", 0x1C: "s",
    0x1F: "s", 0x21: "h", 0x22: "h", 0x23: "h", 0x24: "b", 0x25: "b", 0x26: "p", 0x27: "i",
    0x28: "b", 0x29: "b", 0x2A: "b",
}
_FIXED: Final = {"b": 1, "h": 2, "i": 4}


class ProtocolError(BrokerError):
    """The broker sent bytes that are not MQTT as this reader knows it: the connection is
    dropped and made again."""


@dataclass(frozen=True, slots=True)
class PublishProperties:
    """The v5 properties of a PUBLISH that a reply needs (``None``: absent)."""

    response_topic: str | None = None
    correlation: bytes | None = None


def varint(n: int) -> bytes:
    """MQTT's variable byte integer (remaining length, property lengths)."""
    out = bytearray()
    while True:
        n, digit = n >> 7, n & 0x7F
        out.append(digit | (0x80 if n else 0))
        if not n:
            return bytes(out)


def read_varint(data: bytes, at: int) -> tuple[int, int] | None:
    """``(value, index after it)``, or ``None`` if ``data`` ends inside it; raises
    :class:`ProtocolError` past four bytes."""
    value = shift = 0
    for k in range(4):
        if at + k >= len(data):
            return None
        b = data[at + k]
        value |= (b & 0x7F) << shift
        if not b & 0x80:
            return value, at + k + 1
        shift += 7
    raise ProtocolError("a variable byte integer longer than four bytes")


def _string(text: str | bytes) -> bytes:
    raw = text.encode() if isinstance(text, str) else text
    return struct.pack("!H", len(raw)) + raw


def _packet(first: int, body: bytes) -> bytes:
    return bytes((first,)) + varint(len(body)) + body


def connect(client_id: str, *, v5: bool, keepalive: int, username: str | None = None,
            password: str | None = None) -> bytes:
    """A CONNECT with a clean start (nothing of an earlier session is wanted: a command sent
    while the table was away is sent again by its referee)."""
    flags = 0x02 | (0x80 if username is not None else 0) | (
        0x40 if password is not None else 0)
    body = _string("MQTT") + bytes((5 if v5 else 4, flags)) + struct.pack("!H", keepalive)
    if v5:
        body += b"\x00"  # no properties
    body += _string(client_id)
    if username is not None:
        body += _string(username)
    if password is not None:
        body += _string(password)
    return _packet(CONNECT, body)


def subscribe(packet_id: int, filters: list[tuple[str, int]], *, v5: bool) -> bytes:
    """A SUBSCRIBE of ``(filter, options)`` pairs (options: QoS in bits 0-1, and in v5 retain
    as published in bit 3)."""
    body = struct.pack("!H", packet_id) + (b"\x00" if v5 else b"")
    for flt, options in filters:
        body += _string(flt) + bytes((options if v5 else options & 0x03,))
    return _packet(SUBSCRIBE, body)


def disconnect() -> bytes:
    return b"\xe0\x00"


def connack(body: bytes, *, v5: bool) -> int:
    """The CONNACK's return (3.1.1) or reason (5) code: 0 is accepted."""
    if len(body) < 2:
        raise ProtocolError("a CONNACK shorter than two bytes")
    del v5  # the code is the second byte in both versions
    return body[1]


def suback(body: bytes, *, v5: bool) -> tuple[int, list[int]]:
    """``(packet id, the granted QoS or reason code of each filter)``."""
    if len(body) < 3:
        raise ProtocolError("a SUBACK shorter than three bytes")
    at = 2
    if v5:
        got = read_varint(body, at)
        if got is None:
            raise ProtocolError("a SUBACK cut inside its properties")
        length, at = got
        at += length
    return struct.unpack_from("!H", body)[0], list(body[at:])


def publish_properties(raw: bytes | None) -> PublishProperties:
    """The response topic and correlation data of a v5 PUBLISH's raw properties; raises
    :class:`ProtocolError` on properties that do not parse."""
    if not raw:
        return PublishProperties()
    response: str | None = None
    correlation: bytes | None = None
    at = 0
    while at < len(raw):
        got = read_varint(raw, at)
        if got is None:
            raise ProtocolError("PUBLISH properties cut inside an identifier")
        ident, at = got
        kind = PROPERTY_KINDS.get(ident)
        if kind is None:
            raise ProtocolError(f"unknown PUBLISH property {ident:#x}")
        start, at = at, _skip_property(raw, at, kind)
        if ident == RESPONSE_TOPIC:
            response = raw[start + 2:at].decode("utf-8", "surrogateescape")
        elif ident == CORRELATION_DATA:
            correlation = bytes(raw[start + 2:at])
    return PublishProperties(response, correlation)


def _skip_property(raw: bytes, at: int, kind: str) -> int:
    if kind in _FIXED:
        end = at + _FIXED[kind]
    elif kind == "v":
        got = read_varint(raw, at)
        if got is None:
            raise ProtocolError("PUBLISH properties cut inside a variable byte integer")
        end = got[1]
    else:
        end = at
        for _ in range(2 if kind == "p" else 1):
            if end + 2 > len(raw):
                raise ProtocolError("PUBLISH properties cut inside a length")
            end += 2 + struct.unpack_from("!H", raw, end)[0]
    if end > len(raw):
        raise ProtocolError("PUBLISH properties longer than their length says")
    return end
