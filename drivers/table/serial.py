"""Serial transport (pyserial) for the table link and the serial display.

Design choice: no reader thread. The port is opened non-blocking (``timeout=0``) and the event loop
watches its file descriptor with ``loop.add_reader``; each wake-up reads what the kernel has
buffered. This keeps every byte on the loop's thread (no ``call_soon_threadsafe`` hand-off), costs
nothing while idle, and an unplugged USB-serial adapter or a closed pty shows up at once as a
readable descriptor whose read fails (EIO), which becomes :class:`TransportError`. It needs a
selectable descriptor, which every POSIX serial device has (this daemon runs on Linux).

Reads and writes use the descriptor pyserial opened (non-blocking, its termios set) directly:
pyserial's own ``read`` and ``write`` wrap every call in a ``select`` (two more system calls and
~20 µs a table frame and its ACK, on the daemon's input path). A read of nothing from
a readable descriptor is a port that went away, as pyserial says. Table-link frames are far
smaller than the kernel's tty buffer, so a write finishes at once in practice; what it leaves
goes through pyserial's ``write``, which ``write_timeout`` bounds.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable

import serial

from drivers.table.transport import TransportError

READ_CHUNK = 4096


class SerialTransport:
    """A serial port by path (udev's ``/dev/serial/by-id/...`` symlink survives a replug)."""

    def __init__(self, port: str, baudrate: int = 115200, *, write_timeout: float = 1.0) -> None:
        self.port = port
        self.baudrate = baudrate
        self.write_timeout = write_timeout
        self._serial: serial.Serial | None = None
        self._fd = -1
        self._loop: asyncio.AbstractEventLoop | None = None
        self._buffer = bytearray()
        self._error: TransportError | None = None
        self._waiter: asyncio.Future[None] | None = None
        #: :meth:`listen`'s callback and its awaitable (None: reads are buffered for ``read``)
        self._received: Callable[[bytes], None] | None = None
        self._listening: asyncio.Future[None] | None = None

    def __repr__(self) -> str:
        state = "open" if self._serial is not None else "closed"
        return f"<SerialTransport {self.port} {self.baudrate} baud {state}>"

    @property
    def name(self) -> str:
        return f"serial:{self.port}"

    async def open(self) -> None:
        if self._serial is not None:
            return
        try:
            port = serial.Serial(self.port, self.baudrate, timeout=0,
                                 write_timeout=self.write_timeout, exclusive=True)
        except (serial.SerialException, OSError, ValueError) as exc:
            raise TransportError(f"cannot open serial port {self.port!r}: {exc}") from exc
        self._loop = asyncio.get_running_loop()
        self._serial = port
        #: pyserial's fileno() is a Python call with its own checks: read it once a port
        self._fd = port.fileno()
        self._buffer.clear()
        self._error = None
        self._received = None
        self._listening = None
        self._loop.add_reader(port.fileno(), self._on_readable)

    def _on_readable(self) -> None:
        if self._serial is None:
            return
        try:
            data = os.read(self._fd, READ_CHUNK)
        except BlockingIOError:
            return
        except (serial.SerialException, OSError) as exc:
            self._fail(TransportError(f"serial port {self.port!r} went away: {exc}"))
            return
        if not data:  # readable, yet nothing to read: pyserial's "device disconnected"
            self._fail(TransportError(f"serial port {self.port!r} went away: device reports"
                                      " readiness to read but returned no data"))
            return
        received = self._received
        if received is None:
            self._buffer += data
            self._wake()
            return
        try:
            received(data)
        except Exception as exc:  # the listener's bug ends its listen(), as a reader task's would
            self._stop_listening(exc)

    def _fail(self, error: TransportError) -> None:
        self._error = error
        if self._serial is not None and self._loop is not None:
            self._loop.remove_reader(self._serial.fileno())
        self._wake()

    def _wake(self) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)
        if self._error is not None:
            self._stop_listening(self._error)

    def _stop_listening(self, error: BaseException) -> None:
        listening, self._listening, self._received = self._listening, None, None
        if listening is not None and not listening.done():
            listening.set_exception(error)

    def listen(self, received: Callable[[bytes], None]) -> asyncio.Future[None]:
        """Every chunk read goes to ``received`` from now on, in the descriptor's own wake-up
        (no reader task): what was read before first (:class:`~drivers.table.transport.
        PushTransport`). The future fails when the port goes away or is closed."""
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        if self._error is not None or self._serial is None:
            future.set_exception(self._error or TransportError(
                f"serial port {self.port!r} is closed"))
            return future
        self._listening, self._received = future, received
        if self._buffer:
            data = bytes(self._buffer)
            self._buffer.clear()
            try:
                received(data)
            except Exception as exc:
                self._stop_listening(exc)
        return future

    async def read(self) -> bytes:
        while not self._buffer:
            if self._error is not None:
                raise self._error
            if self._serial is None:
                raise TransportError(f"serial port {self.port!r} is closed")
            self._waiter = asyncio.get_running_loop().create_future()
            await self._waiter
        data = bytes(self._buffer)
        self._buffer.clear()
        return data

    async def write(self, data: bytes) -> None:
        self.write_now(data)

    def write_now(self, data: bytes) -> None:
        """Write ``data`` now: a frame fits the kernel's tty buffer, so this does not wait in
        practice; what it leaves goes through pyserial's ``write`` (``write_timeout``)."""
        port = self._serial
        if port is None or self._error is not None:
            raise self._error or TransportError(f"serial port {self.port!r} is closed")
        try:
            try:
                done = os.write(self._fd, data)
            except BlockingIOError:
                done = 0
            if done < len(data):
                port.write(data[done:])
        except (serial.SerialException, OSError) as exc:
            self._fail(TransportError(f"write to {self.port!r} failed: {exc}"))
            raise TransportError(f"write to {self.port!r} failed: {exc}") from exc

    async def close(self) -> None:
        port, self._serial = self._serial, None
        if port is None:
            return
        if self._loop is not None and self._error is None:
            self._loop.remove_reader(port.fileno())
        self._error = self._error or TransportError(f"serial port {self.port!r} is closed")
        self._wake()
        # a port that vanished cannot be closed cleanly; its fd is released anyway
        with contextlib.suppress(serial.SerialException, OSError):
            port.close()
