"""docs/mqtt.md: every example payload is valid against its JSON Schema."""

from __future__ import annotations

import json
import re

import daemon_kit
from jsonschema import Draft202012Validator

from daemon import schema

DOC = daemon_kit.REPO / "docs" / "mqtt.md"


def test_every_example_in_the_mqtt_doc_is_valid() -> None:
    text = DOC.read_text()
    blocks = re.findall(r"<!-- schema: (\w+) -->\n```json\n(.*?)```", text, re.S)
    assert len(blocks) >= 10
    names = {name for name, _ in blocks}
    assert {"event", "state", "status", "scores", "timers", "health", "links", "command",
            "reply"} <= names
    for name, body in blocks:
        payload = json.loads(body)
        assert schema.errors(name, payload) == [], (name, body)


def test_every_schema_is_a_valid_json_schema() -> None:
    for name in schema.NAMES:
        schema.validator(name)


def test_the_event_catalogue_shows_every_event_type_with_a_valid_example() -> None:
    """Issue 19 item 5: docs/mqtt.md shows every event type's ``data``, each example checked
    against that type's generated schema (so the catalogue cannot drift from the classes)."""
    text = DOC.read_text()
    blocks = re.findall(r"<!-- event: (\w+) -->\n```json\n(.*?)```", text, re.S)
    event = schema.load("event")
    types = event["$defs"]["data"]["properties"]["type"]["enum"]
    assert sorted(name for name, _ in blocks) == sorted(types)
    data = Draft202012Validator({"$ref": "#/$defs/data", "$defs": event["$defs"]})
    for name, body in blocks:
        payload = json.loads(body)
        assert payload["type"] == name
        errs = [e.message for e in data.iter_errors(payload)]
        assert errs == [], (name, errs)
