"""The multi-table scoreboard (issue 19 item 3): a real ``jantaku run`` with ``[web] scoreboard``
follows several tables at once from the venue broker (a private Mosquitto), and headless
Chromium shows one row per table at ``/overlay/?layout=tables`` through the hooks
(``data-role="table"``, ``data-table``, ``data-seat``).

The other tables are what their daemons leave on the broker: retained, schema-valid
``state/scores`` and ``status`` payloads. A payload that fails its schema is not shown."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import paho.mqtt.client as paho

from daemon.web.scoreboard import board
from hil.browser import chromium, save_screenshot
from hil.kit import reap, until_sync

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "daemon"))
import daemon_kit

JANTAKU = str(Path(sys.executable).with_name("jantaku"))


def _scores(table: str, names: list[str], scores: list[int], wind: str = "S",
            hand_in_round: int = 1) -> bytes:
    return json.dumps({"schema": "jantaku/scores/1", "table": table, "seq": 10, "game": 1,
                       "hand": 5, "names": names, "scores": scores, "dealer": hand_in_round,
                       "round_wind": wind, "hand_in_round": hand_in_round, "honba": 2,
                       "deposits": 0}).encode()


def _status(table: str, state: str) -> bytes:
    return json.dumps({"schema": "jantaku/status/1", "state": state, "table": table}).encode()


def test_board_rows_follow_the_configured_order_and_status() -> None:
    latest = {
        "jantaku/v1/b/state/scores": {"names": ["w", "x", "y", "z"], "scores": [1, 2, 3, 4],
                                      "round_wind": "E", "honba": 0},
        "jantaku/v1/b/status": {"state": "offline"},
        "jantaku/v1/a/status": {"state": "online"},
        "jantaku/v1/c/state/scores": {"names": ["p", "q", "r", "s"], "scores": [0, 0, 0, 0]},
    }
    rows = board(latest)["tables"]
    assert [r["table"] for r in rows] == ["a", "b", "c"]
    assert rows[1]["online"] is False and rows[1]["scores"] == [1, 2, 3, 4]
    assert [r["table"] for r in board(latest, ("c", "b"))["tables"]] == ["c", "b"]


ROWS_JS = """return [...document.querySelectorAll('[data-role="table"]')].map((r) => ({
  table: r.dataset.table, online: r.dataset.online, round: r.querySelector('.round').innerText,
  seats: [...r.querySelectorAll('[data-seat]')].map((p) =>
    [p.querySelector('.name').innerText, p.querySelector('.score').innerText])}));"""


def test_a_daemon_follows_several_tables_from_the_venue_broker(tmp_path: Path) -> None:
    broker = daemon_kit.Broker(tmp_path / "broker").start()
    table = daemon_kit.unique_table("sb")
    web_port = daemon_kit.free_port()
    text = daemon_kit.config_text(table=table, db=tmp_path / "t.sqlite", port=broker.port)
    text += (f'\n[web]\nhost = "127.0.0.1"\nport = {web_port}\nscoreboard = true\n')
    cfg = tmp_path / "t.toml"
    cfg.write_text(text)
    others = paho.Client(paho.CallbackAPIVersion.VERSION2, client_id=f"others-{table}")
    others.connect("127.0.0.1", broker.port)
    others.loop_start()
    for tid, names, scores, hand in (
            ("final-a", ["Ai", "Bo", "Cy", "Di"], [41000, 22000, 19000, 18000], 0),
            ("final-b", ["Ed", "Fu", "Gi", "Ha"], [25000, 30500, 24500, 20000], 3)):
        others.publish(f"jantaku/v1/{tid}/state/scores",
                       _scores(tid, names, scores, hand_in_round=hand), 1,
                       retain=True).wait_for_publish(5)
        others.publish(f"jantaku/v1/{tid}/status", _status(tid, "online"), 1,
                       retain=True).wait_for_publish(5)
    # not a table daemon's payload: refused by the scores schema, never on the board
    others.publish("jantaku/v1/bogus/state/scores", b'{"scores": "lots"}', 1,
                   retain=True).wait_for_publish(5)
    proc = subprocess.Popen([JANTAKU, "run", "--config", str(cfg)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        daemon_kit.wait_port(web_port, 30)
        with chromium() as driver:
            driver.get(f"http://127.0.0.1:{web_port}/overlay/?layout=tables")
            rows = until_sync(lambda: (lambda r: r if len(r) >= 3 else None)(
                driver.execute_script(ROWS_JS)), 30, "three tables on the board")
            by = {r["table"]: r for r in rows}
            assert set(by) == {"final-a", "final-b", table}, by
            assert by["final-a"]["seats"] == [
                ["Ai", "41,000"], ["Bo", "22,000"], ["Cy", "19,000"], ["Di", "18,000"]]
            assert by["final-b"]["seats"][1] == ["Fu", "30,500"]
            # the hand within the round (issue 28 item 7): S1 and S4 differ
            assert by["final-a"]["round"] == "South 1 · Honba 2"
            assert by["final-b"]["round"] == "South 4 · Honba 2"
            save_screenshot(driver, "overlay-tables.png")
            # a table goes down: its Last Will arrives, the row greys out
            others.publish("jantaku/v1/final-b/status", _status("final-b", "offline"), 1,
                           retain=True).wait_for_publish(5)
            until_sync(lambda: any(r["table"] == "final-b" and r["online"] == "false"
                       for r in driver.execute_script(ROWS_JS)), 30, "final-b offline")
    finally:
        others.loop_stop()
        others.disconnect()
        reap(proc, 20)
        broker.stop()
