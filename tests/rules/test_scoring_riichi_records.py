"""Tile-scored hands from real Tenhou records (``tests/data/game-logs/``, tenhou.net/6 JSON),
settled under the ``tenhou`` ruleset: han, fu, yakuman and the yaku must match what the record
shows, and the score changes must equal its result array exactly.

Each hand (``tests/data/game-logs/record_wins.toml``) was read off the record by hand: the
winner's final concealed tiles (without the winning tile), the melds, the winning tile, dora/ura
indicators, who won from whom, the round, honba and deposits at the start of the hand, and how
many riichi sticks were put down during it
(the record's deltas include the sticks the winner collects, but not the sticks paid). The
situation flags (riichi, ippatsu, rinshan, chankan, haitei) are facts of the play. Yaku names
are compared through a table from Tenhou's Japanese names to the ``mahjong`` package's.
Provenance and licences: ``tests/data/game-logs/README.md`` (mjai-reviewer: Apache-2.0;
riichi-rs: LGPL-2.1).
"""

from __future__ import annotations

import re
import tomllib
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from hil.hand_notation import tiles_from_text, win_from_text
from rules.outcome import HandContext, HandOutcome, MeldKind, Win
from rules.ruleset import load_ruleset
from rules.seats import Seat, Wind
from rules.settlement import settle

T = load_ruleset("tenhou")
M = load_ruleset("mleague")

JA_YAKU = {
    "立直": "Riichi",
    "ダブル立直": "Double Riichi",
    "一発": "Ippatsu",
    "門前清自摸和": "Menzen Tsumo",
    "平和": "Pinfu",
    "断幺九": "Tanyao",
    "一盃口": "Iipeiko",
    "二盃口": "Ryanpeikou",
    "役牌 白": "Yakuhai (haku)",
    "役牌 發": "Yakuhai (hatsu)",
    "役牌 中": "Yakuhai (chun)",
    "場風 東": "Yakuhai (round wind east)",
    "場風 南": "Yakuhai (round wind south)",
    "自風 東": "Yakuhai (seat wind east)",
    "自風 南": "Yakuhai (seat wind south)",
    "自風 西": "Yakuhai (seat wind west)",
    "自風 北": "Yakuhai (seat wind north)",
    "混一色": "Honitsu",
    "清一色": "Chinitsu",
    "七対子": "Chiitoitsu",
    "対々和": "Toitoi",
    "三暗刻": "San Ankou",
    "三槓子": "San Kantsu",
    "小三元": "Shou Sangen",
    "三色同順": "Sanshoku Doujun",
    "一気通貫": "Ittsu",
    "混全帯幺九": "Chantai",
    "純全帯幺九": "Junchan",
    "嶺上開花": "Rinshan Kaihou",
    "槍槓": "Chankan",
    "海底摸月": "Haitei Raoyue",
    "河底撈魚": "Houtei Raoyui",
    "ドラ": "Dora",
    "赤ドラ": "Aka Dora",
    "裏ドラ": "Ura Dora",
    "四槓子": "Suu Kantsu",
    "清老頭": "Chinroutou",
    "小四喜": "Shousuushii",
    "字一色": "Tsuu Iisou",
    "四暗刻": "Suu Ankou",
    "四暗刻単騎": "Suu Ankou Tanki",
}


