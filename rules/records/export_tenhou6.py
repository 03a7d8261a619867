"""A history as tenhou.net/6 JSON (the tenhou.net/6 viewer), with Tenhou's own words for points
and yaku (rules/records/tenhou_words.py); importing it (rules/records/tenhou6.py) gives back the
same inputs."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, assert_never

from rules.inputs import (
    AbortiveDraw,
    Ankan,
    BreakOpened,
    Call,
    DealDone,
    DiceRolled,
    Discard,
    Draw,
    ExhaustiveDraw,
    GameStart,
    HandStart,
    IndicatorShown,
    Input,
    Kakan,
    RefereeOverride,
    RinshanDraw,
    Ron,
    Tsumo,
    UraRevealed,
    WallRaised,
    WinShown,
)
from rules.records.history import (
    ExportError,
    HandSpan,
    History,
    hand_place,
    jump_tile,
    match_win,
    pick,
    scores_of,
    split_history,
)
from rules.records.model import RecordedHand, RecordedWin, Scores
from rules.records.tenhou6 import ABORT_WORD_OF, ABORT_WORDS, DRAW_WORDS, NAGASHI_WORD
from rules.records.tenhou_words import yaku_name
from rules.seats import SEATS, Seat
from rules.tiles import Tile


def _t(tile: Tile | None, aka: bool) -> int:
    if tile is None:
        raise ExportError("tenhou.net/6 cannot hold an unseen tile")
    return tile.tenhou(aka)


def _s(tile: Tile | None, aka: bool) -> str:
    return str(_t(tile, aka))


def to_tenhou6(
    inputs: Sequence[Input],
    hands: Sequence[RecordedHand] | None = None,
    *,
    final: tuple[Scores, tuple[float, float, float, float]] | None = None,
    title: str = "",
    meta: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The history as a tenhou.net/6 object. tenhou.net/6 numbers seats from the first dealer, so
    seats are rotated when the first dealer is not seat 0. ``meta``: the record's own top-level
    values (``ImportedRecord.source_meta``: ``ver``, ``ref``, ``dan``, ``rate``, ``sx``, ``rule``
    with its ``disp``, ...), written back as they came."""
    g = split_history(inputs, hands)
    aka = bool(g.start.aka) if g.start.aka is not None else True
    shift = int(g.start.first_dealer)
    names = [g.start.names[(i + shift) % 4] for i in range(4)]
    length = {1: "東", 2: "南"}.get(g.start.rounds or 0, "")
    flag = 1 if aka else 0
    rule = {"disp": f"般{length}喰{'赤' if aka else ''}", "aka": flag}
    rule.update({"aka51": flag, "aka52": flag, "aka53": flag})
    kept = dict(meta or {})
    out: dict[str, Any] = {}
    for key in ("ver", "ref"):
        if key in kept:
            out[key] = kept.pop(key)
    out.update({
        "title": [title, ""],
        "name": names,
        "rule": kept.pop("rule", rule),
        "log": [_tenhou_hand(g, h, aka, shift) for h in g.hands],
    })
    for key, value in kept.items():  # per-seat lists (dan, rate, sx) follow the seats
        per_seat = isinstance(value, list) and len(value) == 4
        out[key] = [value[(i + shift) % 4] for i in range(4)] if per_seat else value
    if final is not None:
        points, pts = final
        sc: list[float] = []
        for i in range(4):
            sc += [points[(i + shift) % 4], pts[(i + shift) % 4]]
        out["sc"] = sc
    return out


def _tenhou_hand(g: History, hand: HandSpan, aka: bool, shift: int) -> list[Any]:
    wind, dealer, number = hand_place(g, hand)
    info = hand.info
    honba = pick(hand.start.honba, info.honba if info else None)
    deposits = pick(hand.start.deposits, info.deposits if info else None)
    scores = scores_of(hand)
    deal = next((i for i in hand.inputs if isinstance(i, DealDone)), None)
    if deal is None or deal.hands is None:
        raise ExportError(f"hand {wind.mjai}{number}: no dealt tiles")
    w = _TenhouWriter(aka, shift)
    for s in SEATS:
        w.haipai[w.rel(s)] = [_t(t, aka) for t in deal.hands[s][:13]]
    jump = jump_tile(deal.hands, dealer)
    if jump is not None:
        w.takes[w.rel(dealer)].append(_t(jump, aka))
        w.last_draw[dealer] = jump
    for inp in hand.inputs:
        w.feed(inp)
    if w.wins and not w.ura and info is not None and info.ura_indicators:
        w.ura = [_t(Tile(t), aka) for t in info.ura_indicators]
    result = _tenhou_result(w.wins, w.end, info, w.rel)
    kyoku = int(wind) * 4 + number - 1
    entry: list[Any] = [
        [kyoku, honba, deposits],
        None if scores is None else [scores[(i + shift) % 4] for i in range(4)],
        w.dora,
        w.ura,
    ]
    for i in range(4):
        entry += [w.haipai[i], w.takes[i], w.discards[i]]
    entry.append(result)
    return entry


