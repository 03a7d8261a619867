"""The async shell shared by the RFID readers: wait for the device path, open it, pump its bytes,
notice silence and unplug, and open it again when it comes back.

A reader is named in the config by a stable path (``/dev/input/by-path/...-event-kbd``,
``/dev/serial/by-path/...``): udev removes the link when the reader is unplugged and recreates it
when it is plugged in again, possibly on another ``/dev/input/eventN``. So after an unplug the
reader polls for the path every ``reopen_s`` and reports ``connected`` once it has it again.

An unplug is any of: end of file (a pipe or FIFO whose writer is gone, the emulator), ``ENODEV``
(evdev device removed), ``EIO``/``ENXIO`` (serial adapter removed, pty master closed).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
from collections.abc import Callable
from typing import Final

from drivers.tiles.events import FaultKind, ReaderEvent, ReaderFault

CHUNK: Final = 4096
_GONE: Final = frozenset({errno.ENODEV, errno.EIO, errno.ENXIO, errno.EBADF})


class Unplugged(Exception):
    """The device went away; the message says how."""


async def pump(
    fd: int,
    on_data: Callable[[bytes], None],
    on_silence: Callable[[], None],
    silence_s: float,
) -> None:
    """Feed every chunk read from ``fd`` to ``on_data``; call ``on_silence`` after ``silence_s``
    without bytes (once per silence); return by raising :class:`Unplugged`."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[bytes | Unplugged] = asyncio.Queue()

    def readable() -> None:
        try:
            data = os.read(fd, CHUNK)
        except BlockingIOError:
            return
        except OSError as exc:
            if exc.errno in _GONE:
                loop.remove_reader(fd)
                queue.put_nowait(Unplugged(f"read error: {exc.strerror} (errno {exc.errno})"))
                return
            raise
        if not data:
            loop.remove_reader(fd)
            queue.put_nowait(Unplugged("end of file"))
            return
        queue.put_nowait(data)

    loop.add_reader(fd, readable)
    try:
        silent = False
        while True:
            try:
                item = await asyncio.wait_for(queue.get(), None if silent else silence_s)
            except TimeoutError:
                silent = True
                on_silence()
                continue
            if isinstance(item, Unplugged):
                raise item
            silent = False
            on_data(item)
    finally:
        loop.remove_reader(fd)


async def wait_for_path(path: str, reopen_s: float) -> None:
    while not os.path.exists(path):
        await asyncio.sleep(reopen_s)


def fault(name: str, kind: FaultKind, detail: str, clock: Callable[[], int]) -> ReaderEvent:
    return ReaderFault(name, kind, detail, clock())


def close_quietly(fd: int) -> None:
    with contextlib.suppress(OSError):
        os.close(fd)
