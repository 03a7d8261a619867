"""The JSON Schemas of every MQTT payload (``daemon/schemas/*.json``) and their validators.

Commands from outside are checked with :func:`refusals`: ``integer`` means a JSON integer (``1.0``
is not a seat, although JSON Schema's own ``integer`` accepts it), and the messages name the
path and the rule broken but never quote the offending value, so a reply echoes nothing from a
hostile payload.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any, cast

from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import ValidationError

NAMES = ("event", "state", "status", "scores", "timers", "links", "health", "command", "reply",
         "backfill_request", "backfill")


def _is_int(checker: Any, instance: Any) -> bool:
    return isinstance(instance, int) and not isinstance(instance, bool)


_Strict = validators.extend(  # type: ignore[no-untyped-call]
    Draft202012Validator,
    type_checker=Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_int),
)


@cache
def load(name: str) -> dict[str, Any]:
    text = resources.files("daemon").joinpath("schemas", f"{name}.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def _schema(name: str, definition: str | None) -> dict[str, Any]:
    schema = load(name)
    if definition is not None:
        schema = {"$ref": f"#/$defs/{definition}", "$defs": schema["$defs"]}
    return schema


@cache
def validator(name: str, definition: str | None = None) -> Draft202012Validator:
    """A validator for a payload schema, or for one of its ``$defs`` (a command's ``args``)."""
    schema = _schema(name, definition)
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


@cache
def strict_validator(name: str, definition: str | None = None) -> Any:
    """Like :func:`validator`, with ``integer`` meaning a JSON integer only."""
    schema = _schema(name, definition)
    Draft202012Validator.check_schema(schema)
    return _Strict(schema)


def errors(name: str, payload: Any, definition: str | None = None) -> list[str]:
    """Every schema error, as ``path: message`` (empty when the payload is valid)."""
    out = []
    for err in sorted(validator(name, definition).iter_errors(payload), key=lambda e: e.path):
        where = "/".join(str(p) for p in err.absolute_path) or "(root)"
        out.append(f"{where}: {err.message}")
    return out


def _path(err: ValidationError) -> str:
    # keys come from the payload: only those the schema names are quoted
    parts = []
    for p in err.absolute_path:
        parts.append(str(p) if isinstance(p, int) or _plain(str(p)) else "?")
    return "/".join(parts) or "(root)"


def _plain(key: str) -> bool:
    return len(key) <= 32 and key.replace("_", "").isascii() and key.replace("_", "").isalnum()


def _rule(err: ValidationError) -> str:
    """What ``err`` expected, from the schema's side only."""
    kind, want = err.validator, cast(Any, err.validator_value)
    match kind:
        case "type":
            names = want if isinstance(want, str) else " or ".join(map(str, list(want)))
            return f"expected {names}"
        case "required":
            return err.message  # "'<key>' is a required property": the key is the schema's
        case "additionalProperties":
            return "has a key the schema does not allow"
        case "const" | "enum":
            return f"expected one of {json.dumps(want if kind == 'enum' else [want])}"
        case "pattern":
            return f"does not match {want}"
        case "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum":
            return f"breaks {kind} {want}"
        case "minLength" | "maxLength" | "minItems" | "maxItems" | "minProperties" | \
                "maxProperties":
            return f"breaks {kind} {want}"
        case _:
            return f"fails '{kind}'"


def refusals(name: str, payload: Any, definition: str | None = None) -> list[str]:
    """The schema errors of an outside payload, strict integers, quoting none of its values."""
    found = sorted(strict_validator(name, definition).iter_errors(payload), key=lambda e: e.path)
    return [f"{_path(err)}: {_rule(err)}" for err in found]
