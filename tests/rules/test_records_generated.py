"""Export → import over games a random legal table plays (hil/players/legal_table.py), under every
riichi ruleset, from a table with sensors (wall, dice, positions) and from a record-like stream:
the exported mjai / tenhou.net/6 record imports to the same play, and replays to the same score
changes as the engine gave the original stream. This is how the daemon exports its own games
(``hands_from_events`` over its event log).

Bounded by default; ``JANTAKU_SLOW=1`` plays many more games."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from rules.inputs import (
    AbortiveDraw,
    Ankan,
    Call,
    DealDone,
    Discard,
    Draw,
    ExhaustiveDraw,
    GameStart,
    IndicatorShown,
    Input,
    Kakan,
    RinshanDraw,
    Ron,
    Tsumo,
    UraRevealed,
)
from rules.records.export import export_mjai, export_tenhou6, hands_from_events
from rules.records.mjai import import_mjai
from rules.records.model import Scores
from rules.records.replay import replay
from rules.records.tenhou6 import import_tenhou6
from rules.ruleset import load_ruleset
from rules.tiles import Tile

sys.path.insert(0, str(Path(__file__).resolve().parent))
from hil import players
from hil.kit import SLOW

RULESETS = ("tenhou", "mleague", "saikouisen", "saikouisen-classic", "mu")


def _name(t: Tile | None, aka: bool) -> Any:
    return None if t is None else t.mjai(aka)


def play(inputs: list[Input], aka: bool, shift: int = 0) -> list[Any]:
    """The play with tiles by name and seats counted from ``shift`` (what a record can hold):
    hand starts, wall, dice, positions and the order of the deal and its indicator left out."""
    out: list[Any] = []

    def seat(s: int) -> int:
        return (s - shift) % 4

    for i in inputs:
        if isinstance(i, DealDone):
            assert i.hands is not None
            hands = [sorted(_name(t, aka) for t in i.hands[(s + shift) % 4]) for s in range(4)]
            out.append(("deal", hands))
        elif isinstance(i, IndicatorShown):
            out.append(("indicator", _name(i.tile, aka)))
        elif isinstance(i, Draw | RinshanDraw):
            out.append((type(i).__name__, seat(i.seat), _name(i.tile, aka)))
        elif isinstance(i, Discard):
            out.append(("discard", seat(i.seat), _name(i.tile, aka), i.riichi))
        elif isinstance(i, Call | Ankan):
            kind = i.kind if isinstance(i, Call) else "ankan"
            out.append((kind, seat(i.seat), sorted(_name(t, aka) for t in i.tiles or ())))
        elif isinstance(i, Kakan):
            out.append(("kakan", seat(i.seat), _name(i.tile, aka)))
        elif isinstance(i, UraRevealed):
            pass  # a table reads ura from its wall manifest: checked through the deltas
        elif isinstance(i, Tsumo | Ron):
            out.append((type(i).__name__, seat(i.seat)))
        elif isinstance(i, ExhaustiveDraw):
            out.append(("exhaustive", sorted(seat(s) for s in i.tenpai)))
        elif isinstance(i, AbortiveDraw):
            out.append(("abortive", i.kind, None if i.seat is None else seat(i.seat)))
    # The deal and the first indicator come in either order.
    for n in range(len(out) - 1):
        if out[n][0] == "indicator" and out[n + 1][0] == "deal":
            out[n], out[n + 1] = out[n + 1], out[n]
    return out


def rotate(d: Scores | None, shift: int) -> Scores | None:
    if d is None:
        return None
    return (d[shift % 4], d[(shift + 1) % 4], d[(shift + 2) % 4], d[(shift + 3) % 4])


CASES = [
    (rs, seed, mode)
    for rs in RULESETS
    for seed in range(8 if SLOW else 2)
    for mode in ("record", "table")
    if mode == "record" or rs in ("tenhou", "saikouisen") or SLOW
]


@pytest.mark.parametrize(("ruleset", "seed", "mode"), CASES)
def test_generated_games_export_and_import(ruleset: str, seed: int, mode: str) -> None:
    table = players.Table(ruleset, 1000 + seed, mode)  # type: ignore[arg-type]
    table.play_game(max_hands=8 if SLOW else 4)
    assert table.violations() == []
    rs = load_ruleset(ruleset)
    events = [e.to_json() for e in table.events]
    hands = hands_from_events(events)
    assert hands
    start = table.inputs[0]
    assert isinstance(start, GameStart)
    aka = rs.dora.red_fives if start.aka is None else start.aka
    expected = play(table.inputs, aka)
    assert table.state.progress is not None
    final = table.state.progress.scores

    rec = import_mjai(export_mjai(table.inputs, hands), rs)
    assert rec.issues == ()
    assert play(list(rec.inputs), aka) == expected
    result = replay(rec)
    assert result.violations == ()
    assert [h.deltas for h in result.hands] == [h.deltas for h in hands]
    assert result.scores == final

    # tenhou.net/6 counts seats from the first dealer.
    shift = int(start.first_dealer)
    rec6 = import_tenhou6(export_tenhou6(table.inputs, hands), rs)
    assert rec6.issues == ()
    assert play(list(rec6.inputs), aka) == play(table.inputs, aka, shift)
    result6 = replay(rec6)
    assert result6.violations == ()
    assert [h.deltas for h in result6.hands] == [rotate(h.deltas, shift) for h in hands]
    assert result6.scores == rotate(final, shift)
