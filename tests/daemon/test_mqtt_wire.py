"""The daemon's MQTT codec (daemon/mqtt_wire.py) and packet reader (daemon/mqtt_lean.py) without a
broker: packets as the MQTT 3.1.1 and 5.0 specifications lay them out byte by byte, round trips
through the reader whatever the chunking, and malformed or oversized packets refused with a
:class:`ProtocolError` (a ``BrokerError``) instead of being buffered."""

from __future__ import annotations

import asyncio
import socket
import struct
import time
from typing import Any

import pytest

from daemon import mqtt_wire as wire
from daemon.errors import BrokerError
from daemon.mqtt_lean import BUFFER_LIMIT, HEAD_BYTES, HEADER_MAX, PacketReader
from daemon.mqtt_session import ACK_OWED_S, QUICKACK
from hil.nagle_broker import nagle_broker

Got = tuple[bytes, bytes, bool, "bytes | None", int]


class _Owner:
    """What the reader reports to, recorded; writes (the PUBACKs of deliveries) kept too."""

    def __init__(self, v5: bool) -> None:
        self.v5 = v5
        self.got: list[Got] = []
        self.on_publish = lambda *a: self.got.append(a)
        self.last_read = time.monotonic()
        self.bytes_read = 0
        self.control: list[tuple[int, bytes]] = []
        self.pubacks: list[tuple[int, int]] = []
        self.broken: list[wire.ProtocolError] = []

    def on_control(self, first: int, body: bytes) -> None:
        self.control.append((first, body))

    def on_puback(self, pid: int, code: int) -> None:
        self.pubacks.append((pid, code))

    def on_lost(self, exc: Exception | None) -> None:
        del exc

    def on_broken(self, exc: wire.ProtocolError) -> None:
        self.broken.append(exc)


class _Transport(asyncio.Transport):
    def __init__(self) -> None:
        super().__init__()
        self.written: list[bytes] = []

    def write(self, data: Any) -> None:
        self.written.append(bytes(data))

    def is_closing(self) -> bool:
        return False

    def get_write_buffer_size(self) -> int:
        return 0  # everything written went out at once

    def abort(self) -> None:
        pass


def _reader(v5: bool) -> tuple[PacketReader, _Owner, _Transport]:
    owner, transport = _Owner(v5), _Transport()
    reader = PacketReader(owner)
    reader.connection_made(transport)
    return reader, owner, transport


def _feed(reader: PacketReader, data: bytes) -> int:
    """``data`` as the transport hands it over: read into the reader's buffer, as much as it
    takes at a time; the most bytes the reader kept between two reads."""
    kept = 0
    while data:
        buf = reader.get_buffer(-1)
        assert len(buf) > 0
        n = min(len(buf), len(data))
        buf[:n] = data[:n]
        reader.buffer_updated(n)
        data = data[n:]
        assert len(reader._buf) <= BUFFER_LIMIT + HEADER_MAX  # bounded whatever comes
        kept = max(kept, reader._have)
    return kept


def _s(text: bytes) -> bytes:
    return struct.pack("!H", len(text)) + text


def test_connect_is_laid_out_as_the_specification_says() -> None:
    """MQTT 3.1.1 §3.1 and 5.0 §3.1: protocol name and level, flags (user name 0x80, password
    0x40, will retain 0x20, will QoS 1 0x08, will 0x04, clean start 0x02), keepalive, [v5:
    properties], client id, [v5: will properties], will topic, will payload, user, password."""
    will = wire.Will("jantaku/v1/t1/status", b'{"state":"offline"}', qos=1, retain=True)
    spec = wire.Connect("h", 1, "table-t1", v5=False, will=will, username="t1", password="pw",
                        keepalive=30)
    body = (_s(b"MQTT") + b"\x04\xee" + b"\x00\x1e" + _s(b"table-t1")
            + _s(b"jantaku/v1/t1/status") + _s(b'{"state":"offline"}') + _s(b"t1") + _s(b"pw"))
    assert wire.connect(spec) == b"\x10" + bytes((len(body),)) + body
    v5 = wire.connect(wire.Connect("h", 1, "c", v5=True, will=will, keepalive=60))
    body = (_s(b"MQTT") + b"\x05\x2e" + b"\x00\x3c" + b"\x00" + _s(b"c") + b"\x00"
            + _s(b"jantaku/v1/t1/status") + _s(b'{"state":"offline"}'))
    assert v5 == b"\x10" + bytes((len(body),)) + body
    # no will, no user: a clean start only; a password without a user name is not sent
    bare = wire.connect(wire.Connect("h", 1, "c", v5=False, password="pw", keepalive=60))
    assert bare == b"\x10\x0d" + _s(b"MQTT") + b"\x04\x02\x00\x3c" + _s(b"c")
    will0 = wire.connect(wire.Connect("h", 1, "c", v5=False, keepalive=0,
                                      will=wire.Will("s", b"", qos=0, retain=False)))
    assert will0[9] == 0x06


