"""A table's game, from its event log, as a record for review tools (``jantaku log export
--format mjai|tenhou6``, docs/records.md "A table's games").

The logged inputs are folded through the reducer (the same fold that made the table's state, so
the results are the engine's). Two kinds of record come out:

* **full** — a sensor table's hands carry every draw, discard and call: written by
  :func:`rules.records.export.export_game` (mjai JSONL in the Mortal dialect, tenhou.net/6).
* **results** — a table without sensors knows, per hand, only where it stood (round, dealer,
  honba, deposits, scores), who declared riichi and how it ended (the referee's ``manual_result``
  or ``chombo``). mjai: ``start_kyoku`` with unseen tiles (``"?"``), ``reach`` /
  ``reach_accepted`` per declarer, one ``hora`` per paid win (``deltas``, ``fan``/``fu``) or a
  ``ryukyoku`` (``deltas``; ``reason`` for an abortive draw or ``"chombo"``), ``end_kyoku``;
  tenhou.net/6: per hand its place, empty hands, and the result in Tenhou's own words (``和了``
  with deltas, the points text ``30符3飜1000-2000点`` and the yaku ticked ``立直(1飜)``;
  ``全員不聴`` / ``全員聴牌``, ``流局`` with deltas, the abortive draw's word). A chombo, which
  neither format has, is written as a draw with the penalty's deltas.

A hand that has not ended is left out (and said so in :attr:`TableExport.notes`); a hand whose
end was undone counts as not ended.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from rules.inputs import HandStart, Input
from rules.records.export import ExportError, export_game
from rules.records.mjai_words import REASON_OF
from rules.records.tenhou6 import ABORT_WORD_OF
from rules.records.tenhou_words import points_text, yaku_name
from rules.reducer import new_table, reduce
from rules.seats import Wind

Format = Literal["mjai", "tenhou6"]
UNSEEN = "?"


@dataclass(frozen=True, slots=True)
class TableExport:
    text: str
    #: "full" (every draw, discard and call) or "results" (a sensorless table's results)
    kind: Literal["full", "results"]
    notes: tuple[str, ...] = ()


@dataclass(slots=True)
class _Hand:
    number: int
    first_input: int  # index of the input that started it
    start: Mapping[str, Any]
    end: Mapping[str, Any] | None = None
    last_input: int = -1


class GameFold:
    """The reducer's fold over a game's inputs, keeping per hand its ``hand_started`` and
    ``hand_ended`` events as they stand after every undo (feed inputs one by one with
    :meth:`add`: the console keeps one and feeds it what the log gained)."""

    def __init__(self) -> None:
        self.state = new_table()
        self.game: Mapping[str, Any] | None = None
        self.ended: Mapping[str, Any] | None = None
        self.hands: dict[int, _Hand] = {}
        self.events: list[list[dict[str, Any]]] = []

    def add(self, inp: Input) -> None:
        i = len(self.events)
        self.state, events = reduce(self.state, inp)
        evs = [e.to_json() for e in events]
        self.events.append(evs)
        for ev in evs:
            kind = ev["type"]
            if kind == "game_started":
                self.game, self.ended, self.hands = ev, None, {}
            elif kind == "game_ended":
                self.ended = ev
            elif kind == "hand_started":
                self.hands[int(ev["hand"])] = _Hand(int(ev["hand"]), i, ev)
            elif kind == "hand_ended" and int(ev["hand"]) in self.hands:
                h = self.hands[int(ev["hand"])]
                h.end, h.last_input = ev, i
        # An undo restores the state before a hand-ending action: what it voided goes.
        state = self.state
        for n in [n for n in self.hands if n > state.hands]:
            del self.hands[n]
        live = state.hand
        if live is not None and live.step != "ended" and live.number in self.hands:
            self.hands[live.number].end = None
        if not state.game_over:
            self.ended = None

    def played(self) -> list[tuple[Mapping[str, Any], Mapping[str, Any] | None]]:
        """``(hand_started, hand_ended or None)`` per hand of the last game, in order."""
        return [(self.hands[n].start, self.hands[n].end) for n in sorted(self.hands)]


def _fold(inputs: Sequence[Input]) -> GameFold:
    f = GameFold()
    for inp in inputs:
        f.add(inp)
    return f


def export_table_game(inputs: Sequence[Input], to: Format, *, title: str = "") -> TableExport:
    """The game of ``inputs`` (one game's logged inputs, its ``game_start`` first)."""
    f = _fold(inputs)
    if f.game is None:
        raise ExportError("the log holds no game that started")
    hands = [f.hands[n] for n in sorted(f.hands)]
    notes = [f"hand {h.number} has not ended: left out" for h in hands if h.end is None]
    done = [h for h in hands if h.end is not None]
    if not done:
        raise ExportError("the game has no finished hand yet")
    cut = done[-1].last_input + 1
    if len(done) < len(hands):
        cut = min(cut, next(h.first_input for h in hands if h.end is None))
    events = [ev for evs in f.events[:cut] for ev in evs]
    if f.ended is None:
        notes.append("the game has not ended: no final points")
    try:
        return TableExport(export_game(list(inputs[:cut]), events, to, title=title), "full",
                           tuple(notes))
    except ExportError as exc:
        if not any(isinstance(i, HandStart) for i in inputs[:cut]):
            why = "results only: a table without sensors (the hands began by themselves)"
        else:
            why = f"results only: {exc}"
    final = _final_points(f.ended)
    if to == "mjai":
        text = _results_mjai(f.game, done, final)
    else:
        text = _results_tenhou6(f.game, done, final, title)
    return TableExport(text, "results", (why, *notes))


def _final_points(ended: Mapping[str, Any] | None) -> tuple[list[int], list[float]] | None:
    if ended is None:
        return None
    seats = (ended.get("standings") or {}).get("seats") or []
    if len(seats) != 4:
        return None
    return [int(s["points"]) for s in seats], [float(s["total_pt"]) for s in seats]


def _riichi(end: Mapping[str, Any]) -> list[int]:
    ctx = (end.get("outcome") or {}).get("context") or {}
    return sorted({int(s) for s in ctx.get("riichi_seats", ())})


def _win_count(w: Mapping[str, Any]) -> tuple[int, int | None, int]:
    """``(han, fu, yakuman)`` of a paid win as the engine valued it."""
    yakuman = int(w.get("yakuman") or 0)
    return int(w.get("han") or 0), None if yakuman else w.get("fu"), yakuman


# --- mjai --------------------------------------------------------------------------------------
def _results_mjai(game: Mapping[str, Any], hands: Sequence[_Hand],
                  final: tuple[list[int], list[float]] | None) -> str:
    start: dict[str, Any] = {"type": "start_game", "names": list(game["names"])}
    if game.get("rounds") in (1, 2):
        start["kyoku_first"] = 4 if game["rounds"] == 1 else 0  # libriichi: 4 = East only
    start["aka_flag"] = bool(game.get("aka"))
    out: list[dict[str, Any]] = [start]
    for h in hands:
        out.extend(_mjai_hand(h))
    end: dict[str, Any] = {"type": "end_game"}
    if final is not None:
        end["scores"] = final[0]
    out.append(end)
    return "".join(json.dumps(e, ensure_ascii=False, separators=(",", ":")) + "\n" for e in out)


def _mjai_hand(h: _Hand) -> list[dict[str, Any]]:
    st, end = h.start, h.end
    assert end is not None
    scores = [int(x) for x in st["scores"]]
    out: list[dict[str, Any]] = [{
        "type": "start_kyoku",
        "bakaze": Wind(int(st["round_wind"])).mjai,
        "kyoku": int(st["hand_in_round"]) + 1,
        "honba": int(st["honba"]),
        "kyotaku": int(st["deposits"]),
        "oya": int(st["dealer"]),
        "dora_marker": UNSEEN,
        "scores": list(scores),
        "tehais": [[UNSEEN] * 13 for _ in range(4)],
    }]
    ctx = (end.get("outcome") or {}).get("context") or {}
    stick = int(st["deposits"])
    for seat in _riichi(end):
        # The sticks the engine took: the hand's scores before settlement (HandContext.scores).
        deltas = [0, 0, 0, 0]
        deltas[seat] = int(ctx["scores"][seat]) - scores[seat]
        scores[seat] += deltas[seat]
        stick += 1
        out.append({"type": "reach", "actor": seat})
        out.append({"type": "reach_accepted", "actor": seat, "deltas": deltas,
                    "scores": list(scores)})
    st_ = end.get("settlement") or {}
    kind = st_.get("kind")
    wins = [w for w in st_.get("wins", ()) if not w.get("nagashi")]
    if kind == "win" and wins:
        for w in wins:
            pay = [int(x) for x in w["payments"]]
            scores = [a + b for a, b in zip(scores, pay, strict=True)]
            han, fu, yakuman = _win_count(w)
            ev: dict[str, Any] = {
                "type": "hora", "actor": int(w["winner"]),
                "target": int(w["winner"] if w.get("loser") is None else w["loser"]),
                "deltas": pay, "scores": list(scores),
            }
            if w.get("family") == "zung_jung":
                ev["hora_points"] = int(w.get("value") or 0)
            else:
                ev["fan"] = 13 * yakuman if yakuman else han
                if fu is not None:
                    ev["fu"] = int(fu)
                ev["hora_points"] = int(w.get("points") or 0)
            out.append(ev)
    else:
        deltas = [int(x) for x in st_.get("deltas", (0, 0, 0, 0))]
        scores = [a + b for a, b in zip(scores, deltas, strict=True)]
        ev = {"type": "ryukyoku", "deltas": deltas, "scores": list(scores)}
        outcome = end.get("outcome") or {}
        abort = outcome.get("abort_kind")
        if kind == "abortive" and abort in REASON_OF:
            ev["reason"] = REASON_OF[abort]
        elif kind == "chombo" or outcome.get("kind") == "chombo":
            ev["reason"] = "chombo"
        out.append(ev)
    out.append({"type": "end_kyoku"})
    return out


# --- tenhou.net/6 ------------------------------------------------------------------------------
def _results_tenhou6(game: Mapping[str, Any], hands: Sequence[_Hand],
                     final: tuple[list[int], list[float]] | None, title: str) -> str:
    # tenhou.net/6 numbers seats from the first dealer.
    shift = int(game["first_dealer"])

    def rot(xs: Sequence[Any]) -> list[Any]:
        return [xs[(i + shift) % 4] for i in range(4)]

    aka = 1 if game.get("aka") else 0
    length = {1: "東", 2: "南"}.get(int(game.get("rounds") or 0), "")
    rule = {"disp": f"般{length}喰{'赤' if aka else ''}", "aka": aka,
            "aka51": aka, "aka52": aka, "aka53": aka}
    out: dict[str, Any] = {
        "title": [title, "results entered by the referee (no tile sensors)"],
        "name": rot(list(game["names"])),
        "rule": rule,
        "log": [_tenhou_hand(h, shift, rot) for h in hands],
    }
    if final is not None:
        sc: list[float] = []
        for p, pt in zip(rot(final[0]), rot(final[1]), strict=True):
            sc += [p, pt]
        out["sc"] = sc
    return json.dumps(out, ensure_ascii=False, separators=(",", ":"))


def _tenhou_hand(h: _Hand, shift: int, rot: Any) -> list[Any]:
    st, end = h.start, h.end
    assert end is not None
    kyoku = int(st["round_wind"]) * 4 + int(st["hand_in_round"])
    entry: list[Any] = [[kyoku, int(st["honba"]), int(st["deposits"])],
                        rot([int(x) for x in st["scores"]]), [], []]
    for _ in range(4):
        entry += [[], [], []]
    st_ = end.get("settlement") or {}
    wins = [w for w in st_.get("wins", ()) if not w.get("nagashi")]
    # As in Tenhou's records, a result's deltas are what its settlement paid: the riichi sticks
    # put down are not in them (Tenhou marks them by the declaring discard; a referee's hand has
    # none: they show in the next hand's scores).
    if st_.get("kind") == "win" and wins:
        result: list[Any] = ["和了"]
        for w in wins:
            winner = int(w["winner"])
            src = winner if w.get("loser") is None else int(w["loser"])
            pao = winner if w.get("pao") is None else int(w["pao"])
            line = [(winner - shift) % 4, (src - shift) % 4, (pao - shift) % 4,
                    _points_text(w, int(st["dealer"]))]
            result += [rot([int(x) for x in w["payments"]]), line + _yaku_texts(w)]
        entry.append(result)
        return entry
    entry.append(_draw_result(end, rot))
    return entry


def _draw_result(end: Mapping[str, Any], rot: Any) -> list[Any]:
    """A hand without a win in Tenhou's words: the abortive draw's word alone (九種九牌,
    四風連打, 四家立直, 四槓散了, 三家和了), 全員聴牌 / 全員不聴 alone, else 流局 with the
    tenpai payments (a chombo, which Tenhou has not, as 流局 with the penalty's deltas)."""
    st_ = end.get("settlement") or {}
    outcome = end.get("outcome") or {}
    raw = [int(x) for x in st_.get("deltas", (0, 0, 0, 0))]
    abort = outcome.get("abort_kind")
    if st_.get("kind") == "abortive" and abort in ABORT_WORD_OF:
        return [ABORT_WORD_OF[abort], rot(raw)] if any(raw) else [ABORT_WORD_OF[abort]]
    tenpai = list(st_.get("tenpai") or ())
    if st_.get("kind") == "exhaustive" and not any(raw) and len(tenpai) in (0, 4):
        return ["全員聴牌" if tenpai else "全員不聴"]
    return ["流局", rot(raw)]


def _points_text(w: Mapping[str, Any], dealer: int) -> str:
    """Tenhou's words (rules/records/tenhou_words.py): ``30符3飜3900点`` (ron),
    ``30符3飜1000-2000点`` (a non-dealer's tsumo), ``30符3飜2000点∀`` (the dealer's: each pays),
    ``満貫2000-4000点``, ``役満32000点`` (a double yakuman too, as Tenhou writes it); Zung Jung:
    ``25点``."""
    if w.get("family") == "zung_jung":
        return f"{int(w.get('value') or 0)}点"
    text = points_text(w, dealer)
    if text is not None:
        return text
    han, fu, yakuman = _win_count(w)
    return f"{'役満' if yakuman else f'{fu}符{han}飜'}{int(w.get('points') or 0)}点"


def _yaku_texts(w: Mapping[str, Any]) -> list[str]:
    """The win's yaku as Tenhou writes them: ``立直(1飜)``, ``ドラ(2飜)``, ``国士無双(役満)``
    (the engine's, or those the referee ticked on the console's checklist)."""
    out = []
    for name, han in w.get("yaku") or ():
        if int(han) >= 13 and int(w.get("yakuman") or 0):
            count = "役満" if int(han) == 13 else "ダブル役満" if int(han) == 26 else f"{han}飜"
        else:
            count = f"{int(han)}飜"
        out.append(f"{yaku_name(str(name))}({count})")
    return out
