"""The referee console of a real `jantaku run` (a table without sensors) in headless Chromium at a
tablet's 1024x768 and a phone's 390x844 (issue 28 items 1-3):

* a result is entered, previewed and confirmed on one screen: the page never scrolls, and the
  tabs, the riichi picker, the form's fields, its submit button and the preview's Confirm lie in
  the viewport;
* the fu picker offers only the fu a hand can have (no 20 on a ron or at 1 han, 25 from 2 han,
  20 on a 2-han tsumo), and a value no hand has is refused in the preview with its article;
* han and fu reset with winner and loser once a result is recorded;
* the chombo's -20 pt is in the hand history; at game over the final standings with pt are on
  the page, and the win form and the riichi picker are closed.
Screenshots go to test-artifacts/console-one-screen/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import test_console_sensorless_browser as sensorless
from selenium.webdriver.common.by import By
from sensorless_hanchan import NAMES, daemon_kit, real_table
from test_console_browser import CHROMEDRIVER, CHROMIUM
from test_console_sensorless_browser import Page

from hil.browser import chromium

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "console-one-screen"

sensorless.ARTIFACTS = ARTIFACTS  # Page.shot's folder

pytestmark = pytest.mark.skipif(
    not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()),
    reason="Debian's chromium and chromium-driver are needed",
)


def rect(p: Page, sel: str) -> dict[str, float]:
    r: dict[str, float] = p.d.execute_script(
        "const r = document.querySelector(arguments[0]).getBoundingClientRect();"
        "return {top: r.top, bottom: r.bottom, left: r.left, right: r.right};", sel)
    return r


def on_screen(p: Page, *sels: str) -> None:
    vw, vh = p.d.execute_script("return [window.innerWidth, window.innerHeight]")
    for sel in sels:
        r = rect(p, sel)
        if not (r["top"] >= 0 and r["bottom"] <= vh and r["left"] >= 0 and r["right"] <= vw):
            p.shot("off-screen")
        assert r["top"] >= 0 and r["bottom"] <= vh and r["left"] >= 0 and r["right"] <= vw, \
            (sel, r, vw, vh)


def tap(p: Page, sel: str) -> None:
    """A tap where the element is: no scrolling first (Page.click scrolls it to the centre)."""
    on_screen(p, sel)
    p.wait(lambda d: d.find_element(By.CSS_SELECTOR, sel).is_enabled())
    p.d.find_element(By.CSS_SELECTOR, sel).click()


def offered(p: Page) -> list[int]:
    return [int(b.get_attribute("data-fu") or 0)
            for b in p.d.find_elements(By.CSS_SELECTOR, "#r-fu-pick button")]


def scrolled(p: Page) -> Any:
    return p.d.execute_script("return [window.scrollX, window.scrollY]")


def start(p: Page, base: str) -> None:
    p.d.get(base + "/console/")
    p.type("#login-user", "alice")
    p.type("#login-password", daemon_kit.REFEREE_PASSWORD)
    p.click("#login-submit")
    p.wait(lambda d: d.find_element(By.ID, "main").is_displayed())
    p.click("#tabs button[data-tab='game']")
    for s, name in enumerate(NAMES):
        p.type(f"#g-name-{s}", name)
    p.seat("g-dealer", 0)
    p.click("#panel-game button[type='submit']")
    assert "Done: New game" in p.confirm()
    p.d.execute_script("window.scrollTo(0, 0)")
    p.wait(lambda d: "East 1" in p.text("#round"))


def test_a_result_on_one_screen_at_a_tablet_and_game_over(tmp_path: Path) -> None:
    with real_table(tmp_path, web=True) as t, chromium(1024, 768) as d:
        p = Page(d)
        start(p, t.base)
        tap(p, "#tabs button[data-tab='result']")
        on_screen(p, "#tabs button[data-tab='game']", "#h-riichi", "#r-winner", "#r-loser",
                  "#r-han", "#panel-result button[type='submit']")
        tap(p, "#h-riichi button[data-seat='1']")
        tap(p, "input[name='r-kind'][value='ron']")
        tap(p, "#r-winner button[data-seat='1']")
        tap(p, "#r-loser button[data-seat='2']")
        p.type("#r-han", "1")
        # item 1: a 1-han ron has 30..100 fu under M.League (a 2-fu double-wind pair)
        p.wait(lambda d: offered(p) == [30, 40, 50, 60, 70, 80, 90, 100])
        p.type("#r-han", "2")
        p.wait(lambda d: offered(p) == [25, 30, 40, 50, 60, 70, 80, 90, 100, 110])
        tap(p, "input[name='r-kind'][value='tsumo']")
        p.wait(lambda d: offered(p)[:2] == [20, 30])
        tap(p, "input[name='r-kind'][value='ron']")
        p.type("#r-han", "1")
        p.wait(lambda d: 20 not in offered(p))
        # a client that sends 20 fu anyway (an old page): the preview refuses it, citing M 6-3
        d.execute_script("document.getElementById('r-fu').value = '20'")
        tap(p, "#panel-result button[type='submit']")
        p.wait(lambda d: "Refused" in p.text("#reply"))
        assert "no ron is 1 han 20 fu" in p.text("#reply") and "M 6-3" in p.text("#reply")
        assert "impossible_hand_value" in p.text("#reply")
        p.wait(lambda d: 30 in offered(p))
        tap(p, "#r-fu-pick button[data-fu='30']")
        tap(p, "#panel-result button[type='submit']")
        p.wait(lambda d: d.find_element(By.ID, "preview").is_displayed())
        on_screen(p, "#preview", "#preview-confirm")
        assert "Ben (South) wins from Chie (West): 1 han 30 fu" in p.text("#preview-body")
        p.shot("tablet-preview")
        tap(p, "#preview-confirm")
        p.wait(lambda d: "Done" in p.text("#reply"))
        on_screen(p, "#reply")
        assert scrolled(p) == [0, 0]
        height = d.execute_script("return document.documentElement.scrollHeight")
        form_bottom = rect(p, "#panel-result button[type='submit']")["bottom"]
        print(f"1024x768: document {height} px, result form ends at {form_bottom:.0f} px")
        # item 2: han and fu reset with winner and loser
        p.wait(lambda d: d.find_element(By.ID, "r-han").get_attribute("value") == "")
        assert d.find_element(By.ID, "r-fu").get_attribute("value") == ""
        assert p.checked("r-winner") == set() and p.checked("r-loser") == set()
        assert offered(p) == []

        # item 3: a chombo's -20 pt in the history (M 7-4-1), then the game ends
        p.click("#tabs button[data-tab='penalty']")
        p.seat("p-seat", 3)
        p.click("input[name='p-kind'][value='chombo']")
        p.type("#p-reason", "noten riichi shown")
        p.click("#panel-penalty button[type='submit']")
        assert "Done" in p.confirm()
        p.wait(lambda d: d.find_elements(By.CSS_SELECTOR,
                                         "#history tr.delta-row td[data-seat='3'] .pt"))
        assert p.text("#history tr.delta-row td[data-seat='3'] .pt") == "-20 pt"
        p.click("#tabs button[data-tab='game']")
        p.type("#e-reason", "time is up")
        p.click("#e-preview")
        assert "Done" in p.confirm()
        p.wait(lambda d: d.find_element(By.ID, "final-box").is_displayed())
        d.execute_script("window.scrollTo(0, 0)")
        on_screen(p, "#final tr[data-rank='4']")  # the standings are on the first screen
        got = p.api("standings.json")["standings"]
        rows = d.find_elements(By.CSS_SELECTOR, "#final tr[data-seat]")
        assert [int(r.get_attribute("data-seat") or -1) for r in rows] == [x["seat"] for x in got]
        for r, x in zip(rows, got, strict=True):
            cells = [c.text for c in r.find_elements(By.CSS_SELECTOR, "td")]
            assert cells[1] == x["name"] and cells[2] == f"{x['points']:,}"
            assert float(cells[6]) == x["total_pt"]
        chombo = next(x for x in got if x["seat"] == 3)
        assert chombo["penalty_pt"] == -20.0
        assert "-20.0" in rows[[x["seat"] for x in got].index(3)].text
        # the win form and the riichi picker are closed
        for fs in ("r-fields", "h-fields", "d-fields"):
            assert d.find_element(By.ID, fs).get_attribute("disabled") is not None
        assert not d.find_element(By.CSS_SELECTOR, "#h-riichi button[data-seat='0']").is_enabled()
        p.click("#tabs button[data-tab='result']")
        assert not d.find_element(By.CSS_SELECTOR,
                                  "#panel-result button[type='submit']").is_enabled()
        p.shot("tablet-game-over")


def test_the_console_at_a_phone(tmp_path: Path) -> None:
    with real_table(tmp_path, web=True) as t, chromium(390, 844) as d:
        p = Page(d)
        start(p, t.base)
        p.click("#tabs button[data-tab='result']")
        d.execute_script("window.scrollTo(0, 0)")
        # nothing wider than the phone; the tabs and the riichi picker on the first screen
        assert d.execute_script("return document.documentElement.scrollWidth") <= 390
        on_screen(p, "#tabs button[data-tab='result']", "#tabs button[data-tab='game']",
                  "#h-riichi")
        p.seat("r-winner", 1)
        p.seat("r-loser", 2)
        p.type("#r-han", "3")
        p.click("#r-fu-pick button[data-fu='40']")
        p.click("#panel-result button[type='submit']")
        p.wait(lambda d: d.find_element(By.ID, "preview").is_displayed())
        on_screen(p, "#preview", "#preview-confirm")  # the preview floats on the screen
        p.shot("phone-preview")
        tap(p, "#preview-confirm")
        p.wait(lambda d: "Done" in p.text("#reply"))
        assert d.execute_script("return document.documentElement.scrollWidth") <= 390
