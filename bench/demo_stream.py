"""The demo's stream as its consumers see it, timed: the figures that the demo tests
(tests/daemon/test_stream_demo.py, tests/web/test_overlay_demo_browser.py) do not assert, since a
test checks behaviour and speed is a bench's. Prints; asserts nothing.

    .venv/bin/python bench/demo_stream.py [--hands 2] [--speed 20] [--no-overlay] [--json]

``jantaku demo`` (the production daemon behind the emulated table) plays on a broker of its own
while a plain MQTT client follows ``jantaku/v1/<table>/#`` and, where Chromium is installed, the
overlay page follows the demo's web server. Figures, each beside a reference from the same run:

* the retained ``state``: messages per second beside the ceiling the daemon promises (one per
  ``mqtt.state_interval``, 0.5 s: docs/mqtt.md), and the shortest and 5th-percentile gap between
  two of them (as the subscriber received them) beside that interval; the inputs per second that
  drove them;
* the overlay page: how far it trails the daemon's own view (``/api/view``) when sampled, in
  events, and the time until it shows that view's seq (p50 / p99 / max), beside the mean time
  between two events of the game.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import paho.mqtt.client as paho
from paho.mqtt.enums import CallbackAPIVersion

from hil.broker import PrivateBroker, listening
from hil.kit import die_with_parent, free_port, reaped

JANTAKU = str(Path(sys.executable).with_name("jantaku"))
STATE_INTERVAL_S = 0.5  # the demo's mqtt.state_interval (the config default)


class Follower:
    """Every message of a table's topic tree, with its arrival time."""

    def __init__(self, port: int, table: str) -> None:
        self.messages: list[tuple[float, str, bytes]] = []
        self.base = f"jantaku/v1/{table}"
        self._lock = threading.Lock()
        ready = threading.Event()

        def on_connect(client: paho.Client, *_: Any) -> None:
            client.subscribe(f"{self.base}/#", 1)
            ready.set()

        self.client = paho.Client(CallbackAPIVersion.VERSION2, client_id=f"b-{table}")
        self.client.on_connect = on_connect
        self.client.on_message = self._on_message
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()
        if not ready.wait(10):
            raise SystemExit("the follower did not connect to the bench's broker")

    def _on_message(self, client: Any, userdata: Any, msg: paho.MQTTMessage) -> None:
        with self._lock:
            self.messages.append((time.monotonic(), msg.topic, bytes(msg.payload)))

    def payloads(self, suffix: str) -> list[tuple[float, dict[str, Any]]]:
        with self._lock:
            return [(t, json.loads(p)) for t, topic, p in self.messages
                    if topic == self.base + suffix and p]

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


def _api_seq(port: int) -> int:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/view", timeout=5) as r:
        return int(json.loads(r.read()).get("seq") or 0)


def _page_seq(driver: Any) -> int:
    view = driver.execute_script("return window.__jantakuView || null")
    return int((view or {}).get("seq") or 0)


def _follow_page(demo: subprocess.Popen[bytes], http_port: int) -> dict[str, Any]:
    """Sample, while the demo plays, how far the overlay page trails the daemon's view."""
    from hil.browser import chromium

    deadline = time.monotonic() + 30
    while not listening(http_port):
        if time.monotonic() > deadline:
            raise SystemExit("the demo's web server did not come up")
        time.sleep(0.1)
    lag_events: list[int] = []
    catch_up_ms: list[float] = []
    missed = 0
    with chromium() as driver:
        driver.get(f"http://127.0.0.1:{http_port}/overlay/")
        while demo.poll() is None:
            try:
                served = _api_seq(http_port)
            except OSError:
                break  # the demo is ending
            t0 = time.perf_counter()
            shown = _page_seq(driver)
            if served == 0:
                time.sleep(0.2)
                continue
            lag_events.append(max(0, served - shown))
            while shown < served and time.perf_counter() - t0 < 5.0 and demo.poll() is None:
                time.sleep(0.005)
                shown = _page_seq(driver)
            if shown >= served:
                catch_up_ms.append((time.perf_counter() - t0) * 1000)
            else:
                missed += 1
            time.sleep(0.3)
    return {"samples": len(lag_events), "missed": missed, "lag_events": lag_events,
            "catch_up_ms": catch_up_ms}


