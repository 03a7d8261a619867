"""A hand history as mjai JSON Lines or tenhou.net/6 JSON, for review tools (mjai-reviewer,
Mortal, the tenhou.net/6 viewer).

The history is what a table's event log holds: the :mod:`rules.inputs` in order (a record's
imported inputs, or the daemon's), plus one :class:`~rules.records.model.RecordedHand` per hand for
what the inputs do not say — round, honba, deposits and scores where the ``HandStart`` leaves them
to the engine, and the results (deltas, han/fu/yaku) as the engine computed them (``jantaku
replay`` and the daemon build these from the reducer's hand-end events) or as a record gave them.

Importing what is exported gives back the same inputs and the same recorded results: the exporters
write every tile in the order the importers allocate physical tiles, and keep optional fields
absent where the history has no value (``tsumogiri`` unknown, scores not given).
Inputs that no record format can hold (wall, dice, break, referee decisions) are left out.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, assert_never

from rules.errors import RulesError
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
from rules.records.mjai import NAGASHI_REASON, REASON_OF
from rules.records.model import RecordedHand, RecordedWin, ResultKind, Scores
from rules.records.tenhou6 import ABORT_WORD_OF, NAGASHI_WORD
from rules.records.tenhou_words import points_text, yaku_name
from rules.seats import SEATS, Seat, Wind
from rules.tiles import Tile


class ExportError(RulesError, ValueError):
    """A history that cannot be written in the asked format (the message says why)."""


def _four(value: Any) -> Scores | None:
    if isinstance(value, list | tuple) and len(value) == 4:
        return (int(value[0]), int(value[1]), int(value[2]), int(value[3]))
    return None


def _shown_ura(outcome: Mapping[str, Any]) -> tuple[int, ...]:
    """The ura indicators a riichi win shows (S §24-7), as the engine read them."""
    if not any(w.get("riichi") for w in outcome.get("wins", ())):
        return ()
    context = outcome.get("context") or {}
    return tuple(int(t) for t in context.get("ura_indicators", ()))


def hands_from_events(events: Sequence[Mapping[str, Any]]) -> list[RecordedHand]:
    """The hands as the engine played them, from its events in JSON form (the daemon's event
    log, or ``jantaku replay``): ``hand_started`` gives the place, ``hand_ended`` the outcome and
    the settlement (deltas, han/fu/yaku, tenpai)."""
    hands: list[RecordedHand] = []
    start: Mapping[str, Any] | None = None
    for ev in events:
        kind = ev.get("type")
        if kind == "hand_started":
            start = ev
        elif kind == "hand_ended" and start is not None:
            st = ev.get("settlement") or {}
            outcome = ev.get("outcome") or {}
            result = str(st.get("kind") or outcome.get("kind") or "unknown")
            wins = []
            nagashi = False
            for w in st.get("wins", ()):
                if w.get("nagashi"):
                    nagashi = True
                    continue
                yakuman = int(w.get("yakuman") or 0)
                wins.append(
                    RecordedWin(
                        winner=Seat(int(w["winner"])),
                        loser=None if w.get("loser") is None else Seat(int(w["loser"])),
                        pao=None if w.get("pao") is None else Seat(int(w["pao"])),
                        deltas=_four(w.get("payments")),
                        han=None if yakuman else w.get("han"),
                        fu=None if yakuman else w.get("fu"),
                        yakuman=yakuman,
                        points_text=None if w.get("points") is None else str(w["points"]),
                        yaku=tuple((str(n), int(h)) for n, h in w.get("yaku", ())),
                        tenhou_text=points_text(w, int(start["dealer"])),
                        from_engine=True,
                    )
                )
            kind_of: dict[str, ResultKind] = {
                "win": "win", "exhaustive": "exhaustive", "abortive": "abortive"
            }
            rk: ResultKind = kind_of.get(result, "unknown")
            if nagashi and result == "exhaustive":
                rk = "nagashi"
            hands.append(
                RecordedHand(
                    number=len(hands),
                    round_wind=Wind(int(start["round_wind"])),
                    dealer=Seat(int(start["dealer"])),
                    hand_in_round=int(start["hand_in_round"]) + 1,
                    honba=int(start["honba"]),
                    deposits=int(start["deposits"]),
                    scores=_four(start.get("scores")),
                    result=rk,
                    result_text=result,
                    deltas=_four(st.get("deltas")),
                    wins=tuple(wins),
                    tenpai=tuple(Seat(int(s)) for s in st.get("tenpai", ())),
                    ura_indicators=_shown_ura(outcome),
                    abort_kind=outcome.get("abort_kind") or (
                        "triple_ron" if result == "abortive" and outcome.get("kind") == "win"
                        else None),
                )
            )
            start = None
    return hands


@dataclass(slots=True)
class _Hand:
    """One hand of the history, split out of the input list."""

    start: HandStart
    info: RecordedHand | None
    inputs: list[Input] = field(default_factory=list)


@dataclass(slots=True)
class _Game:
    start: GameStart
    hands: list[_Hand]


def _split(inputs: Sequence[Input], hands: Sequence[RecordedHand] | None) -> _Game:
    game: GameStart | None = None
    out: list[_Hand] = []
    for inp in inputs:
        if isinstance(inp, GameStart):
            if game is not None:
                raise ExportError("the history holds more than one game")
            game = inp
        elif isinstance(inp, HandStart):
            info = hands[len(out)] if hands is not None and len(out) < len(hands) else None
            out.append(_Hand(inp, info))
        elif out:
            out[-1].inputs.append(inp)
    if game is None:
        raise ExportError("the history has no game_start")
    if not out:
        raise ExportError("the history has no hand")
    return _Game(game, out)


def _hand_place(g: _Game, hand: _Hand) -> tuple[Wind, Seat, int]:
    """Round wind, dealer and hand number in the round (1..4)."""
    info = hand.info
    dealer = hand.start.dealer
    wind = hand.start.round_wind
    if info is not None:
        dealer = info.dealer if dealer is None else dealer
        wind = info.round_wind if wind is None else wind
    if dealer is None or wind is None:
        raise ExportError("a hand's dealer and round are unknown (give the replayed hands)")
    return wind, dealer, (int(dealer) - int(g.start.first_dealer)) % 4 + 1


def _pick(a: int | None, b: int | None) -> int | None:
    return a if a is not None else b


def _scores_of(hand: _Hand) -> Scores | None:
    if hand.start.scores is not None:
        return hand.start.scores
    return hand.info.scores if hand.info is not None else None


# --- mjai --------------------------------------------------------------------------------------
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
    g = _split(inputs, hands)
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


def _mjai_hand(g: _Game, hand: _Hand, aka: bool, derive: bool) -> list[dict[str, Any]]:
    wind, dealer, number = _hand_place(g, hand)
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
    honba = _pick(hand.start.honba, info.honba if info else None)
    deposits = _pick(hand.start.deposits, info.deposits if info else None)
    if honba is not None:
        start["honba"] = honba
    if deposits is not None:
        start["kyotaku"] = deposits
    scores = _scores_of(hand)
    if scores is not None:
        start["scores"] = list(scores)
    w = _MjaiWriter(aka, derive, info, f"hand {wind.mjai}{number}", [start])
    jump = _jump_tile(deal.hands, dealer)
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
        w = _match_win(self.win_infos, inp.seat, None if isinstance(inp, Tsumo) else target)
        if w is not None:
            _mjai_win_fields(ev, w)
        self.wins.append(ev)
        self.out.append(ev)

    def _draw(self, ev: dict[str, Any]) -> None:
        if self.info is not None and self.info.deltas is not None:
            ev["deltas"] = list(self.info.deltas)
        self.out.append(ev)


def _jump_tile(hands: Sequence[Sequence[Tile]], dealer: Seat) -> Tile | None:
    """The dealer's 14th tile when the deal gave it (``wall.dealer_fourteenth = "jump"``)."""
    mine = hands[dealer]
    return mine[13] if len(mine) == 14 else None


