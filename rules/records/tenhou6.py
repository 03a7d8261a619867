"""tenhou.net/6 JSON records → :mod:`rules.inputs`.

A record is ``{"title", "name", "rule", "log": [hand, ...]}``; each hand is
``[[kyoku, honba, kyotaku], scores, dora indicators, ura indicators, haipai0, takes0, discards0,
... haipai3, takes3, discards3, result]``. Seats are absolute (seat 0 is the first dealer, 起家);
``kyoku`` 0..3 is East 1..4, 4..7 South 1..4 (8.. West, for extensions), so the dealer is
``kyoku % 4``. Tiles are 11..19 (man), 21..29 (pin), 31..39 (sou), 41..47 (E S W N P F C) and
51..53 for red 5m/5p/5s.

Each seat's moves are listed apart: ``takes`` (a draw, or a call string: ``c`` chi, ``p`` pon,
``m`` daiminkan, the letter's place telling whom it was called from) and ``discards`` (a tile,
``60`` for the drawn tile, ``r``+tile for a riichi discard, ``0`` after a daiminkan, or a kan
string: ``a`` ankan, ``k`` kakan). The play order is rebuilt here: after each discard the next to
act is whoever's next take calls that tile from that seat (pon/kan before chi), else the next
seat draws. When two identical discards make that ambiguous the search backtracks.

Red fives follow the record (``rule.aka51..53``, ``rule.aka``, or a Tenhou room code in
``rule.disp`` without 赤): in a game without them, red codes are read as ordinary fives.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, assert_never

from rules.inputs import AbortKind, GameStart, HandStart, Input
from rules.records.builder import HandBuilder, KanDoraTiming, TileName
from rules.records.json_text import has_line_comment, objects_per_line, strip_line_comments
from rules.records.model import (
    ImportedRecord,
    ImportIssue,
    RecordedHand,
    RecordedWin,
    RecordError,
    ResultKind,
    Scores,
)
from rules.records.tenhou6_moves import (
    BadEntry,
    Cut,
    Step,
    Take,
    parse_discard,
    parse_take,
    play_order,
    tile_name,
)
from rules.ruleset import Ruleset
from rules.seats import SEATS, Seat, Wind

ABORT_WORDS: dict[str, AbortKind] = {
    "九種九牌": "nine_terminals",
    "四風連打": "four_winds",
    "四家立直": "four_riichi",
    "四槓散了": "four_kans",
    "三家和了": "triple_ron",
}
ABORT_WORD_OF: dict[str, str] = {v: k for k, v in ABORT_WORDS.items()}
DRAW_WORDS = ("流局", "全員聴牌", "全員不聴")
NAGASHI_WORD = "流し満貫"
WIN_WORD = "和了"


_FU = re.compile(r"(\d+)符")
_HAN = re.compile(r"(\d+)飜")
_YAKU = re.compile(r"^(.*)\((\d+)飜\)$")


def _recorded_win(info: Any, deltas: Scores | None) -> RecordedWin:
    if not isinstance(info, list) or len(info) < 2:
        raise BadEntry(f"bad win entry {info!r}")
    winner, loser = Seat.of(info[0]), Seat.of(info[1])
    pao = Seat.of(info[2]) if len(info) > 2 and isinstance(info[2], int) else winner
    text = info[3] if len(info) > 3 and isinstance(info[3], str) else None
    yaku: list[tuple[str, int]] = []
    yakuman = 0
    han: int | None = None
    for entry in info[4:]:
        if not isinstance(entry, str):
            continue
        m = _YAKU.match(entry)
        if m:
            yaku.append((m.group(1), int(m.group(2))))
        elif entry.endswith("(役満)"):
            yaku.append((entry[: -len("(役満)")], 13))
            yakuman += 1
        elif entry.endswith("(ダブル役満)"):
            yaku.append((entry[: -len("(ダブル役満)")], 26))
            yakuman += 2
    if yaku and not yakuman:
        han = sum(h for _, h in yaku)
    fu = None
    if text is not None:
        m = _FU.search(text)
        fu = int(m.group(1)) if m else None
        m = _HAN.search(text)
        if m and han is None:
            han = int(m.group(1))
    return RecordedWin(
        winner=winner,
        loser=None if loser == winner else loser,
        pao=None if pao == winner else pao,
        deltas=deltas,
        han=han,
        fu=fu,
        yakuman=yakuman,
        points_text=text,
        yaku=tuple(yaku),
    )


def _scores(value: Any, what: str) -> Scores | None:
    if value is None:
        return None
    if (
        not isinstance(value, list)
        or len(value) != 4
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        raise BadEntry(f"{what} must be 4 integers, got {value!r}")
    return (value[0], value[1], value[2], value[3])


def record_aka(rule: Mapping[str, Any]) -> bool:
    """Red fives as the record says: ``aka51..53``, then ``aka``, then a room code without 赤."""
    per_five = [rule[k] for k in ("aka51", "aka52", "aka53") if k in rule]
    if per_five:
        return any(bool(v) for v in per_five)
    if "aka" in rule and not rule["aka"]:
        return False
    disp = rule.get("disp")
    if isinstance(disp, str) and any(ch in disp for ch in "般上特鳳技喰"):
        return "赤" in disp
    return True


def record_rounds(rule: Mapping[str, Any]) -> int | None:
    disp = rule.get("disp")
    if not isinstance(disp, str):
        return None
    low = disp.lower()
    if "東" in disp or "east" in low:
        return 1
    if "南" in disp or "south" in low:
        return 2
    return None


_SAME_GAME_KEYS = ("name", "rule")  # a title may name the hand


def load_json(source: str | bytes | Mapping[str, Any]) -> tuple[Mapping[str, Any], list[str]]:
    """The record as one JSON object, and notes on what it took. Accepted beyond strict JSON:
    ``//`` comments (removed outside strings), and one tenhou.net/6 object per line (mjx and
    many converters write a hand per line): their ``log`` lists are joined in order, the other
    keys come from the first line, ``sc`` from the last."""
    if isinstance(source, Mapping):
        return source, []
    text = source.decode("utf-8") if isinstance(source, bytes) else source
    notes: list[str] = []
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        lines = objects_per_line(text)
        if lines is not None:
            return _join_lines(lines)
        if not has_line_comment(text):
            raise RecordError(f"not a tenhou.net/6 record: not valid JSON ({exc})") from exc
        try:
            data = json.loads(strip_line_comments(text))
        except json.JSONDecodeError as exc2:
            raise RecordError(
                f"not a tenhou.net/6 record: not valid JSON, even without its // comments "
                f"({exc2})"
            ) from exc2
        notes.append("// comments in the JSON were ignored")
    if not isinstance(data, dict):
        raise RecordError("not a tenhou.net/6 record: the top level is not a JSON object")
    return data, notes


def _join_lines(lines: list[tuple[int, Any]]) -> tuple[Mapping[str, Any], list[str]]:
    first = lines[0][1]
    for number, obj in lines:
        if not isinstance(obj, dict) or not isinstance(obj.get("log"), list):
            raise RecordError(
                f"not a tenhou.net/6 record: line {number} is not a tenhou.net/6 object "
                "with a 'log' list (one hand object per line expected)"
            )
        for key in _SAME_GAME_KEYS:
            if key in obj and key in first and obj[key] != first[key]:
                raise RecordError(
                    f"not one tenhou.net/6 game: line {number}'s {key!r} differs from line "
                    f"{lines[0][0]}'s (one game per file)"
                )
    data = dict(first)
    data["log"] = [hand for _, obj in lines for hand in obj["log"]]
    last_sc = next((obj["sc"] for _, obj in reversed(lines) if "sc" in obj), None)
    if last_sc is not None:
        data["sc"] = last_sc
    return data, [f"one tenhou.net/6 object per line: {len(lines)} lines joined into one game"]


#: Top-level keys an exporter writes back as they came (C22: Tenhou's viewer and review tools
#: read them): the log version, the game's reference, the players' ranks and ratings, sexes.
KEPT_KEYS = ("ver", "ref", "dan", "rate", "sx", "lobby", "ratingc")


@dataclass(slots=True)
class _Context:
    """What every hand of one record is imported with (the lists are appended to)."""

    aka: bool
    timing: KanDoraTiming | None
    fourteenth: Literal["jump", "draw"]
    ura_counts: bool  # the ruleset scores ura dora: a riichi win needs the ura indicators
    issues: list[ImportIssue]
    notes: set[str]
    inputs: list[Input]


@dataclass(frozen=True, slots=True)
class _Place:
    """Where one hand sits (its first entry and scores) and where its inputs start."""

    number: int
    kyoku: int
    honba: int | None
    deposits: int | None
    scores: Scores | None
    first: int

    @property
    def dealer(self) -> Seat:
        return Seat(self.kyoku % 4)

    @property
    def wind(self) -> Wind:
        return Wind(self.kyoku // 4 % 4)


def _rule(data: Mapping[str, Any], issues: list[ImportIssue]) -> Mapping[str, Any]:
    raw = data.get("rule", {})
    if isinstance(raw, Mapping):
        return raw
    issues.append(ImportIssue(None, None, (
        f"'rule' is not an object ({raw!r}): red fives and the game length are not known from "
        "the record (red fives assumed on, the length as the ruleset says)")))
    return {}


def _names(data: Mapping[str, Any], rule: Mapping[str, Any]) -> tuple[str, str, str, str]:
    raw = data.get("name", ["", "", "", ""])
    if isinstance(raw, list) and len(raw) == 3:
        raise RecordError("three-player (sanma) records are not supported")
    if isinstance(rule.get("disp"), str) and "三" in rule["disp"]:
        raise RecordError("three-player (sanma) records are not supported")
    names = tuple(str(n) for n in raw) if isinstance(raw, list) else ()
    return (names[0], names[1], names[2], names[3]) if len(names) == 4 else ("", "", "", "")


def _final(sc: Any) -> Scores | None:
    # finite: a NaN/inf score is refused like any other unreadable value (found by bench/fuzz.py)
    if not (isinstance(sc, list) and len(sc) == 8 and all(
        isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) for v in sc
    )):
        return None
    points = [sc[0], sc[2], sc[4], sc[6]]
    # Tenhou's own logs give the final points in hundreds (its XML "owari"); converted records
    # in points. A game's points sum to about 100,000 either way.
    scale = 100 if abs(sum(points) - 1000) < abs(sum(points) - 100000) else 1
    return (int(points[0] * scale), int(points[1] * scale), int(points[2] * scale),
            int(points[3] * scale))


def _final_pt(sc: Any) -> tuple[float, float, float, float] | None:
    if _final(sc) is None:
        return None
    return (float(sc[1]), float(sc[3]), float(sc[5]), float(sc[7]))


def _place(h: int, entry: list[Any], first: int) -> _Place:
    meta = entry[0]
    if not isinstance(meta, list) or len(meta) != 3 or not isinstance(meta[0], int):
        raise BadEntry(f"bad [kyoku, honba, deposits] entry {meta!r}")
    if not 0 <= meta[0] < 16:
        raise BadEntry(f"kyoku {meta[0]} out of range")
    return _Place(
        number=h,
        kyoku=meta[0],
        honba=meta[1] if isinstance(meta[1], int) else None,
        deposits=meta[2] if isinstance(meta[2], int) else None,
        scores=_scores(entry[1], "scores"),
        first=first,
    )


def _results_only(entry: Any) -> bool:
    """A hand entry with its result but not one tile: no dora, no dealt hand, no take."""
    return (isinstance(entry, list) and len(entry) == 17 and entry[2] == []
            and all(entry[i] == [] for i in range(4, 16)))


def import_tenhou6(source: str | bytes | Mapping[str, Any], ruleset: Ruleset) -> ImportedRecord:
    """Import a tenhou.net/6 record (text or parsed JSON). Raises :class:`RecordError` only for a
    file that is not a record; problems inside hands are collected in ``issues``."""
    data, read_notes = load_json(source)
    log = data.get("log")
    if not isinstance(log, list) or not log:
        raise RecordError("not a tenhou.net/6 record: no 'log' list of hands")
    if all(_results_only(entry) for entry in log):
        # jantaku's own export of a table without sensors (rules/records/table_game.py) and
        # any record like it: per hand its place and result, no tile.
        raise RecordError(
            f"a results-only record ({len(log)} hand(s), no tile dealt, as written for a table "
            "without sensors): it holds each hand's result, not its play, so it cannot be "
            "replayed")
    issues: list[ImportIssue] = []
    rule = _rule(data, issues)
    names = _names(data, rule)
    aka, rounds = record_aka(rule), record_rounds(rule)
    title_raw = data.get("title")
    title = " ".join(str(t) for t in title_raw if t) if isinstance(title_raw, list) else ""
    timing: KanDoraTiming | None = None
    if ruleset.dora.indicator and ruleset.dora.kan_dora:
        timing = KanDoraTiming(ruleset.dora.kan_dora_closed, ruleset.dora.kan_dora_open)
    ctx = _Context(aka, timing, ruleset.wall.dealer_fourteenth,
                   ruleset.dora.indicator and ruleset.dora.ura, issues, set(read_notes), [])
    hands: list[RecordedHand] = []
    start_scores: Scores | None = None
    for h, entry in enumerate(log):
        if not isinstance(entry, list) or len(entry) != 17:
            issues.append(ImportIssue(h, None, "a hand must be a list of 17 entries",
                                      len(ctx.inputs)))
            continue
        try:
            place = _place(h, entry, len(ctx.inputs) + (h == 0))
        except BadEntry as exc:
            issues.append(ImportIssue(h, None, str(exc), len(ctx.inputs)))
            continue
        if h == 0:
            start_scores = place.scores
            ctx.inputs.append(GameStart(ruleset=ruleset.name, first_dealer=Seat.S0, names=names,
                                        scores=place.scores, aka=aka, rounds=rounds))
        ctx.inputs.append(HandStart(dealer=place.dealer, round_wind=place.wind,
                                    honba=place.honba, deposits=place.deposits,
                                    scores=place.scores))
        hands.append(_import_hand(ctx, place, entry))
    if not hands:
        raise RecordError("not a tenhou.net/6 record: no readable hand in 'log'")
    if not any(isinstance(i, GameStart) for i in ctx.inputs):
        raise RecordError("not a tenhou.net/6 record: the first hand is unreadable")
    return ImportedRecord(
        format="tenhou6",
        ruleset=ruleset.name,
        names=names,
        aka=aka,
        rounds=rounds,
        first_dealer=Seat.S0,
        start_scores=start_scores,
        inputs=tuple(ctx.inputs),
        hands=tuple(hands),
        issues=tuple(issues),
        final_scores=_final(data.get("sc")),
        final_pt=_final_pt(data.get("sc")),
        title=title,
        notes=tuple(sorted(ctx.notes)),
        source_meta={k: data[k] for k in KEPT_KEYS if k in data} | (
            {"rule": dict(rule)} if rule else {}),
    )


def _recorded(place: _Place, ctx: _Context, kind: ResultKind, text: str,
              **kw: Any) -> RecordedHand:
    return RecordedHand(
        number=place.number,
        round_wind=place.wind,
        dealer=place.dealer,
        hand_in_round=place.kyoku % 4 + 1,
        honba=place.honba,
        deposits=place.deposits,
        scores=place.scores,
        result=kind,
        result_text=text,
        first_input=place.first,
        end_input=len(ctx.inputs),
        **kw,
    )


def _import_hand(ctx: _Context, place: _Place, entry: list[Any]) -> RecordedHand:
    h, aka, notes = place.number, ctx.aka, ctx.notes
    try:
        dora = [tile_name(c, aka, notes) for c in entry[2]]
        ura = [tile_name(c, aka, notes) for c in entry[3]] if isinstance(entry[3], list) else []
        haipai = [[tile_name(c, aka, notes) for c in entry[4 + 3 * s]] for s in SEATS]
        takes = [[parse_take(x, aka, notes) for x in entry[5 + 3 * s]] for s in SEATS]
        discards = [[parse_discard(x, aka, notes) for x in entry[6 + 3 * s]] for s in SEATS]
        order = play_order(takes, discards, int(place.dealer))
    except (BadEntry, TypeError, ValueError) as exc:
        ctx.issues.append(ImportIssue(h, None, str(exc), len(ctx.inputs)))
        return _recorded(place, ctx, "unknown", "unreadable")
    if not dora:
        ctx.issues.append(ImportIssue(h, None, "no dora indicator", len(ctx.inputs)))
    b = HandBuilder(aka=aka, hand=h, issues=ctx.issues, out=ctx.inputs, kan_dora=ctx.timing,
                    indicators=dora[1:], dealer=place.dealer, dealer_fourteenth=ctx.fourteenth)
    b.deal(haipai, dora[0] if dora else None)
    _play(b, order, takes, discards)
    b.where = len(order)
    result = entry[16]
    if not isinstance(result, list) or not result or not isinstance(result[0], str):
        ctx.issues.append(ImportIssue(h, len(order), f"bad result entry {result!r}",
                                      len(ctx.inputs)))
        return _recorded(place, ctx, "unknown", "unreadable")
    try:
        return _result(ctx, place, b, result, ura)
    except (BadEntry, ValueError) as exc:
        ctx.issues.append(ImportIssue(h, len(order), str(exc), len(ctx.inputs)))
        return _recorded(place, ctx, "unknown", result[0])


def _play(b: HandBuilder, order: list[Step], takes: list[list[Take]],
          discards: list[list[Cut]]) -> None:
    ti = [0, 0, 0, 0]
    di = [0, 0, 0, 0]
    for n, (what, s) in enumerate(order):
        seat = Seat(s)
        b.where = n
        if what == "t":
            take = takes[s][ti[s]]
            ti[s] += 1
            if take.kind == "draw":
                b.draw(seat, take.tile)
            else:
                b.call(seat, take.kind, take.tile, take.consumed, seat.plus(take.rel))
            continue
        d = discards[s][di[s]]
        di[s] += 1
        match d.kind:
            case "discard":
                b.discard(seat, d.tile, riichi=d.riichi, tsumogiri=d.tile is None)
            case "ankan":
                b.ankan(seat, d.consumed)
            case "kakan":
                assert d.tile is not None
                b.kakan(seat, d.tile)
            case "skip":
                pass
            case _ as never:
                assert_never(never)


def _result(ctx: _Context, place: _Place, b: HandBuilder, result: list[Any],
            ura: list[TileName]) -> RecordedHand:
    word = result[0]
    if word == WIN_WORD:
        return _win(ctx, place, b, result, ura)
    if word in DRAW_WORDS or word == NAGASHI_WORD:
        deltas = _scores(result[1], "draw deltas") if len(result) > 1 else None
        tenpai = b.tenpai_seats()
        told: tuple[Seat, ...] | None = None
        if word == "全員聴牌":
            told = SEATS
        elif word == "全員不聴":
            told = ()
        elif word == "流局" and deltas is not None and any(deltas):
            told = tuple(s for s in SEATS if deltas[s] > 0)
        if told is not None and tuple(told) != tenpai:
            b.issue(
                f"the record's tenpai seats {[int(s) for s in told]} differ from the tiles' "
                f"{[int(s) for s in tenpai]}"
            )
        b.exhaustive(tenpai)
        kind: ResultKind = "nagashi" if word == NAGASHI_WORD else "exhaustive"
        return _recorded(place, ctx, kind, word, deltas=deltas, tenpai=told)
    if word in ABORT_WORDS:
        abort = ABORT_WORDS[word]
        b.abort(abort, b.last_actor if abort == "nine_terminals" else None)
        deltas = _scores(result[1], "draw deltas") if len(result) > 1 else None
        return _recorded(place, ctx, "abortive", word, deltas=deltas, abort_kind=abort)
    b.issue(f"unknown result {word!r}")
    return _recorded(place, ctx, "unknown", word)


def _win(ctx: _Context, place: _Place, b: HandBuilder, result: list[Any],
         ura: list[TileName]) -> RecordedHand:
    wins: list[RecordedWin] = []
    rest = result[1:]
    for i in range(0, len(rest), 2):
        deltas = _scores(rest[i], "win deltas") if rest[i] != [] else None
        info = rest[i + 1] if i + 1 < len(rest) else None
        wins.append(_recorded_win(info, deltas))
    if not wins:
        raise BadEntry("a win result without winners")
    for w in wins:
        if w.loser is None:
            b.tsumo(w.winner)
        else:
            b.ron(w.winner)
    if ura:
        b.ura(ura)
    elif ctx.ura_counts and any(b.riichi[w.winner] for w in wins):
        b.issue("a riichi win but the record lists no ura indicators: no ura dora counted")
    total: Scores | None = None
    if all(w.deltas is not None for w in wins):
        sums = [sum(w.deltas[s] for w in wins if w.deltas is not None) for s in range(4)]
        total = (sums[0], sums[1], sums[2], sums[3])
    return _recorded(place, ctx, "win", WIN_WORD, deltas=total, wins=tuple(wins))
