"""Adapters between the daemon and the device drivers (drivers/table, drivers/buttons).

* :class:`TableLinkDriver`: table events (``drivers.table.TableLink``) → logged inputs, and the
  effects back: honba/deposit display, score displays, buzzer on a violation.
* :class:`ButtonsDriver`: the chess-clock buttons (gpiozero) → presses, which the tracker
  translates into ``timer`` records (the same as the table link's clock key).
* :class:`NoTable`: a table without a data connection (inputs come from the referee only).
* the camera (``[tiles.camera]``): :class:`daemon.camera.CameraDriver`, its reads to the tracker.

The table emulator (``hil/``) is not started here: the demo and the HIL rig run it on a pty and
give the daemon a plain ``serial`` config naming the pty (production code never imports hil/).

A table event that the rules engine has no input for (a wall manifest, a fault) is still logged, as
a ``marker`` record, so the log holds everything the table said. A table event is acknowledged to
the table only once its input is committed, with the link's position (controller boot id, seq) in
the same transaction; a restarted daemon resumes the link from that position (docs/daemon.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from daemon.config import Config, DisplaysConfig, TableLinkConfig
from daemon.controller_reports import ControllerReports
from daemon.log_values import LinkPosition
from daemon.table import iso
from drivers.link.messages import ConfigFault, ControllerReset, EventsDropped, Fault

if TYPE_CHECKING:
    from daemon.service import Driver, InputSink
    from daemon.tracker import DeviceTracker
    from drivers.link.messages import Command
    from drivers.link.reports import RxPosition
    from drivers.table import LinkSpec
    from drivers.table.link import Delivery, TableLink

#: table events that are the controller's faults, and those that report on the controller itself
_FAULTS: Final = (Fault, ConfigFault)
_CONTROLLER_REPORTS: Final = (ControllerReset, EventsDropped, ConfigFault)
#: either (one set look-up for the other events, a dice roll say, instead of five type checks)
_NOTED: Final = frozenset(_FAULTS + _CONTROLLER_REPORTS)

#: opens a table link that resumes from what the log holds of it
LinkFactory = Callable[["RxPosition | None"], "TableLink"]

log = logging.getLogger("jantaku.devices")

#: how long an effect (display update, buzzer) may wait for the table's acknowledgement
EFFECT_TIMEOUT = 5.0
#: how often the clock warning LEDs are refreshed (blinking derives from the clock, not this)
INDICATOR_REFRESH_S = 0.05
#: how often the serial clock display is refreshed (it shows whole seconds)
CLOCK_DISPLAY_REFRESH_S = 0.2


class TableLinkDriver:
    """One table link, forever: reconnects are the link's own business (drivers/table)."""

    def __init__(
        self,
        factory: LinkFactory,
        displays: DisplaysConfig,
        name: str = "table",
        tracker: DeviceTracker | None = None,
    ) -> None:
        self.name = name
        self.factory = factory
        #: the one translation of table events into inputs (daemon/tracker.py): the configured
        #: device tracker, or (no tile sensors) one of its own, so a seat key means its label
        #: whatever sensors the table has
        self.tracker = tracker
        self.displays = displays
        self._link: TableLink | None = None
        self._effects: asyncio.Queue[Command] = asyncio.Queue()
        self._shown: dict[str, Any] = {}
        #: the last board shown: sent again when the link (re)connects
        self._board: dict[str, Any] | None = None
        #: the table shows something of the board (else show() has nothing to do, after every
        #: commit)
        self._shows = "table" in (displays.honba, displays.scores, displays.buzzer)
        self._positions: dict[int, LinkPosition] = {}
        self.events = 0
        self.failed_effects = 0
        self.last_fault: dict[str, Any] | None = None
        #: what the controller said about itself: resets, overflows, configuration faults
        self.controller = ControllerReports()

    @property
    def link(self) -> TableLink | None:
        """The open link (None before it is opened and after it is closed)."""
        return self._link

    async def run(self, sink: InputSink) -> None:
        from drivers.table.link import LinkChange, LinkStatus

        logged = await sink.link_position(self.name)
        resume = None if logged is None else logged.at
        own: asyncio.Task[None] | None = None
        if self.tracker is None:
            self.tracker, own = _own_tracker(sink, self.name)
        async with self.factory(resume) as link:
            self._link = link
            effects = asyncio.create_task(self._send_effects(link), name="table-effects")
            try:
                async for item in link.deliveries():
                    if isinstance(item, LinkChange):
                        log.info("table link %s (%s)", item.status.value, item.reason)
                        if item.status is LinkStatus.CONNECTED:
                            self._reshow()
                        continue
                    self.events += 1
                    # the tracker commits the event's input(s) with the link's position after it
                    assert self.tracker is not None
                    await self.tracker.take(item.event, self._note(item))
                    link.confirm(item)  # committed: now the table may forget it
            finally:
                for task in (effects, own):
                    if task is not None:
                        task.cancel()
                        with contextlib.suppress(asyncio.CancelledError):
                            await task
                self._link = None

    def _note(self, item: Delivery) -> LinkPosition | None:
        """What the driver keeps of a table event before its input is committed (a fault, the
        controller's own reports); the link position to commit with it."""
        event = item.event
        if type(event) in _NOTED:
            if isinstance(event, _FAULTS):
                self.last_fault = {**event.to_json(),
                                   "type": f"table_{event.to_json()['type']}"}
            if isinstance(event, _CONTROLLER_REPORTS):
                self.controller.take(event, iso(time.time_ns()))
        receipt = item.receipt
        if receipt is None:
            return None
        # the link makes one receipt per (controller boot, seq): so its position is made once
        # too (a frozen dataclass is ~4,000 instructions a frame otherwise)
        position = self._positions.get(receipt.seq)
        if position is None or position.at is not receipt:
            position = self._positions[receipt.seq] = LinkPosition(self.name, receipt)
        return position

    async def _send_effects(self, link: TableLink) -> None:
        from drivers.link.errors import LinkError

        while True:
            command = await self._effects.get()
            try:
                await link.send(command, timeout=EFFECT_TIMEOUT)
            except (LinkError, TimeoutError) as exc:
                self.failed_effects += 1
                log.warning("table did not take %s: %r", type(command).__name__, exc)

    async def show(self, board: dict[str, Any], events: Sequence[dict[str, Any]]) -> None:
        if not self._shows:
            return
        from drivers.link import messages as m

        self._board = board
        self._show_board(board)
        if self.displays.buzzer == "table" and any(e.get("type") == "violation" for e in events):
            self._effects.put_nowait(m.Buzzer(300, 2))

    def _reshow(self) -> None:
        """The link is (re)connected: the table may have lost power or reset, and what was sent
        while the link was down failed; its displays are sent the board again, whatever they
        were sent before."""
        self._shown.clear()
        if self._shows and self._board is not None:
            self._show_board(self._board)

    def _show_board(self, board: dict[str, Any]) -> None:
        """The honba and score displays' commands for ``board``, each only when it changed."""
        from drivers.link import messages as m

        honba, deposits = board.get("honba"), board.get("deposits")
        wanted = self.displays.honba == "table"
        if wanted and isinstance(honba, int) and isinstance(deposits, int):
            key = (honba, deposits)
            if self._shown.get("honba") != key:
                self._shown["honba"] = key
                self._effects.put_nowait(m.HonbaDisplay(honba, deposits))
        scores = board.get("scores")
        if (self.displays.scores == "table" and isinstance(scores, list) and len(scores) == 4
                and all(isinstance(x, int) and not isinstance(x, bool) for x in scores)):
            four = (int(scores[0]), int(scores[1]), int(scores[2]), int(scores[3]))
            if self._shown.get("scores") != four:
                self._shown["scores"] = four
                try:
                    self._effects.put_nowait(m.ScoreDisplay(four))
                except ValueError as exc:  # beyond what the displays can show
                    log.warning("score display: %s", exc)

    def health(self) -> dict[str, Any]:
        if self._link is None:
            return {"kind": "table", "status": "starting"}
        state = self._link.state
        return {
            "kind": "table",
            "status": state.status.value,
            "reason": state.reason,
            "transport": state.transport,
            "version": state.version,
            "firmware": state.firmware,
            "capabilities": sorted(c.value for c in state.capabilities),
            "opens": state.opens,
            "events": self.events,
            "failed_effects": self.failed_effects,
            "last_fault": self.last_fault,
            "controller": self.controller.health(),
        }


