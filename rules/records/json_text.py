"""JSON as records arrive in it: with ``//`` comments, or one object per line.

Record files are not always strict JSON: hand-annotated records carry ``//`` comments (JSONC, as
editors write them), and mjx and many converters write tenhou.net/6 with one hand object per
line. These helpers turn such text into parsed JSON and say what they did; they never guess at
anything else (a file that is still not JSON stays an error for the importer to word).
"""

from __future__ import annotations

import json
from typing import Any


def strip_line_comments(text: str) -> str:
    """``text`` without ``//`` comments (to the end of the line), outside strings only: a URL
    inside a string (``"ref": "http://..."``) is kept. Line numbers are kept too."""
    out: list[str] = []
    i, n = 0, len(text)
    in_string = False
    while i < n:
        ch = text[i]
        if in_string:
            out.append(ch)
            if ch == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 2
                continue
            if ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
            out.append(ch)
        elif ch == "/" and text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        else:
            out.append(ch)
        i += 1
    return "".join(out)


def has_line_comment(text: str) -> bool:
    return "//" in text and strip_line_comments(text) != text


def objects_per_line(text: str) -> list[tuple[int, Any]] | None:
    """(line number, value) for every non-blank line when each line is one JSON value and there
    are at least two; ``None`` otherwise (the text is one JSON value, or not JSON Lines)."""
    out: list[tuple[int, Any]] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            out.append((number, json.loads(line)))
        except json.JSONDecodeError:
            return None
    return out if len(out) >= 2 else None
