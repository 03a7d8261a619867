"""MQTT packets as bytes, for the daemon's own client (daemon/mqtt_session.py, read by
daemon/mqtt_lean.py), and what one connection needs (:class:`Connect`).

What a table publishes and reads, MQTT 3.1.1 and 5: CONNECT (with a will, credentials, a clean
start), PUBLISH (QoS 0 and 1, a reply's v5 properties), PUBACK, SUBSCRIBE, UNSUBSCRIBE, PINGREQ
and DISCONNECT out; CONNACK, PUBLISH, PUBACK, SUBACK, UNSUBACK, PINGRESP and DISCONNECT in. A
PUBLISH is cut into its topic, payload and raw v5 properties without building anything else: the
properties are read (:func:`publish_properties`) only for a message that is answered.
"""

from __future__ import annotations

import ssl
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

from daemon.errors import BrokerError, DaemonError

CONNECT: Final = 0x10
CONNACK: Final = 0x20
PUBLISH: Final = 0x30
PUBACK: Final = 0x40
SUBSCRIBE: Final = 0x82
SUBACK: Final = 0x90
UNSUBSCRIBE: Final = 0xA2
UNSUBACK: Final = 0xB0
PINGREQ_PACKET: Final = b"\xc0\x00"
PINGRESP: Final = 0xD0
DISCONNECT: Final = 0xE0

#: v5 property identifiers read or written here
RESPONSE_TOPIC: Final = 0x08
CORRELATION_DATA: Final = 0x09
SERVER_KEEP_ALIVE: Final = 0x13
RECEIVE_MAXIMUM: Final = 0x21
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


class TopicError(DaemonError, ValueError):
    """A topic that cannot be published to (empty, a wildcard, a NUL, longer than 65,535 bytes):
    a caller's fault, never the connection's."""


@dataclass(frozen=True, slots=True)
class Will:
    """The Last Will the broker publishes when the connection ends without a DISCONNECT."""

    topic: str
    payload: bytes
    qos: int = 1
    retain: bool = True


@dataclass(frozen=True, slots=True)
class Connect:
    """What one connection needs (daemon/mqtt.py and daemon/command_intake.py build it from the
    config)."""

    host: str
    port: int
    client_id: str
    v5: bool
    will: Will | None = None
    username: str | None = None
    password: str | None = None
    keepalive: int = 60
    #: seconds for the connection, its CONNACK, and every SUBACK or UNSUBACK
    timeout: float = 10.0
    tls: ssl.SSLContext | None = None
    #: QoS 1 publishes on the wire unacknowledged at most (the rest wait for PUBACKs); an MQTT 5
    #: broker's Receive Maximum lowers it
    max_inflight: int = 20
    socket_options: tuple[tuple[int, int, int], ...] = ()


@dataclass(frozen=True, slots=True)
class Connack:
    """The CONNACK: its return (3.1.1) or reason (5) code, 0 accepted, and what an MQTT 5
    broker asks of this client (``None``: not said)."""

    code: int
    receive_maximum: int | None = None
    server_keepalive: int | None = None


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


def connect(spec: Connect) -> bytes:
    """A CONNECT with a clean start and no session kept (nothing of an earlier session is wanted:
    the outbox sends again what was not acknowledged, and a command sent while the table was
    away is sent again by its referee). A password goes with a user name only (3.1.1 allows no
    other)."""
    will, user = spec.will, spec.username
    password = spec.password if user is not None else None
    flags = 0x02 | (0x80 if user is not None else 0) | (0x40 if password is not None else 0)
    if will is not None:
        flags |= 0x04 | (will.qos << 3) | (0x20 if will.retain else 0)
    body = [_string("MQTT"), bytes((5 if spec.v5 else 4, flags)),
            struct.pack("!H", spec.keepalive)]
    if spec.v5:
        body.append(b"\x00")  # no properties: session expiry 0, no topic aliases
    body.append(_string(spec.client_id))
    if will is not None:
        if spec.v5:
            body.append(b"\x00")  # no will properties
        body += (topic_name(will.topic), _string(will.payload))
    if user is not None:
        body.append(_string(user))
    if password is not None:
        body.append(_string(password))
    return _packet(CONNECT, b"".join(body))


def topic_name(topic: str) -> bytes:
    """A topic to publish to, with its two-byte length; raises :class:`TopicError`."""
    raw = topic.encode()
    if not raw or len(raw) > 0xFFFF or b"+" in raw or b"#" in raw or b"\x00" in raw:
        raise TopicError(f"cannot publish to the topic {topic[:80]!r}: an MQTT topic name is "
                         "1 to 65,535 bytes with no wildcard (+, #) and no NUL")
    return struct.pack("!H", len(raw)) + raw


def publish(topic: bytes, payload: bytes, *, qos: int, retain: bool, packet_id: int,
            props: bytes) -> bytes:
    """A PUBLISH; ``topic`` as :func:`topic_name` gives it, ``props`` as :func:`properties`
    gives them (``b""`` in 3.1.1); ``packet_id`` only counts at QoS 1."""
    pid = packet_id.to_bytes(2, "big") if qos else b""
    length = len(topic) + len(pid) + len(props) + len(payload)
    head = PUBLISH | (qos << 1) | (1 if retain else 0)
    if length < 0x80:
        return b"".join((bytes((head, length)), topic, pid, props, payload))
    return b"".join((bytes((head,)), varint(length), topic, pid, props, payload))


