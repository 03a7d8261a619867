"""``jantaku demo`` end to end: a separate process on the machine's broker, the overlay answering
while it plays, its events reaching an MQTT subscriber, exit 0 after the hands asked for."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
import uuid
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from hil.broker import listening
from hil.kit import reaped
from rules.table_view import table_view

JANTAKU = str(Path(sys.executable).with_name("jantaku"))


def _subscriber(topic: str, got: list[dict[str, Any]], ready: threading.Event) -> mqtt.Client:
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"t-{uuid.uuid4().hex[:8]}")

    def on_connect(c: mqtt.Client, *_: Any) -> None:
        c.subscribe(topic, qos=1)

    def on_subscribe(*_: Any) -> None:
        ready.set()

    def on_message(c: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        got.append(json.loads(msg.payload))

    client.on_connect, client.on_subscribe, client.on_message = on_connect, on_subscribe, on_message
    client.connect("127.0.0.1", 1883)
    client.loop_start()
    return client


@pytest.mark.skipif(not listening(1883), reason="no broker on 127.0.0.1:1883")
def test_demo_headless_two_hands() -> None:
    table = f"demo-{uuid.uuid4().hex[:10]}"
    got: list[dict[str, Any]] = []
    ready = threading.Event()
    client = _subscriber(f"jantaku/v1/{table}/events", got, ready)
    try:
        assert ready.wait(10)
        with reaped(subprocess.Popen(
            [JANTAKU, "demo", "--headless", "--hands", "2", "--speed", "1000", "--table-id",
             table, "--mqtt-host", "127.0.0.1", "--mqtt-port", "1883", "--http-port", "0"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )) as proc:  # gone even when an assertion below fails
            assert proc.stdout is not None
            first = json.loads(proc.stdout.readline())
            assert first["event"] == "demo_started" and first["table"] == table
            url = first["overlay"]
            assert url.startswith("http://127.0.0.1:") and url.endswith("/overlay/")
            with urllib.request.urlopen(url, timeout=5) as resp:  # while the demo plays
                assert resp.status == 200
                assert b"<html" in resp.read().lower()
            with urllib.request.urlopen(url.replace("/overlay/", "/api/view"), timeout=5) as resp:
                assert "seats" in json.loads(resp.read())
            out, err = proc.communicate(timeout=120)
            assert proc.returncode == 0, err[-2000:]
            lines = [json.loads(x) for x in out.splitlines() if x.strip()]
            summary = lines[-1]
            assert summary["event"] == "summary"
            assert summary["hands"] == 2 and summary["equal"] is True
            assert sum(1 for x in lines if x["event"] == "hand_ended") == 2
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and sum(
                    1 for e in got if e["type"] == "hand_ended") < 2:
                time.sleep(0.1)
            types = [e["type"] for e in got]
            assert types[0] == "game_started"
            assert types.count("hand_ended") == 2
            assert all(e["table"] == table for e in got)
            seqs = [e["seq"] for e in got]
            assert seqs == list(range(1, len(seqs) + 1))  # none lost, in order
            ended = [e for e in got if e["type"] == "hand_ended"]
            assert ended[-1]["data"]["scores"] == summary["scores"]
    finally:
        client.loop_stop()
        client.disconnect()


def test_demo_without_any_broker_plays_on() -> None:
    """A fresh machine: no --mqtt-host, no mosquitto binary. The daemon plays without a broker,
    queues its events and the demo says so."""
    proc = subprocess.run(
        [JANTAKU, "demo", "--headless", "--hands", "1", "--speed", "1000", "--http-port", "0",
         "--table-id", f"demo-{uuid.uuid4().hex[:10]}"],
        capture_output=True, text=True, timeout=120,
        env={**os.environ, "JANTAKU_MOSQUITTO": "none"},
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = [json.loads(x) for x in proc.stdout.splitlines() if x.strip()]
    assert lines[0]["event"] == "demo_started"
    assert lines[0]["broker"].startswith("none")
    assert lines[-1]["event"] == "summary" and lines[-1]["hands"] == 1 and lines[-1]["equal"]


def _children(pid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(entry.name))
    return out


def test_demo_stops_cleanly_on_ctrl_c() -> None:
    """Without --hands it plays on; SIGINT stops it: exit 0, its private broker gone too."""
    proc = subprocess.Popen(
        [JANTAKU, "demo", "--headless", "--speed", "1000", "--http-port", "0", "--table-id",
         f"demo-{uuid.uuid4().hex[:10]}"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert proc.stdout is not None
    try:
        first = json.loads(proc.stdout.readline())
        assert first["event"] == "demo_started"
        line = json.loads(proc.stdout.readline())
        assert line["event"] == "hand_ended"  # it is playing
        children = _children(proc.pid)
        if first["broker"].startswith("private"):
            assert children, "the private mosquitto should be a child"
        proc.send_signal(signal.SIGINT)
        rest = proc.stdout.read()
        assert proc.wait(30) == 0
        summary = json.loads(rest.strip().splitlines()[-1])
        assert summary["event"] == "summary" and summary["interrupted"] is True
        for pid in children:
            assert not Path(f"/proc/{pid}").exists() or "Z" in Path(
                f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0], pid
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_demo_refuses_bad_options() -> None:
    for args in (["--hands", "0"], ["--speed", "0"], ["--table-id", "Bad Id"],
                 ["--ruleset", "nosuch"]):
        proc = subprocess.run([JANTAKU, "demo", "--headless", *args], capture_output=True,
                              text=True, timeout=60)
        assert proc.returncode == 2, (args, proc.stderr)
        assert "jantaku demo:" in proc.stderr


async def test_terminal_view_shows_the_table(tmp_path: Path) -> None:
    """The live view draws what the overlay view model says: names, scores, honba, riichi
    sticks, dora, rivers, the last events."""
    from rich.console import Console

    from daemon.demo_view import DemoView, tile_label
    from daemon.web.view import overlay_view
    from hil.runner.session import HilSession

    async with HilSession("mleague", workdir=tmp_path) as session:
        await session.play(12, 1, max_steps=40)
        assert session.daemon is not None
        state = session.daemon.service.core.state.table
        view = overlay_view(table_view(state), table="demo-view")
        dv = DemoView("demo-view", "http://127.0.0.1:1/overlay/", "none")
        dv.update(view, session.daemon.envelopes)
    console = Console(record=True, width=140)
    console.print(dv)
    text = console.export_text()
    for seat in view["seats"]:
        assert seat["name"] in text and str(seat["score"]) in text
        for r in seat["river"][:3]:
            assert tile_label(r["tile"]) in text
    assert f"honba {view['round']['honba']}" in text
    assert f"riichi sticks {view['round']['deposits']}" in text
    assert tile_label(view["dora_indicators"][0]) in text
    assert "hand 1 starts" in text and "http://127.0.0.1:1/overlay/" in text
