"""The hand history the referee console shows: per hand its place, riichi, result, the change of
every seat (riichi sticks included) and the scores after it (docs/console.md "Hand history").

It is the rules engine's own fold over the game's logged inputs
(:class:`rules.records.table_game.GameFold`), fed only what the log gained since the last look,
so an undone result disappears from it exactly as it did from the table.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from daemon.log_values import Record
from rules.inputs import InputError, input_from_json
from rules.records.table_game import GameFold
from rules.seats import Wind


class HandHistory:
    def __init__(self) -> None:
        self._game = -1
        self._seq = 0
        self._fold = GameFold()

    def position(self, game: int) -> int:
        """The input seq to read the game's log after (0: from its start)."""
        if game != self._game:
            self._game, self._seq, self._fold = game, 0, GameFold()
        return self._seq

    def feed(self, records: Iterable[Record]) -> None:
        for rec in records:
            self._seq = rec.seq
            if rec.kind != "input":
                continue
            try:
                inp = input_from_json(rec.body)
            except InputError:
                continue  # the table refused it the same way: nothing it did to a hand
            self._fold.add(inp)

    def rows(self, stick: int) -> list[dict[str, Any]]:
        """The hands, and a ``correction`` row wherever the scores moved between two results
        by something else than a hand (set_scores, a penalty). ``stick``: the riichi deposit."""
        out: list[dict[str, Any]] = []
        last: list[int] | None = None
        for start, end in self._fold.played():
            row = _row(start, end, stick)
            if last is not None and row["ended"]:
                moved = [a - d - b for a, d, b in
                         zip(row["scores_after"], row["deltas"], last, strict=True)]
                if any(moved):
                    out.append({"kind": "correction", "ended": True, "hand": row["hand"],
                                "label": "", "deltas": moved,
                                "scores_after": [b + m for b, m in zip(last, moved,
                                                                       strict=True)]})
            out.append(row)
            if row["ended"]:
                last = row["scores_after"]
        return out


def _row(start: Mapping[str, Any], end: Mapping[str, Any] | None, stick: int
         ) -> dict[str, Any]:
    before = [int(x) for x in start["scores"]]
    row: dict[str, Any] = {
        "hand": int(start["hand"]),
        "label": f"{Wind(int(start['round_wind'])).mjai}{int(start['hand_in_round']) + 1}",
        "dealer": int(start["dealer"]),
        "honba": int(start["honba"]),
        "deposits": int(start["deposits"]),
        "scores_before": before,
        "ended": end is not None,
    }
    if end is None:
        return row
    after = [int(x) for x in end["scores"]]
    outcome = end.get("outcome") or {}
    settlement = end.get("settlement") or {}
    ctx = outcome.get("context") or {}
    row.update(
        kind=settlement.get("kind") or outcome.get("kind"),
        riichi=[int(s) for s in ctx.get("riichi_seats", ())],
        wins=[
            {k: w.get(k) for k in ("winner", "loser", "han", "fu", "yakuman", "value", "points",
                                   "limit", "pao")}
            for w in settlement.get("wins", ())
        ],
        declared=[int(w["winner"]) for w in outcome.get("wins", ())],
        tenpai=[int(s) for s in settlement.get("tenpai", ())],
        abort=outcome.get("abort_kind"),
        offender=outcome.get("offender"),
        replay=bool(settlement.get("replay")),
        pt=list(settlement.get("pt_penalties", (0, 0, 0, 0))),
        # the hand's own change: its settlement and the riichi sticks put down in it
        deltas=[int(d) - (stick if s in ctx.get("riichi_seats", ()) else 0)
                for s, d in enumerate(settlement.get("deltas", (0, 0, 0, 0)))],
        scores_after=after,
    )
    return row
