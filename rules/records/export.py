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

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from rules.inputs import Input
from rules.records.export_mjai import export_mjai, to_mjai_events
from rules.records.export_tenhou6 import export_tenhou6, to_tenhou6
from rules.records.history import ExportError, hands_from_events
from rules.records.model import Scores

__all__ = ["ExportError", "export_game", "export_mjai", "export_tenhou6", "hands_from_events",
           "to_mjai_events", "to_tenhou6"]


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
