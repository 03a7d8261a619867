"""The emulated sensor table: every device a venue table has, speaking its real bytes.

* the automatic table's controller board (:class:`~hil.table_controller.PtyTableController`) on a
  pty behind a stable link, as udev's ``/dev/serial/by-id`` link;
* thirteen serial RFID readers (:class:`~hil.rfid_emulator.SerialReaderEmulator`), one per zone:
  per seat its hand rack, river and meld area, and the dora spot (docs/hil.md);
* an enrolment file: which tag id is sewn into which of the 136 tiles;
* the four clock buttons: gpiozero ``MockFactory`` pins (in-process daemon) or the table's own seat
  buttons (key 0 of the link's ``seat_button``), when the daemon runs in another process.

The rig counts the device events it produced that the tracker consumes one by one (tags, table
events, seat keys, clock button presses), so the runner can play in lockstep with the daemon.

``real=...`` (docs/hil.md, *On real hardware*): the table link end is a real serial port (a USB
adapter looped to the Pi's UART) instead of a pty; readers stay emulated.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Final

from drivers.debounce import DEFAULT_WINDOW_NS
from drivers.link.messages import Layer as LinkLayer
from drivers.link.messages import manifest_index
from drivers.tiles.places import Place, Zone
from hil.kit import daemon_config
from hil.rfid_emulator import SerialReaderEmulator
from hil.table_controller import PtyTableController, TableController
from rules.seats import SEATS, Seat
from rules.tiles import Tile
from rules.wall import Layer, Position, Wall

#: BCM pins of the seat clock buttons (seats 0..3) in the rig's config; 22 and 27 are the pair
#: a loopback harness jumpers on a real Pi (docs/hil.md).
SEAT_PINS: Final = (5, 6, 13, 19)
ZONES: Final = (Zone.HAND, Zone.RIVER, Zone.MELDS)


def tag_of(tile: Tile, salt: int = 0x4A) -> str:
    """The tag id sewn into a tile of the rig's set (5 bytes, EM4100-sized)."""
    return f"{salt:02X}{tile.id + 0x1000:08X}"


def reader_name(place: Place) -> str:
    return "dora" if place.seat is None else f"seat{int(place.seat)}-{place.zone.value}"


def places() -> list[Place]:
    out = [Place(z, s) for s in SEATS for z in ZONES]
    out.append(Place(Zone.DORA))
    return out


def physical_manifest(wall: tuple[Tile, ...], ring: Wall, aka: bool) -> tuple[str, ...]:
    """The table's manifest (kinds by physical position) of a wall given in ring order."""
    out: list[str | None] = [None] * 136
    for i, tile in enumerate(wall):
        pos = ring.position(i)
        layer = LinkLayer.TOP if pos.layer is Layer.TOP else LinkLayer.BOTTOM
        out[manifest_index(int(pos.seat), pos.stack, layer)] = tile.mjai(aka)
    assert all(x is not None for x in out)
    return tuple(x for x in out if x is not None)


