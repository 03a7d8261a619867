"""The referee console in headless Chromium against a running table daemon (the real Service, the
real reducer, a SQLite event log, Mosquitto on 127.0.0.1:1883): one browser session logs in, starts
a game from a seat draw, enters a ron by han/fu and one by tiles, an exhaustive draw with tenpai, a
chombo, a seat swap and an undo, and is refused a wrong password, malformed input and an expired
login -- checking the table state, the logged inputs and the MQTT events after each step.
Screenshots go to test-artifacts/console/."""

from __future__ import annotations

import contextlib
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service as ChromeService
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.ui import WebDriverWait
from test_console_kit import REFEREE_PASSWORD, Table, TableThread

from hil.browser import refresh_doc_image

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "console"

pytestmark = pytest.mark.skipif(
    not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()),
    reason="Debian's chromium and chromium-driver are needed",
)


@contextlib.contextmanager
def chromium(tmp: Path) -> Iterator[WebDriver]:
    opts = Options()
    opts.binary_location = CHROMIUM
    for arg in (
        "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
        "--no-first-run", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", f"--user-data-dir={tmp / 'chromium'}", "--window-size=1100,1600",
    ):
        opts.add_argument(arg)
    driver = webdriver.Chrome(service=ChromeService(CHROMEDRIVER), options=opts)
    try:
        yield driver
    finally:
        driver.quit()


class Page:
    def __init__(self, d: WebDriver, th: TableThread, t: Table) -> None:
        self.d, self.th, self.t = d, th, t
        self.shot_no = 0

    def wait(self, pred: Callable[[WebDriver], Any], timeout: float = 10) -> Any:
        try:
            return WebDriverWait(self.d, timeout, poll_frequency=0.05).until(pred)
        except Exception:
            self.shot("failed-wait")
            raise

    def css(self, sel: str) -> WebElement:
        return self.wait(lambda d: d.find_element(By.CSS_SELECTOR, sel))

    def click(self, sel: str) -> None:
        def go(d: WebDriver) -> bool:
            try:
                el = d.find_element(By.CSS_SELECTOR, sel)
                if not el.is_displayed() or not el.is_enabled():
                    return False
                el.click()
                return True
            except Exception:  # stale while the poll re-renders: try again
                return False

        self.wait(go)

    def type(self, sel: str, text: str) -> None:
        el = self.css(sel)
        el.clear()
        el.send_keys(text)

    def shot(self, name: str, *, doc_as: str | None = None) -> None:
        self.shot_no += 1
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / f"{self.shot_no:02d}-{name}.png"
        self.d.save_screenshot(str(path))
        if doc_as is not None:  # the README's screenshot (docs/images/README.md)
            refresh_doc_image(path, doc_as)

    def reply(self) -> str:
        el = self.css("#reply")
        self.wait(lambda d: el.text and el.text not in ("previewing…", ""))
        return str(el.text)

    def preview_and_confirm(self) -> str:
        self.wait(lambda d: d.find_element(By.ID, "preview").is_displayed())
        self.click("#preview-confirm")
        self.wait(lambda d: "Done" in d.find_element(By.ID, "reply").text
                  or "Refused" in d.find_element(By.ID, "reply").text)
        return str(self.d.find_element(By.ID, "reply").text)

    def preview_cell(self, seat: int, col: int) -> str:
        return str(self.css(f"#preview-table tr[data-seat='{seat}'] td:nth-child({col})").text)

    def table_input(self, body: dict[str, Any]) -> None:
        self.th.run(self.t.table_input(body))

    def events(self, kind: str) -> list[dict[str, Any]]:
        return [e for e in list(self.t.events) if e["type"] == kind]

    def wait_events(self, kind: str, n: int) -> list[dict[str, Any]]:
        deadline = time.monotonic() + 10
        while len(self.events(kind)) < n:
            assert time.monotonic() < deadline, f"{n} {kind} events expected on MQTT"
            time.sleep(0.02)
        return self.events(kind)


