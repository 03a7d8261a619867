"""The overlay's Japanese and Chinese words (daemon/web/static/overlay/words.js) cover every
name the engine can put on the result card: each yaku name of the engine (the keys of
rules/records/tenhou_words.py:YAKU, the ``mahjong`` package's names) and each limit name of
rules/scoring/limits.py, and the tsumo label of a condition. words.js runs in node, as the page
runs it."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

from rules.records.tenhou_words import YAKU
from rules.scoring.zung_jung_patterns import PATTERNS

WORDS = Path(__file__).parents[2] / "daemon/web/static/overlay/words.js"
LIMITS = ("mangan", "haneman", "baiman", "sanbaiman", "yakuman", "kazoe yakuman", "2x yakuman")
PROBE = """
;const names = %s, limits = %s, zj = %s;
const out = {};
for (const lang of ["ja", "zh"]) {
  out[lang] = {yaku: names.map((n) => yakuWord(lang, n)),
               zj: zj.map((n) => yakuWord(lang, n)),
               limits: limits.map((l) => limitWord(lang, l)),
               all: needLabel(lang, "2,000 all"), split: needLabel(lang, "1,000-2,000"),
               rank: RANK_WORDS[lang][2]};
}
console.log(JSON.stringify(out));
"""


def _words() -> dict[str, dict[str, Any]]:
    node = shutil.which("node")
    assert node is not None, "node is not installed (bin/ensure-services installs it)"
    code = WORDS.read_text(encoding="utf-8") + PROBE % (
        json.dumps(sorted(YAKU)), json.dumps(LIMITS), json.dumps([p.key for p in PATTERNS]))
    run = subprocess.run([node, "-e", code], capture_output=True, text=True, timeout=30,
                         check=True)
    out: dict[str, dict[str, Any]] = json.loads(run.stdout)
    return out


def test_every_engine_name_has_a_japanese_and_a_chinese_word() -> None:
    words = _words()
    for lang in ("ja", "zh"):
        got = words[lang]
        for name, word in zip(sorted(YAKU), got["yaku"], strict=True):
            assert word != name and not any("a" <= c.lower() <= "z" for c in word), (lang, name)
        for limit, word in zip(LIMITS, got["limits"], strict=True):
            assert word != limit and not any("a" <= c.lower() <= "z" for c in word), (lang, limit)
    assert words["ja"]["yaku"][sorted(YAKU).index("Menzen Tsumo")] == "門前清自摸和"
    assert words["zh"]["yaku"][sorted(YAKU).index("Aka Dora")] == "赤宝牌"
    assert words["ja"]["all"] == "2,000オール" and words["zh"]["all"] == "各家2,000"
    assert words["ja"]["split"] == "1,000-2,000" and words["ja"]["rank"] == "3位"
    assert words["zh"]["rank"] == "第3名"


def test_every_zung_jung_pattern_shows_its_chinese_name() -> None:
    """A WMC broadcast in Japanese or Chinese shows each pattern by its Zung Jung Chinese name
    (the key the engine puts on the card -> rules/scoring/zung_jung_patterns.py ``chinese``)."""
    words = _words()
    for lang in ("ja", "zh"):
        assert words[lang]["zj"] == [p.chinese for p in PATTERNS], lang
