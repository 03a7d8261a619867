"""A table's history split for the record writers (rules/records/export_mjai.py,
export_tenhou6.py): the hands of an input list with what the engine's events say of each
(:func:`hands_from_events`), and the place of each hand (round, dealer, number)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rules.errors import RulesError
from rules.events import shown_ura
from rules.inputs import (
    GameStart,
    HandStart,
    Input,
)
from rules.records.model import RecordedHand, RecordedWin, ResultKind, Scores
from rules.records.tenhou_words import points_text
from rules.seats import Seat, Wind
from rules.tiles import Tile


class ExportError(RulesError, ValueError):
    """A history that cannot be written in the asked format (the message says why)."""


def four_scores(value: Any) -> Scores | None:
    if isinstance(value, list | tuple) and len(value) == 4:
        return (int(value[0]), int(value[1]), int(value[2]), int(value[3]))
    return None


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
                        deltas=four_scores(w.get("payments")),
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
                    scores=four_scores(start.get("scores")),
                    result=rk,
                    result_text=result,
                    deltas=four_scores(st.get("deltas")),
                    wins=tuple(wins),
                    tenpai=tuple(Seat(int(s)) for s in st.get("tenpai", ())),
                    ura_indicators=shown_ura(outcome),
                    abort_kind=outcome.get("abort_kind") or (
                        "triple_ron" if result == "abortive" and outcome.get("kind") == "win"
                        else None),
                )
            )
            start = None
    return hands


@dataclass(slots=True)
class HandSpan:
    """One hand of the history, split out of the input list."""

    start: HandStart
    info: RecordedHand | None
    inputs: list[Input] = field(default_factory=list)


@dataclass(slots=True)
class History:
    start: GameStart
    hands: list[HandSpan]


def split_history(inputs: Sequence[Input], hands: Sequence[RecordedHand] | None) -> History:
    game: GameStart | None = None
    out: list[HandSpan] = []
    for inp in inputs:
        if isinstance(inp, GameStart):
            if game is not None:
                raise ExportError("the history holds more than one game")
            game = inp
        elif isinstance(inp, HandStart):
            info = hands[len(out)] if hands is not None and len(out) < len(hands) else None
            out.append(HandSpan(inp, info))
        elif out:
            out[-1].inputs.append(inp)
    if game is None:
        raise ExportError("the history has no game_start")
    if not out:
        raise ExportError("the history has no hand")
    return History(game, out)


def hand_place(g: History, hand: HandSpan) -> tuple[Wind, Seat, int]:
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


def pick(a: int | None, b: int | None) -> int | None:
    return a if a is not None else b


def scores_of(hand: HandSpan) -> Scores | None:
    if hand.start.scores is not None:
        return hand.start.scores
    return hand.info.scores if hand.info is not None else None


def jump_tile(hands: Sequence[Sequence[Tile]], dealer: Seat) -> Tile | None:
    """The dealer's 14th tile when the deal gave it (``wall.dealer_fourteenth = "jump"``)."""
    mine = hands[dealer]
    return mine[13] if len(mine) == 14 else None


def match_win(wins: list[RecordedWin], winner: Seat, loser: Seat | None) -> RecordedWin | None:
    for i, w in enumerate(wins):
        if w.winner == winner and w.loser == loser:
            return wins.pop(i)
    return None
