"""Tenhou's own words for engine results: the yaku names and the point text that tenhou.net/6
records carry (``立直(1飜)``, ``30符3飜1000-2000点``, a dealer's self-draw ``…点∀``), so an exported
game reads in Tenhou's viewer and in review tools as one of Tenhou's own.

The engine's yaku names are those of the ``mahjong`` package (``Riichi``, ``Yakuhai (haku)``); a
name Tenhou has no word for stays as it is.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_WINDS = {"east": "東", "south": "南", "west": "西", "north": "北"}

#: ``mahjong`` package yaku name → Tenhou's (the names of the Tenhou viewer).
YAKU: dict[str, str] = {
    "Menzen Tsumo": "門前清自摸和",
    "Riichi": "立直",
    "Ippatsu": "一発",
    "Chankan": "槍槓",
    "Rinshan Kaihou": "嶺上開花",
    "Haitei Raoyue": "海底摸月",
    "Houtei Raoyui": "河底撈魚",
    "Pinfu": "平和",
    "Tanyao": "断幺九",
    "Iipeiko": "一盃口",
    "Yakuhai (haku)": "役牌 白",
    "Yakuhai (hatsu)": "役牌 發",
    "Yakuhai (chun)": "役牌 中",
    **{f"Yakuhai (seat wind {w})": f"自風 {ja}" for w, ja in _WINDS.items()},
    **{f"Yakuhai (round wind {w})": f"場風 {ja}" for w, ja in _WINDS.items()},
    "Double Riichi": "両立直",
    "Chiitoitsu": "七対子",
    "Chantai": "混全帯幺九",
    "Ittsu": "一気通貫",
    "Sanshoku Doujun": "三色同順",
    "Sanshoku Doukou": "三色同刻",
    "San Kantsu": "三槓子",
    "Toitoi": "対々和",
    "San Ankou": "三暗刻",
    "Shou Sangen": "小三元",
    "Honroutou": "混老頭",
    "Ryanpeikou": "二盃口",
    "Junchan": "純全帯幺九",
    "Honitsu": "混一色",
    "Chinitsu": "清一色",
    "Renhou": "人和",
    "Renhou (yakuman)": "人和",
    "Tenhou": "天和",
    "Chiihou": "地和",
    "Daisangen": "大三元",
    "Suu Ankou": "四暗刻",
    "Suu Ankou Tanki": "四暗刻単騎",
    "Tsuu Iisou": "字一色",
    "Ryuuiisou": "緑一色",
    "Chinroutou": "清老頭",
    "Chuuren Poutou": "九蓮宝燈",
    "Daburu Chuuren Poutou": "純正九蓮宝燈",
    "Kokushi Musou": "国士無双",
    "Kokushi Musou Juusanmen Matchi": "国士無双１３面",
    "Dai Suushii": "大四喜",
    "Shousuushii": "小四喜",
    "Suu Kantsu": "四槓子",
    "Nagashi Mangan": "流し満貫",
    "Dora": "ドラ",
    "Aka Dora": "赤ドラ",
    "Ura Dora": "裏ドラ",
}

#: The engine's limit names (rules.scoring.limits) → Tenhou's; every yakuman is 役満.
LIMITS = {"mangan": "満貫", "haneman": "跳満", "baiman": "倍満", "sanbaiman": "三倍満"}


def yaku_name(name: str) -> str:
    return YAKU.get(name, name)


def _up100(value: float) -> int:
    return -(-int(value) // 100) * 100


def points_text(win: Mapping[str, Any], dealer: int) -> str | None:
    """Tenhou's point text for a riichi settlement's win (``hand_ended.settlement.wins[]``):
    ``30符3飜3900点`` (ron), ``30符3飜1000-2000点`` (a non-dealer's tsumo: what each non-dealer,
    then the dealer pays), ``30符3飜2000点∀`` (the dealer's tsumo: each pays), a limit's name for
    the fu and han (``満貫8000点``, ``役満16000-32000点``). Honba are not in it, as in Tenhou's.
    ``None`` when the win lacks what it takes (a manual or Zung Jung result)."""
    basic, points = win.get("basic"), win.get("points")
    if win.get("family") != "riichi" or not isinstance(basic, int) or not isinstance(points, int):
        return None
    limit = str(win.get("limit") or "")
    if limit.endswith("yakuman") or win.get("yakuman"):
        head = "役満"
    elif limit in LIMITS:
        head = LIMITS[limit]
    elif isinstance(win.get("han"), int) and isinstance(win.get("fu"), int):
        head = f"{win['fu']}符{win['han']}飜"
    else:
        return None
    if not win.get("tsumo"):
        return f"{head}{points}点"
    if int(win["winner"]) == dealer:
        return f"{head}{_up100(2 * basic)}点∀"
    return f"{head}{_up100(basic)}-{_up100(2 * basic)}点"
