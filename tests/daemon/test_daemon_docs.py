"""docs/mqtt.md: every example payload is valid against its JSON Schema."""

from __future__ import annotations

import json
import re

import daemon_kit

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
