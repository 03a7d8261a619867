"""The JSON Schema of the ``events`` payload, generated from the classes that make the events.

Nothing here is kept by hand per event: every ``data`` schema is read off the type hints of the
event's class (``rules.events``, ``rules.timers`` through ``daemon.clocks``, ``daemon.table``) by
the same rules the serializers follow (tiles as ids with a ``_mjai`` twin, ``Event.KEYS``
renames, ``Event.SHAPES`` for mapping fields, enums by value). ``bin/gen-schemas`` writes
``daemon/schemas/event.json``; ``tests/daemon/test_event_schema.py`` fails when the committed file
is not what this module generates, and validates real event streams against it.

Three nested types have serializers of their own whose keys differ from their fields; what they add
or make conditional is declared in :data:`EXTRA` next to the generator, not in the schema file.
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from collections.abc import Mapping
from enum import Enum
from typing import Any, Literal, is_typeddict

from daemon import clocks as dc
from daemon import disclosure
from daemon.errors import SchemaError
from daemon.table import DAEMON_EVENTS
from rules import events as ev
from rules.outcome import Meld
from rules.scoring.value import WinValue
from rules.seats import Seat, Wind
from rules.settlement import Settlement
from rules.standings import Standings
from rules.tiles import Tile

MJAI_PATTERN = "^([1-9][mps]|5[mps]r|[ESWNPFC])$"

DEFS: dict[str, Any] = {
    "tile": {"type": "integer", "minimum": 0, "maximum": 135,
             "description": "a physical tile id (rules/tiles.py: kind = id // 4; 16, 52, 88 are the"
                            " red fives where the ruleset plays them)"},
    "mjai": {"type": "string", "pattern": MJAI_PATTERN,
             "description": "mjai name: 1m..9m, 1p..9p, 1s..9s, 5mr/5pr/5sr (red fives), E S W N,"
                            " P (haku), F (hatsu), C (chun)"},
    "seat": {"type": "integer", "minimum": 0, "maximum": 3,
             "description": "a seat: 0..3 counter-clockwise from the first dealer's chair"},
    "wind": {"type": "integer", "minimum": 0, "maximum": 3, "description": "0 E, 1 S, 2 W, 3 N"},
}
REFS = {Tile: "tile", Seat: "seat", Wind: "wind"}


@dataclasses.dataclass(frozen=True, slots=True)
class Extra:
    """What a custom serializer adds to, or makes conditional among, its class's fields."""

    added: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    optional: frozenset[str] = frozenset()
    when: tuple[tuple[str, str, frozenset[str]], ...] = ()  # (key, value, keys then required)


_RIICHI_ONLY = frozenset({"han", "fu", "yakuman", "yaku", "fu_details", "limit", "basic", "pao",
                          "nagashi"})
_ZJ_ONLY = frozenset({"patterns", "value"})
EXTRA: dict[type, Extra] = {
    Settlement: Extra(added={"type": {"const": "settlement"}}),
    Standings: Extra(added={"type": {"const": "standings"}}),
    # WinValue.to_json: the riichi keys for the riichi family, the pattern keys for Zung Jung.
    WinValue: Extra(
        added={"tsumo": {"type": "boolean"}},
        optional=_RIICHI_ONLY | _ZJ_ONLY,
        when=(("family", "riichi", _RIICHI_ONLY), ("family", "zung_jung", _ZJ_ONLY)),
    ),
}


