"""The link session over a real pty, against the table-controller emulator: every fault."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from drivers.link.errors import CommandRejectedError, UnsupportedCommandError
from drivers.link.messages import (
    BreakOpened,
    Buzzer,
    Capability,
    ControllerReset,
    Dice,
    HonbaDisplay,
    IndicatorTurned,
    Layer,
    Led,
    LedMode,
    PressStart,
    ResetCause,
    ScoreDisplay,
    StartPressed,
    TableEvent,
    WallManifest,
    WallRaised,
)
from drivers.link.timings import LinkTimings
from drivers.table.link import LinkChange, LinkStatus
from drivers.table.serial import SerialTransport
from drivers.table.session import LinkSession
from hil.kit import connected, until
from hil.table_controller import PtyTableController, TableController, ordered_manifest

FAST = LinkTimings(heartbeat_interval=0.05, link_timeout=0.3, ack_timeout=0.05, max_retries=3,
                   hello_interval=0.05, backoff_initial=0.02, backoff_max=0.2)
HANG_GUARD = 10.0  # seconds: only so that a broken build fails instead of hanging


class Harness:
    def __init__(self, table: PtyTableController, link: LinkSession) -> None:
        self.table, self.link = table, link
        self.ctl = table.controller
        self._events: AsyncIterator[TableEvent | LinkChange] = link.events()
        self.changes: list[LinkChange] = []

    async def next_event(self) -> TableEvent:
        """The next table event (link changes are collected on the side)."""
        async with pytest_timeout():
            async for item in self._events:
                if isinstance(item, LinkChange):
                    self.changes.append(item)
                    continue
                return item
        raise AssertionError("events() ended")

    async def next_change(self) -> LinkChange:
        async with pytest_timeout():
            async for item in self._events:
                if isinstance(item, LinkChange):
                    self.changes.append(item)
                    return item
                raise AssertionError(f"unexpected event {item!r} while waiting for a change")
        raise AssertionError("events() ended")

    async def connected(self) -> None:
        async with pytest_timeout():
            await connected(self.link)


def pytest_timeout() -> asyncio.Timeout:
    return asyncio.timeout(HANG_GUARD)


@pytest.fixture
async def rig(tmp_path: Path) -> AsyncIterator[Harness]:
    controller = TableController(timings=FAST, firmware="hil 9")
    async with PtyTableController(tmp_path / "ttyTABLE", controller) as table, \
            LinkSession(SerialTransport(str(table.path)), timings=FAST) as link:
        h = Harness(table, link)
        assert await h.next_change() == LinkChange(LinkStatus.CONNECTED)
        # the controller's first event: it has just started (as the firmware's at boot)
        assert await h.next_event() == ControllerReset(ResetCause.POWER_ON)
        yield h


async def test_handshake_announces_capabilities_and_firmware(rig: Harness) -> None:
    state = rig.link.state
    assert state.connected and state.version == 1
    assert state.capabilities == frozenset(Capability)
    assert state.firmware == "hil 9"
    assert state.transport.startswith("serial:")


async def test_a_whole_hand_start_arrives_in_order(rig: Harness) -> None:
    rig.ctl.press_start(2)
    rig.ctl.raise_wall()
    rig.ctl.roll_dice(3, 4)
    rig.ctl.open_break(2, 7)
    rig.ctl.turn_indicator(2, 5, Layer.TOP, ring=130, tile="3p")
    rig.ctl.send_manifest()
    got = [await rig.next_event() for _ in range(6)]
    assert got == [StartPressed(2), WallRaised(), Dice((3, 4)), BreakOpened(2, 7),
                   IndicatorTurned(2, 5, Layer.TOP, 130, "3p"), WallManifest(ordered_manifest())]


async def test_commands_are_acknowledged_and_carried_out(rig: Harness) -> None:
    await rig.link.send(HonbaDisplay(2, 1))
    await rig.link.send(ScoreDisplay((25000, 31000, -1200, 45200)))
    await rig.link.send(Buzzer(200, 2))
    await rig.link.send(Led(None, LedMode.BLINK, (255, 0, 0)))
    assert rig.ctl.commands == [HonbaDisplay(2, 1), ScoreDisplay((25000, 31000, -1200, 45200)),
                                Buzzer(200, 2), Led(None, LedMode.BLINK, (255, 0, 0))]
    assert (rig.ctl.display.honba, rig.ctl.display.deposits) == (2, 1)
    assert rig.ctl.display.scores == (25000, 31000, -1200, 45200)


async def test_press_start_makes_the_table_report_start(rig: Harness) -> None:
    await rig.link.send(PressStart())
    assert await rig.next_event() == StartPressed(None)


async def test_garbage_between_frames_loses_nothing(rig: Harness) -> None:
    rig.ctl.inject(b"\x55\xaa\x13\x37" * 50 + b"\x00\xff\x00garbage\x00")
    rig.ctl.roll_dice(1, 2)
    rig.ctl.inject(bytes(range(1, 256)))
    rig.ctl.roll_dice(5, 6)
    assert [await rig.next_event(), await rig.next_event()] == [Dice((1, 2)), Dice((5, 6))]
    assert rig.link.state.counters.errors >= 2


async def test_truncated_and_corrupted_frames_are_reported_not_delivered(rig: Harness) -> None:
    rig.ctl.send_truncated(Dice((6, 6)), keep=6, seq=200)
    rig.ctl.send_corrupted(Dice((6, 6)), bit=30, seq=201)
    rig.ctl.roll_dice(2, 2)
    assert await rig.next_event() == Dice((2, 2))
    counters = rig.link.state.counters
    assert counters.errors >= 2 and counters.naks_tx >= 1
    assert counters.delivered == 2  # the reset report and the roll


async def test_duplicate_frame_is_acknowledged_but_delivered_once(rig: Harness) -> None:
    rig.ctl.roll_dice(4, 5)
    assert await rig.next_event() == Dice((4, 5))
    rig.ctl.send_duplicate()
    rig.ctl.raise_wall()
    assert await rig.next_event() == WallRaised()
    assert rig.link.state.counters.duplicates == 1


async def test_lost_acks_make_the_controller_retransmit_without_double_delivery(
    rig: Harness,
) -> None:
    # the reset report's ack is on its way when the fixture returns: deaf before the controller
    # read it, the controller would retransmit the report, never the roll
    await until(lambda: rig.ctl.endpoint.pending == 0)
    rig.ctl.deaf = True  # the host's acks never arrive
    rig.ctl.roll_dice(3, 3)
    assert await rig.next_event() == Dice((3, 3))
    await until(lambda: rig.link.state.counters.duplicates > 0)  # a retransmission was absorbed
    rig.ctl.deaf = False
    rig.ctl.raise_wall()
    assert await rig.next_event() == WallRaised()
    await until(lambda: rig.ctl.endpoint.pending == 0)
    assert rig.link.state.counters.delivered == 3  # the reset report, the roll, the wall


async def test_silence_is_detected_and_the_link_recovers(rig: Harness) -> None:
    rig.ctl.silent = True
    change = await rig.next_change()
    assert change == LinkChange(LinkStatus.LOST, "silence")
    assert not rig.link.state.connected
    rig.ctl.silent = False
    assert await rig.next_change() == LinkChange(LinkStatus.CONNECTED)
    rig.ctl.roll_dice(1, 6)
    assert await rig.next_event() == Dice((1, 6))


async def test_unplug_replug_reconnects_and_loses_no_event(rig: Harness) -> None:
    rig.ctl.roll_dice(2, 3)
    assert await rig.next_event() == Dice((2, 3))
    await until(lambda: rig.ctl.endpoint.pending == 0)
    acked_before = rig.link.state.counters.delivered

    # the host's ack of this event is lost with the cable: the controller still holds it
    rig.ctl.deaf = True
    rig.ctl.open_break(1, 5)
    assert await rig.next_event() == BreakOpened(1, 5)
    rig.table.unplug()
    assert await rig.next_change() == LinkChange(LinkStatus.LOST, "transport")
    rig.ctl.deaf = False
    # events while unplugged wait in the controller
    rig.ctl.turn_indicator(1, 3, Layer.TOP, ring=130)
    rig.table.plug()
    assert await rig.next_change() == LinkChange(LinkStatus.CONNECTED)
    assert await rig.next_event() == IndicatorTurned(1, 3, Layer.TOP, 130, None)
    assert rig.link.state.opens >= 2
    # BreakOpened was delivered once (its retransmission was recognised through the handshake)
    assert rig.link.state.counters.delivered == acked_before + 2
    await until(lambda: rig.ctl.endpoint.pending == 0)


async def test_command_sent_while_unplugged_is_delivered_after_replug(rig: Harness) -> None:
    rig.table.unplug()
    assert await rig.next_change() == LinkChange(LinkStatus.LOST, "transport")
    send = asyncio.create_task(rig.link.send(HonbaDisplay(5, 2)))
    await asyncio.sleep(FAST.backoff_max)
    assert not send.done()
    rig.table.plug()
    async with pytest_timeout():
        await send
    assert rig.ctl.commands == [HonbaDisplay(5, 2)]


async def test_reconnect_budget_is_within_two_seconds() -> None:
    # the 2 s replug requirement rests on these timings (measured in bench/link.py)
    t = LinkTimings()
    assert t.backoff_max + t.hello_interval < 2.0  # a replug, the next open, one hello retry
    assert all(LinkTimings().backoff(n) <= LinkTimings().backoff_max for n in range(100))


async def test_command_the_table_cannot_do_is_refused(tmp_path: Path) -> None:
    controller = TableController(timings=FAST, capabilities=frozenset({Capability.AUTO_OPEN}))
    async with PtyTableController(tmp_path / "ttyT", controller) as table, \
            LinkSession(SerialTransport(str(table.path)), timings=FAST) as link:
        async with pytest_timeout():
            await connected(link)
        with pytest.raises(UnsupportedCommandError):
            await link.send(ScoreDisplay((1, 2, 3, 4)))
        await link.send(Buzzer(100))
        assert controller.commands == [Buzzer(100)]


async def test_controller_rejection_reaches_the_sender(tmp_path: Path) -> None:
    controller = TableController(timings=FAST, capabilities=frozenset())
    async with PtyTableController(tmp_path / "ttyT", controller) as table, \
            LinkSession(SerialTransport(str(table.path)), timings=FAST) as link:
        # before the handshake the host cannot know; the table refuses it
        async with pytest_timeout():
            with pytest.raises(CommandRejectedError):
                await link.send(HonbaDisplay(1, 1))
        assert controller.commands == []


async def test_no_table_yet_then_plugged_in(tmp_path: Path) -> None:
    table = PtyTableController(tmp_path / "ttyLATE", TableController(timings=FAST))
    async with LinkSession(SerialTransport(str(table.path)), timings=FAST) as link:
        assert link.state.status is LinkStatus.CONNECTING
        async with table, pytest_timeout():
            await connected(link)
    assert link.state.status is LinkStatus.CLOSED


async def test_the_serial_port_pushes_reads_to_its_listener_and_ends_listen_on_failure(
        tmp_path: Path) -> None:
    """``listen`` (the link session's reader over a serial port): bytes read before it are handed
    over first, then each read as it comes, in the descriptor's own callback; a listener that
    raises ends ``listen`` with its error; a closed port ends it with TransportError, and the
    session over such a port is a push session (no reader loop, writes at once)."""
    import os
    import pty

    from drivers.table.transport import PushTransport, TransportError

    master, slave = pty.openpty()
    try:
        port = SerialTransport(os.ttyname(slave))
        assert isinstance(port, PushTransport)
        await port.open()
        os.write(master, b"early")
        await until(lambda: bool(port._buffer))  # read into the buffer: nobody listens yet
        got: list[bytes] = []
        listening = port.listen(got.append)
        assert got == [b"early"]
        os.write(master, b"late")
        await until(lambda: len(got) == 2)
        assert b"".join(got) == b"earlylate" and not listening.done()
        port.write_now(b"ack")
        assert os.read(master, 16) == b"ack"

        def broken(data: bytes) -> None:
            raise ZeroDivisionError("a bug in the session")

        listening.cancel()
        listening = port.listen(broken)
        os.write(master, b"x")
        with pytest.raises(ZeroDivisionError):
            async with pytest_timeout():
                await listening
        listening = port.listen(got.append)
        await port.close()
        with pytest.raises(TransportError):
            await listening
    finally:
        os.close(master)
        os.close(slave)
