"""GPIO-only table profile, for automatic tables without a data port.

Wiring: a relay (gpiozero ``OutputDevice``) across the table's start button, pulsed to start the
cycle; an optocoupler on the table's "wall up" lamp or limit switch (``DigitalInputDevice``); the
dice are read by the dealer, not by this profile (nothing in the daemon fed a dice hook: it was
removed). The result is the same high-level interface and events as the link session:
``start_pressed`` (when the relay pulses) and ``wall_raised``. The table announces no
capabilities, so display and buzzer commands raise UnsupportedCommandError; use a serial display
(drivers/display) instead.

gpiozero calls ``when_activated`` on its own thread; the event crosses to the loop with
``call_soon_threadsafe``. Tests pass gpiozero's ``MockFactory`` as ``pin_factory``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from types import TracebackType
from typing import Any, Self

from gpiozero import DigitalInputDevice, OutputDevice

from drivers.link.errors import LinkClosedError, UnsupportedCommandError
from drivers.link.messages import Command, PressStart, StartPressed, TableEvent, WallRaised
from drivers.link.reports import LinkCounters
from drivers.table.link import Delivery, LinkChange, LinkState, LinkStatus


class GpioTableLink:
    """A :class:`~drivers.table.link.TableLink` made of a start relay and a wall-up input."""

    def __init__(
        self,
        *,
        relay_pin: int | str,
        wall_pin: int | str,
        pin_factory: Any = None,
        pulse_seconds: float = 0.3,
        relay_active_high: bool = True,
        wall_pull_up: bool = True,
        wall_bounce_seconds: float | None = 0.05,
    ) -> None:
        self.relay_pin, self.wall_pin = relay_pin, wall_pin
        self.pulse_seconds = pulse_seconds
        self._factory = pin_factory
        self._relay_active_high = relay_active_high
        self._wall_pull_up = wall_pull_up
        self._wall_bounce = wall_bounce_seconds
        self._relay: OutputDevice | None = None
        self._wall: DigitalInputDevice | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._events: asyncio.Queue[TableEvent | LinkChange | None] = asyncio.Queue()
        self._status = LinkStatus.CONNECTING
        self._delivered = 0
        self._pulse_lock = asyncio.Lock()

    def __repr__(self) -> str:
        return (f"<GpioTableLink relay={self.relay_pin} wall={self.wall_pin} "
                f"{self._status.value}>")

    async def __aenter__(self) -> Self:
        self._loop = asyncio.get_running_loop()
        self._relay = OutputDevice(self.relay_pin, active_high=self._relay_active_high,
                                   initial_value=False, pin_factory=self._factory)
        self._wall = DigitalInputDevice(self.wall_pin, pull_up=self._wall_pull_up,
                                        bounce_time=self._wall_bounce, pin_factory=self._factory)
        self._wall.when_activated = self._on_wall_up
        self._set_status(LinkStatus.CONNECTED)
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    async def close(self) -> None:
        """Release the pins (idempotent)."""
        if self._status is LinkStatus.CLOSED:
            return
        for device in (self._wall, self._relay):
            if device is not None:
                device.close()
        self._wall = self._relay = None
        self._set_status(LinkStatus.CLOSED)
        self._events.put_nowait(None)

    @property
    def state(self) -> LinkState:
        return LinkState(self._status, f"gpio:relay={self.relay_pin},wall={self.wall_pin}",
                         counters=LinkCounters(delivered=self._delivered),
                         opens=int(self._status is not LinkStatus.CONNECTING))

    async def events(self) -> AsyncIterator[TableEvent | LinkChange]:
        while True:
            item = await self._events.get()
            if item is None:
                self._events.put_nowait(None)
                return
            yield item

    async def deliveries(self) -> AsyncIterator[Delivery | LinkChange]:
        """The events with no receipt: GPIO edges have no sequence numbers to acknowledge."""
        async for item in self.events():
            yield item if isinstance(item, LinkChange) else Delivery(item, None)

    def confirm(self, delivery: Delivery) -> None:
        """Nothing to acknowledge on a GPIO table."""

    async def send(self, command: Command, *, timeout: float | None = None) -> None:
        """Only ``press_start`` is possible: the relay closes the start button for a pulse."""
        if self._relay is None:
            raise LinkClosedError(f"{self!r} is not open")
        if not isinstance(command, PressStart):
            raise UnsupportedCommandError(
                f"a GPIO-only table cannot carry out {command.TYPE.json_name!r}; it can only "
                f"press start")
        async with asyncio.timeout(timeout), self._pulse_lock:
            self._relay.on()
            try:
                await asyncio.sleep(self.pulse_seconds)
            finally:
                self._relay.off()
        self._emit(StartPressed(None))

    def _on_wall_up(self) -> None:  # gpiozero's thread
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._emit, WallRaised())

    def _emit(self, event: TableEvent) -> None:
        if self._status is LinkStatus.CLOSED:
            return
        self._delivered += 1
        self._events.put_nowait(event)

    def _set_status(self, status: LinkStatus) -> None:
        self._status = status
        self._events.put_nowait(LinkChange(status))
