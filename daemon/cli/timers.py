"""``jantaku timers``: the WMC clocks for a protest review.

``jantaku timers replay FILE [--ruleset NAME] [--json]`` reads one hand's timing as JSON lines
``{"t": SECONDS, "input": KIND, "seat": S}`` and prints what each seat was charged, by the same
reducer (``rules/timers/``) that drives the live clocks. The format is a stable contract:
``docs/timers.md``, "Protest review".
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TextIO

from daemon.errors import UsageError
from rules.seats import SEATS, Seat
from rules.timers import (
    Call,
    Deal,
    Discard,
    DuplicateDiscard,
    End,
    Kan,
    Pause,
    Penalty,
    PenaltyKind,
    Restart,
    Resume,
    Source,
    TimerEvent,
    TimerInput,
    TimerRejected,
    TimerRules,
    TimerState,
    hand_stats,
    new_hand,
    ns_to_seconds,
    seconds_to_ns,
    step,
)

SEATED = ("discard", "call", "kan")
UNSEATED = ("deal", "pause", "resume", "end", "restart")
KEYS = ("t", "input", "seat", "source")


@dataclass(frozen=True, slots=True)
class BadLine:
    line: int
    reason: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.reason}"


def parse_line(text: str) -> TimerInput:
    """One JSON line → an input; ValueError with the reason when it is not one."""
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"not JSON ({exc.msg})") from None
    if not isinstance(obj, dict):
        raise UsageError(f"expected a JSON object, got {text.strip()!r}")
    unknown = sorted(set(obj) - set(KEYS))
    if unknown:
        raise UsageError(f"unknown key {unknown[0]!r} (known: {', '.join(KEYS)})")
    t = obj.get("t")
    if isinstance(t, bool) or not isinstance(t, int | float) or not math.isfinite(t) or t < 0:
        raise UsageError(f"\"t\": expected a number of seconds >= 0, got {t!r}")
    t_ns = seconds_to_ns(float(t))
    kind = obj.get("input")
    if kind not in SEATED + UNSEATED:
        raise UsageError(f"\"input\": expected one of {', '.join(SEATED + UNSEATED)}, got {kind!r}")
    if "source" in obj and kind != "discard":
        raise UsageError(f"\"source\" is only for a discard, not for {kind!r}")
    if kind in UNSEATED:
        if "seat" in obj:
            raise UsageError(f"\"seat\" must not be given for {kind!r}")
        unseated: dict[str, type[Deal | Pause | Resume | End | Restart]] = {
            "deal": Deal,
            "pause": Pause,
            "resume": Resume,
            "end": End,
            "restart": Restart,
        }
        return unseated[kind](t_ns)
    seat = obj.get("seat")
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat <= 3:
        raise UsageError(f"\"seat\": expected 0..3 for {kind!r}, got {seat!r}")
    if kind == "discard":
        sources = [s.value for s in Source]
        source = obj.get("source", Source.REFEREE.value)
        if source not in sources:
            raise UsageError(f"\"source\": expected one of {', '.join(sources)}, got {source!r}")
        return Discard(t_ns, Seat(seat), Source(source))
    return Call(t_ns, Seat(seat)) if kind == "call" else Kan(t_ns, Seat(seat))


@dataclass(frozen=True, slots=True)
class Replayed:
    state: TimerState
    events: tuple[TimerEvent, ...]
    duplicates: int


def replay_lines(rules: TimerRules, lines: Sequence[str]) -> Replayed | list[BadLine]:
    """Parse and replay; every bad line (syntax first, then inputs the clocks refuse)."""
    parsed: list[tuple[int, TimerInput]] = []
    bad: list[BadLine] = []
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            parsed.append((number, parse_line(text)))
        except ValueError as exc:
            bad.append(BadLine(number, str(exc)))
    if bad:
        return bad
    if not parsed or not isinstance(parsed[0][1], Deal):
        where = parsed[0][0] if parsed else 1
        return [BadLine(where, "the hand must start with a \"deal\" line")]
    state = new_hand(rules)
    events: list[TimerEvent] = []
    duplicates = 0
    for number, inp in parsed:
        state, out = step(state, inp)
        for event in out:
            if isinstance(event, TimerRejected):
                bad.append(BadLine(number, event.reason))
            elif isinstance(event, DuplicateDiscard):
                duplicates += 1
        events.extend(out)
    if bad:
        return bad
    return Replayed(state, tuple(events), duplicates)


def summary(state: TimerState) -> dict[str, Any]:
    """The contract's JSON object (seats 0..3; seconds rounded to the millisecond)."""
    seats = []
    for seat, clock in zip(SEATS, state.seats, strict=True):
        penalties = [_penalty(p) for p in clock.penalties]
        seats.append(
            {
                "seat": int(seat),
                "used": ns_to_seconds(clock.used_ns),
                "turns": clock.turns,
                "penalties": penalties,
            }
        )
    return {"seats": seats}


