"""The pure reliable-delivery state machine, two endpoints back to back on a fake clock."""

from __future__ import annotations

import math
from collections.abc import Callable

from drivers.link.arq import Endpoint
from drivers.link.cobs import cobs_encode
from drivers.link.crc import crc32c_of
from drivers.link.frame import Frame, decode_all
from drivers.link.messages import (
    Capability,
    Dice,
    HonbaDisplay,
    MessageType,
    Nak,
    NakReason,
    ScoreDisplay,
    WallRaised,
)
from drivers.link.reports import (
    Acked,
    Connected,
    Delivered,
    Garbled,
    Incompatible,
    LinkRejected,
    LossReason,
    Lost,
    Output,
    Role,
)
from drivers.link.timings import LinkTimings

T = LinkTimings(heartbeat_interval=0.1, link_timeout=0.5, ack_timeout=0.05, max_retries=3,
                hello_interval=0.1)
CAPS = frozenset({Capability.AUTO_OPEN, Capability.HONBA_DISPLAY})

Filter = Callable[[bytes], bytes]


class Wire:
    """Host and controller joined by two byte pipes that tests can filter (drop, damage)."""

    def __init__(self, *, controller_boot: int = 0xC0, host_boot: int = 0x40) -> None:
        self.now = 0.0
        self.host = Endpoint(Role.HOST, boot_id=host_boot, timings=T)
        self.ctl = Endpoint(
            Role.CONTROLLER, boot_id=controller_boot, timings=T, capabilities=CAPS,
            firmware="test-ctl",
            accept=lambda m: m.TYPE != MessageType.SCORE_DISPLAY,
        )
        self.to_ctl: Filter = lambda b: b
        self.to_host: Filter = lambda b: b
        self.host_out: list[Output] = []
        self.ctl_out: list[Output] = []

    def attach(self) -> None:
        self.ctl.attach(self.now)
        self.host.attach(self.now)

    def settle(self, rounds: int = 20) -> None:
        for _ in range(rounds):
            data, out = self.host.drain()
            self.host_out += out
            self.ctl.receive(self.to_ctl(data), self.now)
            data, out = self.ctl.drain()
            self.ctl_out += out
            self.host.receive(self.to_host(data), self.now)

    def run(self, seconds: float, step: float = 0.01) -> None:
        end = self.now + seconds
        while self.now < end:
            self.now += step
            self.host.tick(self.now)
            self.ctl.tick(self.now)
            self.settle()

    def delivered_to_host(self) -> list[object]:
        return [o.message for o in self.host_out if isinstance(o, Delivered)]


def test_handshake_reports_version_capabilities_and_firmware() -> None:
    w = Wire()
    w.attach()
    w.settle()
    assert w.host.connected and w.ctl.connected
    [c] = [o for o in w.host_out if isinstance(o, Connected)]
    assert c == Connected(1, CAPS, "test-ctl", 0xC0)


def test_events_are_delivered_in_order_and_acknowledged() -> None:
    w = Wire()
    w.attach()
    w.settle()
    handles = [w.ctl.send(m, w.now) for m in (WallRaised(), Dice((3, 4)), Dice((6, 6)))]
    w.run(0.05)
    assert w.delivered_to_host() == [WallRaised(), Dice((3, 4)), Dice((6, 6))]
    assert [o.handle for o in w.ctl_out if isinstance(o, Acked)] == handles
    assert w.ctl.pending == 0


def test_lost_frame_is_retransmitted_and_duplicate_is_not_delivered_twice() -> None:
    w = Wire()
    w.attach()
    w.settle()
    dropped: list[bytes] = []

    def drop_first_ack(data: bytes) -> bytes:
        if data and not dropped:
            dropped.append(data)
            return b""
        return data

    w.to_ctl = drop_first_ack  # the host's ack of the event is lost
    w.ctl.send(Dice((2, 5)), w.now)
    w.run(0.3)
    assert w.delivered_to_host() == [Dice((2, 5))]
    assert w.ctl.counters.retransmits >= 1
    assert w.host.counters.duplicates >= 1
    assert w.ctl.pending == 0


def test_corrupted_frame_is_nakked_and_resent() -> None:
    w = Wire()
    w.attach()
    w.settle()
    damaged: list[bytes] = []

    def flip_once(data: bytes) -> bytes:
        if len(data) > 8 and not damaged:
            damaged.append(data)
            return data[:5] + bytes([data[5] ^ 0x10]) + data[6:]
        return data

    w.to_host = flip_once
    w.ctl.send(Dice((1, 1)), w.now)
    w.settle()  # no clock advance: the resend comes from the NAK, not the ack timeout
    assert any(isinstance(o, Garbled) for o in w.host_out)
    assert w.host.counters.naks_tx >= 1
    assert w.delivered_to_host() == [Dice((1, 1))]


def test_command_without_capability_is_rejected_not_retried() -> None:
    w = Wire()
    w.attach()
    w.settle()
    ok = w.host.send(HonbaDisplay(1, 0), w.now)
    refused = w.host.send(ScoreDisplay((1, 2, 3, 4)), w.now)
    w.run(0.2)
    assert [o.handle for o in w.host_out if isinstance(o, Acked)] == [ok]
    assert [o.handle for o in w.host_out if isinstance(o, LinkRejected)] == [refused]
    assert [o.message for o in w.ctl_out if isinstance(o, Delivered)] == [HonbaDisplay(1, 0)]
    assert w.host.counters.retransmits == 0