@dataclass(frozen=True)
class Case:
    record: str
    index: int
    kyoku: int
    honba: int
    deposits: int
    riichi_sticks: int
    dora: str
    ura: str
    winner: int
    loser: int | None
    hand: str
    win: str
    melds: list[tuple[MeldKind, str]]
    flags: dict[str, bool]
    result: list[str]
    deltas: tuple[int, int, int, int]
    aka: bool = True

    @property
    def key(self) -> str:
        return f"{self.record}:{self.index}"

    def context(self) -> HandContext:
        return HandContext(
            dealer=Seat(self.kyoku % 4),
            round_wind=Wind(self.kyoku // 4),
            honba=self.honba,
            deposits=self.deposits + self.riichi_sticks,
            scores=(25000, 25000, 25000, 25000),
            aka=self.aka,
            dora_indicators=tiles_from_text(self.dora),
            ura_indicators=tiles_from_text(self.ura) if self.ura else (),
        )

    def to_win(self) -> Win:
        return win_from_text(
            self.hand,
            self.win,
            winner=Seat(self.winner),
            loser=None if self.loser is None else Seat(self.loser),
            melds=self.melds,
            **self.flags,
        )


DATA = Path(__file__).resolve().parents[1] / "data" / "game-logs" / "record_wins.toml"


def _case(entry: dict[str, Any]) -> Case:
    return Case(
        record=entry["record"], index=entry["index"], kyoku=entry["kyoku"],
        honba=entry["honba"], deposits=entry["deposits"], riichi_sticks=entry["riichi_sticks"],
        dora=entry["dora"], ura=entry["ura"], winner=entry["winner"],
        loser=entry.get("loser"), hand=entry["hand"], win=entry["win"],
        melds=[(kind, tiles) for kind, tiles in entry["melds"]], flags=dict(entry["flags"]),
        result=list(entry["result"]), deltas=tuple(entry["deltas"]),  # type: ignore[arg-type]
        aka=entry.get("aka", True),
    )


CASES = [_case(e) for e in tomllib.loads(DATA.read_text(encoding="utf-8"))["win"]]

# Several rons on one discard share a hand: settle them together.
HANDS: dict[str, list[Case]] = defaultdict(list)
for _case in CASES:
    HANDS[_case.key].append(_case)


def _expected(result: list[str]) -> tuple[int, int, dict[str, int], int]:
    """(han, fu, yaku → han, yakuman) from a record's result strings."""
    m = re.match(r"(\d+)符(\d+)飜", result[0])
    fu = int(m.group(1)) if m else 0
    yaku: dict[str, int] = {}
    han = 0
    yakuman = 0
    for item in result[1:]:
        name, value = re.match(r"(.+)\((\d+飜|役満)\)", item).groups()  # type: ignore[union-attr]
        if value == "役満":
            yakuman += 1
            continue
        n = int(value[:-1])
        han += n
        if n:
            yaku[JA_YAKU[name]] = n
    return han, fu, yaku, yakuman


@pytest.mark.parametrize("key", sorted(HANDS))
def test_record_hand(key: str) -> None:
    cases = HANDS[key]
    context = cases[0].context()
    s = settle(T, HandOutcome("win", context, wins=tuple(c.to_win() for c in cases)))
    by_winner = {int(w.winner): w for w in s.wins}
    total = [0, 0, 0, 0]
    for case in cases:
        value = by_winner[case.winner]
        han, fu, yaku, yakuman = _expected(case.result)
        if yakuman:
            assert value.yakuman == yakuman
            assert {name for name, _ in value.yaku} == {
                JA_YAKU[re.sub(r"\(.*", "", y)] for y in case.result[1:] if "役満" in y
            }
        else:
            assert (value.han, value.yakuman) == (han, 0)
            assert dict(value.yaku) == yaku
            # Tenhou prints no fu for mangan and above; below, ours must match.
            if fu:
                assert value.fu == fu
        for seat in range(4):
            total[seat] += case.deltas[seat]
    assert s.deltas == tuple(total)


def test_every_record_hand_is_read() -> None:
    assert len(CASES) >= 20 and len(HANDS) >= 18


def test_the_same_30_fu_4_han_is_a_kiriage_mangan_under_m_league() -> None:
    """ranked_game.json hand 1: Tenhou pays 30符4飜7700; M 6-4-2 rounds it up to 8000."""
    (case,) = HANDS["ranked_game.json:0"]
    outcome = HandOutcome("win", case.context(), wins=(case.to_win(),))
    assert settle(T, outcome).deltas[case.winner] == 7700
    assert settle(M, outcome).deltas[case.winner] == 8000
