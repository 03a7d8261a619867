"""Errors of the table link. Each leaf also subclasses a builtin, so callers may catch
either; the base is under the root :class:`rules.errors.JantakuError`."""

from __future__ import annotations

from rules.errors import JantakuError


class LinkError(JantakuError):
    """Root of every table-link error."""


class MalformedMessageError(LinkError, ValueError):
    """A message (JSON object or frame payload) that does not follow docs/protocol/table-link.md."""


class UnsupportedCommandError(LinkError, ValueError):
    """A command the connected table cannot carry out (capability not announced in its welcome)."""


class CommandRejectedError(LinkError, ValueError):
    """The table answered a command with NAK ``rejected``."""


class LinkClosedError(LinkError, ConnectionError):
    """The link was closed before the operation completed."""


class IncompatibleTableError(LinkError, ConnectionError):
    """The table speaks no protocol version in common with us."""


class LinkConfigError(LinkError, ValueError):
    """A link setting (URL, timings, boot id) that cannot be used; the message says which."""


class LinkStateError(LinkError, RuntimeError):
    """A link object used out of its life cycle (a session reopened)."""