class _TenhouWriter:
    """One hand's inputs as tenhou.net/6 takes and discards (seats counted from the first
    dealer), input by input."""

    def __init__(self, aka: bool, shift: int) -> None:
        self.aka, self.shift = aka, shift
        self.haipai: list[list[int]] = [[], [], [], []]
        self.takes: list[list[Any]] = [[], [], [], []]
        self.discards: list[list[Any]] = [[], [], [], []]
        self.dora: list[int] = []
        self.ura: list[int] = []
        self.last_discard: tuple[Seat, Tile | None] | None = None
        self.pons: dict[tuple[int, int], tuple[int, str, str, str]] = {}
        self.wins: list[tuple[Seat, Seat]] = []
        self.last_draw: list[Tile | None] = [None, None, None, None]
        self.end: Input | None = None

    def rel(self, seat: Seat) -> int:
        return (int(seat) - self.shift) % 4

    def feed(self, inp: Input) -> None:
        aka = self.aka
        match inp:
            case IndicatorShown():
                self.dora.append(_t(inp.tile, aka))
            case UraRevealed():
                self.ura = [_t(t, aka) for t in inp.tiles]
            case Draw() | RinshanDraw():
                self.takes[self.rel(inp.seat)].append(_t(inp.tile, aka))
                self.last_draw[inp.seat] = inp.tile
            case Discard():
                self._discard(inp)
            case Call():
                self._call(inp)
            case Ankan():
                cs = [_s(t, aka) for t in (inp.tiles or ())]
                if len(cs) != 4:
                    raise ExportError("an ankan needs its four tiles")
                self.discards[self.rel(inp.seat)].append(cs[0] + cs[1] + cs[2] + "a" + cs[3])
            case Kakan():
                self._kakan(inp)
            case Tsumo():
                self.wins.append((inp.seat, inp.seat))
            case Ron():
                if self.last_discard is None:
                    raise ExportError("ron with no discard")
                self.wins.append((inp.seat, self.last_discard[0]))
            case ExhaustiveDraw() | AbortiveDraw():
                self.end = inp
            case (GameStart() | HandStart() | RefereeOverride() | WallRaised() | DiceRolled()
                  | BreakOpened() | DealDone() | WinShown()):
                pass  # the deal is the haipai; the rest is the table's, not the record's
            case _ as never:
                assert_never(never)

    def _discard(self, inp: Discard) -> None:
        tsumogiri = inp.tsumogiri
        if tsumogiri is None:  # unknown to the table: the tile ids tell
            tsumogiri = inp.tile is not None and inp.tile == self.last_draw[inp.seat]
        code = 60 if tsumogiri else _t(inp.tile, self.aka)
        if tsumogiri and inp.tile != self.last_draw[inp.seat]:
            raise ExportError("a tsumogiri discard that is not the drawn tile")
        self.discards[self.rel(inp.seat)].append(f"r{code}" if inp.riichi else code)
        self.last_discard = (inp.seat, inp.tile)
        self.last_draw[inp.seat] = None

    def _call(self, inp: Call) -> None:
        if self.last_discard is None:
            raise ExportError("a call with no discard before it")
        src, tile = self.last_discard
        called = _s(tile, self.aka)
        cs = [_s(t, self.aka) for t in (inp.tiles or ())]
        r = inp.seat.relative(src)  # 1 right, 2 opposite, 3 left
        if inp.kind == "chi":
            text = "c" + called + "".join(cs)
        elif inp.kind == "pon":
            if len(cs) != 2:
                raise ExportError("a pon needs two tiles from the hand")
            text = {3: "p" + called + cs[0] + cs[1], 2: cs[0] + "p" + called + cs[1]}.get(
                r, cs[0] + cs[1] + "p" + called
            )
            if tile is not None:
                self.pons[(int(inp.seat), tile.kind)] = (r, called, cs[0], cs[1])
        else:
            if len(cs) != 3:
                raise ExportError("a daiminkan needs three tiles from the hand")
            text = {3: "m" + called + "".join(cs), 2: cs[0] + "m" + called + cs[1] + cs[2]}.get(
                r, "".join(cs) + "m" + called
            )
        self.takes[self.rel(inp.seat)].append(text)
        if inp.kind == "daiminkan":
            self.discards[self.rel(inp.seat)].append(0)
        self.last_discard = None
        self.last_draw[inp.seat] = None

    def _kakan(self, inp: Kakan) -> None:
        kind = inp.tile.kind if inp.tile is not None else None
        pon = self.pons.get((int(inp.seat), kind)) if kind is not None else None
        if pon is None:
            raise ExportError("a kakan without its pon")
        r, called, c0, c1 = pon
        added = _s(inp.tile, self.aka)
        text = {3: "k" + added + called + c0 + c1, 2: c0 + "k" + added + called + c1}.get(
            r, c0 + c1 + "k" + added + called
        )
        self.discards[self.rel(inp.seat)].append(text)
        self.last_discard = (inp.seat, inp.tile)


