"""Issue 28 item 4, the sensor side: ``jantaku export FILE --to tenhou6 --results engine`` writes
the engine's own results for a real Tenhou record, and every result entry reads as Tenhou wrote
it: each draw's entry whole (九種九牌, 四家立直, 四風連打, 三家和了 alone; 流局 and 流し満貫 with
their deltas), each win's points text, and its yaku strings (as a set: the order of Tenhou's
yakuhai is not fixed). The records are real Tenhou games (tests/data/game-logs/README.md)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from console_script import jantaku_command

LOGS = Path(__file__).resolve().parents[1] / "data" / "game-logs"
RECORDS = [
    "riichi-rs/notable-features/99.json",
    "riichi-rs/notable-features/abort-four-riichi.json",
    "riichi-rs/notable-features/abort-four-wind.json",
    "riichi-rs/notable-features/ron-3.json",
    "riichi-rs/notable-features/abort-nagashi-mangan.json",
    "mjai-reviewer/ryukyoku.json",
    "riichi-rs/notable-features/ron-2-no-honba.json",
    "riichi-rs/notable-features/yakuman-kazoe-17.json",
    "riichi-rs/notable-features/yakuman-2.json",
    "riichi-rs/random-games/2022080818gm-00a9-0000-6c4ec7d1.json",
]


@pytest.mark.parametrize("name", RECORDS)
def test_the_engine_s_results_read_as_tenhou_s(name: str) -> None:
    path = LOGS / name
    r = subprocess.run([jantaku_command(), "export", str(path), "--to", "tenhou6", "--results",
                        "engine"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    ours = json.loads(r.stdout)["log"]
    real = json.loads(path.read_text(encoding="utf-8"))["log"]
    assert len(ours) == len(real)
    for n, (a, b) in enumerate(zip(ours, real, strict=True)):
        got, want = a[16], b[16]
        if want[0] != "和了":
            assert got == want, (n, got, want)
            continue
        assert got[0] == "和了" and len(got) == len(want), (n, got, want)
        for x, y in zip(got[2::2], want[2::2], strict=True):
            assert x[:4] == y[:4], (n, x, y)  # seats and the points text
            assert sorted(x[4:]) == sorted(y[4:]), (n, x, y)