def _own_tracker(sink: InputSink, name: str) -> tuple[DeviceTracker, asyncio.Task[None]]:
    """A driver built without the shared tracker (a test, the bench) runs one of its own: the
    translation is still the one fold (daemon/tracking), only its shell is not shared."""
    from daemon.tracker import DeviceTracker

    tracker = DeviceTracker(name=f"{name}:tracker")
    return tracker, asyncio.create_task(tracker.run(sink), name=f"{name}:tracker")


class NoTable:
    """No table connection: the referee enters everything (``devices.table.kind = "none"``)."""

    def __init__(self, name: str = "table") -> None:
        self.name = name

    async def run(self, sink: InputSink) -> None:
        await asyncio.Event().wait()

    async def show(self, board: dict[str, Any], events: Sequence[dict[str, Any]]) -> None:
        return None

    def health(self) -> dict[str, Any]:
        return {"kind": "none", "status": "none"}


class ButtonsDriver:
    """The seat clock buttons and the referee's pause button (drivers/buttons.py, gpiozero).

    A debounced press is an item for the tracker (``daemon/tracking``): a seat press makes the
    record the table link's clock key makes, and the referee's press is pause or resume as the
    clocks are when the tracker takes it, not when the button is read."""

    def __init__(
        self,
        seat_pins: Sequence[int],
        referee_pin: int | None,
        pin_factory: Any = None,
        *,
        led_pins: Sequence[int] | None = None,
        buzzer_pin: int | None = None,
        tracker: DeviceTracker | None = None,
    ) -> None:
        self.name = "buttons"
        self.tracker = tracker
        self.seat_pins = tuple(seat_pins)
        self.referee_pin = referee_pin
        self.led_pins = None if led_pins is None else tuple(led_pins)
        self.buzzer_pin = buzzer_pin
        self.pin_factory = pin_factory
        self.presses = 0
        self.indication: Any = None
        self._status = "starting"

    async def _indicate(self, sink: InputSink) -> None:
        """Warning LEDs and buzzer follow the live clocks (drivers/leds.py): what they show is a
        function of the clock view at the time of each refresh, not of the refresh rate."""
        from drivers.leds import ClockIndicators
        from rules.timers import clock_view

        assert self.led_pins is not None
        lamps: ClockIndicators | None = None
        try:
            while True:
                clocks = sink.timers_state()
                rules, state = clocks.rules, clocks.state
                if rules is not None and state is not None and rules.mode != "off":
                    if lamps is None:
                        lamps = ClockIndicators(self.led_pins, self.buzzer_pin,
                                                warning_seconds=rules.warning_seconds,
                                                pin_factory=self.pin_factory)
                    self.indication = lamps.apply(clock_view(state, time.monotonic_ns()))
                elif lamps is not None:
                    lamps.off()
                await asyncio.sleep(INDICATOR_REFRESH_S)
        finally:
            if lamps is not None:
                lamps.close()

    async def run(self, sink: InputSink) -> None:
        from drivers.buttons import ClockButtons
        from drivers.presses import ButtonPress

        own: asyncio.Task[None] | None = None
        if self.tracker is None:
            self.tracker, own = _own_tracker(sink, self.name)
        tracker = self.tracker

        def on_press(press: ButtonPress) -> None:  # on the loop, never waits
            self.presses += 1
            tracker.feed(press)

        try:
            with ClockButtons(
                self.seat_pins, self.referee_pin, on_press=on_press, pin_factory=self.pin_factory
            ):
                self._status = "up"
                if self.led_pins is not None:
                    await self._indicate(sink)
                else:
                    await asyncio.Event().wait()
        finally:
            self._status = "closed"
            if own is not None:
                own.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await own

    async def show(self, board: dict[str, Any], events: Sequence[dict[str, Any]]) -> None:
        return None

    def health(self) -> dict[str, Any]:
        return {"kind": "buttons", "status": self._status, "presses": self.presses}