def test_publish_packets_round_trip_through_the_reader_whatever_the_chunks() -> None:
    """Lengths on both sides of each remaining-length byte boundary, QoS 0 and 1, retained or
    not, v5 properties or none; fed whole, byte by byte and in odd chunks."""
    props = wire.properties(wire.PublishProperties("a/reply/x", b"\x00\x01corr"))
    cases = []
    for n, size in enumerate((0, 1, 100, 127 - 12, 128, 16_383 - 12, 16_384, 70_000)):
        for v5 in (True, False):
            p = (props if n % 2 else b"\x00") if v5 else b""
            cases.append((v5, f"t/{n}".encode(), bytes([n]) * size, n % 2, bool(n % 3), p))
    for v5 in (True, False):
        packets = [(wire.publish(_s(t), pl, qos=q, retain=r, packet_id=7 + i, props=p), t, pl,
                    q, r, p) for i, (v, t, pl, q, r, p) in enumerate(cases) if v == v5]
        stream = b"".join(pk for pk, *_ in packets)
        for chunk in (len(stream), 1, 7, 4093):
            reader, owner, transport = _reader(v5)
            for at in range(0, len(stream), chunk):
                _feed(reader, stream[at:at + chunk])
            assert owner.broken == [] and owner.control == []
            want = [(t, pl, r, (p[1:] or None) if v5 and p[0] < 0x80 else None, len(pl))
                    for _, t, pl, q, r, p in packets]
            assert owner.got == want
            acks = b"".join(transport.written)
            ids = [7 + i for i, (v, *_rest) in enumerate(cases) if v == v5]
            assert acks == b"".join(b"\x40\x02" + struct.pack("!H", i)
                                    for i, (*_x, q, _r, _p) in zip(ids, packets) if q)
    known = wire.publish_properties(props[1:])
    assert known == wire.PublishProperties("a/reply/x", b"\x00\x01corr")


def test_a_long_publish_is_skipped_past_its_head_and_the_stream_stays_in_step() -> None:
    reader, owner, _ = _reader(True)
    big = wire.publish(_s(b"cmd/big"), b"x" * (BUFFER_LIMIT + 1), qos=1, retain=False,
                       packet_id=3, props=b"\x00")
    after = wire.publish(_s(b"cmd/after"), b"ok", qos=0, retain=False, packet_id=0,
                         props=b"\x00")
    stream = big + after
    kept = max(_feed(reader, stream[at:at + 65_536]) for at in range(0, len(stream), 65_536))
    assert owner.broken == []
    assert [(t, p, s) for t, p, _, _, s in owner.got] == [
        (b"cmd/big", b"", BUFFER_LIMIT + 1), (b"cmd/after", b"ok", 2)]
    assert 0 < kept <= HEADER_MAX + HEAD_BYTES  # its head, never the whole packet


