"""Issue 17: rulebook articles and engine findings, each checked where the engine plays it
(scripted hands through the reducer) or where it scores it."""

from __future__ import annotations

from typing import Any

from scenario import S0, S1, Hand

from rules.inputs import Ron
from rules.outcome import HandContext, Win
from rules.ruleset import load_ruleset
from rules.scoring.zung_jung import zung_jung_value
from rules.seats import Seat, Wind
from rules.tiles import TileAllocator, parse_compact

WMC = load_ruleset("wmc")


def settled_win(h: Hand, n: int = 0) -> dict[str, Any]:
    return dict(h.ended()["settlement"]["wins"][n])


def patterns(w: dict[str, Any]) -> dict[str, int]:
    return {str(k): int(v) for k, v in w["patterns"]}


# --- A2: ZJ 9.4.2 Blessing of Earth ------------------------------------------------------------
def test_blessing_of_earth_on_the_dealers_first_discard_zj_9_4_2() -> None:
    """ZJ 9.4.2: a non-dealer's win on the dealer's first discard is Blessing of Earth (before,
    the ron never set the flag and the hand scored 15)."""
    h = Hand("wmc", hands={S0: "9p", S1: "123m456s789s11z78p"})
    h.discard(S0, "9p")
    h.send(Ron(S1))
    w = settled_win(h)
    assert patterns(w)["blessing_of_earth"] == 320 and w["value"] == 320


def test_no_blessing_of_earth_after_the_first_go_around_zj_9_4_2() -> None:
    # WMC deals the dealer his 14th (the jump): draws[0] is his.
    h = Hand("wmc", hands={S0: "1z", S1: "123m456s789s11z78p"}, draws="1z" + "2z3z4z" + "9p")
    h.discard(S0, "1z")
    h.go_around(S1, 3)
    h.draw(S0)
    h.cut(S0)  # the dealer's second discard, the 9p
    h.send(Ron(S1))
    assert "blessing_of_earth" not in patterns(settled_win(h))


def test_a_riichi_ron_on_the_dealers_first_discard_is_no_chiihou_m_6_6_1() -> None:
    """The riichi chiihou is a first self-draw (M 6-6-1): a ron on the dealer's first discard
    is not a yakuman (Tenhou)."""
    h = Hand("tenhou", hands={S0: "8p", S1: "234m456s678s55p67p"}, draws="1z")
    h.draw(S0)
    h.discard(S0, "8p")
    h.send(Ron(S1))
    w = dict(h.ended()["settlement"]["wins"][0])
    assert not w.get("yakuman"), w


# --- A3: W 和牌的计分-12 / -11 ----------------------------------------------------------------
def _dealer_win(hand: str, **flags: Any) -> Win:
    alloc = TileAllocator(aka=False)
    tiles = tuple(alloc.take(k) for k, _ in parse_compact(hand))
    return Win(winner=Seat.S0, loser=None, hand=tiles, win_tile=tiles[-1], **flags)


def test_blessing_of_heaven_never_counts_nine_gates_w_12() -> None:
    """W 和牌的计分-12: the dealer's 14 dealt tiles have no self-drawn tile, so a Blessing of
    Heaven with a Nine Gates shape counts Blessing of Heaven, not Nine Gates (480 before)."""
    ctx = HandContext(dealer=Seat.S0, round_wind=Wind.EAST, honba=0, deposits=0,
                      scores=(0, 0, 0, 0), aka=False)
    heaven = zung_jung_value(WMC, _dealer_win("11123456789995m", tenhou=True), ctx)
    kinds = dict(heaven.patterns)
    assert "nine_gates" not in kinds and kinds["blessing_of_heaven"] == 320
    assert heaven.total == 320
    drawn = zung_jung_value(WMC, _dealer_win("11123456789995m"), ctx)
    assert "nine_gates" in dict(drawn.patterns) and drawn.total == 480  # a self-draw counts it


