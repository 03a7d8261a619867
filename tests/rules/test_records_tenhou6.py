"""tenhou.net/6 importer: every shared record, counts per hand, tile conservation, red fives,
East-only, excerpts, abortive draws, double ron, kan dora timing, malformed records."""

from __future__ import annotations

import copy
import json
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
    HandStart,
    IndicatorShown,
    Input,
    Kakan,
    RinshanDraw,
    Ron,
    Tsumo,
    UraRevealed,
    input_from_json,
    input_to_json,
)
from rules.records import RecordError, detect_format, import_record
from rules.records.model import ImportedRecord
from rules.records.replay import replay, verify
from rules.records.tenhou6 import import_tenhou6, record_aka, record_rounds
from rules.ruleset import load_ruleset
from rules.seats import Seat, Wind
from rules.tiles import RED_IDS

DATA = Path(__file__).resolve().parent.parent / "data" / "game-logs"
RECORDS = sorted(DATA.rglob("*.json"))
TENHOU = load_ruleset("tenhou")
# A record of mjai-reviewer's naki-ordering tests, not of a real game: four plain 5s in a game
# with a red 5s. The importer must say so (a fifth copy), with the hand and the position.
IMPOSSIBLE = {"mjai-reviewer/confusing_nakis_2.json"}


def rel(path: Path) -> str:
    return path.relative_to(DATA).as_posix()


def load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((DATA / name).read_text(encoding="utf-8"))
    return data


def imp(data: dict[str, Any] | str, ruleset: str = "tenhou") -> ImportedRecord:
    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    return import_tenhou6(text, load_ruleset(ruleset))


def hand_inputs(rec: ImportedRecord, n: int) -> list[Input]:
    h = rec.hands[n]
    return list(rec.inputs[h.first_input : h.end_input])


def test_the_shared_records_are_all_here() -> None:
    assert len(RECORDS) == 45
    assert (DATA / "README.md").is_file()
    assert (DATA / "mjai-reviewer" / "LICENSE").is_file()
    assert (DATA / "riichi-rs" / "LICENSE").is_file()


