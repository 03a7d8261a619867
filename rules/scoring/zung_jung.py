"""Zung Jung scoring as played at the 2007 World Series of Mahjong (v1.03; the ``wmc`` ruleset).

For the settlement code, the two entry points:

* :func:`zung_jung_value` ``(ruleset, win, context) -> ZungJungValue`` — the value of one win:
  the patterns of the best arrangement (Freedom of Count), their points, the total after the
  320-point limit, the arrangement chosen; ``.to_json()`` for events and overlays. Raises
  :class:`FalseWin` when the tiles are not a winning hand (or score below the ruleset's
  minimum), and :class:`ZungJungError` for impossible input.
* :func:`zung_jung_payments` ``(value, winner, loser, responsible, threshold)`` — the
  competition payoff scheme as per-seat point deltas (winner ``+3V``, the payers negative, sum
  zero): self-draw → each other player pays ``V``; on a discard worth ``≤ threshold`` → each
  other player pays ``V``; worth ``> threshold`` → the responsible player pays
  ``3V − 2·threshold`` and the other two ``threshold`` each (v1.03: 25, i.e. ``3V − 50`` and 25;
  2008: 30). The responsible player is the one who first discarded the winning tile in this
  go-around (``Win.responsible``, 跟张免责 / same-turn immunity [RM08] [WDs]); if that is the
  winner himself, the win is paid as a self-draw. No dora, riichi, renchan or honba in ZJ.

Pattern values come from the ruleset (``[zung_jung.patterns]``): every one of the 44 keys must
be there (:func:`pattern_values`), so a venue TOML with ``extends = "wmc"`` can change any of
them and a misspelt key is an error, not a silent zero. Sources are cited by their tags
([MTS], [MTN], [WDs], ...: the WMC's Zung Jung v1.03 sources); ``docs/zung-jung.md`` has the
tags, the table of values and where later versions differ.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from rules.errors import RulesError
from rules.outcome import HandContext, Meld, Win
from rules.ruleset import Ruleset, ZungJungRules
from rules.scoring.zung_jung_patterns import BY_KEY, ORDER, PATTERNS, HandFacts, detect
from rules.scoring.zung_jung_shape import Arrangement, Group, arrangements
from rules.seats import Seat
from rules.tiles import Kind

__all__ = [
    "FalseWin",
    "PatternTableError",
    "ZungJungError",
    "ZungJungValue",
    "pattern_values",
    "zung_jung_payments",
    "zung_jung_value",
]

LimitKind = Literal["compound", "listed"]


class ZungJungError(RulesError, ValueError):
    """Input that cannot be scored (impossible tiles, contradictory flags, no ZJ ruleset)."""


class FalseWin(ZungJungError):
    """The tiles are not a winning hand ([MT2]: "Such will be considered a 'false win'"), or
    score below the ruleset's minimum (the 2008 5-point rule)."""


class PatternTableError(ZungJungError):
    """``[zung_jung.patterns]`` lacks one of the 44 patterns, or names an unknown one."""


def pattern_values(rules: ZungJungRules) -> Mapping[str, int]:
    """The ruleset's value for each of the 44 patterns, checked to be complete and known."""
    table = rules.patterns
    missing = [p.key for p in PATTERNS if p.key not in table]
    unknown = sorted(k for k in table if k not in BY_KEY)
    if missing or unknown:
        parts = []
        if missing:
            parts.append("missing " + ", ".join(missing))
        if unknown:
            parts.append("unknown " + ", ".join(unknown))
        raise PatternTableError(
            "[zung_jung.patterns]: "
            + "; ".join(parts)
            + " (expected exactly the 44 keys: "
            + ", ".join(p.key for p in PATTERNS)
            + ")"
        )
    negative = [k for k, v in table.items() if v < 0]
    if negative:
        raise PatternTableError(f"[zung_jung.patterns]: negative value for {', '.join(negative)}")
    return table


