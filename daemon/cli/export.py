"""``jantaku export``: write a hand history as mjai JSON Lines or tenhou.net/6 JSON.

Stable contract: ``jantaku export FILE --to mjai|tenhou6 [--format mjai|tenhou6] [--ruleset NAME]
[--results record|engine] [-o OUT]``. ``FILE`` is a record in either format (detected when
``--format`` is not given). ``--results record`` (the default) writes the record's own results, so
importing the output gives back the same record; ``--results engine`` replays the record through
the rules engine and writes the engine's results (deltas, han/fu/yaku, scores), as the daemon
does from its event log. Output goes to ``OUT`` or to standard output. Exit 2 with a one-line
error when the file cannot be read or written, or is not a record; exit 1 when the history cannot
be written in the asked format.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

PROG = "jantaku export"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        print(f"{PROG}: {message}", file=sys.stderr)
        raise SystemExit(2)


def _fail(message: str, code: int = 2) -> int:
    print(f"{PROG}: {message.splitlines()[0] if message else 'error'}", file=sys.stderr)
    return code


def main(argv: Sequence[str]) -> int:
    parser = _Parser(prog=PROG, description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("file")
    parser.add_argument("--to", required=True, choices=("mjai", "tenhou6"))
    parser.add_argument("--format", choices=("mjai", "tenhou6"), help="the input's format")
    parser.add_argument("--ruleset", default="tenhou")
    parser.add_argument("--results", choices=("record", "engine"), default="record")
    parser.add_argument("-o", "--output", help="write here instead of standard output")
    args = parser.parse_args(list(argv))

    from daemon.cli.replay import read_text
    from rules.records import RecordError, import_record
    from rules.records.export import ExportError, export_mjai, export_tenhou6, hands_from_events
    from rules.records.replay import replay
    from rules.ruleset import load_ruleset

    ruleset = load_ruleset(args.ruleset)  # a RulesetError: one line, exit 2 (daemon.cli)
    try:
        text = read_text(args.file)
    except (OSError, UnicodeDecodeError, EOFError) as exc:
        return _fail(f"cannot read {args.file}: {exc}")
    try:
        record = import_record(text, ruleset, args.format)
    except RecordError as exc:
        return _fail(f"{args.file}: {exc}")
    for issue in record.issues:
        print(f"{PROG}: warning: {args.file}: {issue}", file=sys.stderr)

    hands = list(record.hands)
    final = record.final_scores
    pts: tuple[float, float, float, float] | None = record.final_pt  # the record's own
    if args.results == "engine":
        result = replay(record, keep_events=True)
        hands = hands_from_events(result.event_log)
        final = result.final_scores if result.finished else None
        pts = None
        if result.standings is not None and result.finished:
            seats = result.standings["seats"]
            pts = (seats[0]["total_pt"], seats[1]["total_pt"], seats[2]["total_pt"],
                   seats[3]["total_pt"])
    try:
        if args.to == "mjai":
            out = export_mjai(record.inputs, hands, final_scores=final)
        else:
            scored = None
            if final is not None:
                scored = (final, pts if pts is not None else (0.0, 0.0, 0.0, 0.0))
            out = export_tenhou6(record.inputs, hands, final=scored, title=record.title,
                                 meta=record.source_meta) + "\n"
    except ExportError as exc:
        return _fail(f"{args.file}: cannot write {args.to}: {exc}", 1)
    if args.output:
        try:
            Path(args.output).write_text(out, encoding="utf-8")
        except OSError as exc:
            return _fail(f"cannot write {args.output}: {exc}")
    else:
        sys.stdout.write(out)
    return 0