def test_silence_is_detected_as_link_loss_and_the_host_says_hello_again() -> None:
    w = Wire()
    w.attach()
    w.settle()
    w.to_host = lambda b: b""  # the controller goes quiet
    w.run(T.link_timeout + 0.1)
    assert Lost(LossReason.SILENCE) in w.host_out
    assert not w.host.connected
    w.to_host = lambda b: b
    w.run(T.hello_interval + 0.05)
    assert w.host.connected


def test_unacknowledged_event_survives_reconnect_and_is_delivered_once() -> None:
    w = Wire()
    w.attach()
    w.settle()
    # the event reaches the host, but the cable is pulled before the ack gets back
    w.to_ctl = lambda b: b""
    w.ctl.send(Dice((4, 4)), w.now)
    w.settle()
    w.host.detach(w.now)
    w.ctl.detach(w.now)
    w.to_ctl = lambda b: b
    w.run(0.2)
    w.attach()
    w.run(0.2)
    assert w.delivered_to_host() == [Dice((4, 4))]
    assert w.ctl.pending == 0


def test_event_queued_while_unplugged_is_sent_after_reconnect() -> None:
    w = Wire()
    w.attach()
    w.settle()
    w.host.detach(w.now)
    w.ctl.detach(w.now)
    w.ctl.send(WallRaised(), w.now)
    w.run(0.3)
    assert w.delivered_to_host() == []
    w.attach()
    w.run(0.1)
    assert w.delivered_to_host() == [WallRaised()]


def test_rebooted_controller_restarting_at_seq_zero_is_not_taken_for_a_duplicate() -> None:
    w = Wire()
    w.attach()
    w.settle()
    w.ctl.send(Dice((1, 2)), w.now)  # seq 0 of the first boot
    w.run(0.05)
    host = w.host
    w2 = Wire(controller_boot=0xC1)
    w2.host = host  # same host process, new controller boot
    w2.now = w.now
    host.detach(w2.now)
    w2.attach()
    w2.settle()
    w2.ctl.send(Dice((1, 2)), w2.now)  # seq 0 again, but a new boot
    w2.run(0.05)
    assert w2.delivered_to_host() == [Dice((1, 2))]


def test_max_retries_loses_the_link_and_keeps_the_message() -> None:
    w = Wire()
    w.attach()
    w.settle()
    w.to_ctl = lambda b: b""
    w.host.send(HonbaDisplay(0, 0), w.now)
    w.run(T.ack_timeout * (T.max_retries + 2))
    assert Lost(LossReason.NO_ACK) in w.host_out or Lost(LossReason.SILENCE) in w.host_out
    assert w.host.pending == 1
    w.to_ctl = lambda b: b
    w.run(0.3)
    assert w.host.pending == 0


def test_incompatible_versions_are_reported() -> None:
    w = Wire()
    w.host = Endpoint(Role.HOST, boot_id=1, timings=T, versions=(2, 3))
    w.attach()
    w.settle()
    assert not w.host.connected
    assert Incompatible((2, 3), "test-ctl") in w.host_out


def test_intact_frame_of_unknown_type_is_rejected_with_its_seq() -> None:
    w = Wire()
    w.attach()
    w.settle()
    # an event type this host does not know (0x1F), sent intact with seq 9
    body = bytes([1, 0, 9, 0x1F, 2, 0, 1, 1])
    raw = b"\x00" + cobs_encode(body + crc32c_of(body).to_bytes(4, "little")) + b"\x00"
    w.host.receive(raw, w.now)
    data, out = w.host.drain()
    [g] = [o for o in out if isinstance(o, Garbled)]
    assert (g.span.reason.value, g.span.seq) == ("unknown_type", 9)
    [nak] = [f for f in decode_all(data) if isinstance(f, Frame)]
    assert (nak.message, nak.seq) == (Nak(NakReason.REJECTED), 9)
    assert w.host.counters.rejected_rx == 1


def test_the_deadline_moves_earlier_only_when_the_endpoint_says_so() -> None:
    """``Endpoint.sooner`` (the session's ticker looks at the deadline again only then): while it
    is clear, the host's next deadline is no earlier than when it was last looked at, through
    commands, events, lost frames, a silence that loses the link and the reconnect."""
    w = Wire()
    looked = [0.0]

    def deadline() -> float:
        at = w.host.next_deadline()
        return math.inf if at is None else at

    def look(*, again: bool = False) -> None:
        if w.host.sooner or again:  # the session's _service, or the ticker after its tick
            w.host.sooner = False
            looked[0] = deadline()
        else:
            assert deadline() >= looked[0], (w.now, deadline(), looked[0])

    w.ctl.attach(w.now)
    w.host.attach(w.now)
    look()
    lost = 0
    for step in range(400):
        w.now += 0.01
        if step % 7 == 0:
            w.host.send(HonbaDisplay(step % 5, 0), w.now)
            look()
        if step % 5 == 0:
            w.ctl.send(Dice((1 + step % 6, 2)), w.now)
        w.host.tick(w.now)
        look(again=True)
        w.ctl.tick(w.now)
        data, out = w.host.drain()
        lost += sum(isinstance(o, Lost) for o in out)
        w.ctl.receive(data if step % 11 else b"", w.now)  # a lost frame now and then
        data, _ = w.ctl.drain()
        silent = 150 <= step < 220  # long enough to lose the link
        w.host.receive(b"" if silent else data, w.now)
        look()
    assert lost >= 1 and w.host.connected
