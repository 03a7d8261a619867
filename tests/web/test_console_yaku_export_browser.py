"""Issue 28 item 4, from outside: headless Chromium enters two wins on the referee console of a
real `jantaku run` without sensors, valued with the yaku checklist (the winds' yakuhai resolved
for the winner's seat and the round), and `jantaku log export --format tenhou6` writes them as
Tenhou does: the points text of a ron and of a dealer's tsumo (`…点∀`), and the ticked yaku in
Tenhou's words (`平和(1飜)`, `自風 東(1飜)`, `ドラ(1飜)`)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from sensorless_hanchan import NAMES, daemon_kit, real_table
from test_console_browser import CHROMEDRIVER, CHROMIUM, chromium
from test_console_sensorless_browser import Page

from hil.kit import jantaku

pytestmark = pytest.mark.skipif(
    not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()),
    reason="Debian's chromium and chromium-driver are needed",
)


def checklist_win(p: Page, kind: str, winner: int, loser: int | None, yaku: list[str],
                  dora: int, fu: int, han: int) -> None:
    p.click("#tabs button[data-tab='result']")
    p.click(f"input[name='r-kind'][value='{kind}']")
    p.click("input[name='r-mode'][value='hanfu']")
    p.seat("r-winner", winner)
    if loser is not None:
        p.seat("r-loser", loser)
    if not p.d.find_element(By.ID, "y-box").get_attribute("open"):
        p.click("#y-box summary")
    p.type("#y-dora", str(dora))
    for name in yaku:
        p.click(f"#y-list label[data-yaku='{name}'] input")
    p.wait(lambda d: d.find_element(By.ID, "r-han").get_attribute("value") == str(han))
    p.click(f"#r-fu-pick button[data-fu='{fu}']")
    p.click("#panel-result button[type='submit']")
    assert "Done" in p.confirm()
    for name in yaku:  # untick for the next hand
        p.click(f"#y-list label[data-yaku='{name}'] input")


def test_checklist_yaku_reach_the_tenhou6_export(tmp_path: Path) -> None:
    with real_table(tmp_path, web=True) as t, chromium(tmp_path) as d:
        p = Page(d)
        d.get(t.base + "/console/")
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
        # E1: seat 1 rons seat 3, 30 fu 3 han
        checklist_win(p, "ron", 1, 3, ["Pinfu", "Tanyao"], 1, 30, 3)
        # E2: seat 1 deals now; its tsumo, 40 fu 3 han: the East winds are its seat's and the
        # round's
        p.wait(lambda d: "East 2" in p.text("#round"))
        checklist_win(p, "tsumo", 1, None, ["Menzen tsumo", "Yakuhai: seat wind",
                                            "Yakuhai: round wind"], 0, 40, 3)
        p.wait(lambda d: "East 2" in p.text("#round") and "honba 1" in p.text("#sticks"))
    r = subprocess.run([jantaku(), "log", "export", "--db", str(t.db), "--game", "1",
                        "--format", "tenhou6"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    record = json.loads(r.stdout)
    results = [hand[16] for hand in record["log"]]
    assert results[0] == ["和了", [0, 3900, 0, -3900],
                          [1, 3, 1, "30符3飜3900点", "平和(1飜)", "断幺九(1飜)", "ドラ(1飜)"]]
    assert results[1] == ["和了", [-2600, 7800, -2600, -2600],
                          [1, 1, 1, "40符3飜2600点∀", "門前清自摸和(1飜)", "自風 東(1飜)",
                           "場風 東(1飜)"]]