class Generator:
    def __init__(self) -> None:
        self.defs: dict[str, Any] = dict(DEFS)

    def of(self, hint: Any) -> dict[str, Any]:
        """The schema of a value of type ``hint`` as the serializers write it."""
        if hint is Any:
            return {}
        if hint in REFS:
            return {"$ref": f"#/$defs/{REFS[hint]}"}
        if hint is bool:
            return {"type": "boolean"}
        if hint is int:
            return {"type": "integer"}
        if hint is float:
            return {"type": "number"}
        if hint is str:
            return {"type": "string"}
        if isinstance(hint, type) and issubclass(hint, Enum):
            return {"enum": [m.value for m in hint]}
        origin, args = typing.get_origin(hint), typing.get_args(hint)
        if origin is Literal:
            return {"enum": list(args)}
        if origin in (types.UnionType, typing.Union):
            return {"anyOf": [self.of(a) for a in args]} if len(args) > 1 else self.of(args[0])
        if hint is type(None):
            return {"type": "null"}
        if origin in (tuple, list):
            if (len(args) == 2 and args[1] is Ellipsis) or origin is list:
                return {"type": "array", "items": self.of(args[0])}
            return {"type": "array", "prefixItems": [self.of(a) for a in args],
                    "minItems": len(args), "maxItems": len(args)}
        if origin is not None and issubclass(origin, Mapping):
            return {"type": "object"}
        if isinstance(hint, type) and (dataclasses.is_dataclass(hint) or is_typeddict(hint)):
            return self.ref(hint)
        raise SchemaError(f"no schema for {hint!r}")

    def ref(self, cls: type) -> dict[str, Any]:
        name = cls.__name__
        if name not in self.defs:
            self.defs[name] = {}  # a placeholder: recursive types end here
            self.defs[name] = self.obj(cls)
        return {"$ref": f"#/$defs/{name}"}

    def obj(self, cls: type, keys: Mapping[str, str] | None = None,
            shapes: Mapping[str, Any] | None = None, hidden: frozenset[str] = frozenset(),
            head: Mapping[str, Any] | None = None,
            override: Mapping[str, Any] | None = None) -> dict[str, Any]:
        hints = typing.get_type_hints(cls)
        names = [f.name for f in dataclasses.fields(cls)] if dataclasses.is_dataclass(cls) \
            else list(hints)
        props: dict[str, Any] = dict(head or {})
        for name in names:
            if name in hidden:
                continue
            key = (keys or {}).get(name, name)
            shape = (shapes or {}).get(name)
            if override and name in override:
                props[key] = override[name]
            else:
                props[key] = self.of(hints[name]) if shape is None else self.ref(shape)
            if ev.is_tile_hint(hints[name]):
                props[key + ev.MJAI_SUFFIX] = _mjai_twin(props[key])
        if cls is Meld:  # rules.events.meld_to_json: the mjai names of the meld's tiles
            props["tiles_mjai"] = _mjai_twin(props["tiles"])
            props["called_mjai"] = _mjai_twin(props["called"])
        extra = EXTRA.get(cls, Extra())
        props.update(extra.added)
        doc = (cls.__doc__ or "").strip()
        out: dict[str, Any] = {
            "type": "object",
            "required": [k for k in props if k not in extra.optional],
            "properties": props,
            "additionalProperties": False,
        }
        if doc and not doc.startswith(f"{cls.__name__}("):
            out["description"] = " ".join(doc.split())
        if extra.when:
            out["allOf"] = [
                {"if": {"properties": {k: {"const": v}}}, "then": {"required": sorted(req)}}
                for k, v, req in extra.when
            ]
        return out


