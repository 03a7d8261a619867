"""Errors of the daemon. One base (under :class:`rules.errors.JantakuError`); each leaf also
subclasses a builtin, so callers may catch either.

Messages carry the offending value and what was expected (and never a secret).
"""

from __future__ import annotations

from rules.errors import JantakuError


class DaemonError(JantakuError):
    """Root of every daemon error."""


class ConfigError(DaemonError, ValueError):
    """The configuration file cannot be used; the message names the file, the key and why."""


class EventLogError(DaemonError, RuntimeError):
    """The event log is unusable (another table's log, a gap in the inputs, a newer format)."""


class TrackerError(DaemonError, RuntimeError):
    """The device tracker failed on an item (a bug): the item's driver is told, and the tracker
    restarts, restoring what it holds from the log (daemon/tracker.py)."""


class BrokerError(DaemonError, ConnectionError):
    """The broker connection failed or closed (daemon/mqtt_session.py): the reconnect loop of
    daemon/mqtt.py retries with its backoff."""


class CommandError(DaemonError, ValueError):
    """A referee command that is malformed, unauthorised or not applicable.

    ``code`` is a stable string (the ``error.code`` of the reply on MQTT).
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class CredentialError(DaemonError, ValueError):
    """A referee key (``pbkdf2-sha256$<iterations>$<hex>``) that cannot be read; says which part."""


class UsageError(DaemonError, ValueError):
    """A command-line argument or input line of a ``jantaku`` tool that cannot be used."""


class SchemaError(DaemonError, TypeError):
    """A type the JSON-schema generator has no schema for (a bug in daemon/schemas' sources)."""


class NotJsonError(DaemonError, TypeError):
    """A value JSON has no form for, met by the input path's encoder (daemon/json_text.py)."""