class Rig:
    """All emulated devices of one table under ``workdir``."""

    def __init__(self, workdir: Path, *, aka: bool, gpio: Any = None,
                 real_table: str | None = None,
                 real_buttons: tuple[tuple[int, int], ...] | None = None,
                 reader_ports: dict[str, tuple[str, str]] | None = None) -> None:
        self.workdir = workdir
        self.aka = aka
        self.gpio = gpio  # a gpiozero MockFactory, or None: clock presses over the table link
        # real GPIO loopback: per seat (output pin the rig drives, input pin the daemon reads)
        self.real_buttons = real_buttons
        self._outputs: list[Any] = []
        # real serial loopback per reader name: (the rig's end, the daemon's end)
        self.reader_ports = reader_ports or {}
        self.real_table = real_table
        self.table: PtyTableController | None = None
        self.controller = TableController()
        self.readers: dict[Place, SerialReaderEmulator] = {}
        # device events the tracker will consume: the first is the controller's own, sent when
        # the daemon connects (controller_reset: it has just started)
        self.events = 1
        # when each seat's mock clock pin was last released: the next press waits out the
        # debouncer's quiet window (drivers/debounce.py), as no hand presses a button 20 ms
        # after letting it go -- a press inside it would be taken as bounce and never arrive
        self._released: dict[Seat, float] = {}
        self._stack = contextlib.AsyncExitStack()
        self.enrolment = workdir / "enrolment.json"
        self.link_path = workdir / "ttyTABLE"

    # ------------------------------------------------------------------ life
    async def __aenter__(self) -> Rig:
        self.workdir.mkdir(parents=True, exist_ok=True)
        (self.workdir / "rfid").mkdir(exist_ok=True)
        doc = {"format": "jantaku-tile-enrolment", "version": 1, "aka": self.aka,
               "tags": {tag_of(Tile(i)): i for i in range(136)}}
        self.enrolment.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
        for place in places():
            name = reader_name(place)
            em: Any
            if name in self.reader_ports:
                em = _PortReader(*self.reader_ports[name])
            else:
                em = SerialReaderEmulator(self.workdir / "rfid" / name)
            em.plug()
            self.readers[place] = em
        if self.real_buttons is not None:
            from gpiozero import DigitalOutputDevice

            # pressed = the daemon's input pulled low, as a button to ground does
            self._outputs = [DigitalOutputDevice(out, active_high=False, initial_value=False)
                             for out, _ in self.real_buttons]
        if self.real_table is None:
            self.table = PtyTableController(self.link_path, self.controller)
            await self._stack.enter_async_context(self.table)
        else:
            await self._stack.enter_async_context(_SerialController(self.real_table,
                                                                    self.controller))
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._stack.aclose()
        for em in self.readers.values():
            em.unplug()
        for dev in self._outputs:
            dev.close()

    def config_toml(self, *, table_id: str, ruleset: str, eventlog: Path, mqtt_host: str,
                    mqtt_port: int, link: str | None = None,
                    referee: tuple[str, str] | None = None) -> str:
        """The daemon config of this table (the same keys a venue's config has), written by the
        kit's one config builder (hil/kit.py ``daemon_config``)."""
        readers = [{"name": reader_name(p), "kind": "serial", "path": str(self.readers[p].path),
                    "zone": p.zone.value, **({} if p.seat is None else {"seat": int(p.seat)})}
                   for p in places()]
        pins = list(SEAT_PINS) if self.real_buttons is None else [i for _, i in
                                                                   self.real_buttons]
        buttons: dict[str, Any] = (
            {"kind": "gpio", "seat_pins": pins}
            if self.gpio is not None or self.real_buttons is not None else {"kind": "none"})
        sections: dict[str, Any] = {
            "eventlog": {"checkpoint_every": 500},
            "mqtt": {"host": mqtt_host, "health_interval": 2.0},
            "devices": {"buttons": buttons},
            "tiles": {"enrolment": str(self.enrolment), "debounce_ms": 1500, "readers": readers},
        }
        if referee is not None:
            sections["referee"] = {"users": [
                {"name": referee[0], "role": "referee", "key": referee[1]}]}
        return daemon_config(table_id, eventlog, mqtt_port, ruleset=ruleset,
                             link=str(link or self.link_path), sections=sections)

    # ------------------------------------------------------------------ actions
    def unread(self) -> int:
        """Bytes written to the emulated readers that the daemon has not read yet (a reader on
        a real serial port cannot say: 0)."""
        return sum(em.unread() for em in self.readers.values()
                   if isinstance(em, SerialReaderEmulator))

    def tag(self, place: Place, tile: Tile) -> None:
        self.readers[place].tag(tag_of(tile))
        self.events += 1

    def tags(self, place: Place, tiles: Iterable[Tile]) -> None:
        for t in tiles:
            self.tag(place, t)

    def press_start(self) -> None:
        self.controller.press_start()
        self.events += 1

    def raise_wall(self, manifest: tuple[str | None, ...] | None) -> None:
        self.controller.raise_wall()
        self.events += 1
        if manifest is not None:
            self.controller.send_manifest(manifest)
            self.events += 1

    def roll(self, dice: tuple[int, int]) -> None:
        self.controller.roll_dice(*dice)
        self.events += 1

    def open_break(self, seat: Seat, count: int) -> None:
        self.controller.open_break(int(seat), count)
        self.events += 1

    def turn_indicator(self, pos: Position, tile: Tile | None) -> None:
        layer = LinkLayer.TOP if pos.layer is Layer.TOP else LinkLayer.BOTTOM
        self.controller.turn_indicator(int(pos.seat), pos.stack, layer,
                                       tile=None if tile is None else tile.mjai(self.aka))
        self.events += 1

    def key(self, seat: Seat, button: int) -> None:
        self.controller.press_seat_button(int(seat), button)
        self.events += 1

    async def clock(self, seat: Seat) -> None:
        """The seat hits its clock: a GPIO edge pair, or key 0 of the table's seat panel. Either
        way one item for the tracker (a GPIO press goes through the same fold as the key)."""
        if self._outputs:
            out = self._outputs[int(seat)]
            out.on()
            await asyncio.sleep(0.05)  # longer than the debouncer's window
            out.off()
            self.events += 1
            return
        if self.gpio is None:
            self.key(seat, 0)
            return
        pin = self.gpio.pin(SEAT_PINS[int(seat)])
        quiet = DEFAULT_WINDOW_NS / 1e9 + 0.01
        wait = self._released.get(seat, -quiet) + quiet - time.monotonic()
        if wait > 0:
            await asyncio.sleep(wait)
        pin.drive_low()
        await asyncio.sleep(0.002)
        pin.drive_high()
        self._released[seat] = time.monotonic()
        self.events += 1