def clocks_line(clocks: Any, t_ns: int) -> Any:
    """The serial clock display's CLOCKS line for the clocks at ``t_ns`` (None: no clocks)."""
    from drivers.display.lines import SetClocks
    from rules.timers import clock_view

    if clocks.rules is None or clocks.state is None or clocks.rules.mode == "off":
        return None
    view = clock_view(clocks.state, t_ns)

    def secs(ns: int) -> int:  # a clock shows 1 until the last second has gone (ceiling)
        return max(-9999, min(9999, -(-ns // 1_000_000_000)))

    running = -1 if view.running is None else int(view.running)
    turn = 0
    if view.running is not None:
        left = view.seats[running].turn_remaining_ns
        turn = 0 if left is None else secs(left)
    hands = tuple(secs(s.hand_remaining_ns) for s in view.seats)
    return SetClocks(running, turn, (hands[0], hands[1], hands[2], hands[3]))


class ClockDisplayDriver:
    """Per-seat time left on a serial clock display (drivers/display, ``CLOCKS`` lines), refreshed
    from the live clocks; only changes are sent."""

    def __init__(self, path: Path, baud: int) -> None:
        self.name = "clock_display"
        self.path, self.baud = path, baud
        self.shown: Any = None
        self.failures = 0
        self._status = "starting"

    async def run(self, sink: InputSink) -> None:
        from drivers.display.errors import DisplayError
        from drivers.display.serial import SerialDisplay
        from drivers.table.serial import SerialTransport

        async with SerialDisplay(SerialTransport(str(self.path), self.baud)) as display:
            self._status = "up"
            while True:
                line = clocks_line(sink.timers_state(), time.monotonic_ns())
                if line is not None and line != self.shown:
                    try:
                        await display.show_clocks(line)
                        self.shown = line
                    except DisplayError as exc:
                        self.failures += 1
                        log.warning("clock display: %s", exc)
                await asyncio.sleep(CLOCK_DISPLAY_REFRESH_S)

    async def show(self, board: dict[str, Any], events: Sequence[dict[str, Any]]) -> None:
        return None

    def health(self) -> dict[str, Any]:
        return {"kind": "clock_display", "status": self._status, "failures": self.failures}


def _open(spec: LinkSpec, resume: RxPosition | None, scale: float = 1.0) -> TableLink:
    from drivers.link.timings import LinkTimings
    from drivers.table import open_table_link

    timings = None if scale == 1.0 else LinkTimings().scaled(scale)
    return open_table_link(spec, timings=timings, resume=resume)


def _link_spec(link: TableLinkConfig) -> LinkSpec | None:
    """The table link the config names, as a value (None: no table link)."""
    from drivers.table import GpioLink, SerialLink, UsbLink

    if link.kind == "serial":
        assert link.path is not None
        return SerialLink(str(link.path), link.baud)
    if link.kind == "usb":
        assert link.vid is not None and link.pid is not None
        return UsbLink(link.vid, link.pid)
    if link.kind == "gpio":
        return GpioLink(link.pins["relay"], link.pins["wall"])
    return None


def build_drivers(config: Config, *, pin_factory: Any = None) -> list[Driver]:
    """The drivers a config names (devices were checked by config.check_devices)."""
    drivers: list[Driver] = []
    link = config.devices.table
    displays = config.devices.displays
    buttons = config.devices.buttons
    gpio_buttons = buttons.kind == "gpio" and buttons.seat_pins is not None
    camera = None if config.tiles is None else config.tiles.camera
    # one tracker for every device that reports to it (table link, RFID readers, buttons, the
    # camera): the one translation from device to input, one ``held``, one arrival order
    tracker: DeviceTracker | None = None
    if config.tiles is not None and config.tiles.readers:
        from daemon.tracker import DeviceTracker

        tracker = DeviceTracker.from_config(config.tiles)
    elif camera is not None or (gpio_buttons and link.kind != "none"):
        from daemon.tracker import DeviceTracker

        tracker = DeviceTracker()
    spec = _link_spec(link)
    if spec is not None:
        # the link's timings stretched for a slow peer (the emulated chip: docs/daemon.md)
        scale = 1.0 if link.kind == "gpio" else link.timing_scale
        drivers.append(TableLinkDriver(partial(_open, spec, scale=scale), displays,
                                       tracker=tracker))
    else:
        drivers.append(NoTable())
    if tracker is not None:
        drivers.append(tracker)
    if gpio_buttons:
        assert buttons.seat_pins is not None
        drivers.append(ButtonsDriver(buttons.seat_pins, buttons.referee_pin, pin_factory,
                                     led_pins=buttons.led_pins, buzzer_pin=buttons.buzzer_pin,
                                     tracker=tracker))
    if camera is not None:
        from daemon.camera import CameraDriver

        assert tracker is not None
        drivers.append(CameraDriver(camera, tracker))
    if displays.clocks_path is not None:
        drivers.append(ClockDisplayDriver(displays.clocks_path, displays.clocks_baud))
    return drivers
