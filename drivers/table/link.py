"""The one interface the daemon uses for a table, whatever connects it (link session or GPIO).

    async with open_table_link("serial:///dev/serial/by-id/usb-jantaku-ctl") as link:
        async for event in link.events():      # TableEvent messages and LinkChange
            ...
        async for item in link.deliveries():   # Delivery and LinkChange: ack when you say so
            ...; link.confirm(item)             # (the daemon: once its input is committed)
        await link.send(HonbaDisplay(1, 0))    # returns once the table acknowledged it
        link.state                              # status, capabilities, counters
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from enum import StrEnum
from types import TracebackType
from typing import Protocol, Self

from drivers.link.messages import Capability, Command, TableEvent
from drivers.link.reports import LinkCounters, RxPosition


class LinkStatus(StrEnum):
    CONNECTING = "connecting"  # no handshake yet since open
    CONNECTED = "connected"
    LOST = "lost"  # was connected; reconnecting
    INCOMPATIBLE = "incompatible"  # the table speaks no protocol version we know
    CLOSED = "closed"


@dataclass(frozen=True, slots=True)
class LinkChange:
    """Yielded by ``events()`` when the link's status changes; ``reason`` says why it was lost
    (``silence``, ``no_ack``, ``transport``)."""

    status: LinkStatus
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class Delivery:
    """A table event from :meth:`TableLink.deliveries`, not yet acknowledged to the table.
    ``receipt``: the controller's boot id and the frame's seq -- store it with the event and pass
    it back as ``resume`` after a restart (None: a link without sequence numbers, GPIO)."""

    event: TableEvent
    receipt: RxPosition | None


@dataclass(frozen=True, slots=True)
class LinkState:
    status: LinkStatus
    transport: str
    version: int = 0
    capabilities: frozenset[Capability] = frozenset()
    firmware: str = ""
    counters: LinkCounters = field(default_factory=LinkCounters)
    opens: int = 0  # how many times the transport was opened (1 + reconnects)
    reason: str | None = None  # why the status is what it is (lost: the cause; incompatible:
    # what the table runs and what to do about it)

    @property
    def connected(self) -> bool:
        return self.status is LinkStatus.CONNECTED


class TableLink(Protocol):
    async def __aenter__(self) -> Self: ...

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...

    def events(self) -> AsyncIterator[TableEvent | LinkChange]:
        """Table events, each acknowledged as it is handed out, and link changes."""
        ...

    def deliveries(self) -> AsyncIterator[Delivery | LinkChange]:
        """Table events, each acknowledged only when :meth:`confirm` is called for it (the table
        sends nothing more until then: stop-and-wait), and link changes."""
        ...

    def confirm(self, delivery: Delivery) -> None:
        """``delivery`` is durable on the host: acknowledge it to the table."""
        ...

    async def send(self, command: Command, *, timeout: float | None = None) -> None: ...

    @property
    def state(self) -> LinkState: ...