def _quantile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    ap.add_argument("--hands", type=int, default=2)
    ap.add_argument("--speed", type=float, default=20.0)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--no-overlay", action="store_true", help="leave out the overlay page")
    ap.add_argument("--json", action="store_true", help="print one JSON object of figures")
    args = ap.parse_args()
    overlay = not args.no_overlay
    if overlay:
        from hil.browser import CHROMEDRIVER, CHROMIUM

        overlay = Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()
    work = Path(tempfile.mkdtemp(prefix="jantaku-demo-stream-"))
    broker = PrivateBroker(work / "broker").start()
    table = f"bs{uuid.uuid4().hex[:6]}"
    follower = Follower(broker.port, table)
    http_port = free_port()
    page: dict[str, Any] | None = None
    try:
        started = time.monotonic()
        proc = subprocess.Popen(
            [JANTAKU, "demo", "--headless", "--ruleset", "wmc", "--seed", str(args.seed),
             "--hands", str(args.hands), "--speed", str(args.speed), "--table-id", table,
             "--mqtt-host", "127.0.0.1", "--mqtt-port", str(broker.port),
             "--http-port", str(http_port)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=die_with_parent,
            env={**os.environ, "PYTHONUNBUFFERED": "1"})
        with reaped(proc) as demo:
            if overlay:
                page = _follow_page(demo, http_port)
            code = demo.wait(600)
        elapsed = time.monotonic() - started
        if code != 0:
            raise SystemExit(f"jantaku demo exited {code}")
        time.sleep(1.0)  # the last retained publications
    finally:
        follower.close()
        broker.stop()
    events = follower.payloads("/events")
    states = [t for t, _ in follower.payloads("/state")]
    if len(events) < 2 or len(states) < 2:
        raise SystemExit(f"too little traffic: {len(events)} events, {len(states)} states")
    inputs = max(e["input_seq"] for _, e in events)
    play_s = events[-1][0] - events[0][0]
    gaps_ms = [(b - a) * 1000 for a, b in itertools.pairwise(states)]
    out: dict[str, Any] = {
        "bench": "demo_stream",
        "hands": args.hands,
        "speed": args.speed,
        "seconds": round(elapsed, 1),
        "events": len(events),
        "inputs": inputs,
        "inputs_per_s": inputs / play_s,
        "event_gap_mean_ms": play_s / (len(events) - 1) * 1000,
        "states": len(states),
        # over the span of the state messages themselves (one comes before the first event)
        "states_per_s": (len(states) - 1) / (states[-1] - states[0]),
        "state_ceiling_per_s": 1 / STATE_INTERVAL_S,
        "state_gap_min_ms": min(gaps_ms),
        "state_gap_p5_ms": _quantile(gaps_ms, 0.05),
        "state_interval_ms": STATE_INTERVAL_S * 1000,
        "loadavg": os.getloadavg(),
    }
    if page is not None:
        lag, ms = page["lag_events"], page["catch_up_ms"]
        out["overlay"] = {
            "samples": page["samples"],
            "missed": page["missed"],
            "lag_events_p50": statistics.median(lag) if lag else None,
            "lag_events_max": max(lag) if lag else None,
            "catch_up_p50_ms": _quantile(ms, 0.5),
            "catch_up_p99_ms": _quantile(ms, 0.99),
            "catch_up_max_ms": max(ms) if ms else None,
        }
    else:
        out["overlay"] = "no Chromium on this machine" if not args.no_overlay else "left out"
    say = print if not args.json else (lambda *a: print(*a, file=sys.stderr))
    say(f"{out['events']} events, {inputs} inputs in {play_s:.1f} s of play "
        f"({out['inputs_per_s']:.1f} inputs/s, an event every {out['event_gap_mean_ms']:.0f} ms)")
    say(f"retained state: {len(states)} messages, {out['states_per_s']:.2f}/s (ceiling "
        f"{out['state_ceiling_per_s']:.1f}/s); gap min / p5 {out['state_gap_min_ms']:.0f} / "
        f"{out['state_gap_p5_ms']:.0f} ms (interval {out['state_interval_ms']:.0f} ms)")
    ov = out["overlay"]
    if isinstance(ov, dict):
        say(f"overlay page: {ov['samples']} samples ({ov['missed']} not caught up in 5 s); "
            f"trails by {ov['lag_events_p50']} events (max {ov['lag_events_max']}); shows the "
            f"served seq after p50 {ov['catch_up_p50_ms']:.0f} / p99 {ov['catch_up_p99_ms']:.0f}"
            f" / max {ov['catch_up_max_ms']:.0f} ms")
    else:
        say(f"overlay page: {ov}")
    if args.json:
        print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
