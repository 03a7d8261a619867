"""The table-controller emulator itself: its fault injection produces what it claims, it records
commands, and unplug/replug really closes and remakes the pty behind the same link."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from drivers.link.arq import Endpoint
from drivers.link.frame import ErrorReason, ErrorSpan, Frame, decode_all, encode_frame
from drivers.link.messages import (
    WALL_TILES,
    Buzzer,
    Capability,
    ControllerReset,
    Dice,
    Fault,
    FaultCode,
    HonbaDisplay,
    ResetCause,
    ScoreDisplay,
    SeatButton,
    WallManifest,
)
from drivers.link.reports import Delivered, Role
from drivers.link.timings import LinkTimings
from hil.table_controller import PtyTableController, TableController, ordered_manifest

T = LinkTimings(heartbeat_interval=0.05, link_timeout=0.3, ack_timeout=0.05, hello_interval=0.05)


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def connected_pair(**kwargs: object) -> tuple[TableController, Endpoint, Clock]:
    clock = Clock()
    ctl = TableController(timings=T, clock=clock, **kwargs)  # type: ignore[arg-type]
    host = Endpoint(Role.HOST, boot_id=7, timings=T)
    ctl.attach()
    host.attach(clock.now)
    exchange(ctl, host, clock)
    assert host.connected and ctl.endpoint.connected
    return ctl, host, clock


def exchange(ctl: TableController, host: Endpoint, clock: Clock) -> list[object]:
    delivered = []
    for _ in range(10):
        data, out = host.drain()
        ctl.receive(data)
        host.receive(ctl.take_output(), clock.now)
        delivered += [o for o in out if type(o).__name__ == "Delivered"]
    return delivered


def test_injected_faults_decode_as_the_faults_they_claim() -> None:
    ctl, _, _ = connected_pair()
    ctl.take_output()
    ctl.inject(b"\x13\x37")
    ctl.send_truncated(Dice((1, 2)), keep=5)
    for bit in range(0, 13 * 8, 7):  # across COBS codes, header, payload and CRC
        ctl.send_corrupted(Dice((1, 2)), bit=bit)
    items = decode_all(ctl.take_output())
    assert all(isinstance(i, ErrorSpan) for i in items)
    reasons = [i.reason for i in items if isinstance(i, ErrorSpan)]
    assert reasons[0] is ErrorReason.COBS
    assert len(reasons) >= 2 + len(range(0, 13 * 8, 7))  # a flip to 0x00 splits a frame
    assert set(reasons) <= {ErrorReason.COBS, ErrorReason.SHORT, ErrorReason.CRC}
    with pytest.raises(ValueError, match="outside the frame"):
        ctl.send_corrupted(Dice((1, 2)), bit=13 * 8)


def test_a_new_controller_first_says_it_started() -> None:
    """As the firmware at boot (firmware/pico.py): the first event, seq 0, is controller_reset
    (power-on, lost unknown), byte for byte what the host's codec encodes."""
    clock = Clock()
    ctl = TableController(timings=T, clock=clock)
    host = Endpoint(Role.HOST, boot_id=7, timings=T)
    ctl.attach()
    host.attach(clock.now)
    ctl.receive(host.drain()[0])
    wire = ctl.take_output()
    assert wire.endswith(encode_frame(ControllerReset(ResetCause.POWER_ON, None), 0))
    host.receive(wire, clock.now)
    events = [o.message for o in host.drain()[1] if isinstance(o, Delivered)]
    assert events == [ControllerReset(ResetCause.POWER_ON, None)]


def test_duplicate_repeats_the_last_data_frame_verbatim() -> None:
    fresh = TableController(timings=T, clock=Clock())
    with pytest.raises(ValueError, match="nothing to duplicate"):
        fresh.send_duplicate()  # never connected: its reset report still waits in its queue
    ctl, _, _ = connected_pair()
    ctl.press_seat_button(2)
    first = [i for i in decode_all(ctl.take_output()) if isinstance(i, Frame)]
    ctl.send_duplicate()
    again = [i for i in decode_all(ctl.take_output()) if isinstance(i, Frame)]
    assert [(f.message, f.seq) for f in first] == [(f.message, f.seq) for f in again]
    assert first[0].message == SeatButton(2, 0)


def test_silent_controller_sends_nothing_and_deaf_hears_nothing() -> None:
    ctl, host, clock = connected_pair()
    ctl.take_output()
    ctl.silent = True
    ctl.report_fault(FaultCode.OVERHEAT)
    clock.now += 1
    ctl.tick()
    assert ctl.take_output() == b""
    ctl.silent = False
    ctl.deaf = True
    before = ctl.endpoint.counters.frames_rx
    host.send(Buzzer(100), clock.now)
    ctl.receive(host.drain()[0])
    assert ctl.endpoint.counters.frames_rx == before


def test_commands_are_recorded_and_capabilities_enforced() -> None:
    ctl, host, clock = connected_pair(capabilities=frozenset({Capability.HONBA_DISPLAY}))
    host.send(HonbaDisplay(4, 2), clock.now)
    exchange(ctl, host, clock)
    host.send(ScoreDisplay((1, 2, 3, 4)), clock.now)
    exchange(ctl, host, clock)
    assert ctl.commands == [HonbaDisplay(4, 2)]
    assert (ctl.display.honba, ctl.display.deposits) == (4, 2)
    assert host.counters.rejected_tx == 1


def test_events_reach_the_host_in_order() -> None:
    ctl, host, clock = connected_pair()
    ctl.send_manifest()
    ctl.report_fault(FaultCode.WALL_LIFT_JAM, seat=1)
    got = [d.message for d in exchange(ctl, host, clock)]  # type: ignore[attr-defined]
    assert got == [WallManifest(ordered_manifest()), Fault(2, 1)]
    assert len(ordered_manifest()) == WALL_TILES


async def test_unplug_removes_the_link_and_replug_makes_a_new_pty(tmp_path: Path) -> None:
    link = tmp_path / "ttyTABLE"
    async with PtyTableController(link, TableController(timings=T)) as table:
        first = os.readlink(link)
        table.unplug()
        assert not link.exists() and not table.port.plugged
        assert not table.controller.endpoint._attached
        table.plug()
        assert link.is_symlink() and os.path.exists(os.readlink(link))
        assert table.controller.endpoint._attached
        assert first  # the new pty may reuse the number, but it is a fresh pair
    assert not link.exists()
