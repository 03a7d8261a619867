"""Issue 28 item 4: the tenhou.net/6 export of a table without sensors (``jantaku log export
--format tenhou6`` on a real event log of referee results) writes every result in Tenhou's own
words. The expected texts are Tenhou's, read off the real records in tests/data/game-logs (their
provenance: tests/data/game-logs/README.md): for each kind of win found there (ron, dealer and
non-dealer tsumo, each limit, kazoe and counted yakuman) one win of the same value is entered
with the yaku a referee ticks on the console's checklist, and the export must give the record's
points text and yaku strings; every draw kind likewise (全員不聴, 全員聴牌, 流局 with the tenpai
payments, 九種九牌, 四風連打, 四家立直, 四槓散了, 三家和了). The export is opened as JSON and the
hands are checked against the real records' layout."""

from __future__ import annotations

import json
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from console_script import jantaku_command
from sensorless_log import SensorlessLog, sensorless_log

from rules.records.tenhou_words import YAKU

DATA = Path(__file__).resolve().parents[1] / "data" / "game-logs"
FROM_TENHOU = {ja: en for en, ja in YAKU.items()}
LIMIT_HAN = {"満貫": 5, "跳満": 6, "倍満": 8, "三倍満": 11}
_YAKU = re.compile(r"^(.+)\((\d+)飜\)$|^(.+)\(役満\)$")


@dataclass(frozen=True)
class RealWin:
    """One win of a real record: what a referee enters, and what Tenhou wrote."""

    file: str
    dealer: bool
    tsumo: bool
    text: str
    yaku: tuple[str, ...]

    def entry(self, winner: int) -> dict[str, Any]:
        pairs: list[list[Any]] = []
        for y in self.yaku:
            m = _YAKU.match(y)
            assert m is not None, y
            name = m.group(1) or m.group(3)
            pairs.append([FROM_TENHOU[name], int(m.group(2)) if m.group(2) else 13])
        win: dict[str, Any] = {"winner": winner, "yaku": pairs}
        yakuman = sum(1 for y in self.yaku if y.endswith("(役満)"))
        han = sum(h for _, h in pairs)
        if yakuman:
            win["yakuman"] = yakuman
        else:
            win["han"] = han
            fu = re.match(r"^(\d+)符", self.text)
            if fu:
                win["fu"] = int(fu.group(1))
            elif han < 5:  # a mangan of 4 han 40 fu or 3 han 70 fu
                win["fu"] = {4: 40, 3: 70}[han]
        if any(name in ("Riichi", "Double Riichi") for name, _ in pairs):
            win["riichi"] = True
        return win


def shape(w: RealWin) -> tuple[str, bool, bool, bool]:
    head = re.sub(r"\d+", "N", w.text)
    return head, w.dealer, w.tsumo, any(y.endswith("(役満)") for y in w.yaku)


def real_wins() -> list[RealWin]:
    """Every win of the real records whose words are all Tenhou's (one converter's record
    writes English yaku names), without pao; seats as the record numbers them."""
    out = []
    for f in sorted(DATA.rglob("*.json")):
        for hand in json.loads(f.read_text(encoding="utf-8"))["log"]:
            result, dealer = hand[-1], hand[0][0] % 4
            if result[0] != "和了":
                continue
            for line in result[2::2]:
                if len(line) < 5 or line[2] != line[0]:
                    continue
                names = [(m.group(1) or m.group(3)) if (m := _YAKU.match(y)) else None
                         for y in line[4:]]
                if all(n in FROM_TENHOU for n in names):
                    out.append(RealWin(f.name, line[0] == dealer, line[0] == line[1],
                                       line[3], tuple(line[4:])))
    return out


def chosen() -> list[RealWin]:
    """One win per kind of text (ron / tsumo, dealer or not, each limit, yakuman), and one more
    for every Tenhou yaku word the first choice has not shown yet."""
    picked: dict[Any, RealWin] = {}
    shown: set[str] = set()
    for w in real_wins():
        if shape(w) not in picked:
            picked[shape(w)] = w
            shown |= set(w.yaku)
    for w in real_wins():
        if not set(w.yaku) <= shown and all(not y.endswith("(0飜)") for y in w.yaku):
            picked[(w.file, w.text, w.yaku)] = w
            shown |= set(w.yaku)
    return list(picked.values())