@pytest.mark.parametrize("stream, why", [
    (b"\x40" + wire.varint(BUFFER_LIMIT + 1) + b"\x00" * HEAD_BYTES, "packet of type 4"),
    (b"\x30\xff\xff\xff\xff\x01", "longer than four bytes"),
    (b"\x34\x05\x00\x01t\x00\x01", "QoS 2"),
    (b"\x30\x05\x00\x09abc", "not MQTT from the broker"),  # a topic past the packet
])
def test_what_is_not_mqtt_breaks_the_connection(stream: bytes, why: str) -> None:
    reader, owner, _ = _reader(True)
    _feed(reader, stream)
    assert len(owner.broken) == 1 and why in str(owner.broken[0])
    assert isinstance(owner.broken[0], BrokerError)


def test_pubacks_go_to_on_puback_as_their_id_and_code() -> None:
    """The reader parses a PUBACK itself (wire.puback_of): 3.1.1 and a v5 success omit
    the code, a refusal carries it (and properties); one shorter than two bytes goes to
    ``on_control``, whose :func:`wire.puback_of` refuses it."""
    reader, owner, _ = _reader(True)
    _feed(reader, b"\x40\x02\x01\x02" + b"\x40\x03\x00\x07\x87"
          + b"\x40\x07\x00\x08\x10\x03\x1f\x00\x00" + b"\x40\x01\x05")
    assert owner.pubacks == [(0x0102, 0), (7, 0x87), (8, 0x10)]
    assert owner.control == [(0x40, b"\x05")] and owner.broken == []


def test_control_packets_parse_and_malformed_ones_are_refused() -> None:
    # PUBACK: 3.1.1 and a v5 success omit the reason code; a refusal carries it (and properties)
    assert wire.puback_of(b"\x01\x02") == (0x0102, 0)
    assert wire.puback_of(b"\x00\x07\x87") == (7, 0x87)
    assert wire.puback_of(b"\x00\x07\x10\x03\x1f\x00\x00") == (7, 0x10)
    with pytest.raises(wire.ProtocolError):
        wire.puback_of(b"\x01")
    # CONNACK: v5 properties read (Receive Maximum, Server Keep Alive), others skipped
    props = b"\x21\x00\x0a" + b"\x13\x00\x05" + b"\x12" + _s(b"assigned") + b"\x26" + _s(
        b"k") + _s(b"v")
    assert wire.connack(b"\x00\x00" + wire.varint(len(props)) + props, v5=True) == \
        wire.Connack(0, receive_maximum=10, server_keepalive=5)
    assert wire.connack(b"\x00\x86\x00", v5=True) == wire.Connack(0x86)
    assert wire.connack(b"\x00\x05", v5=False) == wire.Connack(5)
    for bad in (b"\x00", b"\x00\x00\x05\x21\x00", b"\x00\x00\x02\x7f\x00"):
        with pytest.raises(wire.ProtocolError):
            wire.connack(bad, v5=True)
    # SUBACK and UNSUBACK (3.1.1's UNSUBACK has no codes)
    assert wire.suback(b"\x00\x02\x00\x01\x80", v5=True) == (2, [1, 0x80])
    assert wire.suback(b"\x00\x02\x00\x11", v5=True) == (2, [0x11])
    assert wire.suback(b"\x00\x02", v5=False) == (2, [])
    for bad in (b"\x00", b"\x00\x02\x05\x00"):
        with pytest.raises(wire.ProtocolError):
            wire.suback(bad, v5=True)
    assert wire.unsubscribe(9, ["a/b", "c"], v5=True) == b"\xa2\x0b\x00\x09\x00" + _s(
        b"a/b") + _s(b"c")
    assert wire.unsubscribe(9, ["a"], v5=False) == b"\xa2\x05\x00\x09" + _s(b"a")


def test_topics_that_cannot_be_published_to_are_refused() -> None:
    for bad in ("", "a/+/b", "a/#", "a\x00b", "x" * 65_536):
        with pytest.raises(wire.TopicError):
            wire.topic_name(bad)
    assert wire.topic_name("jantaku/v1/t/events") == _s(b"jantaku/v1/t/events")
    assert wire.topic_name("é") == b"\x00\x02\xc3\xa9"


