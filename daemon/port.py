"""The typed port between the daemon's service and its users (drivers, web, CLI tools).

Drivers see :class:`daemon.service.InputSink` (the intake and the table's state); the web server
and the console see :class:`TablePort`. Both are protocols that :class:`daemon.service.Service`
satisfies, so no user imports the service module (no import cycle) and none reaches through it
with ``getattr``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, ParamSpec, Protocol, TypeVar

if TYPE_CHECKING:
    from daemon.config import Config
    from daemon.engine import Engine
    from daemon.eventlog import EventLog
    from daemon.mqtt import Incoming, Reply
    from daemon.table import TableCore
    from daemon.topics import Topics

P = ParamSpec("P")
T = TypeVar("T")


class TablePort(Protocol):
    """What the web server and the referee console use of a running table daemon."""

    table_id: str
    config: Config
    topics: Topics
    core: TableCore
    eventlog: EventLog
    engine: Engine
    #: set after every group commit: the table's state moved (the web views wait on it)
    changed: asyncio.Event

    async def db(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """Run ``fn`` on the event log's thread."""
        ...

    def alerts(self) -> list[str]:
        """What the operator must act on now (a damaged log: daemon/log_audit.py)."""
        ...

    async def handle_command(self, incoming: Incoming) -> Reply | None:
        """Check and run one referee command (daemon/commands.py); its reply."""
        ...

    @property
    def sensorless(self) -> bool:
        """No table data link: the referee records every hand's result (docs/console.md)."""
        ...

    @property
    def controller_notices(self) -> list[str]:
        """What the table's controller said about itself (docs/firmware.md "Resets")."""
        ...
