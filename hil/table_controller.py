"""Emulator of the controller board inside the table: the other end of the table link.

:class:`TableController` is the firmware's behaviour, sans I/O: it runs the same
:class:`drivers.link.arq.Endpoint` as the host (role ``controller``), turns table actions
(start, wall, dice, break, indicator, manifest, faults) into events, and records every command it
accepts (display updates, buzzer, LEDs) for assertions. Two wirings put it on a transport:

* :class:`PtyTableController` -- a pty pair (``os.openpty``); the driver opens the slave through a
  stable symlink, as it opens udev's ``/dev/serial/by-id/...`` link on a real table. ``unplug``
  closes the pty and removes the link, ``plug`` makes a new pty behind the same link.
* ``hil.usb_backend.FakeUsbBackend`` -- the same controller behind a fake pyusb backend.

Fault injection: raw garbage, truncated and corrupted frames, verbatim duplicates, ``silent``
(transmit nothing: no heartbeats, acks or events), ``deaf`` (hear nothing: the host's acks are
lost), and unplug/replug.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import threading
import time
import tty
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from drivers.link.arq import Connected, Delivered, Endpoint, LinkTimings, Role
from drivers.link.frame import encode_frame
from drivers.link.messages import (
    REQUIRED_CAPABILITY,
    WALL_TILES,
    BreakOpened,
    Buzzer,
    Capability,
    Command,
    Dice,
    Fault,
    HonbaDisplay,
    IndicatorTurned,
    Layer,
    Led,
    Message,
    PressStart,
    ScoreDisplay,
    SeatButton,
    StartPressed,
    TableEvent,
    WallManifest,
    WallRaised,
)
from rules.tiles import Kind

ALL_CAPABILITIES = frozenset(Capability)


@dataclass(slots=True)
class DisplayState:
    """What the table's own displays show (capabilities honba_display, score_displays)."""

    honba: int = 0
    deposits: int = 0
    scores: tuple[int, int, int, int] = (0, 0, 0, 0)
    buzzes: list[Buzzer] = field(default_factory=list)
    leds: dict[int | None, Led] = field(default_factory=dict)


