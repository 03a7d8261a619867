"""JSON from outside (MQTT commands), read within bounds: size, nesting, numbers and strings.

``json.loads`` alone accepts what the daemon must refuse, or fails in ways a handler does not
expect: nesting of ~1000 levels raises ``RecursionError`` (in the parser, and again in anything
that walks the result); ``NaN``/``Infinity`` and ``1e400`` become floats that pass ``abs(x) < y``
checks; ``"\\ud800"`` becomes a lone surrogate that cannot be encoded as UTF-8 (the HMAC and every
reply encode it). :func:`load` checks all of that first, without recursion, and raises
:class:`JsonRefused` with a stable code and a reason that quotes nothing from the payload.
"""

from __future__ import annotations

import json
import math
from typing import Any, Final

from daemon.errors import DaemonError

MAX_BYTES: Final = 64 * 1024
MAX_DEPTH: Final = 32


class JsonRefused(DaemonError, ValueError):
    """A payload refused before or while parsing; ``code`` is the reply's ``error.code``."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def _depth(text: str) -> int:
    """The deepest nesting of ``[``/``{`` outside strings (a linear scan, no recursion)."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def _constant(name: str) -> Any:
    raise JsonRefused("bad_json", f"{name} is not a JSON number (NaN and Infinity are refused)")


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise JsonRefused("bad_json", "a number out of range (it would be infinite)")
    return value


#: JSON without NaN, Infinity or numbers out of range, parsed in C (:func:`load`, and the
#: command gate's first look, daemon/command_gate.py)
STRICT: Final = json.JSONDecoder(parse_constant=_constant, parse_float=_float)


def _bad_string(value: str) -> str | None:
    """Why a decoded string cannot be used (lone surrogate, NUL/control, non-character)."""
    for ch in value:
        cp = ord(ch)
        if 0xD800 <= cp <= 0xDFFF:
            return f"a lone surrogate U+{cp:04X} in a string"
        if (cp < 0x20 and ch not in "\t\n\r") or 0x7F <= cp <= 0x9F:
            return f"a control character U+{cp:04X} in a string"
        if 0xFDD0 <= cp <= 0xFDEF or (cp & 0xFFFE) == 0xFFFE:
            return f"a non-character U+{cp:04X} in a string"
    return None


def _check_strings(root: Any) -> None:
    """Every key and string value is valid text (iterative: depth is already bounded)."""
    stack = [root]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            why = _bad_string(item)
            if why is not None:
                raise JsonRefused("bad_json", why)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def load(payload: bytes, *, max_bytes: int = MAX_BYTES, max_depth: int = MAX_DEPTH) -> Any:
    """The JSON value of ``payload``, or :class:`JsonRefused` saying which bound it breaks."""
    if len(payload) > max_bytes:
        raise JsonRefused(
            "too_large", f"the payload has {len(payload)} bytes (at most {max_bytes})"
        )
    try:
        text = payload.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise JsonRefused("bad_json", f"the payload is not UTF-8 (byte {exc.start})") from None
    depth = _depth(text)
    if depth > max_depth:
        raise JsonRefused("too_deep", f"nesting {depth} deep (at most {max_depth})")
    try:
        value = STRICT.decode(text)
    except JsonRefused:
        raise
    except (ValueError, RecursionError) as exc:
        # json's messages name only positions ("Expecting value: line 1 column 2 (char 1)")
        reason = exc.msg if isinstance(exc, json.JSONDecodeError) else type(exc).__name__
        where = f" at char {exc.pos}" if isinstance(exc, json.JSONDecodeError) else ""
        raise JsonRefused("bad_json", f"the payload is not JSON: {reason}{where}") from None
    _check_strings(value)
    return value
