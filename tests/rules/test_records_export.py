"""Exporters: import → export → import is lossless over every shared record in both formats, the
mjai written is what review tools read, and the engine's results can be exported."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rules.inputs import DealDone, GameStart, HandStart, Input
from rules.records.export import (
    ExportError,
    export_mjai,
    export_tenhou6,
    hands_from_events,
    to_mjai_events,
    to_tenhou6,
)
from rules.records.mjai import import_mjai
from rules.records.replay import replay
from rules.records.tenhou6 import import_tenhou6
from rules.ruleset import load_ruleset
from rules.seats import Seat

DATA = Path(__file__).resolve().parent.parent / "data"
LOGS = DATA / "game-logs"
RECORDS = sorted(p for p in LOGS.rglob("*.json") if p.name != "confusing_nakis_2.json")
MJAI = sorted((DATA / "mjai").glob("*.jsonl"))
TENHOU = load_ruleset("tenhou")


def rel(p: Path) -> str:
    return p.relative_to(DATA).as_posix()


@pytest.mark.parametrize("path", RECORDS, ids=rel)
def test_tenhou6_round_trips_losslessly(path: Path) -> None:
    rec = import_tenhou6(path.read_text(encoding="utf-8"), TENHOU)
    again = import_tenhou6(export_tenhou6(rec.inputs, rec.hands), TENHOU)
    assert again.inputs == rec.inputs
    assert again.hands == rec.hands
    assert again.aka == rec.aka and again.rounds == rec.rounds and again.names == rec.names
    assert again.issues == ()


@pytest.mark.parametrize("path", RECORDS, ids=rel)
def test_tenhou6_through_mjai_round_trips_losslessly(path: Path) -> None:
    rec = import_tenhou6(path.read_text(encoding="utf-8"), TENHOU)
    text = export_mjai(rec.inputs, rec.hands)
    via = import_mjai(text, TENHOU)
    assert via.issues == ()
    assert via.inputs == rec.inputs
    for a, b in zip(rec.hands, via.hands, strict=True):
        assert (a.deltas, a.result, a.abort_kind, a.honba, a.deposits, a.scores) == (
            b.deltas, b.result, b.abort_kind, b.honba, b.deposits, b.scores
        )
        assert [(w.winner, w.loser, w.deltas, w.han, w.fu, w.yaku) for w in a.wins] == [
            (w.winner, w.loser, w.deltas, w.han, w.fu, w.yaku) for w in b.wins
        ]
    # ... and mjai → mjai is lossless in every field.
    again = import_mjai(export_mjai(via.inputs, via.hands), TENHOU)
    assert again.inputs == via.inputs and again.hands == via.hands
    # ... and back to tenhou.net/6 gives the same play.
    back = import_tenhou6(export_tenhou6(via.inputs, via.hands), TENHOU)
    assert back.inputs == rec.inputs


@pytest.mark.parametrize("path", MJAI, ids=rel)
def test_mjai_fixtures_round_trip(path: Path) -> None:
    rec = import_mjai(path.read_text(encoding="utf-8"), TENHOU)
    again = import_mjai(export_mjai(rec.inputs, rec.hands, final_scores=rec.final_scores),
                        TENHOU)
    assert again.inputs == rec.inputs and again.hands == rec.hands
    assert again.final_scores == rec.final_scores


def _by_type(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == kind]


def test_mjai_written_for_review_tools() -> None:
    rec = import_tenhou6((LOGS / "mjai-reviewer/rinshan.json").read_text(encoding="utf-8"),
                         TENHOU)
    events = to_mjai_events(rec.inputs, rec.hands)
    assert events[0]["type"] == "start_game" and events[-1]["type"] == "end_game"
    start = _by_type(events, "start_kyoku")[0]
    assert set(start) == {"type", "bakaze", "dora_marker", "kyoku", "honba", "kyotaku", "oya",
                          "scores", "tehais"}
    assert (start["bakaze"], start["kyoku"], start["oya"]) == ("S", 2, 1)
    assert all(len(t) == 13 for t in start["tehais"])
    assert all(isinstance(e["tsumogiri"], bool) for e in _by_type(events, "dahai"))
    reach = _by_type(events, "reach")[0]
    i = events.index(reach)
    assert events[i + 1]["type"] == "dahai" and events[i + 2]["type"] == "reach_accepted"
    ankan = _by_type(events, "ankan")[0]
    assert ankan["consumed"] == ["6m", "6m", "6m", "6m"]
    j = events.index(ankan)
    assert [e["type"] for e in events[j : j + 4]] == ["ankan", "dora", "tsumo", "hora"]
    hora = _by_type(events, "hora")[0]
    assert (hora["actor"], hora["target"]) == (3, 3)
    assert hora["ura_markers"] == ["4s", "W"] or len(hora["ura_markers"]) == 2
    assert events[-2]["type"] == "end_kyoku"
    # JSON Lines: one object per line.
    text = export_mjai(rec.inputs, rec.hands)
    assert [json.loads(x) for x in text.splitlines()] == events


def test_calls_are_written_with_their_source() -> None:
    rec = import_tenhou6((LOGS / "mjai-reviewer/chankan.json").read_text(encoding="utf-8"),
                         TENHOU)
    events = to_mjai_events(rec.inputs, rec.hands)
    pon = _by_type(events, "pon")
    # "3636p36": seat 3 from its right (seat 0); "13p1313": seat 2 from opposite (seat 0).
    assert [(p["actor"], p["target"]) for p in pon] == [(3, 0), (2, 0)]
    kakan = _by_type(events, "kakan")[0]
    assert kakan["pai"] == "6s" and kakan["consumed"] == ["6s", "6s", "6s"]
    data = to_tenhou6(rec.inputs, rec.hands)
    original = json.loads((LOGS / "mjai-reviewer/chankan.json").read_text(encoding="utf-8"))
    assert data["log"][0][4:16] == original["log"][0][4:16]


def test_tenhou6_numbers_seats_from_the_first_dealer() -> None:
    rec = import_tenhou6((LOGS / "mjai-reviewer/double_ron.json").read_text(encoding="utf-8"),
                         TENHOU)
    start = rec.inputs[0]
    assert isinstance(start, GameStart)
    # The same game with seat s played at seat s+1 of the table.
    rotated: list[Input] = [_shift(i) for i in rec.inputs]
    data = to_tenhou6(rotated, None)
    original = to_tenhou6(rec.inputs, None)
    assert data["log"][0][4:16] == original["log"][0][4:16]
    assert data["name"] == original["name"]


def _shift(i: Input) -> Any:
    import dataclasses

    if isinstance(i, GameStart):
        names = i.names
        return dataclasses.replace(i, first_dealer=Seat.S1,
                                   names=(names[3], names[0], names[1], names[2]))
    if isinstance(i, HandStart):
        scores = i.scores
        assert scores is not None and i.dealer is not None
        return dataclasses.replace(i, dealer=i.dealer.plus(1),
                                   scores=(scores[3], scores[0], scores[1], scores[2]))
    if isinstance(i, DealDone):
        h = i.hands
        assert h is not None
        return dataclasses.replace(i, hands=(h[3], h[0], h[1], h[2]))
    seat = getattr(i, "seat", None)
    if isinstance(seat, Seat):
        return dataclasses.replace(i, seat=seat.plus(1))  # type: ignore[arg-type]
    return i


def test_engine_results_from_events() -> None:
    text = (DATA / "mjai/mortal_riichi_ippatsu.jsonl").read_text(encoding="utf-8")
    rec = import_mjai(text, TENHOU)
    assert rec.hands[0].deltas is None  # Mortal style: no results in the record
    result = replay(rec, keep_events=True)
    hands = hands_from_events(result.event_log)
    assert [h.result for h in hands] == ["win", "abortive"]
    assert hands[0].deltas == (8700, -7700, 0, 0)
    assert (hands[0].wins[0].han, hands[0].wins[0].fu) == (3, 40)
    out = to_tenhou6(rec.inputs, hands)
    assert out["log"][0][-1][:2] == ["和了", [8700, -7700, 0, 0]]
    assert out["log"][0][-1][2][3] == "40符3飜7700点"
    assert out["log"][1][-1] == ["九種九牌"]  # as Tenhou writes it (issue 28)
    back = import_tenhou6(json.dumps(out), TENHOU)
    assert back.inputs[2:] == rec.inputs[2:]


def test_histories_that_cannot_be_written() -> None:
    with pytest.raises(ExportError, match="no game_start"):
        export_mjai([HandStart()])
    rec = import_mjai((DATA / "mjai/mortal_riichi_ippatsu.jsonl").read_text(encoding="utf-8"),
                      TENHOU)
    with pytest.raises(ExportError, match="more than one game"):
        export_mjai([*rec.inputs, *rec.inputs])


def test_a_full_game_from_its_event_log() -> None:
    from rules.records.export import export_game

    path = LOGS / "riichi-rs/random-games/2022081017gm-00e1-0000-2df24853.json"
    rec = import_tenhou6(path.read_text(encoding="utf-8"), TENHOU)
    result = replay(rec, keep_events=True)
    assert any(e["type"] == "game_ended" for e in result.event_log)
    data = json.loads(export_game(rec.inputs, result.event_log, "tenhou6"))
    original = json.loads(path.read_text(encoding="utf-8"))
    assert data["sc"][0::2] == original["sc"][0::2]
    assert [round(float(p), 1) for p in data["sc"][1::2]] == [
        round(float(p), 1) for p in original["sc"][1::2]]
    text = export_game(rec.inputs, result.event_log, "mjai")
    last = json.loads(text.splitlines()[-1])
    assert last == {"type": "end_game", "scores": original["sc"][0::2]}
    assert import_mjai(text, TENHOU).inputs == rec.inputs


def test_tsumogiri_unknown_to_a_table_is_derived_from_the_tiles() -> None:
    from dataclasses import replace

    from rules.inputs import Discard

    rec = import_tenhou6((LOGS / "mjai-reviewer/rinshan.json").read_text(encoding="utf-8"),
                         TENHOU)
    # A table without a tsumogiri sensor: the same game with every flag unknown.
    blind = [replace(i, tsumogiri=None) if isinstance(i, Discard) else i for i in rec.inputs]
    silent = [e for e in to_mjai_events(blind, rec.hands) if e["type"] == "dahai"]
    assert all("tsumogiri" not in e for e in silent)
    derived = [e for e in to_mjai_events(blind, rec.hands, derive_tsumogiri=True)
               if e["type"] == "dahai"]
    original = [e for e in to_mjai_events(rec.inputs, rec.hands) if e["type"] == "dahai"]
    assert derived == original
    # tenhou.net/6 always derives (it has no "unknown").
    assert to_tenhou6(blind, rec.hands)["log"] == to_tenhou6(rec.inputs, rec.hands)["log"]