def properties(known: PublishProperties | None) -> bytes:
    """A v5 PUBLISH's properties, with their length (``b"\\x00"``: none)."""
    if known is None or (known.response_topic is None and known.correlation is None):
        return b"\x00"
    raw = b""
    if known.response_topic is not None:
        raw += bytes((RESPONSE_TOPIC,)) + _string(known.response_topic)
    if known.correlation is not None:
        raw += bytes((CORRELATION_DATA,)) + _string(known.correlation)
    return varint(len(raw)) + raw


def puback(packet_id: bytes) -> bytes:
    """The PUBACK of a QoS 1 delivery (``packet_id``: its two bytes as received)."""
    return b"\x40\x02" + packet_id


def unsubscribe(packet_id: int, filters: list[str], *, v5: bool) -> bytes:
    body = struct.pack("!H", packet_id) + (b"\x00" if v5 else b"")
    return _packet(UNSUBSCRIBE, body + b"".join(_string(f) for f in filters))


def subscribe(packet_id: int, filters: list[tuple[str, int]], *, v5: bool) -> bytes:
    """A SUBSCRIBE of ``(filter, options)`` pairs (options: QoS in bits 0-1, and in v5 retain
    as published in bit 3)."""
    body = struct.pack("!H", packet_id) + (b"\x00" if v5 else b"")
    for flt, options in filters:
        body += _string(flt) + bytes((options if v5 else options & 0x03,))
    return _packet(SUBSCRIBE, body)


def disconnect() -> bytes:
    return b"\xe0\x00"


def connack(body: bytes, *, v5: bool) -> Connack:
    """The CONNACK; raises :class:`ProtocolError` on one that does not parse."""
    if len(body) < 2:
        raise ProtocolError("a CONNACK shorter than two bytes")
    if not v5 or len(body) == 2:
        return Connack(body[1])
    got = read_varint(body, 2)
    if got is None or got[1] + got[0] > len(body):
        raise ProtocolError("a CONNACK cut inside its properties")
    raw = body[got[1]:got[1] + got[0]]
    found: dict[int, int] = {}
    for ident, start, end in _walk(raw):
        if ident in (RECEIVE_MAXIMUM, SERVER_KEEP_ALIVE):
            found[ident] = int.from_bytes(raw[start:end], "big")
    return Connack(body[1], found.get(RECEIVE_MAXIMUM), found.get(SERVER_KEEP_ALIVE))


def puback_of(body: bytes) -> tuple[int, int]:
    """``(packet id, reason code)`` of a PUBACK (3.1.1 and a v5 success omit the code: 0)."""
    if len(body) < 2:
        raise ProtocolError("a PUBACK shorter than two bytes")
    return (body[0] << 8) | body[1], body[2] if len(body) > 2 else 0


def suback(body: bytes, *, v5: bool) -> tuple[int, list[int]]:
    """``(packet id, the granted QoS or reason code of each filter)`` of a SUBACK, or of an
    UNSUBACK (3.1.1: no codes)."""
    if len(body) < 2:
        raise ProtocolError("a SUBACK or UNSUBACK shorter than two bytes")
    at = 2
    if v5:
        got = read_varint(body, at)
        if got is None:
            raise ProtocolError("a SUBACK or UNSUBACK cut inside its properties")
        length, at = got
        at += length
        if at > len(body):
            raise ProtocolError("a SUBACK or UNSUBACK longer than its remaining length")
    return struct.unpack_from("!H", body)[0], list(body[at:])


def publish_properties(raw: bytes | None) -> PublishProperties:
    """The response topic and correlation data of a v5 PUBLISH's raw properties; raises
    :class:`ProtocolError` on properties that do not parse."""
    if not raw:
        return PublishProperties()
    response: str | None = None
    correlation: bytes | None = None
    for ident, start, end in _walk(raw):
        if ident == RESPONSE_TOPIC:
            response = raw[start + 2:end].decode("utf-8", "surrogateescape")
        elif ident == CORRELATION_DATA:
            correlation = bytes(raw[start + 2:end])
    return PublishProperties(response, correlation)


def _walk(raw: bytes) -> Iterator[tuple[int, int, int]]:
    """``(identifier, start, end)`` of each v5 property in ``raw``; raises
    :class:`ProtocolError` on properties that do not parse."""
    at = 0
    while at < len(raw):
        got = read_varint(raw, at)
        if got is None:
            raise ProtocolError("properties cut inside an identifier")
        ident, at = got
        kind = PROPERTY_KINDS.get(ident)
        if kind is None:
            raise ProtocolError(f"unknown property {ident:#x}")
        start, at = at, _skip_property(raw, at, kind)
        yield ident, start, at


def _skip_property(raw: bytes, at: int, kind: str) -> int:
    if kind in _FIXED:
        end = at + _FIXED[kind]
    elif kind == "v":
        got = read_varint(raw, at)
        if got is None:
            raise ProtocolError("properties cut inside a variable byte integer")
        end = got[1]
    else:
        end = at
        for _ in range(2 if kind == "p" else 1):
            if end + 2 > len(raw):
                raise ProtocolError("properties cut inside a length")
            end += 2 + struct.unpack_from("!H", raw, end)[0]
    if end > len(raw):
        raise ProtocolError("properties longer than their length says")
    return end
