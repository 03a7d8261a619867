"""Tile-scored hands from real Tenhou records (``tests/data/game-logs/``, tenhou.net/6 JSON),
settled under the ``tenhou`` ruleset: han, fu, yakuman and the yaku must match what the record
shows, and the score changes must equal its result array exactly.

Each hand below was read off the record by hand: the winner's final concealed tiles (without the
winning tile), the melds, the winning tile, dora/ura indicators, who won from whom, the round,
honba and deposits at the start of the hand, and how many riichi sticks were put down during it
(the record's deltas include the sticks the winner collects, but not the sticks paid). The
situation flags (riichi, ippatsu, rinshan, chankan, haitei) are facts of the play. Yaku names
are compared through a table from Tenhou's Japanese names to the ``mahjong`` package's.
Provenance and licences: ``tests/data/game-logs/README.md`` (mjai-reviewer: Apache-2.0;
riichi-rs: LGPL-2.1).
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import pytest

from rules.outcome import HandContext, HandOutcome, MeldKind, Win
from rules.ruleset import load_ruleset
from rules.scoring.notation import tiles_from_text, win_from_text
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
    extra: dict[str, Any] = field(default_factory=dict)

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


def hand_case(*args: Any, record: list[str], **kw: Any) -> Case:
    return Case(*args, **{**kw, "result": record})


CASES = [
    hand_case(
        "2022080601gm-00a9-0000-e3595545.json",
        0,
        kyoku=0,
        honba=0,
        deposits=0,
        riichi_sticks=1,
        dora="9s",
        ura="0p",
        winner=2,
        loser=3,
        hand="123m12367p234s55z",
        win="8p",
        melds=[],
        flags={"riichi": True},
        record=["40符2飜2600点", "立直(1飜)", "裏ドラ(1飜)"],
        deltas=(0, 0, 3600, -2600),
    ),
    hand_case(
        "2022080601gm-00a9-0000-e3595545.json",
        1,
        kyoku=1,
        honba=0,
        deposits=0,
        riichi_sticks=0,
        dora="6s",
        ura="",
        winner=2,
        loser=0,
        hand="345678m456p4466s",
        win="4s",
        melds=[],
        flags={},
        record=["40符1飜1300点", "断幺九(1飜)"],
        deltas=(-1300, 0, 1300, 0),
    ),
    hand_case(
        "2022080601gm-00a9-0000-e3595545.json",
        3,
        kyoku=2,
        honba=1,
        deposits=1,
        riichi_sticks=0,
        dora="1m6p",
        ura="",
        winner=2,
        loser=None,
        hand="2388m340s",
        win="4m",
        melds=[("pon", "555m"), ("pon", "888p")],
        flags={},
        record=["30符3飜2000点∀", "断幺九(1飜)", "ドラ(1飜)", "赤ドラ(1飜)"],
        deltas=(-2100, -2100, 7300, -2100),
    ),
    hand_case(
        "2022080601gm-00a9-0000-e3595545.json",
        5,
        kyoku=2,
        honba=3,
        deposits=1,
        riichi_sticks=1,
        dora="3z",
        ura="6p",
        winner=0,
        loser=None,
        hand="34506799m567p06s",
        win="4s",
        melds=[],
        flags={"riichi": True},
        record=[
            "跳満3000-6000点",
            "立直(1飜)",
            "門前清自摸和(1飜)",
            "平和(1飜)",
            "赤ドラ(2飜)",
            "裏ドラ(1飜)",
        ],
        deltas=(14900, -3300, -6300, -3300),
    ),
    hand_case(
        "2022080601gm-00a9-0000-e3595545.json",
        7,
        kyoku=4,
        honba=1,
        deposits=1,
        riichi_sticks=0,
        dora="3z",
        ura="",
        winner=3,
        loser=None,
        hand="345m45p99s",
        win="3p",
        melds=[("pon", "777z"), ("pon", "888m")],
        flags={},
        record=["30符1飜300-500点", "役牌 中(1飜)"],
        deltas=(-600, -400, -400, 2400),
    ),
    hand_case(
        "2022080601gm-00a9-0000-e3595545.json",
        14,
        kyoku=7,
        honba=1,
        deposits=0,
        riichi_sticks=0,
        dora="6z",
        ura="",
        winner=0,
        loser=None,
        hand="11m1199p6677s335z",
        win="5z",
        melds=[],
        flags={},
        record=["25符3飜800-1600点", "門前清自摸和(1飜)", "七対子(2飜)"],
        deltas=(3500, -900, -900, -1700),
    ),
    hand_case(
        "ron-2-no-honba.json",
        4,
        kyoku=1,
        honba=2,
        deposits=1,
        riichi_sticks=0,
        dora="5s",
        ura="",
        winner=0,
        loser=3,
        hand="34567m40688p567s",
        win="2m",
        melds=[],
        flags={},
        record=["30符4飜7700点", "平和(1飜)", "断幺九(1飜)", "ドラ(1飜)", "赤ドラ(1飜)"],
        deltas=(9300, 0, 0, -8300),
    ),
    hand_case(
        "ron-2-no-honba.json",
        4,
        kyoku=1,
        honba=2,
        deposits=1,
        riichi_sticks=0,
        dora="5s",
        ura="",
        winner=2,
        loser=3,
        hand="34678m34566p",
        win="2m",
        melds=[("chi", "234s")],
        flags={},
        record=["30符1飜1000点", "断幺九(1飜)"],
        deltas=(0, 0, 1000, -1000),
    ),
    hand_case(
        "yakuman-2.json",
        4,
        kyoku=4,
        honba=0,
        deposits=0,
        riichi_sticks=1,
        dora="8s",
        ura="",
        winner=1,
        loser=3,
        hand="2333z",
        win="2z",
        melds=[("pon", "666z"), ("pon", "111z"), ("pon", "444z")],
        flags={},
        record=["役満64000点", "小四喜(役満)", "字一色(役満)"],
        deltas=(0, 65000, 0, -64000),
    ),
    hand_case(
        "yakuman-four-kans-2.json",
        2,
        kyoku=2,
        honba=0,
        deposits=0,
        riichi_sticks=0,
        dora="256m8p6z",
        ura="",
        winner=3,
        loser=None,
        hand="9m",
        win="9m",
        melds=[
            ("kakan", "1111p"),
            ("daiminkan", "9999p"),
            ("daiminkan", "1111m"),
            ("kakan", "9999s"),
        ],
        flags={},
        record=["役満16000-32000点", "四槓子(役満)", "清老頭(役満)"],
        deltas=(-16000, -16000, -32000, 64000),
    ),
    hand_case(
        "furiten.json",
        4,
        kyoku=4,
        honba=0,
        deposits=0,
        riichi_sticks=0,
        dora="6s",
        ura="",
        winner=0,
        loser=None,
        hand="999m66777888s66z",
        win="6z",
        melds=[],
        flags={},
        record=["役満16000点∀", "四暗刻(役満)"],
        deltas=(48000, -16000, -16000, -16000),
    ),
    hand_case(
        "yakuman-kazoe.json",
        0,
        kyoku=7,
        honba=0,
        deposits=0,
        riichi_sticks=1,
        dora="9s",
        ura="6m",
        winner=0,
        loser=None,
        hand="1122336778899s",
        win="6s",
        melds=[],
        flags={"riichi": True, "ippatsu": True},
        record=[
            "役満8000-16000点",
            "立直(1飜)",
            "一発(1飜)",
            "門前清自摸和(1飜)",
            "平和(1飜)",
            "二盃口(3飜)",
            "清一色(6飜)",
            "ドラ(2飜)",
        ],
        deltas=(33000, -8000, -8000, -16000),
    ),
    hand_case(
        "rinshan.json",
        0,
        kyoku=5,
        honba=0,
        deposits=0,
        riichi_sticks=1,
        dora="1m2s",
        ura="8s3z",
        winner=3,
        loser=None,
        hand="33m45p123505s",
        win="6p",
        melds=[("ankan", "6666m")],
        flags={"riichi": True, "rinshan": True},
        record=[
            "満貫2000-4000点",
            "立直(1飜)",
            "嶺上開花(1飜)",
            "門前清自摸和(1飜)",
            "ドラ(1飜)",
            "赤ドラ(1飜)",
        ],
        deltas=(-2000, -4000, -2000, 9000),
    ),
    hand_case(
        "chankan.json",
        0,
        kyoku=0,
        honba=0,
        deposits=0,
        riichi_sticks=0,
        dora="3s",
        ura="",
        winner=2,
        loser=3,
        hand="50567m40s111z",
        win="6s",
        melds=[("pon", "333m")],
        flags={"chankan": True},
        record=["満貫8000点", "槍槓(1飜)", "場風 東(1飜)", "ドラ(1飜)", "赤ドラ(2飜)"],
        deltas=(0, 0, 8000, -8000),
    ),
    hand_case(
        "suukantsu_1.json",
        1,
        kyoku=1,
        honba=0,
        deposits=0,
        riichi_sticks=1,
        dora="15m48p1z",
        ura="2m7p3s47z",
        winner=3,
        loser=2,
        hand="7p",
        win="7p",
        melds=[("kakan", "9999s"), ("kakan", "7777s"), ("kakan", "9999p"), ("daiminkan", "2222p")],
        flags={},
        record=["役満32000点", "四槓子(役満)"],
        deltas=(0, 0, -32000, 33000),
    ),
    hand_case(
        "suukantsu_1.json",
        1,
        kyoku=1,
        honba=0,
        deposits=0,
        riichi_sticks=1,
        dora="15m48p1z",
        ura="2m7p3s47z",
        winner=0,
        loser=2,
        hand="67899m56p234s555z",
        win="7p",
        melds=[],
        flags={"riichi": True},
        record=["倍満16000点", "立直(1飜)", "役牌 白(1飜)", "ドラ(2飜)", "裏ドラ(4飜)"],
        deltas=(16000, 0, -16000, 0),
    ),
    hand_case(
        "ranked_game.json",
        0,
        kyoku=0,
        honba=0,
        deposits=0,
        riichi_sticks=0,
        dora="4m",
        ura="",
        winner=3,
        loser=2,
        hand="3340678p",
        win="9p",
        melds=[("pon", "666z"), ("pon", "222p")],
        flags={},
        record=["30符4飜7700点", "役牌 發(1飜)", "混一色(2飜)", "赤ドラ(1飜)"],
        deltas=(0, 0, -7700, 7700),
    ),
    hand_case(
        "yakuman-kazoe-17.json",
        5,
        kyoku=3,
        honba=0,
        deposits=0,
        riichi_sticks=0,
        dora="36s6z",
        ura="",
        winner=3,
        loser=None,
        hand="6z",
        win="6z",
        melds=[("pon", "888s"), ("kakan", "1111z"), ("kakan", "7777z"), ("kakan", "5555z")],
        flags={"rinshan": True},
        record=[
            "役満16000点∀",
            "嶺上開花(1飜)",
            "小三元(2飜)",
            "三槓子(2飜)",
            "対々和(2飜)",
            "場風 東(1飜)",
            "自風 東(1飜)",
            "役牌 中(1飜)",
            "役牌 白(1飜)",
            "混一色(2飜)",
            "ドラ(4飜)",
        ],
        deltas=(-16000, -16000, -16000, 48000),
    ),
    hand_case(
        "abort-almost-nagashi-mangan.json",
        9,
        kyoku=5,
        honba=1,
        deposits=1,
        riichi_sticks=0,
        dora="9m",
        ura="",
        winner=1,
        loser=3,
        hand="34m456p44789s",
        win="2m",
        melds=[("pon", "777z")],
        flags={},
        record=["30符1飜1500点", "役牌 中(1飜)"],
        deltas=(0, 2800, 0, -1800),
    ),
    hand_case(
        "abort-almost-nagashi-mangan.json",
        9,
        kyoku=5,
        honba=1,
        deposits=1,
        riichi_sticks=0,
        dora="9m",
        ura="",
        winner=2,
        loser=3,
        hand="2777m111999p555z",
        win="2m",
        melds=[],
        flags={},
        record=["役満32000点", "四暗刻単騎(役満)"],
        deltas=(0, 0, 32000, -32000),
    ),
    hand_case(
        "2022080818gm-00a9-0000-6c4ec7d1.json",
        6,
        kyoku=6,
        honba=0,
        deposits=0,
        riichi_sticks=1,
        dora="2m",
        ura="",
        winner=3,
        loser=None,
        hand="1234445667788s",
        win="9s",
        melds=[],
        flags={"haitei": True},
        record=[
            "三倍満6000-12000点",
            "海底摸月(1飜)",
            "門前清自摸和(1飜)",
            "平和(1飜)",
            "一気通貫(2飜)",
            "清一色(6飜)",
        ],
        deltas=(-6000, -6000, -12000, 25000),
    ),
    hand_case(
        "furiten.json",
        3,
        kyoku=3,
        honba=0,
        deposits=0,
        riichi_sticks=0,
        dora="3m",
        ura="",
        winner=2,
        loser=1,
        hand="22s11666z",
        win="2s",
        melds=[("pon", "777z"), ("pon", "333s")],
        flags={},
        record=["跳満12000点", "対々和(2飜)", "役牌 發(1飜)", "役牌 中(1飜)", "混一色(2飜)"],
        deltas=(0, -12000, 12000, 0),
    ),
    hand_case(
        "confusing_nakis_5.json",
        0,
        kyoku=4,
        honba=0,
        deposits=0,
        riichi_sticks=0,
        dora="2m",
        ura="",
        winner=0,
        loser=3,
        hand="56m123p234s77z",
        win="4m",
        melds=[("pon", "222z")],
        flags={},
        record=["30符1飜1500点", "場風 南(1飜)"],
        deltas=(1500, 0, 0, -1500),
    ),
    hand_case(
        "2022080600gm-00a9-0000-b8ad3aee.json",
        0,
        kyoku=0,
        honba=0,
        deposits=0,
        riichi_sticks=1,
        dora="2s",
        ura="2z",
        winner=1,
        loser=3,
        hand="4455m1155p1188s6z",
        win="6z",
        melds=[],
        flags={"riichi": True, "ippatsu": True},
        record=["25符4飜6400点", "立直(1飜)", "一発(1飜)", "七対子(2飜)"],
        deltas=(0, 7400, 0, -6400),
    ),
]

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
