"""A serial RFID reader (RDM6300-style frames, :mod:`drivers.tiles.serial_frame`) — async shell.

Opened with pyserial by its stable path (``/dev/serial/by-path/...``), which sets the line
(baud, 8N1, raw); then read through the file descriptor under the event loop. The emulator serves
the same bytes on a pty.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable

import serial

from drivers.tiles.device import Unplugged, fault, pump, wait_for_path
from drivers.tiles.events import FaultKind, ReaderEvent
from drivers.tiles.serial_frame import DEFAULT_GAP_NS, FrameDecoder


class SerialTagReader:
    def __init__(
        self,
        name: str,
        path: str,
        *,
        baudrate: int = 9600,
        gap_ns: int = DEFAULT_GAP_NS,
        reopen_s: float = 0.5,
        clock: Callable[[], int] = time.monotonic_ns,
    ) -> None:
        self.name = name
        self.path = path
        self.baudrate = baudrate
        self.gap_ns = gap_ns
        self.reopen_s = reopen_s
        self.clock = clock

    async def run(self, emit: Callable[[ReaderEvent], None]) -> None:
        while True:
            await wait_for_path(self.path, self.reopen_s)
            try:
                port = serial.Serial(self.path, self.baudrate, timeout=0, exclusive=True)
            except (serial.SerialException, OSError):
                await asyncio.sleep(self.reopen_s)
                continue
            try:
                await self._session(port.fileno(), emit)
            finally:
                with contextlib.suppress(serial.SerialException, OSError):
                    port.close()
            await asyncio.sleep(self.reopen_s)  # a port that keeps failing must not spin

    async def _session(self, fd: int, emit: Callable[[ReaderEvent], None]) -> None:
        emit(fault(self.name, FaultKind.CONNECTED, self.path, self.clock))
        frames = FrameDecoder(self.name, self.gap_ns)

        def on_data(data: bytes) -> None:
            for out in frames.feed(data, self.clock()):
                emit(out)

        def on_silence() -> None:
            for out in frames.flush(self.clock(), force=True):
                emit(out)

        try:
            await pump(fd, on_data, on_silence, self.gap_ns / 1e9)
        except Unplugged as exc:
            on_silence()
            emit(fault(self.name, FaultKind.UNPLUGGED, str(exc), self.clock))
