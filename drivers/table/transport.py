"""The byte transports the link session runs over (serial, USB bulk) share this interface."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Protocol, runtime_checkable

from drivers.link.errors import LinkError


class TransportError(LinkError, OSError):
    """The port or device cannot be opened, or went away (unplugged) while in use."""


class Transport(Protocol):
    """A reopenable byte pipe to the table controller.

    ``open`` may be called again after ``close`` (that is how the session reconnects); ``read``
    waits for at least one byte and raises :class:`TransportError` when the device goes away;
    ``close`` is idempotent and wakes a pending ``read``.
    """

    @property
    def name(self) -> str: ...

    async def open(self) -> None: ...

    async def read(self) -> bytes: ...

    async def write(self, data: bytes) -> None: ...

    async def close(self) -> None: ...


@runtime_checkable
class PushTransport(Transport, Protocol):
    """A transport that hands what it reads to a callback as it arrives and writes without
    waiting (the serial port: a readable descriptor and a kernel buffer far larger than a frame).
    The link session then decodes a frame in the reader's own wake-up and writes its ACK in the
    call that confirms it: no task hop per frame (docs/performance.md)."""

    def listen(self, received: Callable[[bytes], None]) -> Awaitable[None]:
        """From now on every chunk read goes to ``received`` (on the loop), what was read before
        first. The awaitable fails when the transport goes away or is closed
        (:class:`TransportError`), or with what ``received`` raised; it never completes
        otherwise."""
        ...

    def write_now(self, data: bytes) -> None:
        """Write ``data`` now; raises :class:`TransportError` (and the pending ``listen``
        fails) when the transport went away."""
        ...
