"""Golden replays: what ``jantaku replay --json --verify`` prints, and the reducer's event stream,
for every record in ``tests/data/``, kept in ``tests/data/golden/`` (issue 16 item 7: a refactor of
the rules core must not change a byte of either). The files are JSON lines named ``.golden``, so
that no glob for ``*.json``/``*.jsonl`` records finds them.

A change of behaviour on purpose (a rules-fidelity fix) regenerates them, from the checkout's root:

    .venv/bin/python tests/rules/golden.py --write

and the commit shows the diff of ``tests/data/golden/replay-*.golden`` (the event streams are
gzipped: ``--diff`` prints the first differing event of every record whose stream changed).
"""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
GOLDEN = DATA / "golden"
RECORD_DIRS = ("game-logs", "mjai")
RULESETS = ("tenhou", "mleague", "saikouisen", "saikouisen-classic", "mu", "wmc")
EVENT_RULESETS = ("tenhou", "mleague")


def records() -> list[str]:
    """Every game record under tests/data (relative to the root, as the CLI prints it): the
    folders of records (other data, e.g. link test vectors, also lives in tests/data)."""
    found = (p for d in RECORD_DIRS for p in (DATA / d).rglob("*")
             if p.suffix in (".json", ".jsonl"))
    return sorted(str(p.relative_to(ROOT)) for p in found)


@dataclass(frozen=True, slots=True)
class Replayed:
    file: str
    exit: int
    stdout: str
    stderr: str

    def to_json(self) -> dict[str, Any]:
        return {"file": self.file, "exit": self.exit, "stdout": self.stdout, "stderr": self.stderr}


def replay_cli(file: str, ruleset: str) -> Replayed:
    """``jantaku replay FILE --ruleset R --json --verify`` in this process, run from the root."""
    from daemon.cli.replay import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(ROOT), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([file, "--ruleset", ruleset, "--json", "--verify"])
    return Replayed(file, code, out.getvalue(), err.getvalue())


def event_stream(file: str, ruleset: str) -> list[str]:
    """The reducer's events (their JSON, one string each) replaying the record."""
    from daemon.cli.replay import read_text
    from rules.records import import_record
    from rules.records.replay import replay
    from rules.ruleset import load_ruleset

    record = import_record(read_text(str(ROOT / file)), load_ruleset(ruleset), None)
    log = replay(record, keep_events=True).event_log
    return [json.dumps(e, ensure_ascii=False, separators=(",", ":"), sort_keys=True) for e in log]


def replay_path(ruleset: str) -> Path:
    return GOLDEN / f"replay-{ruleset}.golden"


def events_path(ruleset: str) -> Path:
    return GOLDEN / f"events-{ruleset}.golden.gz"


def load_replays(ruleset: str) -> dict[str, Replayed]:
    lines = replay_path(ruleset).read_text(encoding="utf-8").splitlines()
    return {(r := Replayed(**json.loads(line))).file: r for line in lines}


def load_events(ruleset: str) -> dict[str, list[str]]:
    with gzip.open(events_path(ruleset), "rt", encoding="utf-8") as f:
        return {(j := json.loads(line))["file"]: j["events"] for line in f}


def _lines(items: Iterator[dict[str, Any]]) -> str:
    return "".join(json.dumps(i, ensure_ascii=False, sort_keys=True) + "\n" for i in items)


def write() -> None:
    GOLDEN.mkdir(parents=True, exist_ok=True)
    files = records()
    for rs in RULESETS:
        text = _lines(replay_cli(f, rs).to_json() for f in files)
        replay_path(rs).write_text(text, encoding="utf-8")
    for rs in EVENT_RULESETS:
        text = _lines({"file": f, "events": event_stream(f, rs)} for f in files)
        # mtime=0: the same events give the same bytes, so git sees no change when there is none.
        events_path(rs).write_bytes(gzip.compress(text.encode("utf-8"), mtime=0))


def first_difference(want: list[str], got: list[str]) -> str | None:
    for i, (w, g) in enumerate(zip(want, got)):
        if w != g:
            return f"event {i}:\n  golden   {w}\n  computed {g}"
    if len(want) != len(got):
        return f"{len(want)} events in the golden stream, {len(got)} computed"
    return None


def diff() -> int:
    changed = 0
    for rs in EVENT_RULESETS:
        golden = load_events(rs)
        for f in records():
            d = first_difference(golden.get(f, []), event_stream(f, rs))
            if d is not None:
                changed += 1
                print(f"{rs} {f}: {d}")
    return 1 if changed else 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    if sys.argv[1:] == ["--write"]:
        write()
    elif sys.argv[1:] == ["--diff"]:
        raise SystemExit(diff())
    else:
        raise SystemExit("usage: python tests/rules/golden.py --write|--diff")