def play(t: SensorlessLog, w: RealWin) -> None:
    dealer = int(t.dealer)
    winner = dealer if w.dealer else (dealer + 1) % 4
    entry = w.entry(winner)
    riichi = [winner] if entry.pop("riichi", False) else []
    if w.tsumo:
        t.result(kind="tsumo", riichi=riichi, wins=[entry])
    else:
        t.result(kind="ron", riichi=riichi, wins=[{**entry, "loser": (winner + 1) % 4}])


#: each draw kind: the referee's result, and Tenhou's result entry (deltas of the real records:
#: ron-2-no-honba.json's 流局 with one seat tenpai; the abortive draws of abort-*.json, 99.json,
#: ron-3.json; 全員不聴 / 全員聴牌 / 四槓散了 are Tenhou's words for the other draws)
DRAWS: list[tuple[dict[str, Any], list[Any]]] = [
    ({"kind": "exhaustive", "tenpai": []}, ["全員不聴"]),
    ({"kind": "exhaustive", "tenpai": [0, 1, 2, 3]}, ["全員聴牌"]),
    ({"kind": "exhaustive", "tenpai": [1]}, ["流局", [-1000, 3000, -1000, -1000]]),
    ({"kind": "abortive", "abort": "nine_terminals"}, ["九種九牌"]),
    ({"kind": "abortive", "abort": "four_winds"}, ["四風連打"]),
    ({"kind": "abortive", "abort": "four_riichi", "riichi": [0, 1, 2, 3]}, ["四家立直"]),
    ({"kind": "abortive", "abort": "four_kans"}, ["四槓散了"]),
    ({"kind": "abortive", "abort": "triple_ron"}, ["三家和了"]),
]


def export(db: Path, game: int) -> dict[str, Any]:
    r = subprocess.run([jantaku_command(), "log", "export", "--db", str(db), "--game",
                        str(game), "--format", "tenhou6"], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    assert "results only" in r.stderr
    data: dict[str, Any] = json.loads(r.stdout)
    return data


def test_every_win_and_draw_reads_as_tenhou_writes_it(tmp_path: Path) -> None:
    wins = chosen()
    kinds = {shape(w)[:3] for w in wins}
    # the real records hold every kind: ron and tsumo, dealer and not, each limit
    assert {(h, d, ts) for h, d, ts in kinds} >= {
        ("N符N飜N点", False, False), ("N符N飜N点", True, False), ("N符N飜N-N点", False, True),
        ("N符N飜N点∀", True, True), ("満貫N点∀", True, True), ("満貫N-N点", False, True),
        ("跳満N点∀", True, True), ("三倍満N-N点", False, True), ("役満N点", False, False),
        ("役満N点∀", True, True), ("役満N-N点", False, True)}
    db = tmp_path / "t.sqlite"
    expected: list[list[list[Any]]] = []  # per game, per hand: the result entry wanted
    with sensorless_log(db) as t:
        todo: list[Any] = [*wins, *DRAWS]
        while todo:
            t.new_game("tenhou", scores=200000)  # no one busts: every hand is recorded
            expected.append([])
            while todo and not t.over:
                item = todo.pop(0)
                if isinstance(item, RealWin):
                    play(t, item)
                    expected[-1].append(["和了", item.text, list(item.yaku)])
                else:
                    t.result(**item[0])
                    expected[-1].append(item[1])
    seen = 0
    for game, want in enumerate(expected, 1):
        record = export(db, game)
        assert record["rule"]["disp"] == "般南喰赤"
        for hand, result in zip(record["log"], want, strict=False):
            assert len(hand) == 17 and isinstance(hand[16], list)
            got = hand[16]
            if result[0] == "和了":
                line = got[2]
                assert got[0] == "和了" and len(got) == 3
                assert [line[3], line[4:]] == result[1:], (line, result)
                # the seats: winner, the seat paying (itself for a tsumo), the winner again
                assert line[2] == line[0] and (line[1] == line[0]) == ("-" in line[3] or
                                                                      "∀" in line[3])
            else:
                assert got == result
            seen += 1
    assert seen == len(wins) + len(DRAWS)
