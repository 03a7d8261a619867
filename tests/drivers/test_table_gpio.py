"""GPIO-only table profile on gpiozero's MockFactory."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from drivers.link.errors import UnsupportedCommandError
from drivers.link.messages import Buzzer, PressStart, StartPressed, WallRaised
from drivers.table.gpio import GpioTableLink
from drivers.table.link import LinkChange, LinkStatus


async def next_item(events: AsyncIterator[object]) -> object:
    async with asyncio.timeout(10):
        return await anext(events)


@pytest.fixture
def factory() -> MockFactory:
    return MockFactory()


async def test_gpio_profile_produces_the_same_events(factory: MockFactory) -> None:
    async with GpioTableLink(relay_pin=17, wall_pin=27, pin_factory=factory,
                             pulse_seconds=0.01, wall_pull_up=False,
                             wall_bounce_seconds=None) as link:
        events = link.events()
        assert await next_item(events) == LinkChange(LinkStatus.CONNECTED)
        relay = factory.pin(17)
        await link.send(PressStart())
        assert [s.state for s in relay.states] == [False, True, False]  # one pulse
        assert await next_item(events) == StartPressed(None)

        factory.pin(27).drive_high()  # the optocoupler sees the wall-up signal
        assert await next_item(events) == WallRaised()

        assert link.state.connected and link.state.capabilities == frozenset()
    assert link.state.status is LinkStatus.CLOSED


async def test_gpio_profile_refuses_what_it_cannot_do(factory: MockFactory) -> None:
    async with GpioTableLink(relay_pin=5, wall_pin=6, pin_factory=factory) as link:
        with pytest.raises(UnsupportedCommandError, match="buzzer"):
            await link.send(Buzzer(100))


def test_open_table_link_builds_each_kind_from_a_url() -> None:
    from drivers.table import open_table_link
    from drivers.table.session import LinkSession

    assert isinstance(open_table_link("serial:///dev/ttyUSB0?baud=57600"), LinkSession)
    assert isinstance(open_table_link("usb://1209:4a54"), LinkSession)
    assert isinstance(open_table_link("gpio://?relay=17&wall=27"), GpioTableLink)
    for bad in ("", "tcp://x", "usb://zz", "gpio://?relay=1"):
        with pytest.raises(ValueError, match="bad table link URL"):
            open_table_link(bad)


def test_a_link_is_a_value_the_url_parses_to() -> None:
    from drivers.table import GpioLink, SerialLink, UsbLink, open_table_link, parse_table_link
    from drivers.table.session import LinkSession

    assert parse_table_link("serial:///dev/ttyUSB0?baud=57600") == SerialLink("/dev/ttyUSB0", 57600)
    assert parse_table_link("serial:///dev/ttyACM1") == SerialLink("/dev/ttyACM1", 115200)
    assert parse_table_link("usb://1209:4a54") == UsbLink(0x1209, 0x4A54)
    assert parse_table_link("gpio://?relay=17&wall=27") == GpioLink(17, 27)
    assert isinstance(open_table_link(UsbLink(0x1209, 0x4A54)), LinkSession)
    assert isinstance(open_table_link(GpioLink(17, 27)), GpioTableLink)


def test_the_daemon_config_names_its_link_as_a_value() -> None:
    from daemon.config import TableLinkConfig
    from daemon.devices import _link_spec
    from drivers.table import GpioLink, SerialLink, UsbLink

    assert _link_spec(TableLinkConfig("serial", path=Path("/dev/ttyUSB0"), baud=57600)) == \
        SerialLink("/dev/ttyUSB0", 57600)
    assert _link_spec(TableLinkConfig("usb", vid=0x1209, pid=0x4A54)) == UsbLink(0x1209, 0x4A54)
    assert _link_spec(TableLinkConfig("gpio", pins={"relay": 17, "wall": 27})) == GpioLink(17, 27)
    assert _link_spec(TableLinkConfig("none")) is None
