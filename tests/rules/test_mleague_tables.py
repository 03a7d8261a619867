"""M.League's point tables (M 6-4-2), cell by cell, through the same payment code as every hand.

The tables below are the rows of M 6-4-2 exactly as the original prints them (翻 include the two
ba-zoro han, M 1-4 / 6-4-1: "30符3翻" is our 30 fu 1 han). Each cell is settled as a referee's
manual value (han/fu) through :func:`rules.settlement.settle`: ron by the dealer or a non-dealer
("2900"), tsumo ("(1000)" each from a dealer; "(300/500)" = each non-dealer / the dealer).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rules.outcome import HandContext, HandOutcome, ManualValue, Win
from rules.ruleset import load_ruleset
from rules.seats import Seat, Wind
from rules.settlement import settle

M = load_ruleset("mleague")
# M 6-4-2 verbatim from the rulebook; provenance in tests/data/rulebooks/README.md.
SOURCE = Path(__file__).resolve().parents[1] / "data" / "rulebooks" / "mleague-ch6-art4.txt"

# M 6-4-2, dealer (親) then non-dealer (子), columns 3翻 4翻 5翻 6翻.
DEALER_ROWS = """\
20符（ツモピンフ)\t\t700オール\t1300オール\t2600オール
25符（チートイツ)\t\t2400\t4800 (1600)\t9600 (3200)
30符\t1500 (500オール/ほか同）\t2900 (1000)\t5800 (2000)\t満貫
40符\t2000 (700)\t3900 (1300)\t7700 (2600)\t満貫
50符\t2400 (800)\t4800 (1600)\t9600 (3200)\t満貫
60符\t2900 (1000)\t5800 (2000)\t満貫\t満貫
70符\t3400 (1200)\t6800 (2300)\t満貫\t満貫
80符\t3900 (1300)\t7700 (2600)\t満貫\t満貫
90符\t4400 (1500)\t8700 (2900)\t満貫\t満貫
100符\t4800 (1600)\t9600 (3200)\t満貫\t満貫
110符\t\t10600 (3600)\t満貫\t満貫"""

NON_DEALER_ROWS = """\
20符（ツモピンフ)\t\t400/700\t700/1300\t1300/2600
25符（チートイツ)\t\t1600\t3200 (800/1600)\t6400 (1600/3200)
30符\t1000 (300/500)\t2000 (500/1000)\t3900 (1000/2000)\t満貫
40符\t1300 (400/700)\t2600 (700/1300)\t5200 (1300/2600)\t満貫
50符\t1600 (400/800)\t3200 (800/1600)\t6400 (1600/3200)\t満貫
60符\t2000 (500/1000)\t3900 (1000/2000)\t満貫\t満貫
70符\t2300 (600/1200)\t4500 (1200/2300)\t満貫\t満貫
80符\t2600 (700/1300)\t5200 (1300/2600)\t満貫\t満貫
90符\t2900 (800/1500)\t5800 (1500/2900)\t満貫\t満貫
100符\t3200 (800/1600)\t6400 (1600/3200)\t満貫\t満貫
110符\t\t7100 (1800/3600)\t満貫\t満貫"""

# (fu, M翻, ron or None, tsumo or None); tsumo: (each,) for a dealer, (non-dealer, dealer) else.
Cell = tuple[int, int, int | None, tuple[int, ...] | None]


def _cells(rows: str, dealer: bool) -> list[Cell]:
    out: list[Cell] = []
    for line in rows.splitlines():
        head, *cols = line.split("\t")
        fu = int(head.split("符")[0])
        assert len(cols) == 4, line
        for m_han, text in zip((3, 4, 5, 6), cols, strict=True):
            if not text:
                continue
            if text == "満貫":
                ron = 12000 if dealer else 8000
                out.append((fu, m_han, ron, (4000,) if dealer else (2000, 4000)))
                continue
            numbers = [int(n) for n in re.findall(r"\d+", text)]
            if "(" in text:
                out.append((fu, m_han, numbers[0], tuple(numbers[1:2] if dealer else numbers[1:])))
            elif "オール" in text or "/" in text:
                out.append((fu, m_han, None, tuple(numbers)))
            else:
                out.append((fu, m_han, numbers[0], None))
    return out


DEALER = _cells(DEALER_ROWS, dealer=True)
NON_DEALER = _cells(NON_DEALER_ROWS, dealer=False)


def test_the_tables_are_the_originals_rows() -> None:
    text = SOURCE.read_text(encoding="utf-8")
    lines = [line.strip() for line in text.splitlines()]
    for row in (*DEALER_ROWS.splitlines(), *NON_DEALER_ROWS.splitlines()):
        assert row in lines, row
    # 11 fu rows × 4 columns, minus the empty cells: every printed figure is tested.
    assert len(DEALER) == 41 and len(NON_DEALER) == 41


def _context(dealer: Seat, honba: int = 0) -> HandContext:
    return HandContext(
        dealer=dealer,
        round_wind=Wind.EAST,
        honba=honba,
        deposits=0,
        scores=(25000, 25000, 25000, 25000),
        aka=True,
    )


def _manual_win(winner: Seat, loser: Seat | None, han: int, fu: int) -> Win:
    return Win(winner=winner, loser=loser, hand=(), win_tile=None, manual=ManualValue(han, fu))


@pytest.mark.parametrize(("fu", "m_han", "ron", "tsumo"), DEALER)
def test_dealer_cell(fu: int, m_han: int, ron: int | None, tsumo: tuple[int, ...] | None) -> None:
    han = m_han - 2  # M 6-4-1: the table's 翻 include ba-zoro
    dealer = Seat.S2
    if ron is not None:
        s = settle(
            M, HandOutcome("win", _context(dealer), wins=(_manual_win(dealer, Seat.S3, han, fu),))
        )
        assert s.deltas[dealer] == ron and s.deltas[Seat.S3] == -ron
        assert s.deltas[Seat.S0] == s.deltas[Seat.S1] == 0
    if tsumo is not None:
        (each,) = tsumo
        s = settle(
            M, HandOutcome("win", _context(dealer), wins=(_manual_win(dealer, None, han, fu),))
        )
        assert s.deltas == (-each, -each, 3 * each, -each)


@pytest.mark.parametrize(("fu", "m_han", "ron", "tsumo"), NON_DEALER)
def test_non_dealer_cell(
    fu: int, m_han: int, ron: int | None, tsumo: tuple[int, ...] | None
) -> None:
    han = m_han - 2
    dealer, winner = Seat.S1, Seat.S3
    if ron is not None:
        s = settle(
            M, HandOutcome("win", _context(dealer), wins=(_manual_win(winner, dealer, han, fu),))
        )
        assert s.deltas == (0, -ron, 0, ron)
    if tsumo is not None:
        other, from_dealer = tsumo
        s = settle(
            M, HandOutcome("win", _context(dealer), wins=(_manual_win(winner, None, han, fu),))
        )
        assert s.deltas == (-other, -from_dealer, -other, 2 * other + from_dealer)


@pytest.mark.parametrize(
    ("m_han", "non_dealer", "dealer", "limit"),
    [
        # M 6-6-1: (1) mangan 7翻, (2) haneman 8-9翻, (3) baiman 10-12翻, (4) sanbaiman 13翻+.
        (7, 8000, 12000, "mangan"),
        (8, 12000, 18000, "haneman"),
        (9, 12000, 18000, "haneman"),
        (10, 16000, 24000, "baiman"),
        (12, 16000, 24000, "baiman"),
        (13, 24000, 36000, "sanbaiman"),
        (14, 24000, 36000, "sanbaiman"),
        # M 6-6-2: without yakuman, sanbaiman is the cap however many han.
        (17, 24000, 36000, "sanbaiman"),
        (30, 24000, 36000, "sanbaiman"),
    ],
)
def test_limits_m_6_6_1(m_han: int, non_dealer: int, dealer: int, limit: str) -> None:
    s = settle(
        M,
        HandOutcome("win", _context(Seat.S0), wins=(_manual_win(Seat.S1, Seat.S2, m_han - 2, 30),)),
    )
    assert s.deltas[Seat.S1] == non_dealer and s.wins[0].limit == limit
    s = settle(
        M,
        HandOutcome("win", _context(Seat.S0), wins=(_manual_win(Seat.S0, Seat.S2, m_han - 2, 30),)),
    )
    assert s.deltas[Seat.S0] == dealer


def test_kiriage_m_6_4_2_and_6_6_1() -> None:
    """30 fu 6翻 and 60 fu 5翻 are mangan (the table prints 満貫, not 7700/11600)."""
    for fu, m_han in ((30, 6), (60, 5), (40, 6), (70, 5)):
        s = settle(
            M,
            HandOutcome(
                "win", _context(Seat.S0), wins=(_manual_win(Seat.S1, Seat.S2, m_han - 2, fu),)
            ),
        )
        assert s.deltas[Seat.S1] == 8000 and s.wins[0].limit == "mangan"
    # Just below: 30 fu 5翻 and 50 fu 5翻 are not.
    for fu, m_han, points in ((30, 5, 3900), (50, 5, 6400), (25, 6, 6400)):
        s = settle(
            M,
            HandOutcome(
                "win", _context(Seat.S0), wins=(_manual_win(Seat.S1, Seat.S2, m_han - 2, fu),)
            ),
        )
        assert s.deltas[Seat.S1] == points and s.wins[0].limit == ""


def test_yakuman_m_6_6_1_note() -> None:
    """Yakuman 32,000 / 48,000; combined yakuman ×2, ×3 (M 6-6-1 note)."""
    for count, non_dealer in ((1, 32000), (2, 64000), (3, 96000)):
        win = Win(Seat.S1, Seat.S2, (), None, manual=ManualValue(yakuman=count))
        s = settle(M, HandOutcome("win", _context(Seat.S0), wins=(win,)))
        assert s.deltas[Seat.S1] == non_dealer
    win = Win(Seat.S0, None, (), None, manual=ManualValue(yakuman=1))
    s = settle(M, HandOutcome("win", _context(Seat.S0), wins=(win,)))
    assert s.deltas == (48000, -16000, -16000, -16000)


def test_honba_announcement_m_6_5_6() -> None:
    """M 6-5-6: "一本場の時 「1300・2600は1400・2700」" — 40符5翻 tsumo with one honba."""
    s = settle(
        M,
        HandOutcome("win", _context(Seat.S0, honba=1), wins=(_manual_win(Seat.S1, None, 3, 40),)),
    )
    assert s.deltas == (-2700, 1400 + 1400 + 2700, -1400, -1400)
