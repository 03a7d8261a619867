"""``jantaku replay``: replay an mjai or tenhou.net/6 record through the rules engine.

Stable contract: ``jantaku replay FILE [--format mjai|tenhou6] [--ruleset NAME] [--json]
[--verify]``. The format is detected from the text when not given; ``--ruleset`` defaults to
``tenhou`` (the rules the public records are played under). Without ``--json`` it prints one line
per hand (round, dealer, result, deltas, violations); with ``--json`` one JSON object with the keys
``file``, ``format``, ``ruleset``, ``aka``, ``rounds``, ``hands``, ``final_scores``, ``scores``,
``deposits``, ``finished``, ``standings``, ``violations``, ``issues`` (and ``verify`` with
``--verify``); each hand has ``record_hand``, ``round``, ``round_wind``, ``dealer``,
``hand_in_round``, ``honba``, ``deposits``, ``result``, ``abort_kind``, ``deltas``,
``scores_before``, ``scores_after``, ``tenpai``, ``wins``, ``violations`` (docs/records.md).

Scores are computed by the engine from the tiles; the record's own results are only compared
(``--verify``: exit 1 with a diff on any difference). Exit 2: the file cannot be read or is not a
record, with a one-line error.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rules.records.replay import ReplayedHand

PROG = "jantaku replay"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        print(f"{PROG}: {message}", file=sys.stderr)
        raise SystemExit(2)


def read_text(path: str) -> str:
    """A record file's text (gzip-compressed files too: mjai logs are often ``.json.gz``)."""
    data = Path(path).read_bytes()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return data.decode("utf-8-sig")


def _fail(message: str) -> int:
    print(f"{PROG}: {message.splitlines()[0] if message else 'error'}", file=sys.stderr)
    return 2


def _deltas(d: Sequence[int]) -> str:
    return " ".join(f"{v:+6d}" for v in d)


def _describe(hand: ReplayedHand) -> str:
    if hand.result == "win":
        parts = []
        for w in hand.wins:
            how = "tsumo" if w.loser is None else f"ron from S{w.loser}"
            value = f"{w.yakuman}x yakuman" if w.yakuman else f"{w.han} han {w.fu} fu"
            parts.append(f"S{w.winner} {how} {value}")
        return "; ".join(parts)
    if hand.result == "abortive":
        return f"abortive ({hand.abort_kind})"
    if hand.result == "exhaustive":
        return f"draw, tenpai {[f'S{s}' for s in hand.tenpai]}"
    return hand.result


def main(argv: Sequence[str]) -> int:
    parser = _Parser(prog=PROG, description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("file")
    parser.add_argument("--format", choices=("mjai", "tenhou6"))
    parser.add_argument("--ruleset", default="tenhou")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--verify", action="store_true",
                        help="compare every hand with the record; exit 1 on any difference")
    args = parser.parse_args(list(argv))

    from rules.records import RecordError, import_record
    from rules.records.replay import replay, verify
    from rules.ruleset import RulesetError, load_ruleset

    try:
        ruleset = load_ruleset(args.ruleset)
    except RulesetError as exc:
        return _fail(str(exc))
    try:
        text = read_text(args.file)
    except (OSError, UnicodeDecodeError, EOFError, gzip.BadGzipFile) as exc:
        return _fail(f"cannot read {args.file}: {exc}")
    try:
        record = import_record(text, ruleset, args.format)
    except RecordError as exc:
        return _fail(f"{args.file}: {exc}")
    result = replay(record)
    diffs = verify(record, result) if args.verify else []
    issues = [str(i) for i in record.issues]

    if args.json:
        out: dict[str, Any] = {
            "file": args.file,
            "format": record.format,
            "ruleset": ruleset.name,
            "aka": record.aka,
            "rounds": record.rounds,
            "hands": [h.to_json() for h in result.hands],
            "final_scores": None if result.final_scores is None else list(result.final_scores),
            "scores": None if result.scores is None else list(result.scores),
            "deposits": result.deposits,
            "finished": result.finished,
            "standings": result.standings,
            "violations": len(result.violations),
            "issues": [i.to_json() for i in record.issues],
        }
        if args.verify:
            out["verify"] = {
                "ok": not diffs and not issues,
                "differences": [d.to_json() for d in diffs],
            }
        sys.stdout.write(json.dumps(out, ensure_ascii=False, separators=(",", ":")) + "\n")
    else:
        length = {1: "East only", 2: "East-South"}.get(record.rounds or 0, "length per ruleset")
        lines = [f"{args.file}: {record.format}, ruleset {ruleset.name}, "
                 f"{'red fives' if record.aka else 'no red fives'}, {length}"]
        for h in result.hands:
            lines.append(
                f"{h.label:<6} dealer S{h.dealer}  {_describe(h):<40} "
                f"[{_deltas(h.deltas)}]  violations {len(h.violations)}"
            )
            for v in h.violations:
                lines.append(f"    violation {v['code']} seat {v['seat']}: expected "
                             f"{v['expected']}, got {v['actual']} ({v['article']})")
        final = "-" if result.final_scores is None else " ".join(
            str(s) for s in result.final_scores)
        lines.append(f"final points: {final}" + ("" if result.finished else " (game not over)"))
        for i in issues:
            lines.append(f"import: {i}")
        sys.stdout.write("\n".join(lines) + "\n")

    if args.verify:
        if diffs or issues:
            report = [f"{args.file}: {len(diffs) + len(issues)} difference(s) with the record"]
            report += [f"  import: {i}" for i in issues]
            report += [f"  {d}" for d in diffs]
            print("\n".join(report), file=sys.stderr if args.json else sys.stdout)
            return 1
        if not args.json:
            print(f"{args.file}: verified: every hand matches the record")
    return 0
