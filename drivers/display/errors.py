"""Errors of the displays (honba, score and clock displays on their own serial line).

The displays are not the table link: their errors have a base of their own under the root
:class:`rules.errors.JantakuError`, and each leaf also subclasses a builtin.
"""

from __future__ import annotations

from rules.errors import JantakuError


class DisplayError(JantakuError):
    """Base of every display error."""


class DisplayProtocolError(DisplayError, ValueError):
    """A line that is not a valid command or reply (docs/protocol/table-link.md §10)."""


class DisplayReplyError(DisplayError, RuntimeError):
    """The display answered ERR, or did not answer."""
