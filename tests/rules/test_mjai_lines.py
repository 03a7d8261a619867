"""The importer's table of common mjai lines (rules/records/mjai_lines.py): a line read by its
text must import exactly as the same line parsed as JSON."""

from __future__ import annotations

import json
from pathlib import Path

from rules.records.mjai import import_mjai
from rules.records.mjai_lines import MOVES, Move, parse_lines
from rules.ruleset import load_ruleset

DATA = Path(__file__).resolve().parents[1] / "data"
RECORD = DATA / "mjai" / "original_riichi_ippatsu.jsonl"


def test_every_text_is_the_json_it_stands_for() -> None:
    for text, move in MOVES.items():
        value = json.loads(text)
        assert value["type"] == move.kind and value["actor"] == int(move.seat)
        assert value["pai"] == move.pai and value.get("tsumogiri") == move.tsumogiri
        assert ("tsumogiri" in value) == (move.tsumogiri is not None)


def _lines(separators: tuple[str, str] | None) -> list[str]:
    events = [json.loads(x) for x in RECORD.read_text(encoding="utf-8").splitlines() if x.strip()]
    return [json.dumps(e, separators=separators, ensure_ascii=False) for e in events]


def test_read_and_parsed_lines_import_alike() -> None:
    rs = load_ruleset("tenhou")
    compact = _lines((",", ":"))
    spaced = _lines(None)
    # the same events, spaced so that no line is in the table: every line parsed as JSON
    odd = [" " + line for line in spaced]
    assert sum(v.__class__ is Move for _, v in parse_lines("\n".join(compact))) > 10
    assert not any(v.__class__ is Move for _, v in parse_lines("\n".join(odd)))
    general = import_mjai("\n".join(odd), rs)
    assert import_mjai("\n".join(compact), rs) == general
    assert import_mjai("\n".join(spaced), rs) == general


def test_a_read_red_five_without_red_fives_is_noted() -> None:
    rs = load_ruleset("tenhou")
    events = [json.loads(x) for x in RECORD.read_text(encoding="utf-8").splitlines() if x.strip()]
    for e in events:
        if e["type"] == "start_game":
            e["aka_flag"] = False
    # a discard of a red five the seat does not hold: read from the table, then noted
    first = next(i for i, e in enumerate(events) if e["type"] == "dahai")
    events[first] = {**events[first], "pai": "5mr"}
    text = "\n".join(json.dumps(e, separators=(",", ":")) for e in events)
    odd = "\n".join(" " + json.dumps(e) for e in events)
    got = import_mjai(text, rs)
    assert got == import_mjai(odd, rs)
    assert any("red fives" in n for n in got.notes)
