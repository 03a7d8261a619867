"""The root of every jantaku error, and the rules core's base.

One tree (docs/engineering.md "Exceptions", docs/architecture.md): ``JantakuError`` at the root,
one base per package under it (``RulesError`` here, ``LinkError``, ``TileSensorError``,
``DisplayError`` in ``drivers/``, ``DaemonError``, ``HilError``), and leaves that also subclass
the builtin that fits (``ValueError`` for a value that cannot be used, ``OSError`` for a device,
...), so a caller catches the package, the root, or the builtin. The ``jantaku`` command catches
``JantakuError`` once: one line on stderr, exit 2.

It lives in ``rules/`` because ``rules/`` may import nothing outside itself, and everything may
import ``rules/``.
"""

from __future__ import annotations


class JantakuError(Exception):
    """Root of every error jantaku raises on purpose."""


class RulesError(JantakuError):
    """Base of the rules core's errors (rulesets, tiles, wall, inputs, scoring, records...)."""


class SeatError(RulesError, ValueError):
    """A seat number or wind letter out of range."""


class FieldError(RulesError, TypeError):
    """A value type built with a keyword it does not have (as a dataclass constructor says)."""


class EncodeError(RulesError, TypeError):
    """A value the event encoder has no JSON form for (a bug: every event field has one)."""
