"""Reading ``[web]``'s limits (:class:`~daemon.config.values.WebLimits`) from its section: the
keys sit in ``[web]`` itself beside ``host`` and ``port`` (docs/daemon.md, "Web limits")."""

from __future__ import annotations

from typing import Any, Protocol

from daemon.config.values import WebLimits
from daemon.errors import ConfigError


class Section(Protocol):
    """What this reads of a config section (``daemon.config.reading.Section``; a protocol so
    that neither module imports the other)."""

    def int_(self, key: str, lo: int, hi: int, default: Any = ...) -> Any: ...

    def float_(self, key: str, lo: float, hi: float, default: Any = ...) -> Any: ...

    def error(self, message: str) -> ConfigError: ...


def read_web_limits(sec: Section) -> WebLimits:
    d = WebLimits()
    limits = WebLimits(
        max_connections=sec.int_("max_connections", 1, 65535, d.max_connections),
        max_connections_per_address=sec.int_("max_connections_per_address", 1, 65535,
                                             d.max_connections_per_address),
        header_timeout_seconds=sec.float_("header_timeout_seconds", 0.5, 600.0,
                                          d.header_timeout_seconds),
        keepalive_timeout_seconds=sec.float_("keepalive_timeout_seconds", 0.5, 3600.0,
                                             d.keepalive_timeout_seconds),
        max_sse_clients=sec.int_("max_sse_clients", 1, 65535, d.max_sse_clients),
    )
    if limits.max_connections_per_address > limits.max_connections:
        raise sec.error(
            f"web.max_connections_per_address ({limits.max_connections_per_address}) is more "
            f"than web.max_connections ({limits.max_connections})"
        )
    return limits
