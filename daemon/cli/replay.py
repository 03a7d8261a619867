"""``jantaku replay``: replay mjai or tenhou.net/6 records through the rules engine.

Stable contract: ``jantaku replay FILE|DIR ... [--format mjai|tenhou6] [--ruleset NAME] [--json]
[--verify] [--verbose]``. The format is detected from the text when not given; ``--ruleset``
defaults to ``tenhou`` (the rules the public records are played under).

One FILE: without ``--json`` one line per hand (round, dealer, result, deltas, violations); with
``--json`` one JSON object with the keys ``file``, ``format``, ``ruleset``, ``aka``, ``rounds``,
``hands``, ``final_scores``, ``scores``, ``deposits``, ``finished``, ``standings``,
``violations``, ``issues`` (and ``verify`` with ``--verify``); each hand has ``record_hand``,
``round``, ``round_wind``, ``dealer``, ``hand_in_round``, ``honba``, ``deposits``, ``result``,
``abort_kind``, ``deltas``, ``scores_before``, ``scores_after``, ``tenpai``, ``wins``,
``violations`` (docs/records.md). Exit 2: the file cannot be read or is not a record, with a
one-line error.

Several FILEs or a DIR (every ``.json``, ``.jsonl``, ``.mjson`` -- the mjai server's -- and their
``.gz`` under it, sorted; every other file is named on stderr as skipped): one line per
record and a summary line (``--verbose``: each record's hands too); with ``--json`` a list of the
objects above, one per record (``{"file", "error"}`` for one that cannot be read). Exit 1 if any
record fails (unreadable, or a difference under ``--verify``).

Scores are computed by the engine from the tiles; the record's own results are only compared
(``--verify``: exit 1 with a diff on any difference, or an import issue that changes the replay;
a key known to be informational, such as the mjai server's ``logs``, is a note, and an unknown key
an issue that is reported but changes nothing, so neither fails a record).
"""

from __future__ import annotations

import argparse
import gc
import gzip
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rules.records.model import ImportedRecord, RecordFormat
    from rules.records.replay import Difference, ReplayedHand, ReplayResult
    from rules.ruleset import Ruleset

PROG = "jantaku replay"
#: ``.mjson`` is the mjai server's own (gimite/mjai, mjai-manue), ``.mjson.gz`` its archives
RECORD_SUFFIXES = (".json", ".jsonl", ".json.gz", ".jsonl.gz", ".mjson", ".mjson.gz")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        print(f"{PROG}: {message}", file=sys.stderr)
        raise SystemExit(2)


def read_text(path: str) -> str:
    """A record file's text (gzip-compressed files too: mjai logs are often ``.json.gz``)."""
    with open(path, "rb") as f:  # (not Path.read_bytes: a third of the time, a folder of files)
        data = f.read()
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


def _violation_line(v: dict[str, Any]) -> str:
    hand = v.get("record_hand")
    where = f"hand {hand + 1}, " if isinstance(hand, int) else ""
    return (f"    violation {v['code']} seat {v['seat']} ({where}input {v.get('input_index')}): "
            f"expected {v['expected']}, got {v['actual']} ({v['article']})")


@dataclass(frozen=True, slots=True)
class _Outcome:
    """One record replayed: what ``--json`` prints, the text lines, the verification report."""

    file: str
    error: str | None = None  # the file cannot be read or is not a record
    json: dict[str, Any] = field(default_factory=dict)  # (left empty when not asked for)
    text: tuple[str, ...] = ()  # (left empty when not asked for)
    report: tuple[str, ...] = ()  # --verify: the differences (empty: verified)
    hands: int = 0
    violations: int = 0

    @property
    def failed(self) -> bool:
        return self.error is not None or bool(self.report)


def _replay_one(path: str, ruleset: Ruleset, fmt: RecordFormat | None, check: bool,
                ref: str, *, json_out: bool = True, text_out: bool = True) -> _Outcome:
    """One record replayed; its JSON object and text lines only where they are printed (a
    folder's summary lines need neither)."""
    from rules.records import RecordError, import_record
    from rules.records.replay import replay, verify

    try:
        text = read_text(path)
    except (OSError, UnicodeDecodeError, EOFError, gzip.BadGzipFile) as exc:
        return _Outcome(path, error=f"cannot read {path}: {exc}")
    try:
        record = import_record(text, ruleset, fmt)
    except RecordError as exc:
        return _Outcome(path, error=f"{path}: {exc}")
    result = replay(record, ruleset=ref)
    diffs = verify(record, result) if check else []
    # What the replay depends on fails --verify; an unknown key left aside is only reported.
    failing = [str(i) for i in record.issues if i.affects_replay]
    report: list[str] = []
    if diffs or failing:
        # The count is that of ``verify.differences``; the import issues that change the
        # replay are counted apart (they are in ``issues``).
        head = f"{path}: {len(diffs)} difference(s) with the record"
        if failing:
            head += f", {len(failing)} import issue(s) that change the replay"
        report = [head]
        report += [f"  import: {i}" for i in failing]
        report += [f"  {d}" for d in diffs]
    return _Outcome(
        path, report=tuple(report) if check else (), hands=len(record.hands),
        violations=len(result.violations),
        json=_json(path, ruleset, record, result, diffs, failing, check) if json_out else {},
        text=_text(path, ruleset, record, result) if text_out else ())


