"""The clocks' rules (W 打牌时限 1-8): per-play and per-hand limits, grace, warnings, penalties,
as a frozen value made from a ruleset's ``[timers]`` table or the WMC defaults."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from types import MappingProxyType
from typing import Final

from rules.errors import RulesError
from rules.timers.units import seconds_to_ns


class Mode(Enum):
    OFF = "off"  # no clocks shown, no warnings, no penalties (time is still accounted)
    MONITOR = "monitor"  # thinking-time statistics and warnings, never a penalty
    PENALTY = "penalty"  # W 打牌时限: penalties as events


class RestartPolicy(Enum):
    # The clocks stop at the last logged input and run again from the daemon's restart marker:
    # the outage is charged to nobody.
    PAUSE = "pause"
    # As "pause", but the hand stays paused after the restart until the referee resumes it.
    HOLD = "hold"


class TimerRulesError(RulesError, ValueError):
    """A ``[timers]`` table whose values cannot drive the clocks; names the key and the value."""


#: Defaults for the WMC ruleset. 180/15/15 are the organiser's summary (RULESETS.md section 3);
#: the increment, the points and the severe threshold were lost from our copy of W 打牌时限-1,2,7
#: ("每,,秒 … 罚扣,分", "超过,,分"): these are our choices, which a venue must confirm
#: (docs/timers.md, "Values a venue must confirm").
WMC_DEFAULTS: Final[Mapping[str, str | float | int]] = MappingProxyType(
    {
        "mode": "penalty",
        "per_hand_seconds": 180.0,  # W 打牌时限-1, restored: 3 minutes
        "per_turn_seconds": 15.0,  # W 打牌时限-2, restored: 15 s
        "grace_seconds": 15.0,  # W 打牌时限-4, restored: 15 s
        "penalty_increment_seconds": 10.0,  # W 打牌时限-1,2: lost (two digits)
        "turn_penalty_points": 5,  # W 打牌时限-2: lost (one digit)
        "hand_penalty_points": 5,  # W 打牌时限-1: lost (one digit)
        "severe_threshold_points": 30,  # W 打牌时限-7: lost (two digits)
        "warning_seconds": 5.0,  # ours: not a rule, the display's warning
        "restart_policy": "pause",  # ours: not a rule
    }
)


@dataclass(frozen=True, slots=True)
class TimerRules:
    """The ruleset's ``[timers]`` table (field names are the TOML keys)."""

    mode: str
    per_hand_seconds: float
    per_turn_seconds: float
    grace_seconds: float
    penalty_increment_seconds: float
    turn_penalty_points: int
    hand_penalty_points: int
    severe_threshold_points: int
    warning_seconds: float
    restart_policy: str

    def __post_init__(self) -> None:
        modes = [m.value for m in Mode]
        if self.mode not in modes:
            raise TimerRulesError(f"timers mode: expected one of {modes}, got {self.mode!r}")
        policies = [p.value for p in RestartPolicy]
        if self.restart_policy not in policies:
            raise TimerRulesError(
                f"timers restart_policy: expected one of {policies}, got {self.restart_policy!r}"
            )
        for name, positive in (
            ("per_hand_seconds", True),
            ("per_turn_seconds", True),
            ("grace_seconds", False),
            ("penalty_increment_seconds", True),
            ("warning_seconds", False),
        ):
            value = getattr(self, name)
            if (
                isinstance(value, bool)
                or not isinstance(value, int | float)
                or not math.isfinite(value)
                or value < 0
                or (positive and value == 0)
            ):
                what = "a finite number > 0" if positive else "a finite number >= 0"
                raise TimerRulesError(f"timers {name}: expected {what}, got {value!r}")
        for name in ("turn_penalty_points", "hand_penalty_points", "severe_threshold_points"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise TimerRulesError(f"timers {name}: expected an integer >= 0, got {value!r}")

    @property
    def timer_mode(self) -> Mode:
        return Mode(self.mode)

    @property
    def policy(self) -> RestartPolicy:
        return RestartPolicy(self.restart_policy)

    @property
    def per_hand_ns(self) -> int:
        return seconds_to_ns(self.per_hand_seconds)

    @property
    def per_turn_ns(self) -> int:
        return seconds_to_ns(self.per_turn_seconds)

    @property
    def grace_ns(self) -> int:
        return seconds_to_ns(self.grace_seconds)

    @property
    def increment_ns(self) -> int:
        return max(1, seconds_to_ns(self.penalty_increment_seconds))

    @property
    def warning_ns(self) -> int:
        return seconds_to_ns(self.warning_seconds)


def wmc_rules(**overrides: str | float | int) -> TimerRules:
    """The WMC defaults, with some values replaced (tests, venue tools)."""
    table = {**WMC_DEFAULTS, **overrides}
    return TimerRules(**table)  # type: ignore[arg-type]
