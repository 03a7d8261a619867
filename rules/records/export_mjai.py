"""A history as mjai JSON Lines (mjai-reviewer, Mortal): every tile in the order the importer
(rules/records/mjai.py) allocates physical tiles, so that importing what is exported gives back
the same inputs."""

from __future__ import annotations

import json
from collections.abc import Sequence
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
from rules.records.mjai_words import NAGASHI_REASON, REASON_OF
from rules.records.model import RecordedHand, RecordedWin, Scores
from rules.seats import SEATS, Seat
from rules.tiles import Tile


def _m(tile: Tile | None, aka: bool) -> str:
    return "?" if tile is None else tile.mjai(aka)


def to_mjai_events(
    inputs: Sequence[Input],
    hands: Sequence[RecordedHand] | None = None,
    *,
    final_scores: Scores | None = None,
    derive_tsumogiri: bool = False,
) -> list[dict[str, Any]]:
    """The history as mjai events (Mortal/mjai-reviewer dialect: ``ura_markers``,
    ``kyoku_first``/``aka_flag``; plus the original mjai's ``reason`` and ``yakus`` where known).

    A discard whose ``tsumogiri`` is unknown is written without it (a record that did not say
    stays silent), or, with ``derive_tsumogiri`` (a table's history: its tile ids are the physical
    tiles), as tsumogiri exactly when it is the tile just drawn; Mortal needs the field."""
    g = split_history(inputs, hands)
    aka = bool(g.start.aka) if g.start.aka is not None else True
    start: dict[str, Any] = {"type": "start_game", "names": list(g.start.names)}
    if g.start.rounds in (1, 2):
        start["kyoku_first"] = 4 if g.start.rounds == 1 else 0  # libriichi: 4 = East only
    start["aka_flag"] = aka
    events: list[dict[str, Any]] = [start]
    for hand in g.hands:
        events.extend(_mjai_hand(g, hand, aka, derive_tsumogiri))
    end: dict[str, Any] = {"type": "end_game"}
    if final_scores is not None:
        end["scores"] = list(final_scores)
    events.append(end)
    return events


def _mjai_hand(g: History, hand: HandSpan, aka: bool, derive: bool) -> list[dict[str, Any]]:
    wind, dealer, number = hand_place(g, hand)
    deal = next((i for i in hand.inputs if isinstance(i, DealDone)), None)
    if deal is None or deal.hands is None:
        raise ExportError(f"hand {wind.mjai}{number}: no dealt tiles (mjai needs the tehais)")
    indicators = [i for i in hand.inputs if isinstance(i, IndicatorShown)]
    if not indicators:
        raise ExportError(f"hand {wind.mjai}{number}: no dora indicator")
    info = hand.info
    start: dict[str, Any] = {
        "type": "start_kyoku",
        "bakaze": wind.mjai,
        "kyoku": number,
        "oya": int(dealer),
        "dora_marker": _m(indicators[0].tile, aka),
        "tehais": [[_m(t, aka) for t in h[:13]] for h in deal.hands],
    }
    honba = pick(hand.start.honba, info.honba if info else None)
    deposits = pick(hand.start.deposits, info.deposits if info else None)
    if honba is not None:
        start["honba"] = honba
    if deposits is not None:
        start["kyotaku"] = deposits
    scores = scores_of(hand)
    if scores is not None:
        start["scores"] = list(scores)
    w = _MjaiWriter(aka, derive, info, f"hand {wind.mjai}{number}", [start])
    jump = jump_tile(deal.hands, dealer)
    if jump is not None:
        # The dealer's 14th dealt tile (the jump): records have it as his first draw.
        w.out.append({"type": "tsumo", "actor": int(dealer), "pai": _m(jump, aka)})
        w.last_draw[dealer] = jump
    for inp in hand.inputs:
        if inp is not indicators[0]:
            w.feed(inp)
    w.accept()
    if w.wins and info is not None and info.ura_indicators and not any(
        isinstance(i, UraRevealed) for i in hand.inputs
    ):
        for ev in w.wins:
            ev["ura_markers"] = [_m(Tile(t), aka) for t in info.ura_indicators]
    w.out.append({"type": "end_kyoku"})
    return w.out


