"""The event stream of a real table, as a subscriber on the venue broker sees it (issue 19 item 5).

``jantaku demo`` (the production daemon behind an emulated WMC table with RFID readers and clock
buttons) plays two hands while a plain MQTT client follows ``jantaku/v1/<table>/#``:

* every ``events`` payload validates against the generated ``daemon/schemas/event.json``, its
  ``data`` included (no unknown key, tiles as ids with mjai names, seats 0..3);
* each discard is reported by its sensor and its clock button, and neither pair yields a
  ``clock_duplicate_discard`` (W 打牌时限: one discard is one discard);
* the retained ``state`` is published less often than there are inputs (an input that changes
  nothing visible publishes none; several inside one ``mqtt.state_interval`` publish one), never
  twice with the same content, each at an event the subscriber has seen, in order, and the last one
  shows the scores of the last ``hand_ended``.

How often ``state`` goes out against the interval, in time, is a figure of
``bench/demo_stream.py``, not an assertion here: this test checks behaviour only.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import paho.mqtt.client as paho
from jsonschema import Draft202012Validator

from hil.broker import PrivateBroker

ROOT = Path(__file__).resolve().parents[2]
JANTAKU = str(Path(sys.executable).with_name("jantaku"))


class Follower:
    """Every message of a table's topic tree, with its arrival time."""

    def __init__(self, port: int, table: str) -> None:
        self.messages: list[tuple[float, str, bytes]] = []
        self.base = f"jantaku/v1/{table}"
        self._lock = threading.Lock()
        self._ready = threading.Event()
        self.client = paho.Client(paho.CallbackAPIVersion.VERSION2, client_id=f"f-{table}")
        self.client.on_connect = lambda c, *_: (c.subscribe(f"jantaku/v1/{table}/#", 1),
                                                self._ready.set())
        self.client.on_message = self._on_message
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()
        assert self._ready.wait(10)

    def _on_message(self, client: Any, userdata: Any, msg: paho.MQTTMessage) -> None:
        with self._lock:
            self.messages.append((time.monotonic(), msg.topic, msg.payload))

    def payloads(self, suffix: str) -> list[tuple[float, dict[str, Any]]]:
        """The messages of one topic, ``suffix`` under the table's base (``/state`` is not
        ``/private/state``)."""
        with self._lock:
            return [(t, json.loads(p)) for t, topic, p in self.messages
                    if topic == self.base + suffix and p]

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


def test_a_real_tables_stream_is_typed_and_its_state_is_rate_limited(tmp_path: Path) -> None:
    broker = PrivateBroker(tmp_path / "broker").start()
    table = f"st{uuid.uuid4().hex[:6]}"
    follower = Follower(broker.port, table)
    try:
        demo = subprocess.run(
            [JANTAKU, "demo", "--headless", "--ruleset", "wmc", "--seed", "5", "--hands", "2",
             "--speed", "20", "--table-id", table, "--mqtt-host", "127.0.0.1",
             "--mqtt-port", str(broker.port), "--http-port", "0"],
            capture_output=True, text=True, timeout=300,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        assert demo.returncode == 0, demo.stdout[-2000:] + demo.stderr[-2000:]
        time.sleep(1.0)  # the last retained publications
    finally:
        follower.close()
        broker.stop()

    schema = json.loads((ROOT / "daemon" / "schemas" / "event.json").read_text("utf-8"))
    validator = Draft202012Validator(schema)
    events = [p for _, p in follower.payloads("/events")]
    assert len(events) > 100
    for env in events:
        errs = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
                for e in validator.iter_errors(env)]
        assert not errs, (env["type"], errs[:3], env)
    types = [e["type"] for e in events]
    discards = types.count("discard")
    assert discards > 20 and "clock_turn_ended" in types
    assert "clock_duplicate_discard" not in types, "a button/sensor pair is no duplicate"

    states = follower.payloads("/state")
    bodies = [p["state"] for _, p in states]
    inputs = max(e["input_seq"] for e in events)
    assert 1 < len(states) < inputs, (len(states), inputs)
    content = [{k: v for k, v in b.items() if k != "seq"} for b in bodies]
    assert all(a != b for a, b in itertools.pairwise(content)), "a state published twice"
    # each state is the table after an event the subscriber has (its ``seq``), in order
    seqs = [p["seq"] for _, p in states]
    assert seqs == sorted(seqs) and set(seqs) <= {e["seq"] for e in events} | {0}, seqs
    print(f"{len(events)} events, {inputs} inputs, {discards} discards, {len(states)} state"
          " messages")
    last_end = [e for e in events if e["type"] == "hand_ended"][-1]
    assert [s["score"] for s in bodies[-1]["seats"]] == last_end["data"]["scores"]