def _mjai_twin(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema of a tile field's ``_mjai`` twin: the same shape with names for ids."""
    if schema == {"$ref": "#/$defs/tile"}:
        return {"$ref": "#/$defs/mjai"}
    if "anyOf" in schema:
        return {"anyOf": [_mjai_twin(s) for s in schema["anyOf"]]}
    if schema.get("type") == "array":
        return {"type": "array", "items": _mjai_twin(schema["items"])}
    return schema


def event_classes() -> list[type[ev.Event]]:
    return sorted(ev.Event.__subclasses__(), key=lambda c: c.TYPE)


def data_schemas(gen: Generator) -> dict[str, dict[str, Any]]:
    """``type`` -> the schema of that event's ``data``, for every event the daemon publishes."""
    out: dict[str, dict[str, Any]] = {}
    for cls in event_classes():
        out[cls.TYPE] = gen.obj(cls, cls.KEYS, cls.SHAPES, head={"type": {"const": cls.TYPE}})
    for tcls, name in dc.CLOCK_TYPES.items():
        # TimerRejected.input is published as the clock input's kind (daemon.clocks.clock_field)
        out[name] = gen.obj(tcls, hidden=dc.CLOCK_HIDDEN, head={"type": {"const": name}},
                            override={"input": {"type": "string"}})
    for dcls in DAEMON_EVENTS:
        name = typing.cast(str, dcls.TYPE)  # type: ignore[attr-defined]
        out[name] = gen.obj(dcls, head={"type": {"const": name}})
    # On the public ``events`` topic a wholly concealed event (a type not classified public)
    # keeps its seq with nothing but this type (daemon/disclosure.py).
    out[disclosure.CONCEALED] = {
        "type": "object", "required": ["type"], "additionalProperties": False,
        "properties": {"type": {"const": disclosure.CONCEALED}},
        "description": "a concealed event on the public topic (daemon/disclosure.py)",
    }
    return dict(sorted(out.items()))


ENVELOPE: dict[str, Any] = {
    "schema": {"const": "jantaku/event/1"},
    "seq": {"type": "integer", "minimum": 1},
    "id": {"type": "string", "pattern": "^[a-z0-9][a-z0-9_-]{0,31}:[1-9][0-9]*$",
           "description": "<table>:<seq>, unique across tables"},
    "type": {"type": "string", "pattern": "^[a-z][a-z0-9_]*$", "description": "= data.type"},
    "ts": {"type": "string", "format": "date-time",
           "description": "wall time (UTC) when the input that caused the event was logged"},
    "table": {"type": "string"},
    "game": {"type": ["integer", "null"], "minimum": 1,
             "description": "the game number in this table's log (null before the first game)"},
    "hand": {"type": ["integer", "null"], "minimum": 1,
             "description": "the rules engine's hand number (null between games)"},
    "input_seq": {"type": "integer", "minimum": 1,
                  "description": "the logged input that caused the event (jantaku log export)"},
    "source": {"type": "string",
               "description": "table | seat:<n> | button:<n> (a seat's clock button, GPIO or the"
                              " table link's clock key) | button:referee | referee:<user> | tracker"
                              " | daemon"},
    "data": {"$ref": "#/$defs/data"},
}


def event_schema() -> dict[str, Any]:
    gen = Generator()
    per_type = data_schemas(gen)
    for name, schema in per_type.items():
        gen.defs[f"data.{name}"] = schema
    gen.defs["data"] = {
        "type": "object",
        "required": ["type"],
        "properties": {"type": {"enum": list(per_type)}},
        "allOf": [
            {"if": {"properties": {"type": {"const": name}}},
             "then": {"$ref": f"#/$defs/data.{name}"}}
            for name in per_type
        ],
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://jantaku.example/schemas/event.json",
        "title": "jantaku/event/1: one event on jantaku/v1/<table>/events (QoS 1, not retained)",
        "description": (
            "GENERATED by bin/gen-schemas from the event classes (rules/events.py, rules/timers/"
            " via daemon/clocks.py, daemon/table.py): do not edit. seq increases by exactly one"
            " per event of a table, across restarts; after an outage events are sent again in"
            " order and a consumer drops a seq it has already seen. Tiles are ids (0..135) with"
            " the mjai name beside them under <key>_mjai."
        ),
        "type": "object",
        "required": list(ENVELOPE),
        "additionalProperties": False,
        "properties": ENVELOPE,
        "$defs": dict(sorted(gen.defs.items())),
    }


def render() -> str:
    return json.dumps(event_schema(), indent=1, ensure_ascii=False) + "\n"
