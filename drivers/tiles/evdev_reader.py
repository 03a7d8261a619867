"""A keyboard-emulating USB RFID reader, read as raw evdev events (async shell).

The reader is opened by its ``/dev/input/by-path`` name, grabbed with ``EVIOCGRAB`` so that the
tag ids it "types" reach only jantaku (not the console or a login prompt), and read as bytes:
``struct input_event`` records (:mod:`drivers.tiles.input_event`) → key presses
(:mod:`drivers.tiles.keymap`) → :class:`~drivers.tiles.events.TagSeen` or faults. Nothing here
needs python-evdev, so the emulator feeds the same bytes through a FIFO. A FIFO or pty cannot be
grabbed: the reader reports ``grab-failed`` (also on a real device another program holds) and
reads on, because a tag that also reaches the console is still a tag.
"""

from __future__ import annotations

import asyncio
import fcntl
import os
import time
from collections.abc import Callable
from typing import Final

from drivers.tiles.device import Unplugged, close_quietly, fault, pump, wait_for_path
from drivers.tiles.events import FaultKind, ReaderEvent, ReaderFault
from drivers.tiles.input_event import NATIVE_WORD, InputEventDecoder
from drivers.tiles.keymap import DEFAULT_GAP_NS, KeyTagAssembler

EVIOCGRAB: Final = 0x40044590  # _IOW('E', 0x90, int)


class EvdevTagReader:
    def __init__(
        self,
        name: str,
        path: str,
        *,
        grab: bool = True,
        word_bytes: int = NATIVE_WORD,
        gap_ns: int = DEFAULT_GAP_NS,
        reopen_s: float = 0.5,
        clock: Callable[[], int] = time.monotonic_ns,
    ) -> None:
        self.name = name
        self.path = path
        self.grab = grab
        self.word_bytes = word_bytes
        self.gap_ns = gap_ns
        self.reopen_s = reopen_s
        self.clock = clock

    async def run(self, emit: Callable[[ReaderEvent], None]) -> None:
        """Read until cancelled, across unplugs; every event goes to ``emit``."""
        while True:
            await wait_for_path(self.path, self.reopen_s)
            try:
                fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
            except OSError:
                await asyncio.sleep(self.reopen_s)  # the link exists but the node is not ready
                continue
            try:
                await self._session(fd, emit)
            finally:
                close_quietly(fd)
            await asyncio.sleep(self.reopen_s)  # a node that keeps failing must not spin

    async def _session(self, fd: int, emit: Callable[[ReaderEvent], None]) -> None:
        emit(fault(self.name, FaultKind.CONNECTED, self.path, self.clock))
        if self.grab:
            try:
                fcntl.ioctl(fd, EVIOCGRAB, 1)
            except OSError as exc:
                emit(fault(self.name, FaultKind.GRAB_FAILED,
                           f"EVIOCGRAB on {self.path}: {exc.strerror}", self.clock))
        decoder = InputEventDecoder(self.word_bytes)
        keys = KeyTagAssembler(self.name, self.gap_ns)

        def on_data(data: bytes) -> None:
            for ev in decoder.feed(data):
                for out in keys.feed(ev):
                    emit(out)

        def on_silence() -> None:
            for out in keys.flush(0, force=True):
                emit(out)

        try:
            await pump(fd, on_data, on_silence, self.gap_ns / 1e9)
        except Unplugged as exc:
            on_silence()
            tail = decoder.reset()
            if tail:
                emit(ReaderFault(self.name, FaultKind.TRUNCATED,
                                 f"{len(tail)} bytes of a partial input_event", self.clock()))
            emit(fault(self.name, FaultKind.UNPLUGGED, str(exc), self.clock))
