"""Issue 28 item 5 against a running ``jantaku demo`` (its own process and private broker) in
headless Chromium: ``?layout=tables`` shows the demo's table on the multi-table scoreboard with
its hand (E1 and E2 differ), followed on the broker; ``?lang=ja`` and ``?lang=zh`` show no English
through a hand with a win (yaku, limit, payments) and while rank conditions show.

The allow-list of Latin text a localized overlay may show (docs/overlay.md): the players' names
(entered by the venue), ``pt`` (the unit of the final standings, written so in Japanese and
Chinese broadcasts too) and digits. Everything else in Latin letters fails."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hil.broker import free_port, listening
from hil.browser import chromium
from hil.kit import until_sync

JANTAKU = str(Path(sys.executable).with_name("jantaku"))
ALLOWED = {"pt"}

# Every render of the page records the visible text while a result card or a condition shows:
# the card lasts a moment at demo speed, a poll would miss it.
RECORD_JS = """
window.__texts = [];
const original = window.render;
window.render = (view) => {
  original(view);
  const root = document.getElementById('root');
  const wins = view.result && view.result.wins && view.result.wins.length
    && root.dataset.card === 'shown';
  const conds = view.seats.some((s) => s.conditions);
  if (wins || conds) {
    window.__texts.push({wins: !!wins, conds: conds, text: root.innerText,
                         yaku: wins ? view.result.wins.flatMap((w) => w.yaku.map((y) => y[0])) : [],
                         names: view.seats.map((s) => s.name)});
  }
};
"""


@pytest.fixture(scope="module")
def demo() -> Iterator[int]:
    http_port = free_port()
    table = f"lw{uuid.uuid4().hex[:6]}"
    proc = subprocess.Popen(
        [JANTAKU, "demo", "--headless", "--ruleset", "mleague", "--seed", "5", "--hands", "40",
         "--speed", "40", "--table-id", table, "--http-port", str(http_port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        until_sync(lambda: listening(http_port), 60, "the demo's overlay server")
        yield http_port
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGINT)
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(5)


def _board(port: int) -> dict[str, Any]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/tables/view", timeout=5) as r:
        body: dict[str, Any] = json.loads(r.read())
        return body


def _row_text(driver: Any) -> tuple[str, dict[str, Any]] | None:
    got: list[Any] | None = driver.execute_script(
        "const r = document.querySelector('[data-role=\"table\"] .round');"
        "return r ? [r.textContent, window.__jantakuTables] : null")
    return None if got is None else (got[0], got[1])


def test_the_demo_serves_its_table_on_the_scoreboard_with_the_hand(demo: int) -> None:
    with chromium() as driver:
        driver.get(f"http://127.0.0.1:{demo}/overlay/?layout=tables")
        seen: dict[int, str] = {}

        def second_hand() -> bool:
            got = _row_text(driver)
            if got is not None and got[1]["tables"]:
                row = got[1]["tables"][0]
                if row["round_wind"] == "E" and row["hand_in_round"] is not None:
                    seen[row["hand_in_round"]] = got[0]
            return 0 in seen and len(seen) > 1

        until_sync(second_hand, 120, "the board to show East 1 and a later East hand")
        board = _board(demo)
        assert len(board["tables"]) == 1 and board["tables"][0]["online"] is True
        assert len([n for n in board["tables"][0]["names"] if n]) == 4
        shown = driver.execute_script(
            "return document.querySelectorAll('[data-role=\"table\"] .p').length")
        assert shown == 4
    assert seen[0].startswith("East 1 · Honba")
    later = max(seen)
    assert seen[later].startswith(f"East {later + 1} · Honba"), seen


def test_the_overlay_in_japanese_and_chinese_shows_no_english(demo: int) -> None:
    """Both languages at once (two pages on the same demo), each until it rendered a hand won
    with its yaku and a rank condition line."""
    with chromium() as ja, chromium() as zh:
        pages = {"ja": ja, "zh": zh}
        for lang, driver in pages.items():
            driver.get(f"http://127.0.0.1:{demo}/overlay/?lang={lang}")
            until_sync(lambda d=driver: d.execute_script("return !!window.__jantakuView"), 60,
                       "a view")
            driver.execute_script(RECORD_JS)

        def both() -> dict[str, list[dict[str, Any]]] | None:
            out = {}
            for lang, driver in pages.items():
                texts: list[dict[str, Any]] = driver.execute_script("return window.__texts")
                if not (any(t["wins"] and t["yaku"] for t in texts)
                        and any(t["conds"] for t in texts)):
                    return None
                out[lang] = texts
            return out

        seen = until_sync(both, 180, "a hand with a win and a condition line in both languages")
    for lang, texts in seen.items():
        assert {y for t in texts for y in t["yaku"]}, texts
        for t in texts:
            names = {w for n in t["names"] for w in re.findall(r"[A-Za-z]+", n)}
            latin = set(re.findall(r"[A-Za-z]+", t["text"])) - names - ALLOWED
            assert not latin, (lang, latin, t["text"])