def test_the_daemon_run_path_imports_neither_paho_nor_aiomqtt() -> None:
    """`jantaku run`'s modules (the service, both broker connections, the web server with its
    scoreboard) in a fresh interpreter: the broker client is the daemon's own; paho-mqtt and
    aiomqtt serve the referee, status and follow tools (and the tests, as independent clients)."""
    import subprocess
    import sys

    code = ("import sys, daemon.cli.run, daemon.service, daemon.mqtt, daemon.command_intake, "
            "daemon.web.runtime, daemon.web.scoreboard, daemon.cli.log; "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'paho', 'aiomqtt'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=60)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("v5", [True, False])
def test_publish_now_writes_the_packets_wire_publish_lays_out(v5: bool) -> None:
    """The session's inline encoding of a window (daemon/mqtt_session.py ``publish_now``) is
    :func:`wire.publish` at QoS 1, not retained, on both sides of the one-byte length; the
    window's ``settled`` is called once its PUBACKs are read, and once when the connection
    fails under it."""
    from daemon.mqtt_session import MqttSession

    async def go() -> None:
        session = MqttSession(wire.Connect("h", 1, "c", v5=v5))
        transport = _Transport()
        session._transport = transport
        calls: list[str] = []
        window = [("t/a", b"x" * 10), ("jantaku/v1/t/private/events", b"y" * 200),
                  ("t/c", b"z" * 20_000)]  # lengths of one, two and three bytes
        session._next_id = 0xFFFE  # the ids wrap, past one in use
        session._pending[1] = session._loop.create_future()
        fut = session.publish_now(window, lambda: calls.append("settled"))
        props = b"\x00" if v5 else b""
        assert transport.written == [b"".join(
            wire.publish(wire.topic_name(t), p, qos=1, retain=False, packet_id=pid,
                         props=props) for pid, (t, p) in zip((0xFFFF, 2, 3), window))]
        session.on_control(wire.PUBACK, b"\xff\xff")
        session.on_puback(2, 0)
        assert calls == [] and not fut.done()
        session.on_control(wire.PUBACK, b"\x00\x03\x87")
        assert calls == ["settled"] and fut.result() == [0, 0, 0x87]
        del session._pending[1]
        again = session.publish_now(window, lambda: calls.append("failed"))
        session.fail_all(BrokerError("connection closed"))
        assert calls == ["settled", "failed"] and isinstance(again.exception(), BrokerError)

    asyncio.run(go())


class _QuickAckSocket:
    """The TCP socket as the session sees it: its TCP_QUICKACK settings recorded."""

    family = socket.AF_INET

    def __init__(self) -> None:
        self.quickacks = 0
        self.detached = False

    def setsockopt(self, level: int, option: int, value: int) -> None:
        assert (level, option, value) == (socket.IPPROTO_TCP, QUICKACK, 1)
        assert not self.detached
        self.quickacks += 1

    def detach(self) -> int:
        self.detached = True
        return -1