@dataclass(frozen=True, slots=True)
class ZungJungValue:
    """The value of one win.

    ``patterns``: the counted patterns in ZJ order as ``(key, points)`` (3.1 Value Honor once per
    set); ``raw_total`` their sum; ``total`` the hand value ``V`` after the limit; ``limit``:
    ``"compound"`` (the sum was capped at the ruleset's limit), ``"listed"`` (a single pattern
    worth more than the limit stands alone at face value: ``patterns`` holds only it and
    ``set_aside`` the rest) or ``None``; ``chicken``: no pattern (scores ``chicken_points``);
    ``arrangement``: the reading of the tiles that scores best (``None`` for a referee's manual
    value)."""

    patterns: tuple[tuple[str, int], ...]
    total: int
    raw_total: int
    limit: LimitKind | None
    chicken: bool
    arrangement: Arrangement | None
    set_aside: tuple[tuple[str, int], ...] = ()
    manual: bool = False

    def to_json(self) -> dict[str, Any]:
        def entry(key: str, points: int) -> dict[str, Any]:
            p = BY_KEY[key]
            return {
                "key": key,
                "number": p.number,
                "name": p.name,
                "chinese": p.chinese,
                "points": points,
            }

        return {
            "patterns": [entry(k, v) for k, v in self.patterns],
            "set_aside": [entry(k, v) for k, v in self.set_aside],
            "total": self.total,
            "raw_total": self.raw_total,
            "limit": self.limit,
            "chicken": self.chicken,
            "manual": self.manual,
            "arrangement": None if self.arrangement is None else self.arrangement.to_json(),
        }


def zung_jung_payments(
    value: int, winner: Seat, loser: Seat | None, responsible: Seat | None, threshold: int
) -> tuple[int, int, int, int]:
    """Per-seat point deltas for a win worth ``value`` (see the module docstring).

    ``loser``: the seat whose discard (or robbed kong) was won on, ``None`` for a self-draw;
    ``responsible``: ``Win.responsible`` (``None`` = the loser). The winner always gains 3V.
    """
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ZungJungError(f"hand value must be an integer ≥ 0, got {value!r}")
    if isinstance(threshold, bool) or not isinstance(threshold, int) or threshold < 0:
        raise ZungJungError(f"discard threshold must be an integer ≥ 0, got {threshold!r}")
    if loser == winner:
        raise ZungJungError(f"seat {int(winner)} cannot win on its own discard")
    deltas = [0, 0, 0, 0]
    # A self-draw has nobody responsible, whatever ``responsible`` says.
    payer = None if loser is None else (responsible if responsible is not None else loser)
    if payer == winner:
        payer = None  # [WDs]: the winner discarded the tile first: paid as a self-draw
    if payer is None or value <= threshold:
        for seat in Seat:
            if seat != winner:
                deltas[seat] = -value
    else:
        for seat in Seat:
            if seat != winner:
                deltas[seat] = -threshold
        deltas[payer] = -(3 * value - 2 * threshold)
    deltas[winner] = 3 * value
    return (deltas[0], deltas[1], deltas[2], deltas[3])


# --- scoring ----------------------------------------------------------------------------------


def _meld_group(meld: Meld) -> Group:
    kinds = sorted(t.kind.value for t in meld.tiles)
    what = f"{meld.kind} {[str(t) for t in meld.tiles]}"
    if meld.kind == "chi":
        if (
            len(kinds) != 3
            or kinds[0] >= 27
            or kinds[0] // 9 != kinds[2] // 9
            or kinds != [kinds[0], kinds[0] + 1, kinds[0] + 2]
        ):
            raise ZungJungError(f"meld {what}: a chow needs three consecutive tiles of one suit")
        return Group("chow", kinds[0], False, True)
    size = 3 if meld.kind == "pon" else 4
    if len(kinds) != size or len(set(kinds)) != 1:
        raise ZungJungError(f"meld {what}: expected {size} tiles of one kind")
    if meld.kind == "ankan":
        return Group("kong", kinds[0], True, True)  # a concealed kong is a concealed triplet
    return Group("pung" if size == 3 else "kong", kinds[0], False, True)


