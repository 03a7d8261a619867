"""The 44 Zung Jung patterns (v1.03, [MTS]) and what each one asks of an arrangement.

Pattern *values* are ruleset data (``[zung_jung.patterns]`` in ``rules/rulesets/wmc.toml``);
this module knows only the definitions, the numbering and the series. Numbers are the ZJ
``category.series[.pattern]`` numbers: patterns of the same series never add ([MTS] Additive
Rule), so the scorer keeps only the most valuable one of each series, except 3.1 Value Honor,
which counts once per set.

Definitions follow the v1.03 text [MTS2]/[MTS3] where it was seen (1.1–3.4, 7, 8, 9.1, 9.2,
9.3 [MT5]) and the v3.3 wording ([ZJ33p], [RA]) for the rest (4.2–6, 9.4, 10): see
``docs/zung-jung.md``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from rules.scoring.zung_jung_shape import YAOCHU, Arrangement

DRAGONS = (31, 32, 33)
WINDS = (27, 28, 29, 30)


@dataclass(frozen=True, slots=True)
class PatternDef:
    key: str  # the [zung_jung.patterns] key
    number: str  # ZJ numbering, e.g. "4.2.3"
    series: str  # category.series: patterns of one series never add
    name: str
    chinese: str


PATTERNS: tuple[PatternDef, ...] = (
    PatternDef("all_sequences", "1.1", "1.1", "All Sequences", "平和"),
    PatternDef("concealed_hand", "1.2", "1.2", "Concealed Hand", "門前清"),
    PatternDef("no_terminals", "1.3", "1.3", "No Terminals", "斷么九"),
    PatternDef("mixed_one_suit", "2.1.1", "2.1", "Mixed One-Suit", "混一色"),
    PatternDef("pure_one_suit", "2.1.2", "2.1", "Pure One-Suit", "清一色"),
    PatternDef("nine_gates", "2.2", "2.2", "Nine Gates", "九蓮寶燈"),
    PatternDef("value_honor", "3.1", "3.1", "Value Honor", "番牌"),
    PatternDef("small_three_dragons", "3.2.1", "3.2", "Small Three Dragons", "小三元"),
    PatternDef("big_three_dragons", "3.2.2", "3.2", "Big Three Dragons", "大三元"),
    PatternDef("small_three_winds", "3.3.1", "3.3", "Small Three Winds", "小三風"),
    PatternDef("big_three_winds", "3.3.2", "3.3", "Big Three Winds", "大三風"),
    PatternDef("small_four_winds", "3.3.3", "3.3", "Small Four Winds", "小四喜"),
    PatternDef("big_four_winds", "3.3.4", "3.3", "Big Four Winds", "大四喜"),
    PatternDef("all_honors", "3.4", "3.4", "All Honors", "字一色"),
    PatternDef("all_triplets", "4.1", "4.1", "All Triplets", "對對和"),
    PatternDef("two_concealed_triplets", "4.2.1", "4.2", "Two Concealed Triplets", "二暗刻"),
    PatternDef("three_concealed_triplets", "4.2.2", "4.2", "Three Concealed Triplets", "三暗刻"),
    PatternDef("four_concealed_triplets", "4.2.3", "4.2", "Four Concealed Triplets", "四暗刻"),
    PatternDef("one_kong", "4.3.1", "4.3", "One Kong", "一槓"),
    PatternDef("two_kongs", "4.3.2", "4.3", "Two Kongs", "二槓"),
    PatternDef("three_kongs", "4.3.3", "4.3", "Three Kongs", "三槓"),
    PatternDef("four_kongs", "4.3.4", "4.3", "Four Kongs", "四槓"),
    PatternDef("two_identical_sequences", "5.1.1", "5.1", "Two Identical Sequences", "一般高"),
    PatternDef(
        "two_identical_sequences_twice", "5.1.2", "5.1", "Two Identical Sequences Twice", "兩般高"
    ),
    PatternDef(
        "three_identical_sequences", "5.1.3", "5.1", "Three Identical Sequences", "一色三同順"
    ),
    PatternDef(
        "four_identical_sequences", "5.1.4", "5.1", "Four Identical Sequences", "一色四同順"
    ),
    PatternDef("three_similar_sequences", "6.1", "6.1", "Three Similar Sequences", "三色同順"),
    PatternDef(
        "small_three_similar_triplets",
        "6.2.1",
        "6.2",
        "Small Three Similar Triplets",
        "三色小同刻",
    ),
    PatternDef("three_similar_triplets", "6.2.2", "6.2", "Three Similar Triplets", "三色同刻"),
    PatternDef("nine_tile_straight", "7.1", "7.1", "Nine-Tile Straight", "一氣通貫"),
    PatternDef(
        "three_consecutive_triplets", "7.2.1", "7.2", "Three Consecutive Triplets", "三連刻"
    ),
    PatternDef("four_consecutive_triplets", "7.2.2", "7.2", "Four Consecutive Triplets", "四連刻"),
    PatternDef("mixed_lesser_terminals", "8.1.1", "8.1", "Mixed Lesser Terminals", "混全帶么"),
    PatternDef("pure_lesser_terminals", "8.1.2", "8.1", "Pure Lesser Terminals", "純全帶么"),
    PatternDef("mixed_greater_terminals", "8.1.3", "8.1", "Mixed Greater Terminals", "混么九"),
    PatternDef("pure_greater_terminals", "8.1.4", "8.1", "Pure Greater Terminals", "清么九"),
    PatternDef("final_draw", "9.1.1", "9.1", "Final Draw", "海底撈月"),
    PatternDef("final_discard", "9.1.2", "9.1", "Final Discard", "河底撈魚"),
    PatternDef("win_on_kong", "9.2", "9.2", "Win on Kong", "嶺上開花"),
    PatternDef("robbing_a_kong", "9.3", "9.3", "Robbing a Kong", "搶槓"),
    PatternDef("blessing_of_heaven", "9.4.1", "9.4", "Blessing of Heaven", "天和"),
    PatternDef("blessing_of_earth", "9.4.2", "9.4", "Blessing of Earth", "地和"),
    PatternDef("thirteen_terminals", "10.1", "10.1", "Thirteen Terminals", "十三么九"),
    PatternDef("seven_pairs", "10.2", "10.2", "Seven Pairs", "七對子"),
)

BY_KEY: dict[str, PatternDef] = {p.key: p for p in PATTERNS}
ORDER: dict[str, int] = {p.key: i for i, p in enumerate(PATTERNS)}


@dataclass(frozen=True, slots=True)
class HandFacts:
    """What the patterns need beyond the arrangement itself."""

    seat_wind: int  # kind of the winner's own wind (3.1; the prevailing wind is not recognised)
    no_open_melds: bool  # no shown set except concealed kongs (1.2)
    nine_gates: bool  # the 13 tiles before the winning tile were 1112345678999 in one suit
    concealed_hand_irregular: bool  # 1.2 also for Seven Pairs / Thirteen Terminals (ruleset)
    final_draw: bool
    final_discard: bool
    win_on_kong: bool
    robbing_a_kong: bool
    blessing_of_heaven: bool
    blessing_of_earth: bool


def _suit(kind: int) -> int:
    return kind // 9  # 0, 1, 2 for the suits; 3 for honors


def _is_terminal(kind: int) -> bool:
    return kind < 27 and kind % 9 in (0, 8)


Found = list[tuple[str, int]]


def detect(arr: Arrangement, facts: HandFacts) -> Found:
    """Every pattern the arrangement fulfils, as (key, count): count is the number of sets for
    3.1 Value Honor and 1 otherwise. Same-series patterns are all reported; the scorer keeps
    the most valuable of each series."""
    found: Found = [*_categories_1_2(arr, facts), *_category_3(arr, facts)]
    if arr.shape == "regular" and arr.eyes is not None:
        found += _categories_4_6(arr)
        found += _categories_7_8_sets(arr)
    found += _category_8_tiles(arr)
    found += _categories_9_10(arr, facts)
    return found


def _categories_1_2(arr: Arrangement, facts: HandFacts) -> Found:
    found: Found = []
    kinds = set(arr.tiles)
    regular = arr.shape == "regular"
    if regular and all(g.kind == "chow" for g in arr.sets):
        found.append(("all_sequences", 1))  # 1.1
    if facts.no_open_melds and (regular or facts.concealed_hand_irregular):
        found.append(("concealed_hand", 1))  # 1.2 (concealed kongs, a win on a discard: fine)
    if all(k < 27 and k % 9 not in (0, 8) for k in kinds):
        found.append(("no_terminals", 1))  # 1.3
    suits = {_suit(k) for k in kinds}
    if len(suits - {3}) == 1:
        found.append(("mixed_one_suit" if 3 in suits else "pure_one_suit", 1))  # 2.1.1 / 2.1.2
    if regular and facts.nine_gates:
        found.append(("nine_gates", 1))  # 2.2
    return found


def _category_3(arr: Arrangement, facts: HandFacts) -> Found:
    found: Found = []
    eyes = arr.eyes
    if arr.shape == "regular" and eyes is not None:
        triplet_kinds = [g.first for g in arr.sets if g.is_triplet]
        value = [k for k in triplet_kinds if k in DRAGONS or k == facts.seat_wind]
        if value:
            found.append(("value_honor", len(value)))  # 3.1, 10 per set
        dragons = sum(1 for k in triplet_kinds if k in DRAGONS)
        if dragons == 3:
            found.append(("big_three_dragons", 1))  # 3.2.2
        elif dragons == 2 and eyes.first in DRAGONS:
            found.append(("small_three_dragons", 1))  # 3.2.1
        winds = sum(1 for k in triplet_kinds if k in WINDS)
        wind_eyes = eyes.first in WINDS
        if winds == 4:
            found.append(("big_four_winds", 1))  # 3.3.4
        elif winds == 3:
            found.append(("small_four_winds" if wind_eyes else "big_three_winds", 1))  # 3.3.3/2
        elif winds == 2 and wind_eyes:
            found.append(("small_three_winds", 1))  # 3.3.1
    if {_suit(k) for k in arr.tiles} == {3}:
        found.append(("all_honors", 1))  # 3.4
    return found


def _categories_4_6(arr: Arrangement) -> Found:
    found: Found = []
    eyes = arr.eyes
    assert eyes is not None
    triplets = [g for g in arr.sets if g.is_triplet]
    chows = [g for g in arr.sets if g.kind == "chow"]
    if len(triplets) == 4:
        found.append(("all_triplets", 1))  # 4.1
    concealed = sum(1 for g in triplets if g.concealed)
    if concealed >= 2:
        found.append((("two_concealed_triplets", "three_concealed_triplets",
                        "four_concealed_triplets")[concealed - 2], 1))  # 4.2
    kongs = sum(1 for g in arr.sets if g.kind == "kong")
    if kongs:
        found.append((("one_kong", "two_kongs", "three_kongs", "four_kongs")[kongs - 1], 1))
    # Category 5: identical sequences (same suit, same numbers).
    same = Counter(g.first for g in chows)
    most = max(same.values(), default=0)
    doubles = sum(c // 2 for c in same.values())
    if most == 4:
        found.append(("four_identical_sequences", 1))  # 5.1.4
    elif most == 3:
        found.append(("three_identical_sequences", 1))  # 5.1.3
    elif doubles == 2:
        found.append(("two_identical_sequences_twice", 1))  # 5.1.2
    elif doubles == 1:
        found.append(("two_identical_sequences", 1))  # 5.1.1
    # Category 6: similar sets (same numbers in the three suits).
    chow_starts = {g.first for g in chows}
    if any(all(n + 9 * s in chow_starts for s in range(3)) for n in range(7)):
        found.append(("three_similar_sequences", 1))  # 6.1
    trip_numbered = {g.first for g in triplets if g.first < 27}
    for n in range(9):
        have = [s for s in range(3) if n + 9 * s in trip_numbered]
        if len(have) == 3:
            found.append(("three_similar_triplets", 1))  # 6.2.2
        elif len(have) == 2 and eyes.first == n + 9 * (3 - sum(have)):
            found.append(("small_three_similar_triplets", 1))  # 6.2.1: eyes in the third suit
    return found


def _categories_7_8_sets(arr: Arrangement) -> Found:
    found: Found = []
    chow_starts = {g.first for g in arr.sets if g.kind == "chow"}
    trip_numbered = {g.first for g in arr.sets if g.is_triplet and g.first < 27}
    for s in range(3):
        if all(9 * s + n in chow_starts for n in (0, 3, 6)):
            found.append(("nine_tile_straight", 1))  # 7.1
    best = 0
    for s in range(3):
        run = 0
        for n in range(9):
            run = run + 1 if 9 * s + n in trip_numbered else 0
            best = max(best, run)
    if best >= 4:
        found.append(("four_consecutive_triplets", 1))  # 7.2.2
    elif best == 3:
        found.append(("three_consecutive_triplets", 1))  # 7.2.1
    # 8.1.1 / 8.1.2: every set and the eyes hold a terminal (or honor) tile.
    groups = arr.groups
    if all(any(k in YAOCHU for k in g.kinds) for g in groups):
        found.append(("mixed_lesser_terminals", 1))
    if all(any(_is_terminal(k) for k in g.kinds) for g in groups):
        found.append(("pure_lesser_terminals", 1))
    return found


def _category_8_tiles(arr: Arrangement) -> Found:
    # 8.1.3 / 8.1.4: terminal (and honor) tiles only; Thirteen Terminals has its own pattern.
    if arr.shape == "thirteen_terminals":
        return []
    kinds = set(arr.tiles)
    found: Found = []
    if all(k in YAOCHU for k in kinds):
        found.append(("mixed_greater_terminals", 1))
    if all(_is_terminal(k) for k in kinds):
        found.append(("pure_greater_terminals", 1))
    return found


def _categories_9_10(arr: Arrangement, facts: HandFacts) -> Found:
    # Category 9: how the hand was won; category 10: the irregular hands.
    flags = (
        (facts.final_draw, "final_draw"),  # 9.1.1
        (facts.final_discard, "final_discard"),  # 9.1.2
        (facts.win_on_kong, "win_on_kong"),  # 9.2
        (facts.robbing_a_kong, "robbing_a_kong"),  # 9.3
        (facts.blessing_of_heaven, "blessing_of_heaven"),  # 9.4.1
        (facts.blessing_of_earth, "blessing_of_earth"),  # 9.4.2
        (arr.shape == "thirteen_terminals", "thirteen_terminals"),
        (arr.shape == "seven_pairs", "seven_pairs"),
    )
    return [(key, 1) for on, key in flags if on]
