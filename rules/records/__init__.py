"""Game records in and out: mjai and tenhou.net/6 importers, exporters, replay and verification.

``import_record(text, ruleset)`` detects the format when it is not given: one JSON object with a
``log`` list is tenhou.net/6 (also with ``//`` comments, or one such object per line); JSON Lines
whose objects carry a ``type`` are mjai.
"""

from __future__ import annotations

import json

from rules.records.json_text import has_line_comment, strip_line_comments
from rules.records.mjai import import_mjai
from rules.records.model import FORMATS, ImportedRecord, RecordError, RecordFormat
from rules.records.tenhou6 import import_tenhou6
from rules.ruleset import Ruleset


def detect_format(text: str) -> RecordFormat:
    """``tenhou6`` or ``mjai`` from the text itself; :class:`RecordError` when it is neither."""
    stripped = text.lstrip()
    if not stripped:
        raise RecordError("empty file: not a game record")
    try:
        whole = json.loads(stripped)
    except json.JSONDecodeError:
        whole = None
        if has_line_comment(stripped):
            bare = strip_line_comments(stripped).lstrip()
            try:
                whole = json.loads(bare)
            except json.JSONDecodeError:
                # JSON with comments is tenhou.net/6's habit (mjai is JSON Lines): let its
                # importer say what is wrong with it
                if bare.startswith("{") and "\n{" not in bare:
                    return "tenhou6"
    if isinstance(whole, dict) and "log" in whole:
        return "tenhou6"
    if isinstance(whole, dict) and "type" in whole:
        return "mjai"  # a single-line mjai file
    if (
        isinstance(whole, list)
        and whole
        and all(isinstance(e, dict) and "type" in e for e in whole)
    ):
        return "mjai"
    first = _first_line(stripped)
    try:
        head = json.loads(first)
    except json.JSONDecodeError:
        raise RecordError(
            "not a game record: neither tenhou.net/6 JSON nor mjai JSON Lines "
            "(the first line is not JSON)"
        ) from None
    if isinstance(head, dict) and isinstance(head.get("type"), str):
        return "mjai"
    if isinstance(head, dict) and "log" in head:
        return "tenhou6"  # one tenhou.net/6 hand object per line (mjx, converters)
    raise RecordError("not a game record: neither tenhou.net/6 JSON ('log') nor mjai ('type')")


def _first_line(text: str) -> str:
    """``text.splitlines()[0]`` (``text`` not blank) without splitting the whole record into
    lines: a prefix holds the first line whole once it holds a second line too."""
    n = 4096
    while True:
        lines = text[:n].splitlines()
        if len(lines) > 1 or n >= len(text):
            return lines[0]
        n *= 4


def import_record(text: str, ruleset: Ruleset, fmt: RecordFormat | None = None) -> ImportedRecord:
    fmt = fmt or detect_format(text)
    if fmt == "tenhou6":
        return import_tenhou6(text, ruleset)
    stripped = text.lstrip()
    if stripped.startswith("["):
        # mjai events as one JSON array (some tools write that)
        try:
            events = json.loads(stripped)
        except json.JSONDecodeError as exc:
            raise RecordError(f"not an mjai record: {exc}") from exc
        if isinstance(events, list):
            return import_mjai(events, ruleset)
    return import_mjai(text, ruleset)


__all__ = [
    "FORMATS",
    "ImportedRecord",
    "RecordError",
    "RecordFormat",
    "detect_format",
    "import_record",
]
