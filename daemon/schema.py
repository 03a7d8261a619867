"""The JSON Schemas of every MQTT payload (``daemon/schemas/*.json``) and their validators."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from jsonschema import Draft202012Validator

NAMES = ("event", "state", "status", "scores", "timers", "links", "health", "command", "reply")


@cache
def load(name: str) -> dict[str, Any]:
    text = resources.files("daemon").joinpath("schemas", f"{name}.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


@cache
def validator(name: str, definition: str | None = None) -> Draft202012Validator:
    """A validator for a payload schema, or for one of its ``$defs`` (a command's ``args``)."""
    schema = load(name)
    if definition is not None:
        schema = {"$ref": f"#/$defs/{definition}", "$defs": schema["$defs"]}
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def errors(name: str, payload: Any, definition: str | None = None) -> list[str]:
    """Every schema error, as ``path: message`` (empty when the payload is valid)."""
    out = []
    for err in sorted(validator(name, definition).iter_errors(payload), key=lambda e: e.path):
        where = "/".join(str(p) for p in err.absolute_path) or "(root)"
        out.append(f"{where}: {err.message}")
    return out
