"""mjai importer: the original mjai and Mortal dialects, optional fields omitted, reasonless draws
classified from the tiles, malformed lines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rules.inputs import (
    AbortiveDraw,
    Discard,
    ExhaustiveDraw,
    GameStart,
    HandStart,
    Ron,
    UraRevealed,
)
from rules.records import RecordError, detect_format, import_record
from rules.records.export import to_mjai_events
from rules.records.mjai import import_mjai
from rules.records.model import ImportedRecord
from rules.records.replay import replay, verify
from rules.records.tenhou6 import import_tenhou6
from rules.ruleset import load_ruleset
from rules.seats import Seat
from rules.tiles import Kind

HERE = Path(__file__).resolve().parent.parent / "data"
MJAI = HERE / "mjai"
LOGS = HERE / "game-logs"
TENHOU = load_ruleset("tenhou")
ORIGINAL = (MJAI / "original_riichi_ippatsu.jsonl").read_text(encoding="utf-8")
MORTAL = (MJAI / "mortal_riichi_ippatsu.jsonl").read_text(encoding="utf-8")


def lines(events: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in events)


def events_of(text: str) -> list[dict[str, Any]]:
    return [json.loads(x) for x in text.splitlines() if x.strip()]


def test_both_dialects_import_cleanly() -> None:
    for text in (ORIGINAL, MORTAL):
        assert detect_format(text) == "mjai"
        rec = import_record(text, TENHOU)
        assert rec.format == "mjai" and rec.issues == ()
        assert len(rec.hands) == 2
        assert [h.result for h in rec.hands] == ["win", "abortive"]


def test_the_dialects_give_the_same_play() -> None:
    a, b = import_mjai(ORIGINAL, TENHOU), import_mjai(MORTAL, TENHOU)
    assert len(a.inputs) == len(b.inputs)
    differ = [(x, y) for x, y in zip(a.inputs, b.inputs) if x != y]
    # Only what the original dialect leaves out: start scores, game length, two tsumogiri flags.
    for x, y in differ:
        assert type(x) is type(y)
        if isinstance(x, Discard):
            assert isinstance(y, Discard)
            assert x.tsumogiri is None and y.tsumogiri is True and x.tile == y.tile
        else:
            assert isinstance(x, GameStart | HandStart)
    assert len(differ) == 4
    start_a, start_b = a.inputs[0], b.inputs[0]
    assert isinstance(start_a, GameStart) and isinstance(start_b, GameStart)
    assert start_a.scores is None and start_a.rounds is None  # the ruleset decides
    assert start_b.scores == (25000,) * 4 and start_b.rounds == 1  # kyoku_first 4: East only


def test_uradora_markers_and_ura_markers() -> None:
    for text in (ORIGINAL, MORTAL):
        rec = import_mjai(text, TENHOU)
        h = rec.hands[0]
        tail = rec.inputs[h.end_input - 2 : h.end_input]
        assert tail[0] == Ron(seat=Seat.S0)
        assert isinstance(tail[1], UraRevealed)
        assert [t.kind for t in tail[1].tiles] == [Kind.M9]


def test_recorded_results_are_kept_aside() -> None:
    rec = import_mjai(ORIGINAL, TENHOU)
    w = rec.hands[0].wins[0]
    assert (w.winner, w.loser, w.han, w.fu, w.points_text) == (Seat.S0, Seat.S1, 3, 40, "7700")
    assert w.yaku == (("reach", 1), ("ippatsu", 1), ("uradora", 1))
    assert rec.hands[0].deltas == (8700, -7700, 0, 0)
    assert rec.final_scores == (32700, 17300, 25000, 25000)
    mortal = import_mjai(MORTAL, TENHOU)
    assert mortal.hands[0].deltas is None and mortal.hands[0].wins[0].han is None
    assert mortal.hands[1].scores == (32700, 17300, 25000, 25000)  # as the record gives them


def test_a_reasonless_draw_is_classified_from_the_tiles() -> None:
    rec = import_mjai(MORTAL, TENHOU)
    assert rec.inputs[-1] == AbortiveDraw(kind="nine_terminals", seat=Seat.S0)
    # Not nine kinds: the record is wrong, and the guess is not nine terminals.
    evs = events_of(MORTAL)
    kyoku = next(i for i, e in enumerate(evs) if e["type"] == "start_kyoku" and e["honba"] == 1)
    evs[kyoku]["tehais"][0] = ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "1p", "2p",
                               "3p", "4p", "E"]
    rec = import_mjai(lines(evs), TENHOU)
    assert not any(isinstance(i, AbortiveDraw) and i.kind == "nine_terminals"
                   for i in rec.inputs)


# Every shared tenhou.net/6 record, written as Mortal-style mjai with every optional field
# dropped (no reason, no tenpais, no deltas, no scores, no yaku): the same play comes back.
RECORDS = sorted(p for p in LOGS.rglob("*.json") if p.name != "confusing_nakis_2.json")


def _mortalize(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    first = True
    for e in events:
        e = {k: v for k, v in e.items()
             if k not in ("reason", "tenpais", "deltas", "yakus", "fu", "fan", "hora_points")}
        if e["type"] == "start_kyoku":
            if not first:
                e.pop("scores", None)
            first = False
        if e["type"] == "end_game":
            e.pop("scores", None)
        out.append(e)
    return out


@pytest.mark.parametrize("path", RECORDS, ids=lambda p: p.relative_to(LOGS).as_posix())
def test_tenhou_records_through_reasonless_mjai(path: Path) -> None:
    rec = import_tenhou6(path.read_text(encoding="utf-8"), TENHOU)
    events = _mortalize(to_mjai_events(rec.inputs, rec.hands))
    back = import_mjai(lines(events), TENHOU)
    assert back.issues == ()
    assert back.inputs[1:] == tuple(
        i if not isinstance(i, HandStart) or n == 1 else HandStart(
            dealer=i.dealer, round_wind=i.round_wind, honba=i.honba, deposits=i.deposits,
            scores=None,
        )
        for n, i in enumerate(rec.inputs)
    )[1:]


def _import(events: list[dict[str, Any]]) -> ImportedRecord:
    return import_mjai(lines(events), TENHOU)


def test_bad_events_are_collected_with_their_line() -> None:
    evs = events_of(MORTAL)
    evs[3]["actor"] = 7  # dahai by seat 7
    rec = _import(evs)
    assert rec.issues[0].index == 4 and rec.issues[0].hand == 0
    assert "actor" in rec.issues[0].reason
    evs = events_of(MORTAL)
    evs[2]["pai"] = "0z"
    rec = _import(evs)
    assert rec.issues[0].index == 3 and "not an mjai tile" in rec.issues[0].reason


def test_a_hand_without_result_is_reported() -> None:
    evs = [e for e in events_of(MORTAL) if e["type"] != "hora"]
    rec = _import(evs)
    assert any("no result" in i.reason for i in rec.issues)
    assert rec.hands[0].result == "unknown"


def test_hidden_tiles_are_refused_per_hand() -> None:
    evs = events_of(MORTAL)
    evs[1]["tehais"][2] = ["?"] * 13
    rec = _import(evs)
    assert any("hidden" in i.reason for i in rec.issues)


def test_red_fives_without_aka_flag_follow_the_tiles() -> None:
    evs = events_of(ORIGINAL)
    evs[1]["tehais"][1][1] = "5mr"
    rec = _import(evs)
    assert rec.aka is True and rec.issues == ()
    flagged = events_of(MORTAL)
    flagged[1]["tehais"][1][1] = "5mr"  # aka_flag false: read as an ordinary five
    rec = _import(flagged)
    assert rec.aka is False and rec.notes


def test_an_exhaustive_draw_with_tenpais() -> None:
    rec = import_tenhou6((LOGS / "mjai-reviewer/ryukyoku.json").read_text(encoding="utf-8"),
                         TENHOU)
    events = to_mjai_events(rec.inputs, rec.hands)
    ryu = next(e for e in events if e["type"] == "ryukyoku")
    assert ryu["tenpais"] == [True, True, False, False] and ryu["reason"] == "fanpai"
    ryu["tenpais"] = [True, False, False, False]  # a record that disagrees with its tiles
    back = import_mjai(lines(events), TENHOU)
    assert any("tenpai" in i.reason for i in back.issues)
    assert isinstance(back.inputs[-1], ExhaustiveDraw)


def test_malformed_mjai_raises_one_clear_error() -> None:
    with pytest.raises(RecordError, match="line 2 is not JSON"):
        import_mjai('{"type":"start_game"}\n{oops\n', TENHOU)
    with pytest.raises(RecordError, match="no start_kyoku"):
        import_mjai('{"type":"start_game"}\n', TENHOU)
    evs = events_of(MORTAL)
    evs[1]["bakaze"] = "X"
    with pytest.raises(RecordError, match="no readable hand"):
        _import(evs[:3])


def test_an_mjai_array_is_accepted() -> None:
    text = json.dumps(events_of(MORTAL))
    assert detect_format(text) == "mjai"
    assert import_record(text, TENHOU).inputs == import_mjai(MORTAL, TENHOU).inputs


def _empty_ura_without_riichi(events: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], int]:
    """As Mortal, libriichi and mjai.app write it: ``"ura_markers": []`` on every hora whose
    winner did not declare riichi (and the list on a riichi winner's)."""
    riichi: set[int] = set()
    emptied = 0
    for e in events:
        if e["type"] == "start_kyoku":
            riichi = set()
        elif e["type"] == "reach":
            riichi.add(e["actor"])
        elif e["type"] == "hora" and e["actor"] not in riichi:
            e["ura_markers"] = []
            emptied += 1
    return events, emptied


@pytest.mark.parametrize("path", RECORDS, ids=lambda p: p.relative_to(LOGS).as_posix())
def test_empty_ura_markers_on_a_win_without_riichi_verify(path: Path) -> None:
    """C17/B16: an empty ``ura_markers`` is no ura reveal (not an UraRevealed out of phase), and
    a double ron takes the ura from whichever hora lists them, not from the first only (a riichi
    winner after a non-riichi one keeps its ura: mjai-reviewer ``suukantsu_1.json``, 裏ドラ 4)."""
    rec = import_tenhou6(path.read_text(encoding="utf-8"), TENHOU)
    events, _ = _empty_ura_without_riichi(to_mjai_events(rec.inputs, rec.hands))
    back = import_mjai(lines(events), TENHOU)
    assert back.issues == ()
    result = replay(back)
    assert result.violations == ()
    expected = [str(d) for d in verify(rec, replay(rec))]  # confusing_nakis_1: its own delta
    assert [str(d) for d in verify(back, result)] == expected


def test_double_ron_ura_from_the_riichi_winner_b16() -> None:
    rec = import_tenhou6((LOGS / "mjai-reviewer/suukantsu_1.json").read_text(encoding="utf-8"),
                         TENHOU)
    events, emptied = _empty_ura_without_riichi(to_mjai_events(rec.inputs, rec.hands))
    last = max(i for i, e in enumerate(events) if e["type"] == "start_kyoku")
    horas = [e for e in events[last:] if e["type"] == "hora"]
    assert emptied >= 1 and horas[0]["ura_markers"] == [] and horas[1]["ura_markers"]
    back = import_mjai(lines(events), TENHOU)
    ura = [i for i in back.inputs if isinstance(i, UraRevealed)]
    assert len(ura) == 1 and len(ura[0].tiles) == 5
    wins = replay(back).hands[-1].wins
    riichi_win = next(w for w in wins if w.winner == 0)
    assert ("Ura Dora", 4) in riichi_win.yaku or riichi_win.han == 8


def test_unknown_keys_and_missing_ura_are_import_issues_c19() -> None:
    """C19: a misspelt key (``uradora_marker``) is named, not dropped in silence; a riichi win
    with no ura data at all says that no ura dora was counted."""
    evs = events_of(ORIGINAL)
    hora = next(e for e in evs if e["type"] == "hora")
    hora["uradora_marker"] = hora.pop("uradora_markers")
    rec = _import(evs)
    reasons = [i.reason for i in rec.issues]
    assert any("unknown key 'uradora_marker'" in r for r in reasons), reasons
    assert any("riichi win by seat 0" in r and "no ura" in r for r in reasons), reasons
    unknown = next(i for i in rec.issues if "unknown key" in i.reason)
    assert unknown.hand == 0 and unknown.index == evs.index(hora) + 1


@pytest.mark.parametrize(
    ("reason", "kind"),
    [("kyushu_kyuhai", "nine_terminals"), ("kyuushu_kyuuhai", "nine_terminals"),
     ("Kyushukyuhai", "nine_terminals"), ("sufuurenta", "four_winds"),
     ("suufon_renda", "four_winds"), ("suucha_riichi", "four_riichi"),
     ("suukansansen", "four_kans"), ("sanchaho", "triple_ron"), ("sanchahou", "triple_ron"),
     ("exhaustive_draw", None), ("nagashimangan", None)],
)
def test_abort_reason_names_of_other_engines_b15(reason: str, kind: str | None) -> None:
    """B15: the reason names other engines and converters write are aliases, folded (case,
    underscores): no "unknown ryukyoku reason" issue, the named kind is used."""
    from rules.records.mjai_words import NAGASHI_ALIASES, REASONS, reason_key

    key = reason_key(reason)
    assert key in REASONS or key in NAGASHI_ALIASES
    assert (None if key in NAGASHI_ALIASES else REASONS[key]) == kind
    if kind == "nine_terminals":
        evs = events_of(MORTAL)
        ryu = next(e for e in evs if e["type"] == "ryukyoku")
        ryu["reason"] = reason
        rec = _import(evs)
        assert rec.issues == ()
        assert rec.inputs[-1] == AbortiveDraw(kind="nine_terminals", seat=Seat.S0)


def test_exhaustive_and_nagashi_aliases_b15() -> None:
    for name, alias, result in (("mjai-reviewer/ryukyoku.json", "exhaustive_draw", "exhaustive"),
                                ("riichi-rs/notable-features/abort-nagashi-mangan.json",
                                 "nagashimangan", "nagashi")):
        rec = import_tenhou6((LOGS / name).read_text(encoding="utf-8"), TENHOU)
        events = to_mjai_events(rec.inputs, rec.hands)
        for e in events:
            if e["type"] == "ryukyoku" and e.get("reason") in ("fanpai", "nm"):
                e["reason"] = alias if (e["reason"] == "nm") == (result == "nagashi") else (
                    e["reason"])
        back = import_mjai(lines(events), TENHOU)
        assert back.issues == ()
        assert result in [h.result for h in back.hands]
        assert not any(isinstance(i, AbortiveDraw) for i in back.inputs)


def test_four_kans_that_also_empty_the_wall_abort_b15() -> None:
    """B15: the kind of an unnamed draw: four kans by two seats whose replacement draws emptied
    the wall are the four-kan abort (Tenhou 四槓散了), tested before the wall count."""
    from rules.records.builder import DRAWS_PER_HAND, HandBuilder

    b = HandBuilder(aka=True, hand=0, issues=[], out=[])
    b.draws = DRAWS_PER_HAND
    b.calls_made = True
    b.kans_by = [3, 1, 0, 0]
    assert b.guess_abort() == ("four_kans", None)
    b.kans_by = [4, 0, 0, 0]  # one seat's four kans (suukantsu in the making): no abort
    assert b.guess_abort() == (None, None)
