"""Emulator of the controller board inside the table: the reference firmware on the host.

:class:`TableController` *is* the firmware of ``firmware/`` (``firmware.table.Table`` over
``firmware.link.Link``, the modules flashed to the Pico), run with the host's clock and, when
built with a :class:`firmware.board.Board`, on simulated pins (``firmware.sim``). Around it,
this module adds only what a test bench needs: table actions as method calls (``press_start``,
``roll_dice``, ...), a record of accepted commands (``commands``, ``display``) as the host's
message types, and fault injection. Two wirings put it on a transport:

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
from typing import assert_never

from drivers.link.frame import encode_frame
from drivers.link.messages import (
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
    MessageType,
    PressStart,
    ScoreDisplay,
    SeatButton,
    StartPressed,
    TableEvent,
    WallManifest,
    WallRaised,
    capabilities_to_bits,
    message_from_payload,
)
from drivers.link.timings import LinkTimings
from firmware import firmware_string
from firmware import link as fwlink
from firmware.board import Board
from firmware.config import Config
from firmware.resets import ResetMemory
from firmware.sim import SimMachine, SimNeoPixel, SimTM1637
from firmware.table import Outputs, Table
from hil.errors import EmulatorUsageError
from rules.tiles import Kind

ALL_CAPABILITIES = frozenset(Capability)
SIM_FIRMWARE = firmware_string("sim")


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


def firmware_timings(timings: LinkTimings) -> fwlink.Timings:
    """The host's timings (float seconds) as the firmware's (integer milliseconds)."""
    return fwlink.Timings(
        heartbeat_interval=round(timings.heartbeat_interval * 1000),
        link_timeout=round(timings.link_timeout * 1000),
        ack_timeout=round(timings.ack_timeout * 1000),
        max_retries=timings.max_retries,
        nak_holdoff=max(1, round(timings.nak_holdoff * 1000)),
    )


class TableController:
    """The firmware on the host; thread-safe (the USB wiring calls it from pyusb threads).

    By default the firmware drives a :class:`firmware.board.Board` in the documented wiring on
    simulated pins (``sim``), with simulated TM1637 chips on its display lines
    (``honba_chip``, ``score_chips``): the display driver, buzzer, LEDs and relay code run as
    on the Pico, and a test can play the table's signals on ``sim`` (``sim.drive(pin, 0)``).
    ``outputs`` replaces that board. ``clock`` is in seconds (the firmware counts integer
    milliseconds of it)."""

    def __init__(
        self,
        *,
        capabilities: frozenset[Capability] = ALL_CAPABILITIES,
        timings: LinkTimings | None = None,
        boot_id: int | None = None,
        firmware: str = SIM_FIRMWARE,
        versions: tuple[int, int] = (1, 1),
        clock: Callable[[], float] = time.monotonic,
        outputs: Outputs | None = None,
    ) -> None:
        self._lock = threading.RLock()
        self._clock = clock
        self.capabilities = capabilities
        self.timings = timings or LinkTimings()
        self.endpoint = fwlink.Link(
            boot_id or secrets.randbits(32) or 1, capabilities_to_bits(capabilities), firmware,
            timings=firmware_timings(self.timings), versions=versions, tx_size=1 << 16,
        )
        self.endpoint.keep_last = True  # send_duplicate repeats it
        self.sim: SimMachine | None = None
        self.board: Board | None = None
        self.honba_chip: SimTM1637 | None = None
        self.score_chips: list[SimTM1637] = []
        if outputs is None:
            outputs = self._sim_board()
        self.table = Table(self.endpoint, outputs)
        if self.board is not None:
            self.board.table = self.table
        self.table.on_command = self._record
        # a new controller is a board that has just started: its first event says so and why
        # (machine.reset_cause() of the simulated chip; without one, a power-on), as the
        # firmware's does (firmware/pico.py), so the host hears the same bytes from both
        boot = ResetMemory(None, self.sim.reset_cause() if self.sim is not None else 1)
        self.table.controller_reset(boot.cause, boot.lost, self.now_ms())
        self.commands: list[Command] = []
        self.display = DisplayState()
        self.deaf = False
        self.on_output: Callable[[], None] | None = None

    def __repr__(self) -> str:
        e = self.endpoint
        return (f"<TableController {e.firmware!r} connected={e.connected} pending={e.pending} "
                f"commands={len(self.commands)}>")

    def _sim_board(self) -> Board:
        cfg = Config()
        sim = self.sim = SimMachine()
        board = self.board = Board(sim, cfg, SimNeoPixel)
        assert cfg.display_clk is not None and cfg.honba_dio is not None
        clk = sim.net(cfg.display_clk)
        self.honba_chip = SimTM1637(clk, sim.net(cfg.honba_dio), cfg.honba_digits)
        self.score_chips = [SimTM1637(clk, sim.net(n), cfg.score_digits) for n in cfg.score_dios]
        return board

    def now_ms(self) -> int:
        return round(self._clock() * 1000)

    @property
    def connects(self) -> int:
        return self.endpoint.counters.connects

    @property
    def silent(self) -> bool:
        return self.table.silent

    @silent.setter
    def silent(self, value: bool) -> None:
        self.table.silent = value

    # --- table actions (each queues one event) -------------------------------------------------

    def emit(self, event: TableEvent) -> None:
        with self._lock:
            self.table.emit(event.TYPE, event.payload(), self.now_ms())
            self._notify()

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
            self.table.write_raw(raw)
            self._notify()

    def send_duplicate(self) -> None:
        """Send the last data frame again, byte for byte (as a flaky relay would)."""
        with self._lock:
            frame = self.endpoint.last_data_frame
            if frame is None:
                raise EmulatorUsageError("no data frame has been sent yet; nothing to duplicate")
            self.inject(frame)

    def send_truncated(self, message: Message, keep: int, seq: int = 0) -> None:
        """The first ``keep`` bytes of a frame, as when the cable is pulled mid-frame."""
        self.inject(encode_frame(message, seq)[:keep])

    def send_corrupted(self, message: Message, bit: int, seq: int = 0) -> None:
        """A frame with bit ``bit`` (counted from the first COBS byte) flipped."""
        frame = bytearray(encode_frame(message, seq))
        index = 1 + bit // 8
        if not 1 <= index < len(frame) - 1:
            raise EmulatorUsageError(f"bit {bit} is outside the frame's {len(frame) - 2} COBS "
                                     "bytes")
        frame[index] ^= 1 << (bit % 8)
        self.inject(bytes(frame))

    # --- link plumbing (called by a wiring) ----------------------------------------------------

    def attach(self) -> None:
        with self._lock:
            self.table.attach(self.now_ms())
            self._notify()

    def detach(self) -> None:
        with self._lock:
            self.table.detach(self.now_ms())

    def receive(self, data: bytes) -> None:
        with self._lock:
            if self.deaf:
                return
            self.table.receive(data, self.now_ms())
            self._notify()

    def tick(self) -> None:
        with self._lock:
            self.table.tick(self.now_ms())
            self._notify()

    def next_deadline(self) -> float | None:
        """In the clock's seconds."""
        with self._lock:
            deadline = self.endpoint.next_deadline()
            return None if deadline is None else deadline / 1000

    def take_output(self) -> bytes:
        with self._lock:
            return self.table.take_output()

    def _record(self, kind: int, payload: bytes) -> None:
        command = message_from_payload(MessageType(kind), payload)
        assert isinstance(command, Command)  # the firmware delivers commands only
        self.commands.append(command)
        d = self.display
        match command:
            case HonbaDisplay(honba=honba, deposits=deposits):
                d.honba, d.deposits = honba, deposits
            case ScoreDisplay(scores=scores):
                d.scores = scores
            case Buzzer():
                d.buzzes.append(command)
            case Led(seat=seat):
                d.leds[seat] = command
            case PressStart():
                pass  # the firmware itself answers with start_pressed
            case _:
                assert_never(command)

    def _notify(self) -> None:
        if self.on_output is not None and self.table.pending_output:
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
