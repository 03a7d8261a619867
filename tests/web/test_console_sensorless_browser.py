"""Headless Chromium plays a whole M.League hanchan through the referee console of a real
`jantaku run` with ``devices.table.kind = "none"`` and a private Mosquitto -- the console only,
nothing injected as table input: riichi sticks (M 4-8), draws with tenpai payments (M 3-11-5), a
double ron settled by head-bump (M 5-1-3), a chombo replayed (M 7-4-1/6), a correction, a wrong
result and its undo, the yaku checklist and the fu picker. After every result the page shows the
next hand (round, honba, sticks) and the hand history its deltas and running totals; the final
standings equal the rulebook's, computed independently (sensorless_hanchan.py). A refusal reads in
plain words. Screenshots go to test-artifacts/console-sensorless/."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import WebDriverWait
from sensorless_hanchan import NAMES, STEPS, Model, Step, daemon_kit, expected, real_table
from test_console_browser import CHROMEDRIVER, CHROMIUM, chromium

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "console-sensorless"
WIND_NAMES = ["East", "South", "West", "North"]

pytestmark = pytest.mark.skipif(
    not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()),
    reason="Debian's chromium and chromium-driver are needed",
)


# The element of a selector if it can take a click (rendered, not :disabled -- a disabled
# fieldset's controls included, as the driver's is_enabled), scrolled to the middle of the
# viewport; else why not.
CLICKABLE_JS = """
const el = document.querySelector(arguments[0]);
if (!el) return 'not found';
if (!el.getClientRects().length) return 'not rendered';
if (el.matches(':disabled')) return 'disabled';
el.scrollIntoView({block: 'center'});
return el;
"""


class Page:
    def __init__(self, d: WebDriver) -> None:
        self.d = d
        self.n = 0
        self.why = ""

    def wait(self, pred: Callable[[WebDriver], Any], timeout: float = 15) -> Any:
        def safe(d: WebDriver) -> Any:
            try:
                return pred(d)
            except StaleElementReferenceException:  # the poll re-rendered it: look again
                return False

        try:
            return WebDriverWait(self.d, timeout, poll_frequency=0.05).until(safe)
        except Exception:
            self.shot("failed-wait")
            raise

    def click(self, sel: str) -> None:
        def go(d: WebDriver) -> bool:
            try:
                # one round trip instead of four: the element once it is rendered and enabled,
                # scrolled clear of the sticky bar (as a finger would reach it); then the
                # driver's own click, which refuses an element it cannot reach (tried again)
                el = d.execute_script(CLICKABLE_JS, sel)
                if isinstance(el, str):
                    self.why = f"{sel}: {el}"
                    return False
                el.click()
                return True
            except Exception as exc:  # stale while the poll re-renders: try again
                self.why = f"{sel}: {type(exc).__name__}: {str(exc)[:200]}"
                return False

        self.why = ""
        try:
            self.wait(go)
        except Exception as exc:
            raise AssertionError(f"cannot click {self.why}") from exc

    def type(self, sel: str, text: str) -> None:
        el = self.wait(lambda d: d.find_element(By.CSS_SELECTOR, sel))
        el.clear()
        el.send_keys(text)

    def text(self, sel: str) -> str:
        return str(self.d.find_element(By.CSS_SELECTOR, sel).text)

    def shot(self, name: str) -> None:
        self.n += 1
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        self.d.save_screenshot(str(ARTIFACTS / f"{self.n:02d}-{name}.png"))

    def confirm(self) -> str:
        self.wait(lambda d: d.find_element(By.ID, "preview").is_displayed())
        self.click("#preview-confirm")
        self.wait(lambda d: "Done" in self.text("#reply") or "Refused" in self.text("#reply"))
        return self.text("#reply")

    def api(self, path: str) -> Any:
        got = self.d.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "fetch(arguments[0], {credentials: 'same-origin'}).then(r => r.text()).then(done);",
            f"/console/api/{path}")
        return json.loads(got)

    def seat(self, picker: str, seat: int) -> None:
        """Pick ``seat`` in a one-seat picker (a tap on the picked seat would unpick it)."""
        if seat not in self.checked(picker):
            self.click(f"#{picker} button[data-seat='{seat}']")
        self.wait(lambda d: seat in self.checked(picker))

    def toggle(self, picker: str, seat: int) -> None:
        self.click(f"#{picker} button[data-seat='{seat}']")

    def checked(self, picker: str) -> set[int]:
        return {int(b.get_attribute("data-seat") or -1) for b in self.d.find_elements(
            By.CSS_SELECTOR, f"#{picker} button.on")}


def set_riichi(p: Page, seats: list[int]) -> None:
    for s in range(4):
        if (s in seats) != (s in p.checked("h-riichi")):
            p.toggle("h-riichi", s)
    p.wait(lambda d: p.checked("h-riichi") == set(seats))


def enter_win(p: Page, args: dict[str, Any], yaku: list[str] | None = None) -> None:
    p.click("#tabs button[data-tab='result']")
    wins = args["wins"]
    p.click(f"input[name='r-kind'][value='{args['kind']}']")
    p.click("input[name='r-mode'][value='hanfu']")
    first = wins[0]
    p.seat("r-winner", first["winner"])
    if args["kind"] == "ron":
        # winner and dealt-in are checked against each other: the winner cannot be picked
        p.wait(lambda d: not d.find_element(
            By.CSS_SELECTOR, f"#r-loser button[data-seat='{first['winner']}']").is_enabled())
        p.seat("r-loser", first["loser"])
    if yaku:
        # the checklist counts the han (MahjongPantheon-style) into the han field
        if not p.d.find_element(By.ID, "y-box").get_attribute("open"):
            p.click("#y-box summary")
        p.type("#y-dora", "1")
        for name in yaku:
            p.click(f"#y-list label[data-yaku='{name}'] input")
        p.wait(lambda d: d.find_element(By.ID, "r-han").get_attribute("value") == str(first["han"]))
        assert f"+ 1 dora = {first['han']} han" in p.text("#y-total")
        for name in yaku:  # untick for the next hand
            p.click(f"#y-list label[data-yaku='{name}'] input")
    p.type("#r-han", str(first["han"]))
    if first["han"] >= 5:  # M 6-6-2: the fu do not count, the picker offers none
        p.wait(lambda d: "fu do not count" in p.text("#r-fu-pick"))
    else:
        p.click(f"#r-fu-pick button[data-fu='{first['fu']}']")
    second = p.d.find_element(By.ID, "r-second")
    if second.is_selected() != (len(wins) > 1):
        p.click("#r-second")
    if len(wins) > 1:
        w2 = wins[1]
        p.seat("r-winner2", w2["winner"])
        p.type("#r-han2", str(w2["han"]))
        p.click(f"#r-fu2-pick button[data-fu='{w2['fu']}']")
    p.click("#panel-result button[type='submit']")


def enter_draw(p: Page, args: dict[str, Any]) -> None:
    p.click("#tabs button[data-tab='draw']")
    # M.League has no abortive draws (M 3-2-3): the console does not offer them
    assert not p.d.find_element(By.ID, "d-abort-pill").is_displayed()
    p.click("input[name='d-kind'][value='exhaustive']")
    for s in range(4):
        if (s in args["tenpai"]) != (s in p.checked("d-tenpai")):
            p.toggle("d-tenpai", s)
    p.click("#panel-draw button[type='submit']")


def step_in_browser(p: Page, step: Step, m: Model, hand: int) -> None:
    a = step.args
    set_riichi(p, a.get("riichi", []))
    if step.name == "manual_result" and a["kind"] == "exhaustive":
        enter_draw(p, a)
    elif step.name == "manual_result":
        enter_win(p, a, ["Riichi", "Tanyao"] if hand == 1 else None)
    elif step.name == "chombo":
        p.click("#tabs button[data-tab='penalty']")
        p.seat("p-seat", a["seat"])
        p.click("input[name='p-kind'][value='chombo']")
        p.type("#p-reason", "revealed a wrong tenpai")
        p.click("#panel-penalty button[type='submit']")
    elif step.name == "set_scores":
        p.click("#tabs button[data-tab='correct']")
        for s, d in enumerate(a["delta"]):
            p.type(f"#c-score-{s}", str(m.scores[s] + d))
        p.type("#c-reason", "a stick counted twice")
        p.click("#c-preview")
    assert "Done" in p.confirm(), p.text("#reply")
    if step.undone:
        p.wait(lambda d: d.find_element(By.ID, "h-undo").is_enabled())
        p.click("#h-undo")
        assert "Done" in p.confirm()


def check_table(p: Page, m: Model, totals: list[list[int]]) -> None:
    """The page shows the next hand and the history its rows (running totals per hand)."""
    def shown(d: WebDriver) -> bool:
        rows = d.find_elements(By.CSS_SELECTOR, "#history tr.total-row")
        if len(rows) != len(totals):
            return False
        if totals and [int(td.text) for td in rows[-1].find_elements(By.CSS_SELECTOR, "td")[2:]
                       ] != totals[-1]:
            return False
        sticks = f"honba {m.honba} · deposits {m.deposits}"
        if m.over:
            return "game over" in p.text("#round")
        return p.text("#round") == f"{WIND_NAMES[m.hand // 4]} {m.hand % 4 + 1}" and \
            p.text("#sticks") == sticks
    p.wait(shown)
    for s in range(4):
        p.wait(lambda d, s=s: p.text(f"#seats .seat[data-seat='{s}'] .score").replace(",", "")
               == str(m.scores[s]))


def test_a_hanchan_in_the_console_of_a_sensorless_table(tmp_path: Path) -> None:
    shutil.rmtree(ARTIFACTS, ignore_errors=True)
    with real_table(tmp_path, web=True) as t, chromium(tmp_path) as d:
        p = Page(d)
        d.get(t.base + "/console/")
        p.type("#login-user", "alice")
        p.type("#login-password", daemon_kit.REFEREE_PASSWORD)
        p.click("#login-submit")
        p.wait(lambda d: d.find_element(By.ID, "main").is_displayed())

        # seats by table position: seat 0 at the bottom, 1 right, 2 across, 3 left
        pos = {s: d.find_element(By.CSS_SELECTOR, f"#seats .seat[data-seat='{s}']").rect
               for s in range(4)}
        assert pos[2]["y"] < pos[1]["y"] < pos[0]["y"] and pos[3]["x"] < pos[2]["x"] < pos[1]["x"]

        p.click("#tabs button[data-tab='game']")
        for s, name in enumerate(NAMES):
            p.type(f"#g-name-{s}", name)
        p.seat("g-dealer", 0)
        # a table with no data link: hands begin by themselves, as the console proposes
        assert d.find_element(By.ID, "g-auto-hands").is_selected()
        p.click("#panel-game button[type='submit']")
        assert "Done: New game" in p.confirm()
        m = Model()
        # pao where the ruleset has it (M 8-1): offered with a yakuman, never the winner
        p.click("#tabs button[data-tab='result']")
        p.click("input[name='r-mode'][value='yakuman']")
        p.seat("r-winner", 0)
        p.wait(lambda d: d.find_element(By.ID, "r-pao-row").is_displayed())
        assert not d.find_element(By.CSS_SELECTOR, "#r-pao button[data-seat='0']").is_enabled()
        p.click("#r-winner button[data-seat='0']")  # unpick: the hanchan starts clean
        p.click("input[name='r-mode'][value='hanfu']")

        totals: list[list[int]] = []
        check_table(p, m, totals)
        p.shot("new-game")

        for i, step in enumerate(STEPS):
            step_in_browser(p, step, m, len(totals) + 1)
            if not step.undone:
                m.apply(step)
                if step.name != "set_scores":
                    totals.append(list(m.scores))
            check_table(p, m, totals)
            p.shot(f"step-{i + 1:02d}-{step.name}")
        assert m.over

        # the double ron's row names the head-bumped seat (M 5-1-3)
        assert "head-bumped" in p.text("#history tr.delta-row[data-hand='3'] td.result")
        # the referee's correction is a row of its own, between the hands it fell between
        fix = d.find_elements(By.CSS_SELECTOR, "#history tr.correction-row td[data-seat]")
        assert [td.text for td in fix] == ["+1000", "-1000", "0", "0"]
        # the chombo's hand is replayed: same round and honba
        assert "replayed" in p.text("#history tr.delta-row[data-hand='4'] td.result")

        want = expected().standings()
        got = p.api("standings.json")
        assert got["finished"] is True
        rows = {r["seat"]: r for r in got["standings"]}
        assert [{"seat": s, "points": rows[s]["points"], "rank": rows[s]["rank"],
                 "total_pt": rows[s]["total_pt"]} for s in range(4)] == want

        # the game is over: the final standings with pt on the page, the result forms closed
        p.wait(lambda d: d.find_element(By.ID, "final-box").is_displayed())
        shown = {int(r.get_attribute("data-seat") or -1): float(r.find_elements(
            By.CSS_SELECTOR, "td")[6].text) for r in d.find_elements(By.CSS_SELECTOR,
                                                                       "#final tr[data-seat]")}
        assert shown == {w["seat"]: w["total_pt"] for w in want}
        p.click("#tabs button[data-tab='draw']")
        assert not d.find_element(By.CSS_SELECTOR, "#panel-draw button[type='submit']"
                                  ).is_enabled()
        p.shot("final")