def _penalty(p: Penalty) -> dict[str, Any]:
    return {"kind": p.kind.value, "overtime": ns_to_seconds(p.overtime_ns), "points": p.points}


def table(name: str, rules: TimerRules, result: Replayed) -> str:
    """The readable form: one row per seat, then the penalties in order."""
    state = result.state
    out = [
        f"ruleset {name}: mode {rules.mode}; {rules.per_hand_seconds:g} s per hand, "
        f"{rules.per_turn_seconds:g} s per turn, first {rules.grace_seconds:g} s not timed; "
        f"per started {rules.penalty_increment_seconds:g} s over: {rules.turn_penalty_points} "
        f"(turn) / {rules.hand_penalty_points} (hand) points; severe above "
        f"{rules.severe_threshold_points} points",
        "",
        f"{'seat':>4} {'used s':>9} {'turns':>5} {'mean s':>7} {'median s':>8} {'max s':>7} "
        f"{'over':>4} {'turn pts':>8} {'hand pts':>8} {'severe':>6}",
    ]
    stats = hand_stats(state)
    for seat, clock, st in zip(SEATS, state.seats, stats, strict=True):
        turn_pts = sum(p.points for p in clock.penalties if p.kind is PenaltyKind.TURN)
        hand_pts = sum(p.points for p in clock.penalties if p.kind is PenaltyKind.HAND)
        out.append(
            f"{int(seat):>4} {ns_to_seconds(clock.used_ns):>9.3f} {clock.turns:>5} "
            f"{ns_to_seconds(st.mean_ns):>7.3f} {ns_to_seconds(st.median_ns):>8.3f} "
            f"{ns_to_seconds(st.max_ns):>7.3f} {st.over_limit:>4} {turn_pts:>8} {hand_pts:>8} "
            f"{'YES' if clock.severe else '-':>6}"
        )
    penalties = [e for e in result.events if isinstance(e, Penalty)]
    out.append("")
    if penalties:
        out.append("penalties:")
        for p in penalties:
            over = ns_to_seconds(p.overtime_ns)
            kind = p.kind.value
            out.append(f"  seat {int(p.seat)} {kind:<4} overtime {over:.3f} s  {p.points} points")
    else:
        out.append("penalties: none")
    if result.duplicates:
        out.append(f"button/sensor duplicates ignored: {result.duplicates}")
    return "\n".join(out)


def _replay(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    from rules.ruleset import load_ruleset

    try:
        rules = load_ruleset(args.ruleset).timers
    except ValueError as exc:
        print(f"jantaku timers: {exc}", file=stderr)
        return 2
    try:
        if args.file == "-":
            lines = sys.stdin.read().splitlines()
        else:
            with open(args.file, encoding="utf-8") as fh:
                lines = fh.read().splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        print(f"jantaku timers: cannot read {args.file}: {exc}", file=stderr)
        return 2
    result = replay_lines(rules, lines)
    if isinstance(result, list):
        for bad in result:
            print(f"{args.file}: {bad}", file=stderr)
        return 1
    if args.json:
        print(json.dumps(summary(result.state)), file=stdout)
    else:
        print(table(args.ruleset, rules, result), file=stdout)
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="jantaku timers", description="WMC timers: replay a hand's timing"
    )
    sub = parser.add_subparsers(dest="command", required=True)
    rp = sub.add_parser(
        "replay",
        help="charge a hand's timing lines (protest review)",
        description='Read JSON lines {"t": SECONDS, "input": KIND, "seat": S} (FILE or - for '
        "stdin) and print each seat's charged time, turns and penalties.",
    )
    rp.add_argument("file", metavar="FILE")
    rp.add_argument("--ruleset", default="wmc", help="ruleset name or TOML path (default: wmc)")
    rp.add_argument("--json", action="store_true", help="print the JSON object of the contract")
    return parser


def main(argv: list[str], stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    out = sys.stdout if stdout is None else stdout
    err = sys.stderr if stderr is None else stderr
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:  # argparse: --help (0) or a usage error (2)
        return int(exc.code) if isinstance(exc.code, int) else 2
    return _replay(args, out, err)
