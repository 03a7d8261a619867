"""Structured logs: one JSON object per line (ts, level, logger, msg, table, game, hand, seq...).

The daemon's context (table id, current game, hand, last event seq) is added to every record by a
:class:`ContextFilter`; a call may add fields with ``extra={"fields": {...}}``. Secrets never reach
a log: values registered with :func:`redact` are replaced by ``***`` in every message, so even a
library that logs a connect string cannot leak the MQTT password (tests/daemon check this).
"""

from __future__ import annotations

import json
import logging
import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

_SECRETS: set[str] = set()


def redact(*values: str) -> None:
    """Never print these strings (passwords, keys) in any log line."""
    _SECRETS.update(v for v in values if v and len(v) >= 4)


def _scrub(text: str) -> str:
    for secret in _SECRETS:
        if secret in text:
            text = text.replace(secret, "***")
    return text


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        ts = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
        out: dict[str, Any] = {
            "ts": f"{ts}.{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for key in ("table", "game", "hand", "seq"):
            value = getattr(record, key, None)
            if value is not None:
                out[key] = value
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            for key, value in fields.items():
                out.setdefault(key, value)
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return _scrub(json.dumps(out, ensure_ascii=False, default=str))


class ContextFilter(logging.Filter):
    """Adds ``table``/``game``/``hand``/``seq`` from a callable (the running service)."""

    def __init__(self, context: Callable[[], dict[str, Any]]) -> None:
        super().__init__()
        self.context = context

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            ctx = self.context()
        except Exception:  # never lose a log line because the context is not ready
            ctx = {}
        for key, value in ctx.items():
            if getattr(record, key, None) is None:
                setattr(record, key, value)
        return True


def setup(
    level: str = "info",
    stream: TextIO | None = None,
    file: str = "-",
    context: Callable[[], dict[str, Any]] | None = None,
) -> logging.Handler:
    """Route every logger through one JSON handler (replacing earlier handlers)."""
    handler: logging.Handler
    if file != "-":
        handler = logging.FileHandler(file, encoding="utf-8")
    else:
        handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonFormatter())
    if context is not None:
        handler.addFilter(ContextFilter(context))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())
    return handler
