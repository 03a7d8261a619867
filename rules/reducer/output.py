"""The events and violations of one input (:class:`Out`), and the two signals a phase raises:
:class:`ReducerRejected` (the input is refused, only its violation stands) and :class:`Dead`
(refused, but the seat's hand is dead)."""

from __future__ import annotations

from typing import Any

from rules.events import (
    Event,
    Violation,
)
from rules.evolve import maker
from rules.ruleset import Ruleset
from rules.seats import Seat
from rules.table_state import HandState, TableState
from rules.violations import article_for, sanction_for

_violation = maker(Violation)  # (a refused input makes one: no class call around it)


class ReducerRejected(Exception):
    """Internal: the input is refused (the violation is already recorded)."""


class Out:
    """Collects the events of one input (local to one ``reduce`` call)."""

    # Every input makes one: the fields that only a refusal, a sealed win or a priced
    # violation changes are class defaults until then (an instance sets five, not ten).
    rejected = False
    # What stands even if the input is then refused (a win sealed by a closing input).
    kept: TableState | None = None
    kept_events = 0
    kept_violations = 0
    # How many of ``violations`` have had their pt deducted (rules/reducer/deductions.py).
    priced = 0

    def __init__(self, ruleset: Ruleset | None, seq: int, kind: str) -> None:
        self.ruleset = ruleset
        self.seq = seq
        self.kind = kind
        self.events: list[Event] = []
        self.violations: list[Violation] = []

    def keep(self, state: TableState) -> None:
        self.kept = state
        self.kept_events = len(self.events)
        self.kept_violations = len(self.violations)

    def emit(self, event: Event) -> None:
        self.events.append(event)

    def violation(
        self, code: str, seat: Seat | None, expected: Any, actual: Any, *, reject: bool = False
    ) -> Violation:
        violations = self.violations
        v = _violation(
            code=code,
            seat=seat,
            expected=expected,
            actual=actual,
            article=article_for(self.ruleset, code),
            sanction=sanction_for(self.ruleset, code),
            input=self.kind,
            id=self.seq * 100 + len(violations),
        )
        violations.append(v)
        self.events.append(v)
        if reject:
            self.rejected = True
        return v

    def reject(self, code: str, seat: Seat | None, expected: Any, actual: Any) -> ReducerRejected:
        self.violation(code, seat, expected, actual, reject=True)
        return ReducerRejected(code)


class Dead(Exception):
    """Internal: the input is refused but the sanction (a dead hand) applies."""

    def __init__(self, hand: HandState) -> None:
        super().__init__("dead")
        self.hand = hand