def _match_win(wins: list[RecordedWin], winner: Seat, loser: Seat | None) -> RecordedWin | None:
    for i, w in enumerate(wins):
        if w.winner == winner and w.loser == loser:
            return wins.pop(i)
    return None


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


# --- tenhou.net/6 ------------------------------------------------------------------------------
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
    g = _split(inputs, hands)
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


def _tenhou_hand(g: _Game, hand: _Hand, aka: bool, shift: int) -> list[Any]:
    wind, dealer, number = _hand_place(g, hand)
    info = hand.info
    honba = _pick(hand.start.honba, info.honba if info else None)
    deposits = _pick(hand.start.deposits, info.deposits if info else None)
    scores = _scores_of(hand)
    deal = next((i for i in hand.inputs if isinstance(i, DealDone)), None)
    if deal is None or deal.hands is None:
        raise ExportError(f"hand {wind.mjai}{number}: no dealt tiles")
    w = _TenhouWriter(aka, shift)
    for s in SEATS:
        w.haipai[w.rel(s)] = [_t(t, aka) for t in deal.hands[s][:13]]
    jump = _jump_tile(deal.hands, dealer)
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
            w = _match_win(infos, winner, None if src == winner else src)
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
    if isinstance(end, AbortiveDraw):
        out: list[Any] = [ABORT_WORD_OF[end.kind]]
        if info is not None and info.deltas is not None:
            out.append(rot(info.deltas))
        return out
    if isinstance(end, ExhaustiveDraw):
        if info is not None and info.result == "nagashi":
            return [NAGASHI_WORD, rot(info.deltas)]
        if info is not None and info.result_text in ("全員聴牌", "全員不聴"):
            return [info.result_text]
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


def export_game(
    inputs: Sequence[Input],
    events: Sequence[Mapping[str, Any]],
    to: Literal["mjai", "tenhou6"],
    *,
    title: str = "",
) -> str:
    """A table's game as a record: its inputs and its events in JSON form, as the daemon's event
    log holds them. Results, scores and the final points are the engine's."""
    hands = hands_from_events(events)
    ended = [e for e in events if e.get("type") == "game_ended"]
    final: Scores | None = None
    pts: tuple[float, float, float, float] | None = None
    if ended:
        seats = (ended[-1].get("standings") or {}).get("seats") or []
        if len(seats) == 4:
            final = (seats[0]["points"], seats[1]["points"], seats[2]["points"],
                     seats[3]["points"])
            pts = (seats[0]["total_pt"], seats[1]["total_pt"], seats[2]["total_pt"],
                   seats[3]["total_pt"])
    if to == "mjai":
        return export_mjai(inputs, hands, final_scores=final, derive_tsumogiri=True)
    scored = None if final is None or pts is None else (final, pts)
    return export_tenhou6(inputs, hands, final=scored, title=title)
