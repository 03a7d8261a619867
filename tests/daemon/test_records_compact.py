"""The log's form of an input (daemon/tracking/records.py ``compact``) is computed from the input
class's field defaults, without the JSON round trip it used to check itself with: over every input
of the real records in tests/data (and inputs at and off their defaults), it is exactly the form
the round-trip check gave (the log's bytes do not change) and it reads back to the same input."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from daemon.tracking.records import body_json, compact
from rules import inputs as ri
from rules.records import import_record
from rules.ruleset import load_ruleset
from rules.seats import Seat
from rules.tiles import Tile
from rules.wall import Layer, Position

DATA = Path(__file__).resolve().parents[1] / "data"


def _checked(inp: ri.Input) -> dict[str, Any]:
    """What ``compact`` gave before: the short form when it read back equal, else the full."""
    full = ri.input_to_json(inp)
    short = {k: v for k, v in full.items() if v is not None}
    return short if ri.input_from_json(short) == inp else full


def _recorded() -> list[ri.Input]:
    ruleset = load_ruleset("tenhou")
    out: list[ri.Input] = []
    paths = [*DATA.glob("mjai/*.jsonl"), *DATA.glob("game-logs/mjai-reviewer/*.json")]
    for path in sorted(paths):
        out += import_record(path.read_text(), ruleset).inputs
    return out


HAND = (
    ri.HandStart(), ri.DealDone(), ri.Draw(seat=Seat.S1),
    ri.Draw(seat=Seat.S1, tile=Tile(5), position=Position(Seat.S2, 3, Layer.TOP)),
    ri.Discard(seat=Seat.S0, tile=Tile(9), riichi=True, tsumogiri=False),
    ri.Discard(seat=Seat.S3), ri.IndicatorShown(position=Position(Seat.S0, 2, Layer.BOTTOM)),
    ri.GameStart(ruleset="mleague", first_dealer=Seat.S0),
    ri.GameStart(ruleset="wmc", first_dealer=Seat.S2, aka=False, rounds=1),
)


@pytest.mark.parametrize("where", ["recorded", "hand"])
def test_compact_is_the_checked_form_and_reads_back(where: str) -> None:
    inputs = _recorded() if where == "recorded" else list(HAND)
    assert len(inputs) > (1000 if where == "recorded" else 5)
    for inp in inputs:
        form = compact(inp)
        assert form == _checked(inp), inp
        assert list(form) == list(_checked(inp)), inp  # the key order too: the log's bytes
        assert ri.input_from_json(form) == inp
        assert body_json(inp) == form


def test_a_marker_body_is_logged_as_it_is() -> None:
    body = {"type": "tile_rejected", "what": "read", "reason": "unknown_tag"}
    assert body_json(body) == body and body_json(body) is not body