@pytest.mark.skipif(QUICKACK is None, reason="TCP_QUICKACK is Linux's")
def test_an_owed_ack_is_sent_alone_only_when_no_write_carries_it() -> None:
    """A broker without TCP_NODELAY holds the next PUBACK until our TCP ACK of the last one:
    after a PUBACK read while more are due, the session owes that ACK. A write to the broker
    within :data:`ACK_OWED_S` carries it; otherwise it is sent alone (TCP_QUICKACK), once, and
    never after the PUBACK that was the last one due (daemon/mqtt_session.py ``on_puback``)."""
    from daemon.mqtt_session import MqttSession

    async def go() -> None:
        session = MqttSession(wire.Connect("h", 1, "c", v5=True))
        session._transport = _Transport()
        sock = _QuickAckSocket()
        session._quickack = sock  # type: ignore[assignment]
        reader = PacketReader(session)
        reader.connection_made(_Transport())
        fut = session.publish_now([(f"t/{i}", b"x") for i in range(4)])

        def read(*ids: int) -> None:
            _feed(reader, b"".join(wire.puback(struct.pack("!H", i)) for i in ids))

        async def quickacks() -> int:
            await asyncio.sleep(ACK_OWED_S + 0.02)
            return sock.quickacks

        read(1, 2)  # two PUBACKs in one read, two still due: owed, not sent at once
        assert sock.quickacks == 0
        assert await quickacks() == 1  # nothing written meanwhile: sent alone
        assert await quickacks() == 1  # once
        read(3)  # owed again ...
        later = session.publish_now([("t/x", b"y")])  # ... and carried by this write
        assert await quickacks() == 1
        _feed(reader, bytes([wire.PINGRESP, 0]))  # a read without PUBACKs owes nothing
        assert await quickacks() == 1
        read(4)  # one still due (5): owed, sent alone
        assert await quickacks() == 2
        read(5)  # the last one due: nothing is held for us
        assert await quickacks() == 2 and fut.result() == [0] * 4 and later.result() == [0]
        more = session.publish_now([("t/w", b"v")] * 3)  # ids 6 to 8
        session.ack_now()  # the caller waits for PUBACKs, nothing written: none owed yet ...
        read(6)  # ... so one owed from now until the next write is sent at once
        assert sock.quickacks == 3
        read(7)
        assert sock.quickacks == 4 and await quickacks() == 4
        read(8)  # the last one due
        assert more.result() == [0] * 3 and await quickacks() == 4
        session.publish_now([("t/v", b"u")] * 2)  # ids 9 and 10; the write ends the eagerness
        read(9)
        assert sock.quickacks == 4
        session.ack_now()  # owed, and asked for: sent now, not again by the timer
        assert sock.quickacks == 5 and await quickacks() == 5
        read(10)
        session.publish_now([("t/y", b"z")] * 2)
        read(11)  # owed; then the connection ends: the timer goes, the socket is let go
        session.on_lost(None)
        assert await quickacks() == 5 and sock.detached and session._quickack is None

    asyncio.run(go())


@pytest.mark.skipif(QUICKACK is None, reason="TCP_QUICKACK is Linux's")
def test_a_broker_without_tcp_nodelay_does_not_hold_the_second_puback() -> None:
    """The kernel's side of the owed ACK, on a real socket: windows of two publishes awaited
    alone (nothing else written) against a broker whose second PUBACK waits behind Nagle for our
    ACK of the first (hil/nagle_broker.py). The session made its TCP_QUICKACK handle on the
    connection's own descriptor, and sent the owed ACK alone through it (the kernel took each
    setsockopt) while PUBACKs were held. Without the quick ACK each window took ~44 ms (our
    kernel's delayed ACK); bench/broker_session.py ``--nagle`` prints that figure beside
    :data:`ACK_OWED_S`."""
    from daemon.mqtt_session import MqttSession

    class Counting:
        """The session's TCP_QUICKACK handle, each setsockopt passed on and counted."""

        def __init__(self, real: socket.socket) -> None:
            self.real, self.sent, self.errors = real, 0, list[OSError]()

        def setsockopt(self, level: int, option: int, value: int) -> None:
            assert (level, option, value) == (socket.IPPROTO_TCP, QUICKACK, 1)
            try:
                self.real.setsockopt(level, option, value)
                self.sent += 1
            except OSError as e:
                self.errors.append(e)

        def detach(self) -> int:
            return self.real.detach()

    async def go(port: int) -> Counting:
        spec = wire.Connect("127.0.0.1", port, "c", v5=True, socket_options=(
            (socket.IPPROTO_TCP, socket.TCP_NODELAY, 1),))
        async with MqttSession(spec) as session:
            real = session._quickack
            assert real is not None and real.fileno() == session.fileno()
            counting = Counting(real)
            session._quickack = counting  # type: ignore[assignment]
            for _ in range(30):
                assert await session.publish_now([("t/a", b"x" * 50), ("t/b", b"y" * 50)]) \
                    == [0, 0]
            session._quickack = real
        return counting

    with nagle_broker() as port:
        counting = asyncio.run(go(port))
    assert not counting.errors
    assert counting.sent >= 1  # the held PUBACKs were released by our ACK sent alone
