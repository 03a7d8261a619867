"""The overlay against a running ``jantaku demo`` (its own process, on a broker of its own) in
headless Chromium: the DOM shows the table state as events arrive, keeps following the table while
the broker is killed and restarted mid-game, and both layouts are saved as screenshots.

The page is checked to reach what the daemon serves, not how soon: how far it trails, in events
and in ms, is a figure of ``bench/demo_stream.py``."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.request
import uuid
from pathlib import Path
from typing import Any

from hil.broker import PrivateBroker, listening
from hil.browser import chromium, save_screenshot
from hil.kit import free_port, until_sync

JANTAKU = str(Path(sys.executable).with_name("jantaku"))


def _api_view(port: int) -> dict[str, Any]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/view", timeout=5) as r:
        body: dict[str, Any] = json.loads(r.read())
        return body


def _rendered(driver: Any) -> dict[str, Any] | None:
    view: dict[str, Any] | None = driver.execute_script("return window.__jantakuView || null")
    return view


SNAPSHOT_JS = """
const view = window.__jantakuView || null;
const boxes = [...document.querySelectorAll('#table .seat')].map((b) => ({
  seat: Number(b.dataset.seat),
  score: b.querySelector('.score') ? b.querySelector('.score').textContent : null,
  river: b.querySelectorAll('.river .tile').length,
  hand: b.querySelectorAll('.hand .tile').length,
}));
return {view: view, boxes: boxes};
"""


def _catches_up(driver: Any, http_port: int) -> None:
    """The page comes to show (at least) the view the daemon serves now: it is current."""
    served = _api_view(http_port)["seq"]
    until_sync(lambda: ((_rendered(driver) or {}).get("seq") or 0) >= served, 30,
               f"the page to show the served seq {served}")


def _dom_matches_rendered_view(driver: Any) -> None:
    """Every seat box shows what the view the page rendered last says. The DOM and the view are
    read in one script, so a render cannot slip in between (the page keeps updating)."""
    snap = driver.execute_script(SNAPSHOT_JS)
    view = snap["view"]
    assert view is not None and view.get("seats")
    boxes = {b["seat"]: b for b in snap["boxes"]}
    for s in view["seats"]:
        box = boxes[s["seat"]]
        assert box["score"] == f"{s['score']:,}"
        assert box["river"] == len(s["river"])
        assert box["hand"] == 0


HOOKS_JS = """
const rect = (e) => { const r = e.getBoundingClientRect();
  return {x: r.left, y: r.top, w: r.width, h: r.height}; };
const seats = [...document.querySelectorAll('#table [data-role="seat"]')];
const tiles = [...document.querySelectorAll('#table .tile')].filter((e) => e.offsetParent);
return {seats: seats.map((e) => ({seat: e.dataset.seat, ...rect(e)})),
        tiles: tiles.map((e) => ({tile: e.dataset.tile, sideways: e.classList.contains('sideways'),
                                  ...rect(e)})),
        card: document.querySelector('[data-role="result"]') !== null,
        status: document.getElementById('root').dataset.status};
"""


def _hooks_hold(driver: Any) -> None:
    """Issue 19 item 4 on the real demo: four seat panels with data-seat that do not overlap,
    every tile names its mjai tile and is at least 44 px tall at 1080p."""
    g = driver.execute_script(HOOKS_JS)
    assert sorted(s["seat"] for s in g["seats"]) == ["0", "1", "2", "3"] and g["card"]
    for a in g["seats"]:
        for b in g["seats"]:
            if a is not b:
                assert (a["x"] + a["w"] <= b["x"] or b["x"] + b["w"] <= a["x"]
                        or a["y"] + a["h"] <= b["y"] or b["y"] + b["h"] <= a["y"]), (a, b)
    assert g["tiles"] or g["status"] != "playing", "a game in play shows tiles"
    for t in g["tiles"]:
        assert t["tile"] and (t["w"] if t["sideways"] else t["h"]) >= 44, t


def test_overlay_follows_a_running_demo_through_a_broker_restart(tmp_path: Path) -> None:
    broker = PrivateBroker(tmp_path / "broker").start()
    http_port = free_port()
    table = f"ov{uuid.uuid4().hex[:6]}"
    demo = subprocess.Popen(
        [JANTAKU, "demo", "--headless", "--ruleset", "mleague", "--seed", "3", "--hands", "8",
         "--speed", "6", "--table-id", table, "--mqtt-host", "127.0.0.1",
         "--mqtt-port", str(broker.port), "--http-port", str(http_port)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, start_new_session=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        until_sync(lambda: listening(http_port), 30, "the demo's overlay server")
        with chromium() as driver:
            driver.get(f"http://127.0.0.1:{http_port}/overlay/")
            until_sync(lambda: (_rendered(driver) or {}).get("status") == "playing", 30,
                       "play to start")
            until_sync(lambda: ((_rendered(driver) or {}).get("seq") or 0) > 40, 30, "forty events")
            _dom_matches_rendered_view(driver)
            _hooks_hold(driver)
            _catches_up(driver, http_port)

            broker.stop()
            seq_down = (_rendered(driver) or {})["seq"]
            until_sync(lambda: (_rendered(driver) or {})["seq"] > seq_down + 20, 30,
                       "the overlay to keep following the table while the broker is down")
            _dom_matches_rendered_view(driver)
            broker = PrivateBroker(tmp_path / "broker2", port=broker.port).start()
            seq_up = (_rendered(driver) or {})["seq"]
            until_sync(lambda: (_rendered(driver) or {})["seq"] > seq_up + 20, 30,
                       "the overlay after the broker came back")
            _dom_matches_rendered_view(driver)
            _catches_up(driver, http_port)
            save_screenshot(driver, "overlay-demo-full.png")
            driver.get(f"http://127.0.0.1:{http_port}/overlay/?layout=strip")
            until_sync(lambda: _rendered(driver), 30, "the strip layout")
            shown = driver.execute_script(
                "return [...document.querySelectorAll('#strip .s')]"
                ".filter((e) => e.offsetParent !== null).length")
            assert shown == 4
            save_screenshot(driver, "overlay-demo-strip.png")
    finally:
        if demo.poll() is None:
            os.killpg(demo.pid, signal.SIGINT)
            try:
                demo.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(demo.pid, signal.SIGKILL)
                demo.wait(5)
        broker.stop()
