"""The byte transports the link session runs over (serial, USB bulk) share this interface."""

from __future__ import annotations

from typing import Protocol

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
