"""Overlay latency: from a table event applied to the state to the overlay's DOM showing it.

Plays a simulated M.League game through the real reducer. For each input the bench builds the
overlay view (the same function the daemon uses), stamps it with the wall-clock time at which the
input was applied, and publishes it to the overlay server; headless Chromium renders it and records
``Date.now() - applied_ms`` once the DOM is updated (same machine, same clock). Prints p50/p99/max
over the events rendered. Figures only; asserts nothing.

    python bench/overlay_latency.py [--events 2000] [--rate 50] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import threading
import time
from typing import Any

from daemon.web.hub import ViewHub
from daemon.web.server import serve
from daemon.web.view import overlay_view
from hil.browser import chromium
from hil.simulator import GameSimulator
from rules.table_view import table_view

PROBE = """
window.__lat = [];
const observer = new MutationObserver(() => {
  const v = window.__jantakuView;
  if (v && v.applied_ms && v.seq !== window.__lastSeq) {
    window.__lastSeq = v.seq;
    window.__lat.push(Date.now() - v.applied_ms);
  }
});
observer.observe(document.getElementById("root"), {subtree: true, childList: true,
                                                  characterData: true, attributes: true});
"""


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=2000)
    ap.add_argument("--rate", type=float, default=50.0, help="events per second")
    ap.add_argument("--json", action="store_true", help="print one JSON object of figures")
    args = ap.parse_args()

    loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, daemon=True).start()
    hub = ViewHub()
    ready = threading.Event()
    stop = asyncio.Event()
    port_box: list[int] = []

    async def run_server() -> None:
        async with serve(hub, "127.0.0.1", 0) as port:
            port_box.append(port)
            ready.set()
            await stop.wait()

    fut = asyncio.run_coroutine_threadsafe(run_server(), loop)
    ready.wait(10)
    port = port_box[0]

    def games() -> Any:
        seed = 0
        while True:
            sim = GameSimulator("mleague", seed)
            for _ in sim.steps():
                yield sim
            seed += 1

    with chromium() as driver:
        driver.get(f"http://127.0.0.1:{port}/overlay/")
        time.sleep(1.0)
        driver.execute_script(PROBE)
        interval = 1.0 / args.rate
        seq = 0
        t0 = time.perf_counter()
        for sim in games():
            seq += 1
            view = overlay_view(table_view(sim.state), table="bench", seq=seq)
            view["applied_ms"] = time.time() * 1000.0
            asyncio.run_coroutine_threadsafe(hub.publish(view), loop).result(5)
            if seq >= args.events:
                break
            delay = t0 + seq * interval - time.perf_counter()
            if delay > 0:
                time.sleep(delay)
        time.sleep(1.0)
        lat: list[float] = driver.execute_script("return window.__lat")
    loop.call_soon_threadsafe(stop.set)
    fut.result(10)
    if not lat:
        print("no renders recorded")
        return 1
    lat.sort()
    p50 = statistics.median(lat)
    p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))]
    if args.json:
        print(json.dumps({"bench": "overlay_latency", "rendered": len(lat), "events": seq,
                          "rate": args.rate, "p50_ms": p50, "p99_ms": p99, "max_ms": lat[-1]}))
        return 0
    print(f"overlay latency (table event applied -> DOM updated), {len(lat)} of {seq} events "
          f"rendered at {args.rate:.0f} events/s")
    print(f"  p50 {p50:.1f} ms   p99 {p99:.1f} ms   max {lat[-1]:.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
