"""The command intake's lean MQTT reader (daemon/mqtt_lean.py, daemon/mqtt_wire.py) on a real
Mosquitto: MQTT 5 and 3.1.1, the v5 properties a reply needs, the retain flag, QoS 1 deliveries
acknowledged, a packet too long to buffer skipped without losing the stream, thousands of
messages in order, and the end of the connection reported."""

from __future__ import annotations

import asyncio
import struct
from typing import Any

import aiomqtt
import daemon_kit
import pytest

from daemon import mqtt_wire as wire
from daemon.errors import BrokerError
from daemon.mqtt_lean import BUFFER_LIMIT
from daemon.mqtt_session import MqttSession
from daemon.mqtt_wire import Connect

Got = tuple[bytes, bytes, bool, "bytes | None", int]


@pytest.fixture
def broker(tmp_path: Any) -> Any:
    b = daemon_kit.Broker(tmp_path / "broker").start()
    yield b
    b.stop()


def _spec(port: int, v5: bool = True, keepalive: int = 10) -> Connect:
    return Connect("127.0.0.1", port, f"lean-{v5}", v5=v5, keepalive=keepalive)


async def _publish(port: int, messages: list[tuple[str, bytes, dict[str, Any]]],
                   v5: bool = True) -> None:
    proto = aiomqtt.ProtocolVersion.V5 if v5 else aiomqtt.ProtocolVersion.V311
    async with aiomqtt.Client("127.0.0.1", port, protocol=proto) as c:
        for topic, payload, kw in messages:
            await c.publish(topic, payload, qos=1, **kw)


@pytest.mark.parametrize("v5", [True, False])
async def test_publishes_arrive_cut_with_their_properties_and_retain_flag(
    broker: daemon_kit.Broker, v5: bool
) -> None:
    from paho.mqtt.packettypes import PacketTypes
    from paho.mqtt.properties import Properties

    got: list[Got] = []
    props = Properties(PacketTypes.PUBLISH)  # type: ignore[no-untyped-call]
    props.ResponseTopic = "jantaku/v1/t/reply/me"
    props.CorrelationData = b"\x00corr"
    props.UserProperty = [("k", "v")]
    props.MessageExpiryInterval = 60
    async with MqttSession(_spec(broker.port, v5), lambda *a: got.append(a)) as s:
        options = 0x08 if v5 else 0x00  # QoS 0, retain as published
        assert await s.subscribe([("jantaku/v1/t/cmd/+", options)]) == [0]
        await _publish(broker.port, [
            ("jantaku/v1/t/cmd/pause", b'{"a": 1}', {"properties": props} if v5 else {}),
            ("jantaku/v1/t/cmd/undo", b"retained", {"retain": True}),
            ("jantaku/v1/t/other", b"not ours", {}),
            ("jantaku/v1/t/cmd/pause", b"", {}),
        ], v5)
        await daemon_kit.until(lambda: len(got) >= 3, 10)
    topic, payload, retain, raw, size = got[0]
    assert (topic, payload, retain, size) == (b"jantaku/v1/t/cmd/pause", b'{"a": 1}', False, 8)
    known = wire.publish_properties(raw)
    if v5:
        assert known == wire.PublishProperties("jantaku/v1/t/reply/me", b"\x00corr")
    else:
        assert raw is None and known == wire.PublishProperties()
    # retain as published (v5); 3.1.1 brokers clear the flag on a live delivery
    assert got[1][:3] == (b"jantaku/v1/t/cmd/undo", b"retained", v5)
    assert got[2][:2] == (b"jantaku/v1/t/cmd/pause", b"") and got[2][4] == 0
    assert len(got) == 3


async def test_qos1_deliveries_are_acknowledged_and_thousands_arrive_in_order(
    broker: daemon_kit.Broker,
) -> None:
    """Mosquitto sends at most max_inflight_messages (20) unacknowledged: all 3,000 arrive only
    if every one is acknowledged."""
    got: list[bytes] = []
    async with MqttSession(_spec(broker.port), lambda t, p, *_: got.append(p)) as s:
        await s.subscribe([("flood/#", 0x01)])
        await _publish(broker.port, [("flood/x", str(i).encode(), {}) for i in range(3000)])
        await daemon_kit.until(lambda: len(got) >= 3000, 30)
    assert got == [str(i).encode() for i in range(3000)]


async def test_a_packet_too_long_to_buffer_is_skipped_and_the_stream_stays_in_step(
    broker: daemon_kit.Broker,
) -> None:
    from paho.mqtt.packettypes import PacketTypes
    from paho.mqtt.properties import Properties

    got: list[Got] = []
    props = Properties(PacketTypes.PUBLISH)  # type: ignore[no-untyped-call]
    props.ResponseTopic = "jantaku/v1/t/reply/big"
    big = b"x" * (3 * BUFFER_LIMIT)
    async with MqttSession(_spec(broker.port), lambda *a: got.append(a)) as s:
        await s.subscribe([("cmd/#", 0x08)])
        await _publish(broker.port, [("cmd/a", b"before", {}),
                                     ("cmd/big", big, {"properties": props}),
                                     ("cmd/b", b"after", {})])
        await daemon_kit.until(lambda: len(got) >= 3, 10)
    assert got[0][:2] == (b"cmd/a", b"before")
    topic, payload, _, raw, size = got[1]
    assert (topic, payload, size) == (b"cmd/big", b"", len(big))
    assert wire.publish_properties(raw).response_topic == "jantaku/v1/t/reply/big"
    assert got[2][:2] == (b"cmd/b", b"after")


async def test_the_end_of_the_connection_is_reported(tmp_path: Any) -> None:
    b = daemon_kit.Broker(tmp_path / "b2").start()
    try:
        async with MqttSession(_spec(b.port), lambda *a: None) as s:
            await s.subscribe([("x/#", 0)])
            b.stop()
            with pytest.raises(BrokerError):
                await asyncio.wait_for(s.wait_closed(), 10)
    finally:
        b.stop()
    with pytest.raises(BrokerError, match="cannot connect"):
        async with MqttSession(_spec(b.port), lambda *a: None):
            pass


def test_wire_varints_and_properties() -> None:
    for n in (0, 1, 127, 128, 16_383, 16_384, 2_097_151, 268_435_455):
        enc = wire.varint(n)
        assert wire.read_varint(enc + b"rest", 0) == (n, len(enc))
        assert wire.read_varint(enc[:-1], 0) is None
    with pytest.raises(wire.ProtocolError):
        wire.read_varint(b"\xff\xff\xff\xff\x01", 0)
    rt, cd = b"a/reply/x", b"\x01\x02"
    raw = (b"\x26" + struct.pack("!H", 1) + b"k" + struct.pack("!H", 1) + b"v"  # user property
           + b"\x02" + struct.pack("!I", 9)  # message expiry
           + b"\x08" + struct.pack("!H", len(rt)) + rt + b"\x09" + struct.pack("!H", 2) + cd)
    assert wire.publish_properties(raw) == wire.PublishProperties("a/reply/x", cd)
    for bad in (b"\x7f\x00", raw[:-1], b"\x08\x00"):
        with pytest.raises(wire.ProtocolError):
            wire.publish_properties(bad)