@pytest.mark.parametrize("path", RECORDS, ids=rel)
def test_every_record_imports(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert detect_format(text) == "tenhou6"
    rec = import_record(text, TENHOU)
    data = json.loads(text)
    assert len(rec.hands) == len(data["log"])
    if rel(path) in IMPOSSIBLE:
        assert rec.issues
        assert rec.issues[0].hand == 0 and rec.issues[0].index is not None
        assert "no 5s left" in rec.issues[0].reason
        return
    assert rec.issues == ()
    assert isinstance(rec.inputs[0], GameStart)
    assert sum(isinstance(i, GameStart) for i in rec.inputs) == 1
    assert sum(isinstance(i, HandStart) for i in rec.inputs) == len(data["log"])


def _counts_from_record(entry: list[Any], seat: int) -> dict[str, int]:
    takes, discards = entry[5 + 3 * seat], entry[6 + 3 * seat]
    c = {"draws": 0, "calls": 0, "discards": 0, "riichi": 0, "tsumogiri": 0, "ankan": 0,
         "kakan": 0}
    for t in takes:
        c["draws" if isinstance(t, int) else "calls"] += 1
    for d in discards:
        if isinstance(d, int):
            if d == 0:
                continue
            c["discards"] += 1
            c["tsumogiri"] += d == 60
        elif "a" in d:
            c["ankan"] += 1
        elif "k" in d:
            c["kakan"] += 1
        else:
            c["discards"] += 1
            c["riichi"] += 1
            c["tsumogiri"] += d == "r60"
    return c


def _counts_from_inputs(inputs: list[Input], seat: int) -> dict[str, int]:
    mine = [i for i in inputs if getattr(i, "seat", None) == seat]
    return {
        "draws": sum(isinstance(i, Draw | RinshanDraw) for i in mine),
        "calls": sum(isinstance(i, Call) for i in mine),
        "discards": sum(isinstance(i, Discard) for i in mine),
        "riichi": sum(isinstance(i, Discard) and i.riichi for i in mine),
        "tsumogiri": sum(isinstance(i, Discard) and i.tsumogiri is True for i in mine),
        "ankan": sum(isinstance(i, Ankan) for i in mine),
        "kakan": sum(isinstance(i, Kakan) for i in mine),
    }


@pytest.mark.parametrize("path", [p for p in RECORDS if rel(p) not in IMPOSSIBLE], ids=rel)
def test_counts_per_hand_and_tile_conservation(path: Path) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    rec = imp(data)
    for n, entry in enumerate(data["log"]):
        inputs = hand_inputs(rec, n)
        for seat in range(4):
            assert _counts_from_inputs(inputs, seat) == _counts_from_record(entry, seat), (
                f"hand {n} seat {seat}"
            )
        # Every tile that came out of the wall is one distinct physical tile.
        dealt = next(i for i in inputs if isinstance(i, DealDone))
        assert dealt.hands is not None
        seen = [t.id for h in dealt.hands for t in h]
        for i in inputs:
            if isinstance(i, Draw | RinshanDraw | IndicatorShown) and i.tile is not None:
                seen.append(i.tile.id)
            if isinstance(i, UraRevealed):
                seen.extend(t.id for t in i.tiles)
        assert len(seen) == len(set(seen)) <= 136
        # Indicators: as many as the record lists; ura likewise.
        shown = [i.tile for i in inputs if isinstance(i, IndicatorShown)]
        assert [t.tenhou(rec.aka) if t else None for t in shown] == [
            c if rec.aka or c < 50 else c - 36 for c in entry[2]
        ]
        # Every discarded, called and kan tile was a tile in play already (no new tile appears).
        pool = set(seen)
        for i in inputs:
            if isinstance(i, Discard | Kakan) and i.tile is not None:
                assert i.tile.id in pool
            if isinstance(i, Call | Ankan) and i.tiles is not None:
                assert {t.id for t in i.tiles} <= pool


@pytest.mark.parametrize("path", RECORDS, ids=rel)
def test_inputs_survive_the_json_codec(path: Path) -> None:
    rec = imp(json.loads(path.read_text(encoding="utf-8")))
    for i in rec.inputs:
        assert input_from_json(json.loads(json.dumps(input_to_json(i)))) == i


def test_red_fives_follow_the_record() -> None:
    assert record_aka({"disp": "般南喰赤", "aka": 1}) is True
    assert record_aka({"disp": "般東喰", "aka": 1}) is False  # the room code wins
    assert record_aka({"aka": 0}) is False
    assert record_aka({"disp": "Gold Room South", "aka51": 1, "aka52": 1, "aka53": 1}) is True
    assert record_aka({"aka51": 0, "aka52": 0, "aka53": 0}) is False
    # four_reach.json: no red fives (般東喰) though it holds red codes: ordinary fives.
    rec = imp(load("mjai-reviewer/four_reach.json"))
    assert rec.aka is False
    assert rec.notes and "ordinary fives" in rec.notes[0]
    start = rec.inputs[0]
    assert isinstance(start, GameStart) and start.aka is False
    # double_ron.json: red fives on, and its 51/52 codes are the red copies (ids 16/52).
    red = imp(load("mjai-reviewer/double_ron.json"))
    assert red.aka is True
    deal = next(i for i in red.inputs if isinstance(i, DealDone))
    assert deal.hands is not None
    assert {t.id for t in deal.hands[0]} & RED_IDS == {16, 52}


def test_red_codes_without_aka_take_plain_copies() -> None:
    rec = imp(load("riichi-rs/notable-features/abort-four-riichi.json"))
    assert rec.aka is False and rec.issues == ()
    deal = next(i for i in rec.inputs if isinstance(i, DealDone))
    assert deal.hands is not None
    five_s = [t for t in deal.hands[1] if t.kind.mjai == "5s"]
    assert len(five_s) == 1 and not five_s[0].is_red(False)


def test_game_length_from_the_room() -> None:
    assert record_rounds({"disp": "般東喰"}) == 1
    assert record_rounds({"disp": "鳳南喰赤"}) == 2
    assert record_rounds({"disp": "Gold Room South"}) == 2
    assert record_rounds({"aka": 1}) is None
    east = imp(load("riichi-rs/random-games/2022081017gm-00e1-0000-2df24853.json"))
    assert east.rounds == 1
    start = east.inputs[0]
    assert isinstance(start, GameStart) and start.rounds == 1


def test_an_excerpt_starts_where_its_first_hand_says() -> None:
    rec = imp(load("riichi-rs/notable-features/abort-nagashi-mangan.json"))
    start, hand = rec.inputs[0], rec.inputs[1]
    assert isinstance(start, GameStart) and start.first_dealer == Seat.S0
    assert start.scores == (32700, 35100, 28200, 3000)
    assert hand == HandStart(
        dealer=Seat.S2, round_wind=Wind.SOUTH, honba=1, deposits=1,
        scores=(32700, 35100, 28200, 3000),
    )
    assert rec.hands[0].result == "nagashi"
    assert rec.hands[0].deltas == (-4000, -4000, 12000, -4000)
    assert isinstance(rec.inputs[-1], ExhaustiveDraw)


@pytest.mark.parametrize(
    ("name", "kind", "seat"),
    [
        ("mjai-reviewer/kyushukyuhai.json", "nine_terminals", Seat.S0),
        ("riichi-rs/notable-features/99.json", "nine_terminals", Seat.S0),
        ("riichi-rs/notable-features/abort-four-wind.json", "four_winds", None),
        ("riichi-rs/notable-features/abort-four-riichi.json", "four_riichi", None),
        ("mjai-reviewer/four_reach.json", "four_riichi", None),
        ("riichi-rs/notable-features/ron-3.json", "triple_ron", None),
    ],
)
def test_abortive_draws(name: str, kind: str, seat: Seat | None) -> None:
    rec = imp(load(name))
    assert rec.inputs[-1] == AbortiveDraw(kind=kind, seat=seat)  # type: ignore[arg-type]
    assert rec.hands[0].result == "abortive" and rec.hands[0].abort_kind == kind


def test_four_winds_is_the_fourth_discard() -> None:
    rec = imp(load("riichi-rs/notable-features/abort-four-wind.json"))
    discards = [i for i in rec.inputs if isinstance(i, Discard)]
    assert len(discards) == 4 and {d.tile.kind.mjai for d in discards if d.tile} == {"S"}


def test_double_ron_gives_two_rons_on_one_discard() -> None:
    rec = imp(load("mjai-reviewer/double_ron.json"))
    tail = rec.inputs[-3:]
    assert tail[0] == Ron(seat=Seat.S0) and tail[1] == Ron(seat=Seat.S2)
    assert isinstance(tail[2], UraRevealed) and len(tail[2].tiles) == 1
    assert isinstance(rec.inputs[-4], Discard) and rec.inputs[-4].seat == Seat.S3
    h = rec.hands[0]
    assert [(w.winner, w.loser) for w in h.wins] == [(Seat.S0, Seat.S3), (Seat.S2, Seat.S3)]
    assert h.deltas == (13000, 0, 2000, -14000)  # both wins summed
    assert h.wins[0].han == 6 and h.wins[0].points_text == "跳満12000点"
    assert h.wins[1].fu == 30 and h.wins[1].han == 2


def test_exhaustive_draw_tenpai_from_the_tiles_matches_the_deltas() -> None:
    rec = imp(load("mjai-reviewer/ryukyoku.json"))
    assert rec.inputs[-1] == ExhaustiveDraw(tenpai=(Seat.S0, Seat.S1))
    assert rec.hands[0].tenpai == (Seat.S0, Seat.S1)
    # A record whose deltas disagree with its tiles is reported.
    data = load("mjai-reviewer/ryukyoku.json")
    data["log"][0][-1] = ["流局", [3000, -1000, -1000, -1000]]
    bad = imp(data)
    assert any("tenpai" in i.reason for i in bad.issues)


def test_kan_indicators_follow_the_ruleset() -> None:
    # rinshan.json: an ankan; closed kans turn their indicator before the replacement draw.
    rec = imp(load("mjai-reviewer/rinshan.json"))
    i = next(n for n, x in enumerate(rec.inputs) if isinstance(x, Ankan))
    assert isinstance(rec.inputs[i + 1], IndicatorShown)
    assert isinstance(rec.inputs[i + 2], RinshanDraw)
    assert isinstance(rec.inputs[i + 3], Tsumo)
    # confusing_nakis_6: a daiminkan; Tenhou turns it after the kan player's next discard ...
    data = load("mjai-reviewer/confusing_nakis_6.json")
    rec = imp(data)
    k = next(n for n, x in enumerate(rec.inputs) if isinstance(x, Call) and x.kind == "daiminkan")
    kinds = [type(x).__name__ for x in rec.inputs[k : k + 4]]
    assert kinds == ["Call", "RinshanDraw", "Discard", "IndicatorShown"]
    # ... and a ruleset that turns open kans' indicators at once does so before the draw.
    rec = imp(data, "mleague")
    kinds = [type(x).__name__ for x in rec.inputs[k : k + 4]]
    assert kinds == ["Call", "IndicatorShown", "RinshanDraw", "Discard"]


def test_consecutive_open_kans_turn_the_owed_indicator() -> None:
    # yakuman-kazoe-17, last hand: three kakans in a row, rinshan win; the record shows two kan
    # indicators: each owed one is turned when the next kan stands (before its replacement draw).
    rec = imp(load("riichi-rs/notable-features/yakuman-kazoe-17.json"))
    inputs = hand_inputs(rec, 5)
    assert sum(isinstance(x, IndicatorShown) for x in inputs) == 3
    assert isinstance(inputs[-1], Tsumo)
    assert [type(x).__name__ for x in inputs[-9:]] == [
        "Kakan", "RinshanDraw", "Kakan", "IndicatorShown", "RinshanDraw", "Kakan",
        "IndicatorShown", "RinshanDraw", "Tsumo",
    ]


def test_chankan_ends_on_the_kakan() -> None:
    rec = imp(load("mjai-reviewer/chankan.json"))
    assert isinstance(rec.inputs[-2], Kakan) and rec.inputs[-1] == Ron(seat=Seat.S2)


def test_confusing_calls_are_ordered_by_search() -> None:
    # Two identical discards, the pon on the second: only one order fits all the moves.
    for n in (0, 1, 3, 4, 5, 6, 7):
        rec = imp(load(f"mjai-reviewer/confusing_nakis_{n}.json"))
        assert rec.issues == (), n


def test_a_fifth_copy_is_an_import_error_with_hand_and_position() -> None:
    data = load("mjai-reviewer/double_ron.json")
    entry = data["log"][0]
    codes = [t for part in entry[2:16] for t in part if isinstance(t, int) and 10 < t < 50]
    full = next(c for c in sorted(set(codes)) if codes.count(c) == 4)
    # Make one more tile of a kind whose four copies are all in the record: seat 0's first take.
    assert entry[5][0] != full
    entry[5][0] = full
    rec = imp(data)
    assert any(i.hand == 0 and i.index is not None and "left" in i.reason
               for i in rec.issues)


def test_a_bad_hand_is_reported_and_the_others_import() -> None:
    data = load("mjai-reviewer/ranked_game.json")
    data["log"][1][5 + 3][4] = "zz"  # seat 1's takes in hand 2
    rec = imp(data)
    assert [i.hand for i in rec.issues] == [1]
    assert "bad take" in rec.issues[0].reason
    assert [h.result for h in rec.hands] == ["win", "unknown", "win"]
    data = load("mjai-reviewer/ranked_game.json")
    data["log"][2] = [1, 2, 3]
    rec = imp(data)
    assert rec.issues[0].hand == 2 and "17 entries" in rec.issues[0].reason


def test_moves_that_fit_no_order_are_reported() -> None:
    data = load("mjai-reviewer/double_ron.json")
    data["log"][0][11].append(11)  # seat 2 draws once more than play allows
    rec = imp(data)
    assert rec.issues and "play order" in rec.issues[0].reason


def test_malformed_files_raise_one_clear_error() -> None:
    with pytest.raises(RecordError, match="not valid JSON"):
        import_tenhou6("{nope", TENHOU)
    with pytest.raises(RecordError, match="no 'log'"):
        import_tenhou6('{"title": ["", ""]}', TENHOU)
    with pytest.raises(RecordError, match="top level"):
        import_tenhou6("[1, 2]", TENHOU)
    with pytest.raises(RecordError, match="three-player"):
        import_tenhou6('{"name": ["a", "b", "c"], "log": [[]]}', TENHOU)
    with pytest.raises(RecordError):
        detect_format("hello")
    with pytest.raises(RecordError):
        detect_format("")


def test_stripped_records_still_import() -> None:
    data = copy.deepcopy(load("mjai-reviewer/ranked_game.json"))
    for entry in data["log"][1:]:
        entry[0][1] = entry[0][2] = None
        entry[1] = None
    for entry in data["log"]:
        result = entry[-1]
        entry[-1] = [result[0]] + [
            None if i % 2 == 0 else x[:3] for i, x in enumerate(result[1:])
        ]
    rec = imp(data)
    assert rec.issues == ()
    assert rec.hands[1].scores is None and rec.hands[1].honba is None
    assert all(h.deltas is None for h in rec.hands)
    assert rec.hands[0].wins[0].winner == Seat.S3 and rec.hands[0].wins[0].loser == Seat.S2


def test_final_points_in_hundreds_or_points() -> None:
    data = load("riichi-rs/random-games/2022081017gm-00e1-0000-2df24853.json")
    points = data["sc"][0::2]
    assert imp(data).final_scores == tuple(points)
    data["sc"] = [v / 100 if i % 2 == 0 else v for i, v in enumerate(data["sc"])]
    assert imp(data).final_scores == tuple(points)


GAME = "riichi-rs/random-games/2022081017gm-00e1-0000-2df24853.json"


def _per_line(data: dict[str, Any]) -> str:
    """The layout mjx and many converters write: one tenhou.net/6 object per hand and line."""
    head = {k: v for k, v in data.items() if k != "log"}
    return "".join(json.dumps({**head, "log": [hand]}, ensure_ascii=False) + "\n"
                   for hand in data["log"])


def test_one_hand_object_per_line_is_one_game_c18() -> None:
    """C18: one tenhou.net/6 object per line (mjx): the hands join into one game, which
    verifies exactly like the single-object file."""
    data = load(GAME)
    text = _per_line(data)
    assert detect_format(text) == "tenhou6"
    whole, joined = imp(data), import_record(text, TENHOU)
    assert joined.inputs == whole.inputs and joined.hands == whole.hands
    assert joined.final_scores == whole.final_scores and joined.issues == ()
    assert any("one tenhou.net/6 object per line" in n for n in joined.notes)
    assert [str(d) for d in verify(joined, replay(joined))] == []
    other = json.loads(text.splitlines()[1])
    other["name"] = ["a", "b", "c", "d"]
    lines = text.splitlines()
    lines[1] = json.dumps(other)
    with pytest.raises(RecordError, match="line 2's 'name' differs"):
        import_tenhou6("\n".join(lines), TENHOU)


def test_json_with_line_comments_c18() -> None:
    """C18: ``//`` comments outside strings are dropped; a ``//`` inside a string stays."""
    data = load("mjai-reviewer/double_ron.json")
    data["ref"] = "http://tenhou.net/0/?log=2020//x"
    body = json.dumps(data, ensure_ascii=False, indent=1)
    text = "// reviewed by the referee\n" + body.replace('"log":', '// the hands\n "log":', 1)
    text = text.replace('"title":', '"title": // the room\n', 1)
    assert detect_format(text) == "tenhou6"
    rec = import_record(text, TENHOU)
    assert rec.inputs == imp(data).inputs and rec.issues == ()
    assert rec.source_meta["ref"] == "http://tenhou.net/0/?log=2020//x"
    assert "// comments in the JSON were ignored" in rec.notes
    with pytest.raises(RecordError, match="even without its // comments"):
        import_tenhou6('// a note\n{"log": [oops]}', TENHOU)


def test_rule_that_is_not_an_object_is_an_issue_c19() -> None:
    data = load("mjai-reviewer/double_ron.json")
    data["rule"] = "般南喰赤"
    rec = imp(data)
    assert any(i.hand is None and "'rule' is not an object" in i.reason for i in rec.issues)


def test_riichi_win_without_ura_data_is_an_issue_c19() -> None:
    """C19: a riichi win whose hand lists no ura indicators (entry 3 empty) is not silently
    scored without ura; under a ruleset without ura (Classic) it is no issue."""
    data = load("mjai-reviewer/double_ron.json")
    data["log"][0][3] = []
    rec = imp(data)
    issue = next(i for i in rec.issues if "no ura indicators" in i.reason)
    assert issue.hand == 0 and issue.index is not None
    assert not any("ura" in i.reason for i in imp(data, "saikouisen-classic").issues)
