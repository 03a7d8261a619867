"""WMC per-play and per-hand clocks, as a pure reducer of timestamped inputs (W 打牌时限 1-8).

Nothing here reads a clock: every input carries its own time, an integer of nanoseconds on the
daemon's monotonic clock (``time.monotonic_ns``). Integers keep sums exact, so the same inputs
always give the same charges, to the nanosecond, on every machine (``docs/timers.md``).

The hand clock ``h`` is the time since the deal with the referee's pauses taken out. A turn is the
interval ``[start_h, end_h)`` of one seat's clock; what it costs the seat ("charged") is that
interval minus the grace period ``[0, grace)`` of the hand clock (W 打牌时限-4).
"""

from __future__ import annotations

from rules.timers.events import (
    DuplicateDiscard,
    Penalty,
    PenaltyKind,
    SevereOvertime,
    TimerEvent,
    TimerRejected,
    TurnEnded,
    TurnEndReason,
)
from rules.timers.inputs import (
    Call,
    Deal,
    Discard,
    End,
    Kan,
    Pause,
    Restart,
    Resume,
    Source,
    TimerInput,
)
from rules.timers.reducer import (
    charged_ns,
    replay,
    resume_after_restart,
    step,
    toggle_pause,
)
from rules.timers.settings import (
    WMC_DEFAULTS,
    Mode,
    RestartPolicy,
    TimerRules,
    TimerRulesError,
    wmc_rules,
)
from rules.timers.state import (
    CallableDiscard,
    DiscardReport,
    Phase,
    SeatClock,
    TimerState,
    Turn,
    TurnStart,
    new_hand,
)
from rules.timers.stats import TurnStats, hand_stats, turn_stats
from rules.timers.units import (
    NS_PER_SECOND,
    PAIR_WINDOW_NS,
    PAIR_WINDOW_SECONDS,
    ns_to_seconds,
    seconds_to_ns,
)
from rules.timers.view import ClockView, SeatView, WarningLevel, clock_view

__all__ = [
    "NS_PER_SECOND", "PAIR_WINDOW_NS", "PAIR_WINDOW_SECONDS", "WMC_DEFAULTS", "Call",
    "CallableDiscard", "ClockView", "Deal", "Discard", "DiscardReport", "DuplicateDiscard", "End",
    "Kan", "Mode", "Pause", "Penalty", "PenaltyKind", "Phase", "Restart", "RestartPolicy",
    "Resume", "SeatClock", "SeatView", "SevereOvertime", "Source", "TimerEvent", "TimerInput",
    "TimerRejected", "TimerRules", "TimerRulesError", "TimerState", "Turn", "TurnEndReason",
    "TurnEnded", "TurnStart", "TurnStats", "WarningLevel", "charged_ns", "clock_view",
    "hand_stats", "new_hand", "ns_to_seconds", "replay", "resume_after_restart", "seconds_to_ns",
    "step", "toggle_pause", "turn_stats", "wmc_rules",
]
