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