def _points_text(w: RecordedWin) -> str:
    """The record's points text, or one in Tenhou's words for a bare number (engine results):
    ``40符3飜7700点``, ``役満32000点``."""
    if w.tenhou_text is not None:
        return w.tenhou_text
    text = w.points_text
    if text is None:
        return ""
    if not text.isdigit():
        return text
    if w.yakuman:
        return f"役満{text}点"  # Tenhou writes a double yakuman's 64000 as 役満 too
    if w.han is not None and w.fu is not None:
        return f"{w.fu}符{w.han}飜{text}点"
    return f"{text}点"


def _yaku_text(name: str, han: int, yakuman: bool) -> str:
    if yakuman and han == 13:
        return f"{name}(役満)"
    if yakuman and han == 26:
        return f"{name}(ダブル役満)"
    return f"{name}({han}飜)"


def _tenhou_result(
    wins: list[tuple[Seat, Seat]], end: Input | None, info: RecordedHand | None, rel: Any
) -> list[Any]:
    def rot(d: Scores | None) -> list[int] | None:
        if d is None:
            return None
        out = [0, 0, 0, 0]
        for s in SEATS:
            out[rel(s)] = d[s]
        return out

    if wins:
        infos = list(info.wins) if info is not None else []
        result: list[Any] = ["和了"]
        for winner, src in wins:
            w = match_win(infos, winner, None if src == winner else src)
            line: list[Any] = [rel(winner), rel(src), rel(winner)]
            if w is not None:
                if w.pao is not None:
                    line[2] = rel(w.pao)
                line.append(_points_text(w))
                for name, han in w.yaku:
                    named = yaku_name(name) if w.from_engine else name
                    line.append(_yaku_text(named, han, bool(w.yakuman)))
            result += [rot(w.deltas) if w is not None else None, line]
        return result
    # The engine's results (not a record's own words): Tenhou writes a draw that moved no point
    # by its word alone (["九種九牌"], ["全員不聴"]), never with [0, 0, 0, 0].
    engine = info is not None and info.result_text not in (*ABORT_WORDS, *DRAW_WORDS)
    moved = info is not None and info.deltas is not None and any(info.deltas)
    if isinstance(end, AbortiveDraw):
        out: list[Any] = [ABORT_WORD_OF[end.kind]]
        if info is not None and info.deltas is not None and (moved or not engine):
            out.append(rot(info.deltas))
        return out
    if isinstance(end, ExhaustiveDraw):
        if info is not None and info.result == "nagashi":
            return [NAGASHI_WORD, rot(info.deltas)]
        if info is not None and info.result_text in ("全員聴牌", "全員不聴"):
            return [info.result_text]
        tenpai = end.tenpai if info is None or info.tenpai is None else info.tenpai
        if engine and not moved and len(tenpai) in (0, 4):
            return ["全員聴牌" if tenpai else "全員不聴"]
        if info is not None and info.deltas is not None:
            return ["流局", rot(info.deltas)]
        if len(end.tenpai) in (0, 4):
            return ["全員聴牌" if end.tenpai else "全員不聴"]
        return ["流局"]
    raise ExportError("a hand without a result")


def export_tenhou6(
    inputs: Sequence[Input],
    hands: Sequence[RecordedHand] | None = None,
    *,
    final: tuple[Scores, tuple[float, float, float, float]] | None = None,
    title: str = "",
    meta: Mapping[str, Any] | None = None,
) -> str:
    return json.dumps(
        to_tenhou6(inputs, hands, final=final, title=title, meta=meta),
        ensure_ascii=False,
        separators=(",", ":"),
    )