def test_console_runs_a_table(tmp_path: Path) -> None:
    shutil.rmtree(ARTIFACTS, ignore_errors=True)
    th = TableThread(tmp_path)
    with th as t, chromium(tmp_path) as d:
        p = Page(d, th, t)
        svc = t.service
        d.get(t.base + "/console/")

        # --- a wrong password is refused and changes nothing
        p.type("#login-user", "alice")
        p.type("#login-password", "not the password")
        p.click("#login-submit")
        p.wait(lambda d: "wrong user name or password" in d.find_element(By.ID, "login-msg").text)
        assert d.find_element(By.ID, "main").is_displayed() is False
        assert svc.core.state.input_seq == 0
        p.shot("wrong-password")

        # --- log in
        p.type("#login-password", REFEREE_PASSWORD)
        p.click("#login-submit")
        p.wait(lambda d: d.find_element(By.ID, "main").is_displayed())
        assert "alice (referee)" in p.css("#bar-user").text

        # --- new game from a seat draw
        p.click("#tabs button[data-tab='game']")
        for s, (name, pid) in enumerate([("Ann", "P1"), ("Bo", "P2"), ("Cy", "P3"), ("Di", "P4")]):
            p.type(f"#g-name-{s}", name)
            p.type(f"#g-id-{s}", pid)
        p.click("#g-draw")
        p.wait(lambda d: "seed" in d.find_element(By.ID, "g-seed").text)
        seated = [p.css(f"#g-name-{s}").get_attribute("value") for s in range(4)]
        assert sorted(seated) == ["Ann", "Bo", "Cy", "Di"]
        p.click("#panel-game button[type='submit']")
        assert "Done: New game" in p.preview_and_confirm()
        snap = svc.core.view()
        assert [s["name"].split(" #")[0] for s in snap["seats"]] == seated
        rec = t.inputs()[-1]
        assert (rec.source, rec.body["type"]) == ("referee:alice", "game_start")
        p.wait_events("game_started", 1)
        names = [s["name"] for s in snap["seats"]]
        p.wait(lambda d: names[0] in d.find_element(By.ID, "seats").text)
        p.shot("new-game")

        # --- ron by han/fu, previewed then confirmed
        p.click("#tabs button[data-tab='result']")
        p.click("#r-winner button[data-seat='1']")
        p.click("#r-loser button[data-seat='2']")
        p.type("#r-han", "3")
        p.click("#r-fu-pick button[data-fu='30']")  # the fu are picked, never a default
        p.click("#panel-result button[type='submit']")
        p.wait(lambda d: d.find_element(By.ID, "preview").is_displayed())
        dealer = snap["dealer"]
        want = 5800 if dealer == 1 else 3900
        assert p.preview_cell(1, 3) == f"+{want}" and p.preview_cell(2, 3) == f"-{want}"
        assert svc.core.state.input_seq == 1  # no hand_start: the preview logged nothing
        p.shot("ron-preview", doc_as="console.png")
        # a double ron is previewed under the ruleset: M-League head-bumps (M 5-1-3) -- from
        # the discarder (seat 2) seat 0 comes before seat 1, so seat 1 loses the ron
        p.click("#preview-cancel")  # the preview floats over the form: cancel to change it
        p.click("#r-second")
        p.click("#r-winner2 button[data-seat='0']")
        p.type("#r-han2", "1")
        p.click("#r-fu2-pick button[data-fu='30']")
        p.click("#panel-result button[type='submit']")
        # the note names the player, as the rest of the page does (not "seat 1")
        loses = f"head-bump: {names[1].split(' #')[0]}"
        p.wait(lambda d: loses in d.find_element(By.ID, "preview-body").text)
        assert "loses the ron" in d.find_element(By.ID, "preview-body").text
        p.click("#preview-cancel")
        p.click("#r-second")
        p.click("#panel-result button[type='submit']")
        assert "Done" in p.preview_and_confirm()
        scores = [s["score"] for s in svc.core.view()["seats"]]
        assert scores[1] == 25000 + want and scores[2] == 25000 - want
        rec = t.inputs()[-1]
        assert rec.source == "referee:alice"
        assert rec.body["args"]["wins"] == [{"winner": 1, "loser": 2, "han": 3, "fu": 30}]
        ended = p.wait_events("hand_ended", 1)[-1]
        assert ended["source"] == "referee:alice"
        assert ended["data"]["settlement"]["deltas"][1] == want

        # --- ron by tiles: 234m 34m 567p 678s 22s + 5m, dora indicator E
        p.click("input[name='r-mode'][value='tiles']")
        for tile in ["2m", "3m", "4m", "3m", "4m", "5p", "6p", "7p", "6s", "7s", "8s", "2s", "2s"]:
            p.click(f"#t-palette button[data-tile='{tile}']")
        p.click("input[name='t-target'][value='win']")
        p.click("#t-palette button[data-tile='5m']")
        p.click("input[name='t-target'][value='dora']")
        p.click("#t-palette button[data-tile='E']")
        p.click("#r-winner button[data-seat='3']")
        p.click("#r-loser button[data-seat='0']")
        before = [s["score"] for s in svc.core.view()["seats"]]
        p.click("#panel-result button[type='submit']")
        p.wait(lambda d: "Tanyao" in d.find_element(By.ID, "preview-body").text)
        body = p.css("#preview-body").text
        assert "Pinfu" in body and "2 han 30 fu" in body
        p.shot("tiles-preview")
        assert "Done" in p.preview_and_confirm()
        after = [s["score"] for s in svc.core.view()["seats"]]
        honba = ended["data"]["next"]["honba"]
        paid = (2900 if svc.core.view()["last_result"]["outcome"]["context"]["dealer"] == 3
                else 2000) + 300 * honba
        assert after[3] - before[3] == paid and before[0] - after[0] == paid
        rec = t.inputs()[-1]
        assert rec.body["args"]["wins"][0]["han"] == 2 and "+5m" in rec.body["args"]["reason"]
        p.wait_events("hand_ended", 2)

        # --- malformed input: refused with a message, nothing logged
        seq = svc.core.state.input_seq
        p.click("input[name='r-mode'][value='hanfu']")
        # the recorded result cleared the pickers; the winner cannot be picked as the seat that
        # dealt in (checked before submit), nor submitted without a discarder
        p.click("#r-winner button[data-seat='3']")
        p.wait(lambda d: not d.find_element(
            By.CSS_SELECTOR, "#r-loser button[data-seat='3']").is_enabled())
        p.click("#panel-result button[type='submit']")
        p.wait(lambda d: "Choose the seat that dealt in" in d.find_element(By.ID, "reply").text)
        p.click("#r-loser button[data-seat='0']")
        p.click("input[name='r-mode'][value='tiles']")
        p.click("#t-clear")
        p.click("input[name='t-target'][value='win']")
        p.click("#t-palette button[data-tile='1m']")
        p.click("#panel-result button[type='submit']")
        p.wait(lambda d: "needs 13 tiles" in d.find_element(By.ID, "reply").text)
        p.shot("malformed-refused")
        assert svc.core.state.input_seq == seq

        # --- exhaustive draw with tenpai seats 0 and 2
        p.click("#tabs button[data-tab='draw']")
        p.click("#d-tenpai button[data-seat='0']")
        p.click("#d-tenpai button[data-seat='2']")
        before = [s["score"] for s in svc.core.view()["seats"]]
        p.click("#panel-draw button[type='submit']")
        p.wait(lambda d: d.find_element(By.ID, "preview").is_displayed())
        assert p.preview_cell(0, 3) == "+1500" and p.preview_cell(1, 3) == "-1500"
        assert "Done" in p.preview_and_confirm()
        after = [s["score"] for s in svc.core.view()["seats"]]
        assert [a - b for a, b in zip(after, before, strict=True)] == [1500, -1500, 1500, -1500]
        drawn = p.wait_events("hand_ended", 3)[-1]
        assert drawn["data"]["settlement"]["tenpai"] == [0, 2]

        # --- chombo (M-League: -20 pt, the hand is replayed)
        p.click("#tabs button[data-tab='penalty']")
        p.click("#p-seat button[data-seat='3']")
        p.type("#p-reason", "false ron")
        p.click("#panel-penalty button[type='submit']")
        p.wait(lambda d: "replayed" in d.find_element(By.ID, "preview-body").text)
        assert "Done" in p.preview_and_confirm()
        assert svc.core.state.table.progress.pt_adjustments[3] == -20.0
        rec = t.inputs()[-1]
        assert rec.body == {"type": "referee", "action": "chombo", "by": "alice",
                            "args": {"seat": 3, "reason": "false ron"}}
        p.wait_events("hand_ended", 4)

        # --- seat swap (between hands), atomic: names and scores move together
        p.click("#tabs button[data-tab='correct']")
        before = svc.core.view()["seats"]
        p.click("#s-a button[data-seat='0']")
        p.click("#s-b button[data-seat='1']")
        p.type("#s-reason", "players sat wrong")
        p.click("#s-preview")
        p.wait(lambda d: d.find_element(By.ID, "preview").is_displayed())
        assert "Done" in p.preview_and_confirm()
        swapped = svc.core.view()["seats"]
        assert (swapped[0]["name"], swapped[0]["score"]) == (before[1]["name"], before[1]["score"])
        assert (swapped[1]["name"], swapped[1]["score"]) == (before[0]["name"], before[0]["score"])
        p.wait_events("seats_swapped", 1)
        p.shot("swapped")

        # --- undo the swap: a new compensating, logged input
        p.click("#tabs button[data-tab='undo']")
        p.wait(lambda d: "swap_seats" in d.find_element(By.ID, "u-text").text)
        p.type("#u-reason", "swap was wrong")
        p.click("#panel-undo button[type='submit']")
        p.wait(lambda d: d.find_element(By.ID, "preview").is_displayed())
        assert "Done" in p.preview_and_confirm()
        restored = svc.core.view()["seats"]
        assert [(s["name"], s["score"]) for s in restored] == [
            (s["name"], s["score"]) for s in before
        ]
        rec = t.inputs()[-1]
        assert (rec.source, rec.body["action"]) == ("referee:alice", "undo_last")
        p.wait_events("undone", 1)
        p.wait(lambda d: "undo_last" in d.find_element(By.ID, "recent").text)
        p.shot("undone")

        # --- correct the scores: all four at once, one logged input
        p.click("#tabs button[data-tab='correct']")
        now = [s["score"] for s in svc.core.view()["seats"]]
        fixed = [now[0] + 1000, now[1] - 1000, now[2], now[3]]
        for seat, value in enumerate(fixed):
            p.type(f"#c-score-{seat}", str(value))
        p.type("#c-reason", "miscounted sticks")
        p.click("#c-preview")
        p.wait(lambda d: d.find_element(By.ID, "preview").is_displayed())
        assert p.preview_cell(0, 3) == "+1000" and p.preview_cell(1, 3) == "-1000"
        assert "Done" in p.preview_and_confirm()
        assert [s["score"] for s in svc.core.view()["seats"]] == fixed
        assert t.inputs()[-1].body["args"] == {"scores": fixed, "reason": "miscounted sticks"}
        p.wait_events("scores_corrected", 1)

        # --- the login expires (the console's clock moves on): refused, nothing changes
        seq = svc.core.state.input_seq
        p.click("#tabs button[data-tab='clock']")
        t.clock.offset += 31 * 60

        def logged_out(d: WebDriver) -> bool:
            # the referee taps Pause; the page's next poll may find the expiry first
            if d.find_element(By.ID, "login").is_displayed():
                return True
            with contextlib.suppress(Exception):
                d.find_element(By.ID, "k-pause").click()
            return False

        p.wait(logged_out)
        assert "expired" in p.css("#login-msg").text
        p.shot("expired")
        assert svc.core.state.input_seq == seq
