"""The WMC clocks (rules/timers/): scenario tables, then properties."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.seats import Seat
from rules.timers import (
    PAIR_WINDOW_SECONDS,
    WMC_DEFAULTS,
    Call,
    Deal,
    Discard,
    DuplicateDiscard,
    End,
    Kan,
    Mode,
    Pause,
    Penalty,
    PenaltyKind,
    Phase,
    Restart,
    Resume,
    SevereOvertime,
    Source,
    TimerEvent,
    TimerInput,
    TimerRejected,
    TimerRules,
    TimerRulesError,
    TurnEnded,
    TurnEndReason,
    WarningLevel,
    clock_view,
    hand_stats,
    new_hand,
    replay,
    resume_after_restart,
    seconds_to_ns,
    step,
    toggle_pause,
    turn_stats,
    wmc_rules,
)

E, S, W, N = Seat.S0, Seat.S1, Seat.S2, Seat.S3
B, SE, R = Source.BUTTON, Source.SENSOR, Source.REFEREE


def ns(seconds: float) -> int:
    return seconds_to_ns(seconds)


def sec(value: int) -> float:
    return value / 1e9


# Compact scenario notation: (seconds, kind, seat, source)
Row = tuple[float, str] | tuple[float, str, int] | tuple[float, str, int, Source]


def inputs(rows: Sequence[Row]) -> list[TimerInput]:
    out: list[TimerInput] = []
    for row in rows:
        t, kind = ns(row[0]), row[1]
        seat = Seat(row[2]) if len(row) > 2 else Seat.S0
        source = row[3] if len(row) > 3 else Source.REFEREE
        match kind:
            case "deal":
                out.append(Deal(t))
            case "discard":
                out.append(Discard(t, seat, source))
            case "call":
                out.append(Call(t, seat))
            case "kan":
                out.append(Kan(t, seat))
            case "pause":
                out.append(Pause(t))
            case "resume":
                out.append(Resume(t))
            case "end":
                out.append(End(t))
            case "restart":
                out.append(Restart(t))
            case _:
                raise AssertionError(kind)
    return out


@dataclass(frozen=True)
class Expect:
    used: tuple[float, float, float, float]
    turns: tuple[int, int, int, int]
    penalties: tuple[tuple[int, str, float, int], ...] = ()  # (seat, kind, overtime s, points)


def run(rules: TimerRules, rows: Sequence[Row]) -> tuple[Expect, tuple[TimerEvent, ...]]:
    state, events = replay(rules, inputs(rows))
    assert not [e for e in events if isinstance(e, TimerRejected)], events
    used = tuple(sec(c.used_ns) for c in state.seats)
    turns = tuple(c.turns for c in state.seats)
    pens = tuple(
        (int(e.seat), e.kind.value, sec(e.overtime_ns), e.points)
        for e in events
        if isinstance(e, Penalty)
    )
    return Expect(used, turns, pens), events  # type: ignore[arg-type]


WMC = wmc_rules()

SCENARIOS: list[tuple[str, TimerRules, list[Row], Expect]] = [
    (
        "draw turns: each clock runs from the previous discard; the open turn at the end is void"
        " (W 打牌-1: the dealer plays first; W 打牌时限-2: 15 s a play, 10 s increments)",
        WMC,
        [(0, "deal"), (20, "discard", 0), (30, "discard", 1), (50, "discard", 2), (55, "end")],
        # E: 20 - 15 s grace; S 10; W 20 = 5 s over 15 → one started 10 s increment, 5 pts.
        Expect((5, 10, 20, 0), (1, 1, 1, 0), ((2, "turn", 5, 5),)),
    ),
    (
        "grace: the first 15 s after the deal are charged to nobody, whoever is on turn"
        " (W 打牌时限-4)",
        WMC,
        [(0, "deal"), (5, "discard", 0), (12, "discard", 1), (25, "discard", 2), (30, "end")],
        Expect((0, 0, 10, 0), (1, 1, 1, 0)),
    ),
    (
        "call: the caller's clock starts at the called discard; the skipped seat is not charged"
        " (W 打牌时限-3)",
        WMC,
        [(0, "deal"), (20, "discard", 0), (22, "call", 2), (30, "discard", 2), (34, "discard", 3)],
        Expect((5, 0, 10, 4), (1, 0, 1, 1)),
    ),
    (
        "chi by the next seat: its clock simply keeps running from the discard",
        WMC,
        [(0, "deal"), (20, "discard", 0), (23, "call", 1), (28, "discard", 1)],
        Expect((5, 8, 0, 0), (1, 1, 0, 0)),
    ),
    (
        "a pon outranks a chi already called: the chi caller's turn is void",
        WMC,
        [(0, "deal"), (20, "discard", 0), (21, "call", 1), (22, "call", 3), (30, "discard", 3)],
        Expect((5, 0, 0, 10), (1, 0, 0, 1)),
    ),
    (
        "kan: the replacement draw ends a counted turn and starts another for the same seat"
        " (W 打牌时限-3)",
        WMC,
        [(0, "deal"), (20, "discard", 0), (26, "kan", 1), (30, "discard", 1)],
        Expect((5, 10, 0, 0), (1, 2, 0, 0)),
    ),
    (
        "daiminkan: call, then kan, then the discard: two turns for the caller",
        WMC,
        [(0, "deal"), (20, "discard", 0), (21, "call", 2), (24, "kan", 2), (28, "discard", 2)],
        Expect((5, 0, 8, 0), (1, 0, 2, 0)),
    ),
    (
        "kan during the dealer's first turn inside the grace period",
        WMC,
        [(0, "deal"), (10, "kan", 0), (18, "discard", 0)],
        Expect((3, 0, 0, 0), (2, 0, 0, 0)),
    ),
    (
        "double penalty: one slow play over the per-turn limit and over the hand budget at once"
        " (W 打牌时限-1: 3 minutes a hand; W 打牌时限-2)",
        wmc_rules(per_hand_seconds=30.0),
        [
            (0, "deal"),
            (35, "discard", 0),  # E 20 s: turn 5 over
            (36, "discard", 1),
            (37, "discard", 2),
            (38, "discard", 3),
            (58, "discard", 0),  # E 20 s: turn 5 over, hand 40 - 30 = 10 over
        ],
        Expect(
            (40, 1, 1, 1),
            (2, 1, 1, 1),
            ((0, "turn", 5, 5), (0, "turn", 5, 5), (0, "hand", 10, 5)),
        ),
    ),
    (
        "hand increments accrue across turns; a turn inside a started increment costs 0 points"
        " (W 打牌时限-1)",
        wmc_rules(per_hand_seconds=30.0),
        [
            (0, "deal"),
            (29, "discard", 0),  # E 14
            (29, "discard", 1),
            (29, "discard", 2),
            (29, "discard", 3),
            (43, "discard", 0),  # E 28
            (43, "discard", 1),
            (43, "discard", 2),
            (43, "discard", 3),
            (57, "discard", 0),  # E 42: 12 over → 2 increments
            (57, "discard", 1),
            (57, "discard", 2),
            (57, "discard", 3),
            (71, "discard", 0),  # E 56: 26 over → 3rd increment
            (71, "discard", 1),
            (71, "discard", 2),
            (71, "discard", 3),
            (73, "discard", 0),  # E 58: 28 over, still in the 3rd increment
        ],
        Expect(
            (58, 0, 0, 0),
            (5, 4, 4, 4),
            ((0, "hand", 12, 10), (0, "hand", 14, 5), (0, "hand", 2, 0)),
        ),
    ),
    (
        "exactly at the limit is not overtime; one nanosecond over starts an increment",
        WMC,
        [(0, "deal"), (30, "discard", 0), (45.000000001, "discard", 1)],
        Expect((15, 15.000000001, 0, 0), (1, 1, 0, 0), ((1, "turn", 1e-9, 5),)),
    ),
    (
        "pause: paused time is charged to nobody; the grace period is hand-clock time",
        WMC,
        [
            (0, "deal"),
            (5, "pause"),
            (65, "resume"),
            (80, "discard", 0),  # hand clock 20
            (90, "pause"),
            (200, "resume"),
            (205, "discard", 1),  # 10 + 5
        ],
        Expect((5, 15, 0, 0), (1, 1, 0, 0)),
    ),
    (
        "plays made while paused are taken; the clock stays stopped until resumed",
        WMC,
        [(0, "deal"), (20, "pause"), (25, "discard", 0), (40, "resume"), (44, "discard", 1)],
        Expect((5, 4, 0, 0), (1, 1, 0, 0)),
    ),
    (
        "restart (pause policy): the outage costs nothing; a new time base is accepted",
        WMC,
        [(0, "deal"), (20, "discard", 0), (22, "discard", 1), (3, "restart"), (10, "discard", 2)],
        Expect((5, 2, 7, 0), (1, 1, 1, 0)),
    ),
    (
        "restart (hold policy): the clocks stay stopped until the referee resumes",
        wmc_rules(restart_policy="hold"),
        [(0, "deal"), (20, "discard", 0), (500, "restart"), (530, "resume"), (536, "discard", 1)],
        Expect((5, 6, 0, 0), (1, 1, 0, 0)),
    ),
    (
        "button then sensor for one discard: the second is a duplicate",
        WMC,
        [(0, "deal"), (20, "discard", 0, B), (20.4, "discard", 0, SE), (30, "discard", 1, SE)],
        Expect((5, 10, 0, 0), (1, 1, 0, 0)),
    ),
    (
        "sensor then button: whichever comes first stops the clock",
        WMC,
        [(0, "deal"), (20, "discard", 0, SE), (21.5, "discard", 0, B), (30, "discard", 1, B)],
        Expect((5, 10, 0, 0), (1, 1, 0, 0)),
    ),
    (
        "a late report pairs with the seat's discard even after a fast call back to that seat",
        WMC,
        [
            (0, "deal"),
            (20, "discard", 0, SE),
            (20.5, "discard", 1, B),
            (21, "call", 0),
            (21.2, "discard", 0, B),  # E's button for the 20 s discard: a duplicate
            (25, "discard", 0, SE),
        ],
        Expect((9.5, 0.5, 0, 0), (2, 1, 0, 0)),
    ),
    (
        "monitor mode: the same accounting, never a penalty",
        wmc_rules(mode="monitor"),
        [(0, "deal"), (60, "discard", 0), (61, "end")],
        Expect((45, 0, 0, 0), (1, 0, 0, 0)),
    ),
]


@pytest.mark.parametrize(
    ("rules", "rows", "expect"),
    [pytest.param(r, rows, e, id=name) for name, r, rows, e in SCENARIOS],
)
def test_scenarios(rules: TimerRules, rows: list[Row], expect: Expect) -> None:
    got, _ = run(rules, rows)
    assert got.turns == expect.turns
    assert got.used == pytest.approx(expect.used, abs=1e-9)
    assert len(got.penalties) == len(expect.penalties)
    for g, e in zip(got.penalties, expect.penalties, strict=True):
        assert g[:2] == e[:2] and g[3] == e[3]
        assert g[2] == pytest.approx(e[2], abs=1e-12)


def test_severe_overtime_is_reported_once_when_points_exceed_the_threshold() -> None:
    """W 打牌时限-7: more than 30 penalty points in one hand is severe (reported once)."""
    rows: list[Row] = [(0, "deal"), (75, "discard", 0)]  # E 60 s: 45 over → 5 increments, 25
    t = 75.0
    for _ in range(2):  # two more slow plays by E: 20 s each, 5 over → 5 points each
        for seat in (1, 2, 3):
            t += 1
            rows.append((t, "discard", seat))
        t += 20
        rows.append((t, "discard", 0))
    _, events = run(WMC, rows)
    severe = [e for e in events if isinstance(e, SevereOvertime)]
    assert [(e.seat, e.points) for e in severe] == [(E, 35)]  # 25, 30 (not > 30), 35
    # it comes after the penalty that crossed the threshold
    last_penalty = max(i for i, e in enumerate(events) if isinstance(e, Penalty))
    assert events.index(severe[0]) == last_penalty + 1


def test_threshold_is_strict() -> None:
    """W 打牌时限-7: "超过", strictly more than the threshold."""
    rules = wmc_rules(severe_threshold_points=5)
    _, events = run(rules, [(0, "deal"), (31, "discard", 0)])  # 1 s over: 5 points, not > 5
    assert not any(isinstance(e, SevereOvertime) for e in events)
    _, events = run(rules, [(0, "deal"), (41, "discard", 0)])  # 11 s over: 10 points
    assert [e.points for e in events if isinstance(e, SevereOvertime)] == [10]


REJECTIONS: list[tuple[str, list[Row], str]] = [
    ("input before the deal", [(1, "discard", 0)], "phase before_deal"),
    ("pause before the deal", [(1, "pause")], "phase before_deal"),
    ("second deal", [(0, "deal"), (1, "deal")], "one state per hand"),
    ("discard out of turn", [(0, "deal"), (3, "discard", 2)], "seat 0 is on turn"),
    ("call with nothing to call", [(0, "deal"), (3, "call", 1)], "no discard to call"),
    ("call of one's own discard", [(0, "deal"), (3, "discard", 0), (4, "call", 0)], "own discard"),
    ("call after the kan", [(0, "deal"), (3, "kan", 0), (4, "call", 1)], "no discard to call"),
    ("kan out of turn", [(0, "deal"), (3, "kan", 1)], "seat 0 is on turn"),
    ("resume while running", [(0, "deal"), (3, "resume")], "not paused"),
    ("pause twice", [(0, "deal"), (3, "pause"), (4, "pause")], "already paused"),
    ("time going backwards", [(0, "deal"), (10, "discard", 0), (9, "discard", 1)], "backwards"),
    ("play after the end", [(0, "deal"), (3, "end"), (4, "discard", 1)], "phase ended"),
    (
        "the same button twice, beyond the pairing window",
        [(0, "deal"), (3, "discard", 0, B), (3 + PAIR_WINDOW_SECONDS + 0.001, "discard", 0, B)],
        "seat 1 is on turn",
    ),
    (
        "sensor report after the pairing window",
        [(0, "deal"), (3, "discard", 0, B), (3 + PAIR_WINDOW_SECONDS + 0.001, "discard", 0, SE)],
        "seat 1 is on turn",
    ),
    (
        "referee entries never pair",
        [(0, "deal"), (3, "discard", 0, R), (3.1, "discard", 0, B)],
        "seat 1 is on turn",
    ),
]


@pytest.mark.parametrize(
    ("rows", "reason"), [pytest.param(rows, why, id=name) for name, rows, why in REJECTIONS]
)
def test_bad_inputs_are_rejected_and_leave_the_state_intact(rows: list[Row], reason: str) -> None:
    ins = inputs(rows)
    state, _ = replay(WMC, ins[:-1])
    after, events = step(state, ins[-1])
    assert after == state
    assert len(events) == 1 and isinstance(events[0], TimerRejected)
    assert reason in events[0].reason
    assert events[0].input == ins[-1]


def test_duplicate_event_names_the_second_source() -> None:
    _, events = replay(WMC, inputs([(0, "deal"), (20, "discard", 0, SE), (20.3, "discard", 0, B)]))
    assert events[-1] == DuplicateDiscard(ns(20.3), E, B)


def test_the_same_button_twice_is_a_real_duplicate_not_a_pair() -> None:
    rows: list[Row] = [(0, "deal"), (3, "discard", 0, B), (4, "discard", 0, B)]
    state, _ = replay(WMC, inputs(rows[:-1]))
    after, events = step(state, inputs(rows)[-1])
    assert events == (DuplicateDiscard(ns(4), E, B, paired=False),)
    assert after.turn == state.turn and after.seats == state.seats


def test_turn_end_events_say_why_and_what_was_charged() -> None:
    _, events = replay(
        WMC,
        inputs([(0, "deal"), (20, "discard", 0), (21, "call", 2), (24, "kan", 2), (30, "end")]),
    )
    ends = [(e.seat, e.reason, e.charged_ns, e.counted) for e in events if isinstance(e, TurnEnded)]
    assert ends == [
        (E, TurnEndReason.DISCARD, ns(5), True),
        (S, TurnEndReason.CALLED, 0, False),
        (W, TurnEndReason.KAN, ns(4), True),
        (W, TurnEndReason.HAND_END, 0, False),
    ]


# --------------------------------------------------------------------------- rules values


def test_wmc_defaults_build_the_rules() -> None:
    rules = TimerRules(**WMC_DEFAULTS)  # type: ignore[arg-type]
    assert rules == WMC
    assert rules.timer_mode is Mode.PENALTY
    assert (rules.per_hand_ns, rules.per_turn_ns, rules.grace_ns) == (ns(180), ns(15), ns(15))


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("mode", "strict"),
        ("restart_policy", "continue"),
        ("per_turn_seconds", 0.0),
        ("per_hand_seconds", -1.0),
        ("penalty_increment_seconds", 0.0),
        ("grace_seconds", math.inf),
        ("warning_seconds", math.nan),
        ("turn_penalty_points", -1),
        ("severe_threshold_points", 1.5),
        ("hand_penalty_points", True),
    ],
)
def test_bad_rules_values_are_refused_with_the_key(key: str, value: object) -> None:
    with pytest.raises(TimerRulesError, match=key):
        wmc_rules(**{key: value})  # type: ignore[arg-type]


def test_zero_points_and_zero_grace_are_allowed() -> None:
    rules = wmc_rules(grace_seconds=0.0, turn_penalty_points=0, severe_threshold_points=0)
    got, _ = run(rules, [(0, "deal"), (20, "discard", 0)])
    assert got.used == (20, 0, 0, 0)
    assert got.penalties == ((0, "turn", 5, 0),)


# --------------------------------------------------------------------------- live view


def test_clock_view_through_a_hand() -> None:
    rules = wmc_rules(per_hand_seconds=25.0)
    state, _ = replay(rules, inputs([(0, "deal")]))
    v = clock_view(state, ns(4))
    assert (v.running, v.grace_remaining_ns, v.turn_charged_ns, v.turn_elapsed_ns) == (
        E,
        ns(11),
        0,
        ns(4),
    )
    assert v.seats[0].turn_remaining_ns == ns(15) and v.seats[0].warning is WarningLevel.NONE
    assert v.seats[1].turn_remaining_ns is None and not v.seats[1].running

    v = clock_view(state, ns(26))  # 11 s charged: 4 left ≤ 5 → warning
    assert v.seats[0].turn_remaining_ns == ns(4) and v.seats[0].warning is WarningLevel.LOW
    v = clock_view(state, ns(31))
    assert v.seats[0].turn_remaining_ns == ns(-1) and v.seats[0].warning is WarningLevel.OVER

    state, _ = step(state, Discard(ns(29), E))  # E used 14 of 25
    state, _ = step(state, Discard(ns(30), S))
    state, _ = step(state, Discard(ns(31), W))
    state, _ = step(state, Discard(ns(32), N))
    v = clock_view(state, ns(38))  # E: 6 s into the turn, 5 s of hand left → LOW by the hand
    assert v.seats[0].hand_remaining_ns == ns(5) and v.seats[0].turn_remaining_ns == ns(9)
    assert v.seats[0].warning is WarningLevel.LOW
    assert v.seats[0].used_ns == ns(20)

    state, _ = step(state, Pause(ns(40)))
    frozen = clock_view(state, ns(100))
    assert frozen.paused and frozen.turn_charged_ns == ns(8)
    assert frozen.seats[0].hand_remaining_ns == ns(3)
    assert frozen.seats[0].warning is WarningLevel.LOW

    state, _ = step(state, Resume(ns(100)))
    assert clock_view(state, ns(101)).turn_charged_ns == ns(9)
    assert clock_view(state, ns(50)).turn_charged_ns == ns(8)  # before the last input: clamped

    state, _ = step(state, End(ns(102)))
    v = clock_view(state, ns(500))
    assert v.phase is Phase.ENDED and v.running is None
    assert [s.warning for s in v.seats] == [WarningLevel.NONE] * 4


def test_clock_view_in_off_mode_never_warns() -> None:
    state, _ = replay(wmc_rules(mode="off"), inputs([(0, "deal")]))
    v = clock_view(state, ns(100))
    assert v.seats[0].turn_remaining_ns is not None and v.seats[0].turn_remaining_ns < 0
    assert v.seats[0].warning is WarningLevel.NONE


def test_clock_view_after_a_restart_uses_the_new_time_base() -> None:
    logged = inputs([(0, "deal"), (20, "discard", 0)])
    state, _ = resume_after_restart(WMC, logged, ns(7))
    v = clock_view(state, ns(10))  # 3 s after the restart marker
    assert v.running is S and v.turn_charged_ns == ns(3)


def test_toggle_pause() -> None:
    state, _ = replay(WMC, inputs([(0, "deal")]))
    first = toggle_pause(state, ns(3))
    assert first == Pause(ns(3))
    state, _ = step(state, first)
    assert toggle_pause(state, ns(4)) == Resume(ns(4))


# --------------------------------------------------------------------------- statistics


def test_turn_stats() -> None:
    stats = turn_stats([ns(3), ns(20), ns(7), ns(16)], ns(15))
    assert (stats.turns, stats.mean_ns, stats.median_ns, stats.max_ns, stats.over_limit) == (
        4,
        ns(11.5),
        ns(11.5),
        ns(20),
        2,
    )
    assert turn_stats([], ns(15)).turns == 0


def test_hand_stats_in_monitor_mode() -> None:
    rows: list[Row] = [(0, "deal"), (18, "discard", 0), (40, "discard", 1), (41, "kan", 2)]
    rows += [(45, "discard", 2), (46, "discard", 3), (50, "discard", 0), (51, "end")]
    state, events = replay(wmc_rules(mode="monitor"), inputs(rows))
    assert not any(isinstance(e, Penalty) for e in events)
    stats = hand_stats(state)
    assert [s.turns for s in stats] == [2, 1, 2, 1]
    assert stats[0].max_ns == ns(4) and stats[1].over_limit == 1 and stats[1].max_ns == ns(22)
    assert stats[2].mean_ns == ns(2.5)


# --------------------------------------------------------------------------- properties

KINDS = ("discard", "call", "kan", "pause", "resume", "end", "restart")


@st.composite
def any_inputs(draw: st.DrawFn) -> list[TimerInput]:
    """Arbitrary input streams, most of them partly invalid."""
    t = 0
    out: list[TimerInput] = [Deal(0)]
    for _ in range(draw(st.integers(0, 40))):
        t += draw(st.integers(0, 30_000)) * 1_000_000  # ms steps up to 30 s
        kind = draw(st.sampled_from(KINDS))
        seat = Seat(draw(st.integers(0, 3)))
        if kind == "discard":
            out.append(Discard(t, seat, draw(st.sampled_from(list(Source)))))
        elif kind == "call":
            out.append(Call(t, seat))
        elif kind == "kan":
            out.append(Kan(t, seat))
        elif kind == "pause":
            out.append(Pause(t))
        elif kind == "resume":
            out.append(Resume(t))
        elif kind == "end":
            out.append(End(t))
        else:
            out.append(Restart(t - draw(st.integers(0, 10**12))))
    return out


@st.composite
def valid_play(draw: st.DrawFn) -> tuple[list[TimerInput], int, int]:
    """Only valid discards/kans (and balanced pauses): the turns tile the hand clock. Returns the
    inputs, the internal time of the last counted turn end and the paused time before it."""
    t = 0
    out: list[TimerInput] = [Deal(0)]
    on_turn = Seat.S0
    paused_total = 0
    last_end = 0
    paused_total_at_last_end = 0
    for _ in range(draw(st.integers(0, 40))):
        t += draw(st.integers(0, 40_000)) * 1_000_000
        if draw(st.integers(0, 5)) == 0:
            out.append(Pause(t))
            d = draw(st.integers(0, 100_000)) * 1_000_000
            t += d
            paused_total += d
            out.append(Resume(t))
            continue
        if draw(st.booleans()):
            out.append(Discard(t, on_turn))
            on_turn = on_turn.shimocha
        else:
            out.append(Kan(t, on_turn))
        last_end, paused_total_at_last_end = t, paused_total
    return out, last_end, paused_total_at_last_end


RULES = st.sampled_from([WMC, wmc_rules(mode="monitor"), wmc_rules(per_hand_seconds=40.0)])


@settings(max_examples=300, deadline=None)
@given(RULES, any_inputs())
def test_never_raises_never_negative_rejections_keep_the_state(
    rules: TimerRules, ins: list[TimerInput]
) -> None:
    state = new_hand(rules)
    for inp in ins:
        before = state
        state, events = step(state, inp)
        for e in events:
            if isinstance(e, TimerRejected):
                assert state == before
            if isinstance(e, TurnEnded):
                assert e.charged_ns >= 0
                assert e.counted or e.charged_ns == 0
            if isinstance(e, Penalty):
                assert e.overtime_ns > 0 and e.points >= 0
        for c in state.seats:
            assert c.used_ns >= 0 and all(x >= 0 for x in c.turn_times_ns)
            assert c.used_ns == sum(c.turn_times_ns) and c.turns == len(c.turn_times_ns)
        view = clock_view(state, inp.t_ns)
        assert view.turn_charged_ns >= 0 and view.hand_ns >= 0


@settings(max_examples=300, deadline=None)
@given(RULES, any_inputs())
def test_same_inputs_same_outputs(rules: TimerRules, ins: list[TimerInput]) -> None:
    assert replay(rules, ins) == replay(rules, list(ins))


@settings(max_examples=300, deadline=None)
@given(any_inputs())
def test_penalties_add_up(ins: list[TimerInput]) -> None:
    rules = wmc_rules(per_hand_seconds=40.0)
    state, events = replay(rules, ins)
    inc = rules.increment_ns
    for seat, clock in zip(Seat, state.seats, strict=True):
        mine = [e for e in events if isinstance(e, Penalty) and e.seat == seat]
        hand = [e for e in mine if e.kind is PenaltyKind.HAND]
        over = max(0, clock.used_ns - rules.per_hand_ns)
        assert sum(e.overtime_ns for e in hand) == over == clock.hand_overtime_ns
        assert sum(e.points for e in hand) == -(-over // inc) * rules.hand_penalty_points
        turn = [e for e in mine if e.kind is PenaltyKind.TURN]
        slow = [x - rules.per_turn_ns for x in clock.turn_times_ns if x > rules.per_turn_ns]
        assert [e.overtime_ns for e in turn] == slow
        severe = [e for e in events if isinstance(e, SevereOvertime) and e.seat == seat]
        assert len(severe) == (1 if clock.points > rules.severe_threshold_points else 0)


@settings(max_examples=300, deadline=None)
@given(RULES, valid_play())
def test_used_time_is_the_hand_clock_minus_the_grace(
    rules: TimerRules, play: tuple[list[TimerInput], int, int]
) -> None:
    ins, last_end, paused = play
    state, events = replay(rules, ins)
    assert not any(isinstance(e, TimerRejected) for e in events)
    total_used = sum(c.used_ns for c in state.seats)
    assert total_used == max(0, last_end - paused - rules.grace_ns)


@settings(max_examples=300, deadline=None)
@given(RULES, valid_play(), st.integers(0, 50), st.integers(-(10**13), 10**13))
def test_restart_with_pause_policy_changes_nothing_but_the_time_base(
    rules: TimerRules, play: tuple[list[TimerInput], int, int], cut: int, new_base: int
) -> None:
    """Under "pause", a restart between two inputs, with every later time on a new base, gives
    the same charges as the log without the outage."""
    ins, _, _ = play
    k = 1 + cut % len(ins)  # restart after input k-1 (never before the deal)
    shift = new_base - ins[k - 1].t_ns
    restarted: list[TimerInput] = [*ins[:k], Restart(new_base)]
    restarted += [replace(i, t_ns=i.t_ns + shift) for i in ins[k:]]
    a, _ = replay(rules, ins)
    b, _ = replay(rules, restarted)
    for x, y in zip(a.seats, b.seats, strict=True):  # penalties keep their input's own time
        assert replace(x, penalties=()) == replace(y, penalties=())
        assert [(p.kind, p.overtime_ns, p.points) for p in x.penalties] == [
            (p.kind, p.overtime_ns, p.points) for p in y.penalties
        ]


def test_hold_policy_pauses_until_resume() -> None:
    rules = wmc_rules(restart_policy="hold")
    logged = inputs([(0, "deal"), (20, "discard", 0)])
    state, _ = resume_after_restart(rules, logged, ns(1))
    assert state.paused
    assert clock_view(state, ns(60)).turn_charged_ns == 0
    state, events = step(state, Resume(ns(61)))
    assert not events
    state, _ = step(state, Discard(ns(64), S))
    assert state.seats[1].used_ns == ns(3)


def test_restart_while_paused_stays_paused_under_pause_policy() -> None:
    logged = inputs([(0, "deal"), (20, "discard", 0), (22, "pause")])
    state, _ = resume_after_restart(WMC, logged, ns(5))
    assert state.paused
    state, _ = step(state, Resume(ns(9)))
    state, _ = step(state, Discard(ns(10), S))
    assert state.seats[1].used_ns == ns(3)  # 2 s before the pause, 1 s after the resume
