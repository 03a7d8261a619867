"""One game's outcome on both sides: the compared events, the violations, the tracker's
rejections and the scores (:class:`GameResult`, what ``python -m hil.runner`` prints)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class GameResult:
    ruleset: str
    seed: int
    hands: int
    steps: int
    seconds: float
    sim_events: list[dict[str, Any]]
    daemon_events: list[dict[str, Any]]
    violations: list[dict[str, Any]]  # in the daemon's stream
    sim_violations: list[dict[str, Any]]
    rejections: int
    reader_faults: int
    difference: str | None
    final_scores: list[int] | None
    sim_scores: list[int] | None
    notes: list[str] = field(default_factory=list)
    rejection_reasons: dict[str, int] = field(default_factory=dict)
    published: int = 0  # events the daemon numbered (event_seq)
    outbox_depth: int = 0
    envelopes: list[dict[str, Any]] = field(default_factory=list)  # as published, this game
    clock_events: dict[str, int] = field(default_factory=dict)  # the clocks' events by type

    @property
    def equal(self) -> bool:
        return self.difference is None

    def summary(self) -> dict[str, Any]:
        return {
            "ruleset": self.ruleset, "seed": self.seed, "hands": self.hands, "steps": self.steps,
            "seconds": round(self.seconds, 2), "events": len(self.daemon_events),
            "equal": self.equal, "difference": self.difference,
            "violations": [v.get("code") for v in self.violations],
            "rejections": self.rejections, "reader_faults": self.reader_faults,
            "scores": self.final_scores, "notes": self.notes,
        }


def table_scores(state: Any) -> list[int] | None:
    """The seats' scores of a table state: the running hand's, else the game's (both sides'
    final scores, the daemon's and the simulator's)."""
    h = state.hand
    if h is not None and h.step != "ended":
        return list(h.scores)
    p = state.progress
    return None if p is None else list(p.scores)
