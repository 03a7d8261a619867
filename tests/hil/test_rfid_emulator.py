"""The RFID readers end to end against the emulators: real FIFOs and ptys, the same bytes as at a
venue, every fault, unplug and re-plug."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from pathlib import Path

from drivers.tiles.evdev_reader import EvdevTagReader
from drivers.tiles.events import FaultKind, ReaderEvent, ReaderFault, TagSeen
from drivers.tiles.serial_reader import SerialTagReader
from hil.rfid_emulator import KeyboardReaderEmulator, SerialReaderEmulator

MS = 1_000_000


class Collector:
    def __init__(self) -> None:
        self.events: list[ReaderEvent] = []
        self._changed = asyncio.Event()

    def __call__(self, ev: ReaderEvent) -> None:
        self.events.append(ev)
        self._changed.set()

    async def until(self, pred: Callable[[list[ReaderEvent]], bool], timeout: float = 5) -> None:
        async with asyncio.timeout(timeout):
            while not pred(self.events):
                self._changed.clear()
                await self._changed.wait()

    def kinds(self) -> list[str]:
        return [e.kind.value if isinstance(e, ReaderFault) else f"tag:{e.tag}" for e in self.events]

    def count(self, what: str) -> int:
        return self.kinds().count(what)


@asynccontextmanager
async def running(reader: EvdevTagReader | SerialTagReader) -> AsyncIterator[Collector]:
    got = Collector()
    task = asyncio.create_task(reader.run(got))
    try:
        yield got
    finally:
        task.cancel()
        with suppress(asyncio.CancelledError):
            await task


def by_path(tmp_path: Path, name: str) -> Path:
    return tmp_path / "dev" / "input" / "by-path" / name


async def test_keyboard_reader_tags_faults_and_replug(tmp_path: Path) -> None:
    path = by_path(tmp_path, "platform-fd500000.pcie-usb-0:1.2:1.0-event-kbd")
    emu = KeyboardReaderEmulator(path)
    emu.plug()
    reader = EvdevTagReader("s0-river", str(path), gap_ns=100 * MS, reopen_s=0.02)
    async with running(reader) as got:
        await got.until(lambda ev: got.count("connected") == 1)
        emu.tag("04A1B2C3D4")
        emu.tag("04A1B2C3D4", t_ns=time.time_ns() + 20 * MS)  # duplicate: reported twice here,
        # debounced by the sensor (tests/drivers/test_rfid_sensor.py)
        emu.keys("04ZZ")  # garbage keys
        emu.tag("DEADBEEF")  # an unknown tag is still a well-formed tag at this level
        await got.until(lambda ev: got.count("tag:DEADBEEF") == 1)
        assert got.kinds()[1:] == ["grab-failed", "tag:04A1B2C3D4", "tag:04A1B2C3D4", "garbage",
                                   "tag:DEADBEEF"]
        grab = got.events[1]
        assert isinstance(grab, ReaderFault) and "EVIOCGRAB" in grab.detail

        emu.keys("0A0B0C", enter=False)  # truncated: the reader goes silent mid-tag
        await got.until(lambda ev: got.count("truncated") == 1)
        assert "0A0B0C" in got.events[-1].detail  # type: ignore[union-attr]

        emu.dropped()
        await got.until(lambda ev: got.count("dropped") == 1)

        emu.partial_event()
        emu.unplug()  # the link vanishes, the reader sees end of file
        await got.until(lambda ev: got.count("unplugged") == 1)
        assert got.kinds()[-2:] == ["truncated", "unplugged"]  # the half event is reported
        n = len(got.events)
        await asyncio.sleep(0.1)
        assert len(got.events) == n  # silence while unplugged invents nothing

        emu.plug()
        await got.until(lambda ev: got.count("connected") == 2)
        emu.tag("12345678")
        await got.until(lambda ev: got.count("tag:12345678") == 1)
    tags = [e for e in got.events if isinstance(e, TagSeen)]
    assert [t.tag for t in tags] == ["04A1B2C3D4", "04A1B2C3D4", "DEADBEEF", "12345678"]
    assert all(t.reader == "s0-river" for t in tags)


async def test_keyboard_reader_silence_is_silent(tmp_path: Path) -> None:
    path = by_path(tmp_path, "kbd")
    emu = KeyboardReaderEmulator(path)
    emu.plug()
    async with running(EvdevTagReader("r", str(path), gap_ns=50 * MS)) as got:
        await got.until(lambda ev: got.count("connected") == 1)
        await asyncio.sleep(0.3)
        assert got.kinds() == ["connected", "grab-failed"]
    emu.unplug()


async def test_serial_reader_frames_faults_and_replug(tmp_path: Path) -> None:
    path = tmp_path / "dev" / "serial" / "by-path" / "platform-usb-0:1.3:1.0-port0"
    emu = SerialReaderEmulator(path)
    emu.plug()
    reader = SerialTagReader("dora", str(path), gap_ns=100 * MS, reopen_s=0.02)
    async with running(reader) as got:
        await got.until(lambda ev: got.count("connected") == 1)
        emu.tag("62E3086CED", crlf=True)
        emu.write(b"\xff\x00garbage")
        emu.tag("62E3086CED")  # duplicate
        emu.bad_checksum("0A0B0C0D")
        emu.tag("DEADBEEF")  # unknown to the tile set, but a good frame
        await got.until(lambda ev: got.count("tag:DEADBEEF") == 1)
        assert got.kinds() == ["connected", "tag:62E3086CED", "garbage", "tag:62E3086CED",
                               "bad-checksum", "tag:DEADBEEF"]
        emu.truncated("04A1B2C3", keep=6)  # then silence
        await got.until(lambda ev: got.count("truncated") == 1)
        emu.tag("0A0B0C0D")
        await got.until(lambda ev: got.count("tag:0A0B0C0D") == 1)

        emu.truncated("11223344", keep=4)
        # let the reader take the bytes: closing a pty master discards what it still buffers,
        # as unplugging a USB adapter loses its FIFO (either order of flush and unplug is fine)
        await asyncio.sleep(0.05)
        emu.unplug()
        await got.until(lambda ev: got.count("unplugged") == 1)
        assert got.kinds()[-2:] == ["truncated", "unplugged"]
        emu.plug()
        await got.until(lambda ev: got.count("connected") == 2)
        emu.tag("12345678")
        await got.until(lambda ev: got.count("tag:12345678") == 1)
    emu.unplug()
    tags = [e.tag for e in got.events if isinstance(e, TagSeen)]
    assert tags == ["62E3086CED", "62E3086CED", "DEADBEEF", "0A0B0C0D", "12345678"]
    faults = [e.kind for e in got.events if isinstance(e, ReaderFault)]
    assert faults.count(FaultKind.UNPLUGGED) == 1


async def test_two_emulated_readers_through_the_config_and_the_sensor(tmp_path: Path) -> None:
    import tomllib

    from drivers.tiles.config import build_readers, parse_tiles_config
    from drivers.tiles.events import Rejection, RejectReason, TileRead
    from drivers.tiles.places import Place, Zone
    from drivers.tiles.registry import TagRegistry
    from drivers.tiles.rfid import RfidEvent, RfidTiles
    from drivers.tiles.sensor import TileSensor
    from rules.seats import Seat
    from rules.tiles import Tile

    hand = KeyboardReaderEmulator(by_path(tmp_path, "platform-usb-0:1.1:1.0-event-kbd"))
    river = SerialReaderEmulator(tmp_path / "serial" / "by-path" / "platform-usb-0:1.2:1.0-port0")
    hand.plug()
    river.plug()
    config = parse_tiles_config(tomllib.loads(f"""
        debounce_ms = 1500
        [[readers]]
        name = "s0-hand"
        kind = "evdev"
        path = "{hand.path}"
        seat = 0
        zone = "hand"
        [[readers]]
        name = "s0-river"
        kind = "serial"
        path = "{river.path}"
        seat = 0
        zone = "river"
    """))
    tags = {f"E0040000{i:04X}": Tile(i) for i in range(136)}
    sensor = TileSensor(TagRegistry(tags), config.places(), config.debounce_ms * MS)
    got: list[RfidEvent] = []
    changed = asyncio.Event()

    def emit(ev: RfidEvent) -> None:
        got.append(ev)
        changed.set()

    async def until(n: int) -> None:
        async with asyncio.timeout(5):
            while len([e for e in got if not isinstance(e, ReaderFault)]) < n:
                changed.clear()
                await changed.wait()

    rfid = RfidTiles(build_readers(config), sensor, emit)
    task = asyncio.create_task(rfid.run())
    try:
        async with asyncio.timeout(5):
            while sum(isinstance(e, ReaderFault) and e.kind is FaultKind.CONNECTED
                      for e in got) < 2:
                changed.clear()
                await changed.wait()
        t = time.time_ns() // 1000 * 1000  # timeval holds microseconds
        hand.tag("E004000000A0", t_ns=t)  # 0xA0 = 160: not a tile of this set
        await until(1)
        hand.tag("E0040000000A", t_ns=t + 10 * MS)  # tile 10 dealt
        hand.tag("E0040000000A", t_ns=t + 400 * MS)  # re-read while it rests: same placement
        await until(3)
        river.tag("E0040000000A")  # discarded
        await until(4)
        river.write(b"\x02E0040000")  # a frame cut off by the next one
        river.tag("E0040000000B")  # tile 11, never in a hand (the hand reader missed it)
        await until(5)
        hand.tag("E0040000000A", t_ns=t + 10_000 * MS)  # a river tile read in the hand
        await until(6)
    finally:
        task.cancel()
        with suppress(asyncio.CancelledError):
            await task
        hand.unplug()
        river.unplug()
    outcomes = [e for e in got if not isinstance(e, ReaderFault)]
    assert isinstance(outcomes[0], Rejection) and outcomes[0].reason is RejectReason.UNKNOWN_TAG
    assert isinstance(outcomes[1], TileRead) and outcomes[1].tile == Tile(10)
    assert outcomes[1].place == Place(Zone.HAND, Seat(0)) and outcomes[1].t_ns == t + 22 * MS
    assert isinstance(outcomes[2], Rejection) and outcomes[2].reason is RejectReason.REPEAT
    assert isinstance(outcomes[3], TileRead) and outcomes[3].previous == outcomes[1].place
    assert outcomes[3].place == Place(Zone.RIVER, Seat(0))
    assert isinstance(outcomes[4], TileRead) and outcomes[4].tile == Tile(11)
    assert isinstance(outcomes[5], Rejection) and outcomes[5].reason is RejectReason.IMPOSSIBLE
    assert rfid.sensor.locations.where(Tile(10)) == Place(Zone.RIVER, Seat(0))
    faults = [e.kind for e in got if isinstance(e, ReaderFault)]
    assert FaultKind.TRUNCATED in faults and FaultKind.GRAB_FAILED in faults
