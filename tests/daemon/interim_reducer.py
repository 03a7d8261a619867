"""A reducer with the rules.reducer contract, used only until the real one lands.

It keeps score corrections, seat swaps and a turn order so that the daemon tests (replay, kill -9,
referee commands) have state that differs with every input. tests/daemon/daemon_kit.engine()
prefers the real rules.reducer as soon as it exists.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from rules import inputs as ri


@dataclass(frozen=True, slots=True)
class Ev:
    TYPE: ClassVar[str] = "event"
    kind: str
    fields: tuple[tuple[str, Any], ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"type": self.kind, **dict(self.fields)}


@dataclass(frozen=True, slots=True)
class State:
    seq: int = 0
    game: int | None = None
    hand: int | None = None
    dealer: int | None = None
    names: tuple[str, ...] = ("", "", "", "")
    scores: tuple[int, ...] | None = None
    turn: int | None = None
    digest: str = ""

    def snapshot(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "game": self.game,
            "hand": self.hand,
            "dealer": self.dealer,
            "turn": self.turn,
            "digest": self.digest,
            "seats": [
                {
                    "seat": s,
                    "name": self.names[s],
                    "score": None if self.scores is None else self.scores[s],
                }
                for s in range(4)
            ],
        }


def new_table() -> State:
    return State()


def _violation(code: str, inp: ri.Input, seq: int) -> Ev:
    return Ev(
        "violation",
        (
            ("code", code),
            ("seat", None),
            ("expected", None),
            ("actual", ri.input_type(inp)),
            ("article", "-"),
            ("sanction", "rejected"),
            ("input", ri.input_type(inp)),
            ("id", seq * 100),
        ),
    )


def reduce(state: State, inp: ri.Input) -> tuple[State, tuple[Ev, ...]]:
    seq = state.seq + 1
    text = repr(sorted(ri.input_to_json(inp).items()))
    digest = hashlib.sha256((state.digest + text).encode()).hexdigest()[:16]
    s = replace(state, seq=seq, digest=digest)
    if isinstance(inp, ri.GameStart):
        game = (state.game or 0) + 1
        s = replace(s, game=game, hand=None, names=inp.names, scores=inp.scores or (25000,) * 4,
                    dealer=int(inp.first_dealer), turn=None)
        return s, (Ev("game_started", (("game", game), ("ruleset", inp.ruleset))),)
    if state.game is None:
        return replace(state, seq=seq), (_violation("no_game", inp, seq),)
    if isinstance(inp, ri.HandStart):
        hand = (state.hand or 0) + 1
        return replace(s, hand=hand, turn=None), (Ev("hand_started", (("hand", hand),)),)
    if isinstance(inp, ri.DealDone):
        return replace(s, turn=s.dealer), (Ev("deal_done"),)
    if isinstance(inp, ri.Draw | ri.Discard):
        if state.turn is None or int(inp.seat) != state.turn:
            return replace(state, seq=seq), (_violation("out_of_turn", inp, seq),)
        nxt = state.turn if isinstance(inp, ri.Draw) else (state.turn + 1) % 4
        return replace(s, turn=nxt), (Ev(ri.input_type(inp), (("seat", int(inp.seat)),)),)
    if isinstance(inp, ri.ExhaustiveDraw):
        dealer = ((state.dealer or 0) + 1) % 4
        return replace(s, turn=None, dealer=dealer), (Ev("hand_ended", (("hand", state.hand),)),)
    if isinstance(inp, ri.RefereeOverride):
        if inp.action == "set_scores":
            scores = inp.args.get("scores")
            if not isinstance(scores, list) or len(scores) != 4:
                return replace(state, seq=seq), (_violation("referee_bad_args", inp, seq),)
            before = state.scores or (0, 0, 0, 0)
            return replace(s, scores=tuple(scores)), (
                Ev(
                    "scores_corrected",
                    (("before", list(before)), ("after", list(scores)), ("by", inp.by)),
                ),
            )
        if inp.action == "swap_seats":
            a, b = int(inp.args["a"]), int(inp.args["b"])
            names, scores = list(state.names), list(state.scores or (0, 0, 0, 0))
            names[a], names[b] = names[b], names[a]
            scores[a], scores[b] = scores[b], scores[a]
            return replace(s, names=tuple(names), scores=tuple(scores)), (
                Ev("seats_swapped", (("a", a), ("b", b))),
            )
        if inp.action == "undo_last":
            return replace(state, seq=seq), (_violation("undo_not_possible", inp, seq),)
        return s, (Ev("referee", (("action", inp.action), ("by", inp.by))),)
    return s, (Ev(ri.input_type(inp)),)
