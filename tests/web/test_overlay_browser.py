"""The overlay in a real browser: headless Chromium shows what the table state says, in both
layouts, after a series of real game events, and resyncs after its server goes away and comes back.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from selenium.webdriver.common.by import By

from daemon.web.hub import ViewHub
from daemon.web.server import serve
from daemon.web.view import overlay_view
from hil.browser import chromium, save_screenshot
from hil.kit import free_port, until_sync
from hil.simulator import GameSimulator
from rules.table_view import table_view


class ServerThread:
    """The aiohttp overlay server on its own event loop, so the test can drive a sync browser."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.loop = asyncio.new_event_loop()
        self.hub: ViewHub | None = None
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._thread.start()
        self._task: Any = None

    def call(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(10)

    def start(self, view: dict[str, Any]) -> None:
        started = threading.Event()

        async def main() -> None:
            self.hub = ViewHub(view)
            self._stop = asyncio.Event()
            async with serve(self.hub, "127.0.0.1", self.port):
                started.set()
                await self._stop.wait()

        self._task = asyncio.run_coroutine_threadsafe(main(), self.loop)
        assert started.wait(10)

    def stop(self) -> None:
        assert self._stop is not None
        self.loop.call_soon_threadsafe(self._stop.set)
        self._task.result(10)

    def publish(self, view: dict[str, Any]) -> None:
        assert self.hub is not None
        self.call(self.hub.publish(view))

    def close(self) -> None:
        if self._task is not None and not self._task.done():
            self.stop()
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(5)


@pytest.fixture()
def server() -> Iterator[ServerThread]:
    srv = ServerThread(free_port())
    yield srv
    srv.close()


def _dom_seats(driver: Any) -> dict[int, dict[str, Any]]:
    out = {}
    for box in driver.find_elements(By.CSS_SELECTOR, "#table .seat"):
        seat = int(box.get_attribute("data-seat") or -1)
        out[seat] = {
            "score": box.find_element(By.CSS_SELECTOR, ".score").text,
            "name": box.find_element(By.CSS_SELECTOR, ".name").text,
            "river": len(box.find_elements(By.CSS_SELECTOR, ".river .tile")),
            "riichi_sideways": len(box.find_elements(By.CSS_SELECTOR, ".river .tile.sideways")),
            "riichi_stick": len(box.find_elements(By.CSS_SELECTOR, ".riichi-stick")),
            "melds": len(box.find_elements(By.CSS_SELECTOR, ".meld")),
            "hand": len(box.find_elements(By.CSS_SELECTOR, ".hand .tile")),
        }
    return out


def _check_dom_matches(driver: Any, view: dict[str, Any]) -> None:
    until_sync(lambda: driver.execute_script(
        "return window.__jantakuView && window.__jantakuView.seq") == view["seq"], 10,
        f"view seq {view['seq']}")
    seats = _dom_seats(driver)
    assert sorted(seats) == [0, 1, 2, 3]
    for s in view["seats"]:
        dom = seats[s["seat"]]
        assert dom["score"] == f"{s['score']:,}"
        assert dom["name"] == s["name"]
        assert dom["river"] == len(s["river"])
        assert dom["riichi_sideways"] == sum(1 for r in s["river"] if r["riichi"])
        assert dom["riichi_stick"] == (1 if s["riichi"] else 0)
        assert dom["melds"] == len(s["melds"])
        assert dom["hand"] == 0, "hands are never shown on the live overlay"
    dora = [e.get_attribute("data-tile") for e in driver.find_elements(
        By.CSS_SELECTOR, "#dora .tiles .tile")]
    assert dora == view["dora_indicators"]
    # textContent: after a hand the centre box gives way to the result card (hidden, still true)
    honba = driver.find_element(By.ID, "honba").get_attribute("textContent") or ""
    assert honba.endswith(str(view["round"]["honba"]))
    wall = driver.find_element(By.ID, "wall").get_attribute("textContent") or ""
    if view["wall_remaining"] is not None:
        assert wall.endswith(str(view["wall_remaining"]))


def test_overlay_follows_a_real_game_and_resyncs(server: ServerThread) -> None:
    sim = GameSimulator("mleague", seed=11, hands=8)
    steps = sim.steps()
    seq = 0

    def advance(n: int) -> dict[str, Any]:
        nonlocal seq
        for _ in range(n):
            next(steps)  # the game is long enough: running out is a failure
            seq += 1
            server.publish(overlay_view(table_view(sim.state), table="t-browser", seq=seq))
        return overlay_view(table_view(sim.state), table="t-browser", seq=seq)

    first = overlay_view(table_view(sim.state), table="t-browser", seq=0)
    server.start(first)
    with chromium() as driver:
        driver.get(f"http://127.0.0.1:{server.port}/overlay/?lang=en")
        view = advance(60)
        _check_dom_matches(driver, view)
        assert driver.find_element(By.ID, "round").text == "East 1"
        view = advance(140)
        _check_dom_matches(driver, view)
        save_screenshot(driver, "overlay-full.png", doc_as="overlay.png")
        # Play on to the end of the first hand: the result card shows the payments.
        while view["status"] != "hand_over":
            view = advance(1)
        _check_dom_matches(driver, view)
        card = driver.find_element(By.ID, "card")
        until_sync(lambda: card.is_displayed(), 10, "the result card")
        assert card.get_attribute("data-kind") == view["result"]["kind"]
        save_screenshot(driver, "overlay-result.png")

        # The server goes away; the table plays on; the page resyncs when it comes back.
        server.stop()
        until_sync(lambda: driver.find_element(By.ID, "root").get_attribute("data-connected")
                   == "false", 10, "the page to notice the lost stream")
        view = advance(50)
        server.start(view)
        until_sync(lambda: driver.find_element(By.ID, "root").get_attribute("data-connected")
                   == "true", 10, "the page to reconnect")
        _check_dom_matches(driver, view)

        # The compact strip shows the same numbers.
        driver.get(f"http://127.0.0.1:{server.port}/overlay/?layout=strip&lang=ja")
        until_sync(lambda: driver.execute_script("return !!window.__jantakuView"), 10, "strip view")
        save_screenshot(driver, "overlay-strip.png")
        strip = driver.find_elements(By.CSS_SELECTOR, "#strip .s")
        assert [int(e.get_attribute("data-seat") or -1) for e in strip] == [0, 1, 2, 3]
        for e, s in zip(strip, view["seats"], strict=True):
            assert e.find_element(By.CSS_SELECTOR, ".score").text == f"{s['score']:,}"
        assert "局" in driver.find_element(By.CSS_SELECTOR, "#strip .info").text
        save_screenshot(driver, "overlay-strip.png")