class _PortReader:
    """An emulated reader on a real serial port (a USB-serial adapter looped to the one the
    daemon reads): the same RDM6300 frames as :class:`SerialReaderEmulator`."""

    def __init__(self, device: str, daemon_device: str) -> None:
        self.device = device
        self.path = Path(daemon_device)  # what the daemon's config names
        self._port: Any = None

    def plug(self) -> None:
        import serial

        self._port = serial.Serial(self.device, 9600, timeout=0)

    def unplug(self) -> None:
        if self._port is not None:
            self._port.close()
            self._port = None

    def write(self, data: bytes) -> None:
        assert self._port is not None
        self._port.write(data)
        self._port.flush()

    def tag(self, tag: str, *, crlf: bool = False) -> None:
        from hil.rfid_emulator import rdm6300_frame

        self.write(rdm6300_frame(tag) + (b"\r\n" if crlf else b""))

    def truncated(self, tag: str, keep: int = 5) -> None:
        from hil.rfid_emulator import rdm6300_frame

        self.write(rdm6300_frame(tag)[:keep])


class _SerialController:
    """The controller emulator on a real serial port (a USB adapter looped to the Pi's UART)."""

    def __init__(self, device: str, controller: TableController) -> None:
        self.device = device
        self.controller = controller
        self._task: asyncio.Task[None] | None = None
        self._port: Any = None

    async def __aenter__(self) -> _SerialController:
        import serial

        self._port = serial.Serial(self.device, 115200, timeout=0)
        loop = asyncio.get_running_loop()
        fd = self._port.fileno()
        self.controller.on_output = lambda: self._port.write(self.controller.take_output())
        loop.add_reader(fd, lambda: self.controller.receive(self._port.read(65536)))
        self.controller.attach()
        self._task = asyncio.create_task(self._tick())
        return self

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(0.01)
            self.controller.tick()

    async def __aexit__(self, *exc: object) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        asyncio.get_running_loop().remove_reader(self._port.fileno())
        self.controller.detach()
        self._port.close()