def _json(path: str, ruleset: Ruleset, record: ImportedRecord, result: ReplayResult,
          diffs: Sequence[Difference], failing: Sequence[str], check: bool) -> dict[str, Any]:
    out: dict[str, Any] = {
        "file": path,
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
    if check:
        out["verify"] = {"ok": not diffs and not failing,
                         "differences": [d.to_json() for d in diffs]}
    return out


def _text(path: str, ruleset: Ruleset, record: ImportedRecord, result: ReplayResult
          ) -> tuple[str, ...]:
    length = {1: "East only", 2: "East-South"}.get(record.rounds or 0, "length per ruleset")
    lines = [f"{path}: {record.format}, ruleset {ruleset.name}, "
             f"{'red fives' if record.aka else 'no red fives'}, {length}"]
    resynced = {r.hand: r for r in result.resyncs}
    for h in result.hands:
        r = resynced.get(h.record)
        if r is not None:
            lines.append(f"    the replay takes the record's hand start: record {r.record}, "
                         f"engine {r.engine}")
        lines.append(f"{h.label:<6} dealer S{h.dealer}  {_describe(h):<40} "
                     f"[{_deltas(h.deltas)}]  violations {len(h.violations)}")
        lines.extend(_violation_line(v) for v in h.violations)
    final = "-" if result.final_scores is None else " ".join(str(x) for x in result.final_scores)
    lines.append(f"final points: {final}" + ("" if result.finished else " (game not over)"))
    lines.extend(f"import: {i}" for i in record.issues)
    lines.extend(f"note: {n}" for n in record.notes)
    return tuple(lines)


def record_files(paths: Sequence[str], skipped: list[str] | None = None) -> list[str]:
    """Each path given, a folder as every record file under it (sorted). ``skipped`` gets a
    line for each file of a folder that is left out, with why."""
    out: list[str] = []
    for p in paths:
        path = Path(p)
        if not path.is_dir():
            out.append(p)
            continue
        for f in sorted(path.rglob("*")):
            if not f.is_file():
                continue
            if f.name.endswith(RECORD_SUFFIXES):
                out.append(str(f))
            elif skipped is not None:
                skipped.append(f"{f}: not a record file name ({', '.join(RECORD_SUFFIXES)})")
    return out


def _single(o: _Outcome, args: argparse.Namespace) -> int:
    if o.error is not None:
        return _fail(o.error)
    if args.json:
        sys.stdout.write(json.dumps(o.json, ensure_ascii=False, separators=(",", ":")) + "\n")
    else:
        sys.stdout.write("\n".join(o.text) + "\n")
    if args.verify:
        if o.report:
            print("\n".join(o.report), file=sys.stderr if args.json else sys.stdout)
            return 1
        if not args.json:
            print(f"{o.file}: verified: every hand matches the record")
    return 0


def _summary_line(o: _Outcome, check: bool) -> str:
    if o.error is not None:
        return f"{o.file}: error: {o.error.splitlines()[0]}"
    v = o.violations
    if not check:
        return f"{o.file}: replayed, {o.hands} hands, {v} violation(s)"
    if not o.report:
        return f"{o.file}: verified, {o.hands} hands"
    return f"{o.file}: {o.report[0].split(': ', 1)[1]}"


def _many(outcomes: list[_Outcome], args: argparse.Namespace) -> int:
    failed = [o for o in outcomes if o.failed]
    if args.json:
        items = [o.json if o.error is None else {"file": o.file, "error": o.error}
                 for o in outcomes]
        sys.stdout.write(json.dumps(items, ensure_ascii=False, separators=(",", ":")) + "\n")
        for o in failed:
            print("\n".join(o.report) if o.error is None else o.error, file=sys.stderr)
    else:
        for o in outcomes:
            print(_summary_line(o, args.verify))
            if args.verbose and o.error is None:
                print("\n".join(("  " + line) for line in (*o.text, *o.report)))
        word = "verified" if args.verify else "replayed"
        print(f"{len(outcomes)} record(s): {len(outcomes) - len(failed)} {word}, "
              f"{len(failed)} failed")
    return 1 if failed else 0


def main(argv: Sequence[str]) -> int:
    parser = _Parser(prog=PROG, description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("files", nargs="+", metavar="FILE|DIR")
    parser.add_argument("--format", choices=("mjai", "tenhou6"))
    parser.add_argument("--ruleset", default="tenhou")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--verify", action="store_true",
                        help="compare every hand with the record; exit 1 on any difference")
    parser.add_argument("--verbose", action="store_true",
                        help="with several records: each record's hands and differences too")
    args = parser.parse_args(list(argv))

    from rules.ruleset import load_ruleset

    ruleset = load_ruleset(args.ruleset)  # a RulesetError: one line, exit 2 (daemon.cli)
    # A batch of folds that make garbage but no cycles to speak of: the collector's passes
    # over every module's objects and a record's inputs cost a few percent of a replay.
    # (Restored at the end: a caller that runs ``main`` in its own process keeps its own.)
    thresholds = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(20_000, 50, 50)
    try:
        return _run(args, ruleset)
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()


def _run(args: argparse.Namespace, ruleset: Ruleset) -> int:
    skipped: list[str] = []
    files = record_files(args.files, skipped)
    for line in skipped:  # stderr: --json keeps standard output one JSON value
        print(f"{PROG}: skipped {line}", file=sys.stderr)
    if len(args.files) == 1 and not Path(args.files[0]).is_dir():
        return _single(_replay_one(files[0], ruleset, args.format, args.verify, args.ruleset,
                                   json_out=args.json, text_out=not args.json), args)
    if not files:
        return _fail(f"no record files ({', '.join(RECORD_SUFFIXES)}) in {' '.join(args.files)}")
    return _many([_replay_one(f, ruleset, args.format, args.verify, args.ruleset,
                              json_out=args.json, text_out=args.verbose and not args.json)
                  for f in files], args)