class _MjaiWriter:
    """One hand's inputs as mjai events, input by input."""

    def __init__(self, aka: bool, derive: bool, info: RecordedHand | None, where: str,
                 out: list[dict[str, Any]]) -> None:
        self.aka, self.derive, self.info, self.where, self.out = aka, derive, info, where, out
        self.last_draw: list[Tile | None] = [None, None, None, None]
        self.last_discard: tuple[Seat, Tile | None] | None = None
        self.pons: dict[tuple[int, int], list[Tile]] = {}
        self.pending_reach: Seat | None = None
        self.wins: list[dict[str, Any]] = []
        self.win_infos = list(info.wins) if info is not None else []

    def accept(self) -> None:
        if self.pending_reach is not None:
            self.out.append({"type": "reach_accepted", "actor": int(self.pending_reach)})
            self.pending_reach = None

    def m(self, tile: Tile | None) -> str:
        return _m(tile, self.aka)

    def feed(self, inp: Input) -> None:
        if not isinstance(inp, Ron | UraRevealed | IndicatorShown | DealDone):
            self.accept()
        match inp:
            case Draw() | RinshanDraw():
                self.last_draw[inp.seat] = inp.tile
                self.out.append({"type": "tsumo", "actor": int(inp.seat), "pai": self.m(inp.tile)})
            case Discard():
                self._discard(inp)
            case Call():
                self._call(inp)
            case Ankan():
                self.out.append({"type": "ankan", "actor": int(inp.seat),
                                 "consumed": [self.m(t) for t in (inp.tiles or ())]})
            case Kakan():
                kind = inp.tile.kind if inp.tile is not None else None
                pon = self.pons.get((int(inp.seat), kind)) if kind is not None else None
                self.out.append({"type": "kakan", "actor": int(inp.seat), "pai": self.m(inp.tile),
                                 "consumed": [self.m(t) for t in (pon or [])]})
                self.last_discard = (inp.seat, inp.tile)
            case IndicatorShown():
                self.out.append({"type": "dora", "dora_marker": self.m(inp.tile)})
            case Tsumo() | Ron():
                self._hora(inp)
            case UraRevealed():
                for ev in self.wins:
                    ev["ura_markers"] = [self.m(t) for t in inp.tiles]
            case ExhaustiveDraw():
                nagashi = self.info is not None and self.info.result == "nagashi"
                self._draw({"type": "ryukyoku", "reason": NAGASHI_REASON if nagashi else "fanpai",
                            "tenpais": [s in inp.tenpai for s in SEATS]})
            case AbortiveDraw():
                self._draw({"type": "ryukyoku", "reason": REASON_OF[inp.kind]})
            case (GameStart() | HandStart() | RefereeOverride() | WallRaised() | DiceRolled()
                  | BreakOpened() | DealDone() | WinShown()):
                pass  # no mjai event: the deal is in start_kyoku, the rest is the table's
            case _ as never:
                assert_never(never)

    def _discard(self, inp: Discard) -> None:
        if inp.riichi:
            self.out.append({"type": "reach", "actor": int(inp.seat)})
            self.pending_reach = inp.seat
        ev: dict[str, Any] = {"type": "dahai", "actor": int(inp.seat), "pai": self.m(inp.tile)}
        if inp.tsumogiri is not None:
            ev["tsumogiri"] = inp.tsumogiri
        elif self.derive:
            ev["tsumogiri"] = inp.tile is not None and inp.tile == self.last_draw[inp.seat]
        self.out.append(ev)
        self.last_discard = (inp.seat, inp.tile)
        self.last_draw[inp.seat] = None

    def _call(self, inp: Call) -> None:
        if self.last_discard is None:
            raise ExportError(f"{self.where}: a call with no discard before it")
        src, tile = self.last_discard
        consumed = list(inp.tiles or ())
        self.last_draw[inp.seat] = None
        self.out.append({"type": inp.kind, "actor": int(inp.seat), "target": int(src),
                         "pai": self.m(tile), "consumed": [self.m(t) for t in consumed]})
        if inp.kind == "pon" and tile is not None:
            self.pons[(int(inp.seat), tile.kind)] = [*consumed, tile]
        self.last_discard = None

    def _hora(self, inp: Tsumo | Ron) -> None:
        if isinstance(inp, Ron):
            self.pending_reach = None  # a riichi discard that is ronned is not accepted
            if self.last_discard is None:
                raise ExportError(f"{self.where}: ron with no discard")
            target, pai = self.last_discard
        else:
            target, pai = inp.seat, self.last_draw[inp.seat]
        ev: dict[str, Any] = {"type": "hora", "actor": int(inp.seat), "target": int(target),
                              "pai": self.m(pai)}
        w = match_win(self.win_infos, inp.seat, None if isinstance(inp, Tsumo) else target)
        if w is not None:
            _mjai_win_fields(ev, w)
        self.wins.append(ev)
        self.out.append(ev)

    def _draw(self, ev: dict[str, Any]) -> None:
        if self.info is not None and self.info.deltas is not None:
            ev["deltas"] = list(self.info.deltas)
        self.out.append(ev)


def _mjai_win_fields(ev: dict[str, Any], w: RecordedWin) -> None:
    if w.deltas is not None:
        ev["deltas"] = list(w.deltas)
    if w.yaku:
        ev["yakus"] = [[n, h] for n, h in w.yaku]
    if w.yakuman:
        ev["fan"] = 13 * w.yakuman
    elif w.han is not None:
        ev["fan"] = w.han
    if w.fu is not None:
        ev["fu"] = w.fu
    if w.points_text is not None:
        ev["hora_points"] = int(w.points_text) if w.points_text.isdigit() else w.points_text


def export_mjai(
    inputs: Sequence[Input],
    hands: Sequence[RecordedHand] | None = None,
    *,
    final_scores: Scores | None = None,
    derive_tsumogiri: bool = False,
) -> str:
    """mjai JSON Lines text (one event per line, ending with a newline)."""
    events = to_mjai_events(
        inputs, hands, final_scores=final_scores, derive_tsumogiri=derive_tsumogiri
    )
    return "".join(json.dumps(e, ensure_ascii=False, separators=(",", ":")) + "\n" for e in events)