def _check_flags(win: Win, context: HandContext) -> None:
    tsumo = win.loser is None
    problems = []
    if win.haitei and not tsumo:
        problems.append("haitei (final draw) on a discard")
    if win.houtei and tsumo:
        problems.append("houtei (final discard) on a self-draw")
    if win.rinshan and (not tsumo or not any(m.is_kan for m in win.melds)):
        problems.append("rinshan (win on kong) without a self-draw after a kong")
    if win.chankan and tsumo:
        problems.append("chankan (robbing a kong) on a self-draw")
    if win.tenhou and (not tsumo or win.winner != context.dealer or win.melds):
        problems.append("tenhou (blessing of heaven) not a dealer's self-draw on his deal")
    if win.chiihou and (win.winner == context.dealer or win.melds):
        problems.append("chiihou (blessing of earth) by the dealer or after a call")
    if problems:
        raise ZungJungError(
            f"contradictory win flags for seat {int(win.winner)}: " + "; ".join(problems)
        )


_NINE_GATES = (3, 1, 1, 1, 1, 1, 1, 1, 3)


def _nine_gates(hand_kinds: list[int], win_kind: int, melds: tuple[Meld, ...]) -> bool:
    # 2.2: "1112345678999" held, won on any tile of that suit. The v1.03 "Nine Gates Self-draw
    # rule" was not seen; we ask for the 9-way call on a self-draw too (the strict reading).
    if melds or win_kind >= 27:
        return False
    rest = list(hand_kinds)
    rest.remove(win_kind)
    suit = win_kind // 9
    if any(k // 9 != suit for k in rest):
        return False
    counts = tuple(rest.count(9 * suit + n) for n in range(9))
    return counts == _NINE_GATES


@dataclass(frozen=True, slots=True)
class _Scored:
    patterns: tuple[tuple[str, int], ...]
    raw_total: int
    total: int
    limit: LimitKind | None
    set_aside: tuple[tuple[str, int], ...]


def _score(
    arr: Arrangement, facts: HandFacts, values: Mapping[str, int], rules: ZungJungRules
) -> _Scored:
    best_of_series: dict[str, tuple[int, int, str]] = {}
    counted: list[tuple[str, int]] = []
    for key, count in detect(arr, facts):
        if key == "value_honor":
            counted.extend([(key, values[key])] * count)  # 3.1: 10 per set
            continue
        series = BY_KEY[key].series
        cand = (values[key], ORDER[key], key)
        if series not in best_of_series or cand > best_of_series[series]:
            best_of_series[series] = cand  # the same series never adds ([MTS])
    counted.extend((key, v) for v, _, key in best_of_series.values())
    counted.sort(key=lambda kv: ORDER[kv[0]])
    raw = sum(v for _, v in counted)
    listed = [kv for kv in counted if kv[1] > rules.limit]
    if listed:
        # [WDs] listed limit: a pattern above the limit scores its face value, nothing else.
        top = max(listed, key=lambda kv: (kv[1], ORDER[kv[0]]))
        rest = list(counted)
        rest.remove(top)
        return _Scored((top,), raw, top[1], "listed", tuple(rest))
    if raw > rules.limit:
        return _Scored(tuple(counted), raw, rules.limit, "compound", ())  # [WDs] compound limit
    return _Scored(tuple(counted), raw, raw, None, ())


def zung_jung_value(ruleset: Ruleset, win: Win, context: HandContext) -> ZungJungValue:
    """Score one win under the ruleset's ``[zung_jung]`` table (see the module docstring)."""
    rules = ruleset.zung_jung
    if rules is None:
        raise ZungJungError(f"ruleset {ruleset.name!r} has no [zung_jung] table")
    values = pattern_values(rules)
    if win.manual is not None:
        # A referee's value (no tile sensors): taken as given, still subject to the minimum.
        points = win.manual.points
        if points < rules.minimum:
            raise FalseWin(f"manual value {points} is below the minimum {rules.minimum}")
        return ZungJungValue((), points, points, None, False, None, manual=True)

    if len(win.melds) > 4:
        raise ZungJungError(f"{len(win.melds)} melds: at most 4")
    expected = 14 - 3 * len(win.melds)
    if len(win.hand) != expected:
        raise FalseWin(
            f"seat {int(win.winner)}: {len(win.hand)} tiles in hand with {len(win.melds)} melds "
            f"(expected {expected}, winning tile included)"
        )
    ids = [t.id for t in win.hand] + [t.id for m in win.melds for t in m.tiles]
    if len(set(ids)) != len(ids):
        raise ZungJungError(f"a physical tile appears twice: {sorted(ids)}")
    if win.win_tile is None or win.win_tile not in win.hand:
        raise ZungJungError(
            f"winning tile {win.win_tile!r} is not among the hand tiles {list(win.hand)}"
        )
    if win.loser is not None and not isinstance(win.loser, Seat):
        raise ZungJungError(f"loser must be a Seat, got {win.loser!r}")
    _check_flags(win, context)

    ron = win.loser is not None
    melds = tuple(_meld_group(m) for m in win.melds)
    hand_kinds = [t.kind.value for t in win.hand]
    win_kind = win.win_tile.kind.value
    arrs = arrangements(tuple(sorted(hand_kinds)), melds, win_kind, ron)
    if not arrs:
        shown = " ".join(Kind(k).mjai for k in sorted(hand_kinds))
        raise FalseWin(
            f"seat {int(win.winner)}: {shown} with {len(melds)} melds is not a winning hand "
            "(4 sets + eyes, Seven Pairs or Thirteen Terminals)"
        )
    facts = HandFacts(
        seat_wind=27 + win.winner.wind(context.dealer).value,  # ZJ 3.1: no prevailing wind
        no_open_melds=all(m.kind == "ankan" for m in win.melds),
        # W 和牌的计分-12: the dealer's 14 dealt tiles hold no self-drawn tile, so a Blessing of
        # Heaven never counts Nine Gates (only Blessing of Heaven).
        nine_gates=not win.tenhou and _nine_gates(hand_kinds, win_kind, win.melds),
        concealed_hand_irregular=rules.concealed_hand_irregular,
        final_draw=win.haitei,
        final_discard=win.houtei,
        win_on_kong=win.rinshan,
        robbing_a_kong=win.chankan,
        blessing_of_heaven=win.tenhou,
        # ZJ 9.4.2 is a non-dealer's win on the dealer's first discard.
        blessing_of_earth=win.chiihou and win.loser == context.dealer,
    )
    # Freedom of Count (W 和牌的计分-11): the arrangement worth most, patterns of one arrangement
    # only (never Pure Triple Chow with Three Consecutive Pungs); ties go to the higher sum of
    # patterns, then to the first arrangement in canonical order (never the tile order).
    best: tuple[tuple[int, int], Arrangement, _Scored] | None = None
    for arr in arrs:
        scored = _score(arr, facts, values, rules)
        key = (scored.total, scored.raw_total)
        if best is None or key > best[0]:
            best = (key, arr, scored)
    assert best is not None
    _, arr, scored = best
    chicken = not scored.patterns
    total = rules.chicken_points if chicken else scored.total
    if total < rules.minimum:
        raise FalseWin(
            f"seat {int(win.winner)}: hand worth {total} is below the minimum {rules.minimum}"
        )
    return ZungJungValue(
        patterns=scored.patterns,
        total=total,
        raw_total=scored.raw_total,
        limit=scored.limit,
        chicken=chicken,
        arrangement=arr,
        set_aside=scored.set_aside,
    )
