"""Turn-time statistics of a hand (for the referee's report and the benchmarks)."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from rules.timers.state import TimerState


@dataclass(frozen=True, slots=True)
class TurnStats:
    """Thinking-time statistics of one player (riichi "monitor" mode, and the referee's table)."""

    turns: int
    mean_ns: int
    median_ns: int
    max_ns: int
    over_limit: int  # turns charged more than the per-turn limit


def turn_stats(turn_times_ns: Sequence[int], per_turn_ns: int) -> TurnStats:
    """Statistics of charged turn times (one hand's, or several hands' concatenated)."""
    if not turn_times_ns:
        return TurnStats(0, 0, 0, 0, 0)
    return TurnStats(
        turns=len(turn_times_ns),
        mean_ns=round(sum(turn_times_ns) / len(turn_times_ns)),
        median_ns=round(statistics.median(turn_times_ns)),
        max_ns=max(turn_times_ns),
        over_limit=sum(1 for x in turn_times_ns if x > per_turn_ns),
    )


def hand_stats(state: TimerState) -> tuple[TurnStats, ...]:
    """Per seat 0..3, the statistics of the counted turns of this hand."""
    per_turn = state.rules.per_turn_ns
    return tuple(turn_stats(c.turn_times_ns, per_turn) for c in state.seats)