def ordered_manifest() -> tuple[str | None, ...]:
    """A readable test wall: the 136 tiles in kind order (4 of each) by manifest position."""
    return tuple(Kind(i // 4).mjai for i in range(WALL_TILES))


class TableController:
    """The controller's behaviour; thread-safe (the USB wiring calls it from pyusb threads)."""

    def __init__(
        self,
        *,
        capabilities: frozenset[Capability] = ALL_CAPABILITIES,
        timings: LinkTimings | None = None,
        boot_id: int | None = None,
        firmware: str = "hil-table 1.0",
        versions: tuple[int, int] = (1, 1),
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._lock = threading.RLock()
        self._clock = clock
        self.capabilities = capabilities
        self.endpoint = Endpoint(
            Role.CONTROLLER, boot_id=boot_id or secrets.randbits(32) or 1, timings=timings,
            capabilities=capabilities, firmware=firmware, versions=versions, accept=self._accepts,
        )
        self.commands: list[Command] = []
        self.display = DisplayState()
        self.connects = 0
        self.silent = False
        self.deaf = False
        self.on_output: Callable[[], None] | None = None
        self._wire = bytearray()

    def __repr__(self) -> str:
        return f"<TableController {self.endpoint!r} commands={len(self.commands)}>"

    # --- table actions (each queues one event) -------------------------------------------------

    def emit(self, event: TableEvent) -> None:
        with self._lock:
            self.endpoint.send(event, self._clock())
            self._collect()

    def press_start(self, seat: int | None = None) -> None:
        self.emit(StartPressed(seat))

    def raise_wall(self) -> None:
        self.emit(WallRaised())

    def roll_dice(self, a: int, b: int) -> None:
        self.emit(Dice((a, b)))

    def open_break(self, seat: int, count: int) -> None:
        self.emit(BreakOpened(seat, count))

    def turn_indicator(self, seat: int, stack: int, layer: Layer = Layer.TOP,
                       ring: int | None = None, tile: str | None = None) -> None:
        self.emit(IndicatorTurned(seat, stack, layer, ring, tile))

    def send_manifest(self, tiles: Iterable[str | None] | None = None) -> None:
        self.emit(WallManifest(tuple(ordered_manifest() if tiles is None else tiles)))

    def press_seat_button(self, seat: int, button: int = 0) -> None:
        self.emit(SeatButton(seat, button))

    def report_fault(self, code: int, seat: int | None = None) -> None:
        self.emit(Fault(code, seat))

    # --- fault injection -----------------------------------------------------------------------

    def inject(self, raw: bytes) -> None:
        """Put raw bytes on the wire (garbage, damaged frames), bypassing the protocol."""
        with self._lock:
            self._wire += raw
            self._notify()

    def send_duplicate(self) -> None:
        """Send the last data frame again, byte for byte (as a flaky relay would)."""
        with self._lock:
            frame = self.endpoint.last_data_frame
            if frame is None:
                raise ValueError("no data frame has been sent yet; nothing to duplicate")
            self.inject(frame)

    def send_truncated(self, message: Message, keep: int, seq: int = 0) -> None:
        """The first ``keep`` bytes of a frame, as when the cable is pulled mid-frame."""
        self.inject(encode_frame(message, seq)[:keep])

    def send_corrupted(self, message: Message, bit: int, seq: int = 0) -> None:
        """A frame with bit ``bit`` (counted from the first COBS byte) flipped."""
        frame = bytearray(encode_frame(message, seq))
        index = 1 + bit // 8
        if not 1 <= index < len(frame) - 1:
            raise ValueError(f"bit {bit} is outside the frame's {len(frame) - 2} COBS bytes")
        frame[index] ^= 1 << (bit % 8)
        self.inject(bytes(frame))

    # --- link plumbing (called by a wiring) ----------------------------------------------------

    def attach(self) -> None:
        with self._lock:
            self.endpoint.attach(self._clock())
            self._collect()

    def detach(self) -> None:
        with self._lock:
            self.endpoint.detach(self._clock())
            self._collect()
            self._wire.clear()

    def receive(self, data: bytes) -> None:
        with self._lock:
            if self.deaf:
                return
            self.endpoint.receive(data, self._clock())
            self._collect()

    def tick(self) -> None:
        with self._lock:
            self.endpoint.tick(self._clock())
            self._collect()

    def next_deadline(self) -> float | None:
        with self._lock:
            return self.endpoint.next_deadline()

    def take_output(self) -> bytes:
        with self._lock:
            data = bytes(self._wire)
            self._wire.clear()
            return data

    def _accepts(self, message: Message) -> bool:
        needed = REQUIRED_CAPABILITY.get(message.TYPE)
        return needed is None or needed in self.capabilities

    def _collect(self) -> None:
        while True:
            data, outputs = self.endpoint.drain()
            if not data and not outputs:
                break
            if not self.silent:
                self._wire += data
            for out in outputs:
                if isinstance(out, Connected):
                    self.connects += 1
                elif isinstance(out, Delivered) and isinstance(out.message, Command):
                    self._carry_out(out.message)
        if self._wire:
            self._notify()

    def _carry_out(self, command: Command) -> None:
        self.commands.append(command)
        d = self.display
        if isinstance(command, HonbaDisplay):
            d.honba, d.deposits = command.honba, command.deposits
        elif isinstance(command, ScoreDisplay):
            d.scores = command.scores
        elif isinstance(command, Buzzer):
            d.buzzes.append(command)
        elif isinstance(command, Led):
            d.leds[command.seat] = command
        elif isinstance(command, PressStart):
            # the table starts its cycle as if its start button had been pressed
            self.endpoint.send(StartPressed(None), self._clock())

    def _notify(self) -> None:
        if self.on_output is not None:
            self.on_output()


class PtyPort:
    """A pty pair behind a stable symlink: the device side of an emulated serial port.

    The emulator keeps the slave open too, so the master never reads EIO while the driver is
    between a close and a reopen; the master is non-blocking and bytes that do not fit are
    dropped, as a UART drops them when nobody reads."""

    def __init__(self, link: Path, on_data: Callable[[bytes], None]) -> None:
        self.link = link
        self._on_data = on_data
        self._master = -1
        self._slave = -1
        self.dropped = 0

    @property
    def plugged(self) -> bool:
        return self._master >= 0

    def plug(self) -> None:
        if self.plugged:
            return
        master, slave = os.openpty()
        tty.setraw(slave)
        os.set_blocking(master, False)
        self._master, self._slave = master, slave
        tmp = self.link.with_name(self.link.name + ".new")
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        tmp.symlink_to(os.ttyname(slave))
        tmp.replace(self.link)
        asyncio.get_running_loop().add_reader(master, self._on_readable)

    def unplug(self) -> None:
        if not self.plugged:
            return
        asyncio.get_running_loop().remove_reader(self._master)
        with contextlib.suppress(FileNotFoundError):
            self.link.unlink()
        os.close(self._master)
        os.close(self._slave)
        self._master = self._slave = -1

    def write(self, data: bytes) -> None:
        if not self.plugged or not data:
            return
        try:
            written = os.write(self._master, data)
        except (BlockingIOError, OSError):
            written = 0
        self.dropped += len(data) - written

    def _on_readable(self) -> None:
        try:
            data = os.read(self._master, 65536)
        except (BlockingIOError, OSError):
            return
        if data:
            self._on_data(data)


class PtyTableController:
    """A :class:`TableController` on a pty, run by the current event loop.

        async with PtyTableController(tmp_path / "ttyTABLE") as table:
            async with LinkSession(SerialTransport(str(table.path))) as link: ...
    """

    def __init__(self, link: Path, controller: TableController | None = None) -> None:
        self.controller = controller or TableController()
        self.port = PtyPort(link, self.controller.receive)
        self.controller.on_output = self._flush
        self._ticker: asyncio.Task[None] | None = None

    @property
    def path(self) -> Path:
        return self.port.link

    async def __aenter__(self) -> PtyTableController:
        self.plug()
        self._ticker = asyncio.create_task(self._tick(), name="hil table controller")
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._ticker is not None:
            self._ticker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._ticker
        self.unplug()

    def plug(self) -> None:
        self.port.plug()
        self.controller.attach()

    def unplug(self) -> None:
        self.controller.detach()
        self.port.unplug()

    def _flush(self) -> None:
        self.port.write(self.controller.take_output())

    async def _tick(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            deadline = self.controller.next_deadline()
            delay = 0.01 if deadline is None else min(0.01, max(0.0, deadline - loop.time()))
            await asyncio.sleep(delay)
            if self.port.plugged:
                self.controller.tick()
