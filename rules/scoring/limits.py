"""From han and fu (or yakuman multiples) to basic points and the riichi payments.

Han here are plain han, without M's ba-zoro (M 1-4, 6-4-1: M's tables add 2 to every hand, so
M's "30 fu 3翻" is our 30 fu 1 han). Basic points are fu × 2^(han + 2) (μ §57(2)), then:

* kiriage (M 6-4-2, 6-6-1): 30 fu and more with 4 han, 60 fu and more with 3 han are mangan;
* 5 han mangan, 6–7 haneman, 8–10 baiman, 11–12 sanbaiman (M 6-6-1, μ §59);
* 13+ han: yakuman where the ruleset counts kazoe yakuman, else sanbaiman (M 6-6-2, μ §59(4));
* yakuman: 8,000 basic per multiple (M 6-6-1 note: ×2, ×3).

Payments round each payer's share up to 100 (μ §58): ron 4× (dealer 6×), tsumo 1× from each
non-dealer and 2× from the dealer (a dealer's tsumo: 2× from each).
"""

from __future__ import annotations

from rules.ruleset import Ruleset

MANGAN_BASIC = 2000
YAKUMAN_BASIC = 8000


def round_up_100(points: int) -> int:
    return -(-points // 100) * 100


def basic_points(ruleset: Ruleset, han: int, fu: int, yakuman: int = 0) -> tuple[int, str]:
    """Basic points and the limit's name ("" below mangan)."""
    if yakuman > 0:
        return YAKUMAN_BASIC * yakuman, "yakuman" if yakuman == 1 else f"{yakuman}x yakuman"
    if han >= 13:
        if ruleset.limits.kazoe_yakuman:
            return YAKUMAN_BASIC, "kazoe yakuman"
        return 6000, "sanbaiman"  # M 6-6-2, μ §59(4), S-sum: no counted yakuman
    if han >= 11:
        return 6000, "sanbaiman"
    if han >= 8:
        return 4000, "baiman"
    if han >= 6:
        return 3000, "haneman"
    if han == 5:
        return MANGAN_BASIC, "mangan"
    # M 6-6-1: "30符以上の6翻と7翻、60符以上の5翻" (ba-zoro included) are mangan.
    if ruleset.limits.kiriage and ((han == 4 and fu >= 30) or (han == 3 and fu >= 60)):
        return MANGAN_BASIC, "mangan"
    base = fu * 2 ** (han + 2)
    if base >= MANGAN_BASIC:
        return MANGAN_BASIC, "mangan"
    return base, ""


def ron_points(basic: int, dealer: bool) -> int:
    return round_up_100(basic * (6 if dealer else 4))


def tsumo_points(basic: int, dealer: bool) -> tuple[int, int]:
    """(what the dealer pays, what each non-dealer pays) for a tsumo; a dealer's tsumo has no
    dealer payer, so both are the same."""
    if dealer:
        each = round_up_100(basic * 2)
        return each, each
    return round_up_100(basic * 2), round_up_100(basic)
