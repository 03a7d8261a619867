"""The link session over the real USB transport code, against the controller emulator behind a
fake pyusb backend (hil/usb_backend.py)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator

import pytest
import usb.core

from drivers.link.messages import (
    BreakOpened,
    Capability,
    ControllerReset,
    Dice,
    HonbaDisplay,
    ResetCause,
    WallRaised,
)
from drivers.link.timings import LinkTimings
from drivers.table.link import LinkChange, LinkStatus
from drivers.table.session import LinkSession
from drivers.table.transport import TransportError
from drivers.table.usb import UsbTransport
from hil.table_controller import TableController
from hil.usb_backend import EP_IN, EP_OUT, FakeUsbBackend

FAST = LinkTimings(heartbeat_interval=0.05, link_timeout=0.3, ack_timeout=0.05, max_retries=3,
                   hello_interval=0.05, backoff_initial=0.02, backoff_max=0.2)


@pytest.fixture
def backend() -> Iterator[FakeUsbBackend]:
    fake = FakeUsbBackend(TableController(timings=FAST)).start()
    yield fake
    fake.stop()


async def next_item(events: AsyncIterator[object]) -> object:
    async with asyncio.timeout(10):
        return await anext(events)


def test_fake_backend_enumerates_as_a_bulk_device(backend: FakeUsbBackend) -> None:
    device = usb.core.find(idVendor=0x1209, idProduct=0x4A54, backend=backend)
    assert device is not None
    device.set_configuration()
    interface = device.get_active_configuration()[(0, 0)]
    assert sorted(ep.bEndpointAddress for ep in interface) == [EP_OUT, EP_IN]
    backend.unplug()
    assert usb.core.find(idVendor=0x1209, idProduct=0x4A54, backend=backend) is None


async def test_open_fails_cleanly_when_no_device(backend: FakeUsbBackend) -> None:
    backend.unplug()
    with pytest.raises(TransportError, match="no USB device 1209:4a54"):
        await UsbTransport(backend=backend).open()


async def test_session_over_usb_events_commands_and_replug(backend: FakeUsbBackend) -> None:
    ctl = backend.controller
    async with LinkSession(UsbTransport(backend=backend, read_timeout_ms=20),
                           timings=FAST) as link:
        events = link.events()
        assert await next_item(events) == LinkChange(LinkStatus.CONNECTED)
        assert Capability.WALL_MANIFEST in link.state.capabilities
        assert await next_item(events) == ControllerReset(ResetCause.POWER_ON)  # it started
        ctl.raise_wall()
        ctl.roll_dice(5, 2)
        assert [await next_item(events), await next_item(events)] == [WallRaised(), Dice((5, 2))]
        async with asyncio.timeout(10):
            await link.send(HonbaDisplay(3, 0))
        assert ctl.commands == [HonbaDisplay(3, 0)]

        backend.unplug()
        assert await next_item(events) == LinkChange(LinkStatus.LOST, "transport")
        ctl.open_break(3, 9)  # happens while the cable is out
        backend.plug()
        assert await next_item(events) == LinkChange(LinkStatus.CONNECTED)
        assert await next_item(events) == BreakOpened(3, 9)
        assert link.state.counters.delivered == 4
