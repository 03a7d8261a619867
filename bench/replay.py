"""Record replay figures: every shared game record imported, replayed through the rules engine and
verified against the record. Prints; asserts nothing.

    .venv/bin/python bench/replay.py [--rounds 3] [--ruleset tenhou] [--json] [--no-riichienv] [DIR]

Figures per round (best of ``--rounds``): inputs/s and events/s through the reducer, hands/s
(import + replay + verify), and hanchans verified/s over the records that are complete games.
Then, where ``riichienv`` is installed (the ``bench`` extra), the same run compares hands/s with
it on the same games exported as mjai (:func:`versus_riichienv`, CPU time: other load on the
machine distorts both sides alike); ``bench/report.py`` calls it too.
"""

from __future__ import annotations

import argparse
import importlib
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rules.records import import_record
from rules.records.replay import replay, verify
from rules.ruleset import load_ruleset

REPO = Path(__file__).resolve().parent.parent
DEFAULT_DIR = REPO / "tests" / "data" / "game-logs"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("dir", nargs="?", default=str(DEFAULT_DIR))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--ruleset", default="tenhou")
    parser.add_argument("--json", action="store_true", help="print one JSON object of figures")
    parser.add_argument("--no-riichienv", action="store_true",
                        help="leave out the comparison with riichienv")
    args = parser.parse_args()
    out = sys.stdout
    if args.json:  # the human lines go to stderr
        sys.stdout = sys.stderr
    ruleset = load_ruleset(args.ruleset)
    paths = sorted(p for p in Path(args.dir).rglob("*") if p.suffix in (".json", ".jsonl"))
    texts = [p.read_text(encoding="utf-8") for p in paths]
    print(f"{len(paths)} records under {args.dir}, ruleset {ruleset.name}, "
          f"best of {args.rounds} rounds")

    best: dict[str, float] = {}
    totals = {"inputs": 0, "events": 0, "hands": 0, "games": 0, "mismatched": 0}
    for _ in range(args.rounds):
        t_import = t_replay = t_verify = t_games = 0.0
        inputs = events = hands = games = mismatched = 0
        for text in texts:
            t0 = time.perf_counter()
            rec = import_record(text, ruleset)
            t1 = time.perf_counter()
            result = replay(rec)
            t2 = time.perf_counter()
            diffs = verify(rec, result)
            t3 = time.perf_counter()
            t_import += t1 - t0
            t_replay += t2 - t1
            t_verify += t3 - t2
            inputs += result.inputs
            events += result.events
            hands += len(result.hands)
            mismatched += bool(diffs or rec.issues)
            if result.finished and rec.final_scores is not None and len(rec.hands) >= 4:
                games += 1
                t_games += t3 - t0
        total = t_import + t_replay + t_verify
        figures = {
            "inputs/s (reducer)": inputs / t_replay,
            "events/s (reducer)": events / t_replay,
            "hands/s (import+replay+verify)": hands / total,
            "hanchans verified/s": games / t_games if t_games else 0.0,
            "import ms/record": 1000 * t_import / len(texts),
        }
        for k, v in figures.items():
            if k.endswith("ms/record"):
                best[k] = min(best.get(k, v), v)
            else:
                best[k] = max(best.get(k, 0.0), v)
        totals = {"inputs": inputs, "events": events, "hands": hands, "games": games,
                  "mismatched": mismatched}
    print(f"  {totals['inputs']} inputs, {totals['events']} events, {totals['hands']} hands, "
          f"{totals['games']} complete games, {totals['mismatched']} record(s) not verified")
    for k, v in best.items():
        print(f"  {k:<34} {v:>12,.1f}")
    versus: dict[str, Any] | None = None
    if not args.no_riichienv:
        versus = versus_riichienv(args.rounds)
        if "ratio" in versus:
            print(f"  same {versus['games']} games / {versus['hands']} hands as mjai, CPU time: "
                  f"ours {versus['ours_hands_per_s']:,.0f} hands/s, riichienv "
                  f"{versus['riichienv']} {versus['riichienv_hands_per_s']:,.0f} hands/s, "
                  f"ratio {versus['ratio']:.3f}")
        else:
            print(f"  riichienv: {versus['riichienv']}")
    if args.json:
        sys.stdout = out
        extra = {} if versus is None else {"riichienv": versus}
        print(json.dumps({"bench": "replay", "records": len(texts), **totals, **best, **extra}))
    return 0


def versus_riichienv(rounds: int) -> dict[str, Any]:
    """hands/s on the same games: ours (import mjai + replay through the reducer) and riichienv
    (``MjaiReplay.from_jsonl`` + every step of every kyoku), on the shared records exported as
    mjai by our exporter. Games riichienv cannot read are left out of both."""
    from rules.records import import_record
    from rules.records.export import to_mjai_events
    from rules.records.model import RecordError
    from rules.records.replay import replay
    from rules.ruleset import load_ruleset

    try:
        riichienv: Any = importlib.import_module("riichienv")
    except ImportError:
        return {"riichienv": "not installed"}
    rs = load_ruleset("tenhou")
    tmp = Path(tempfile.mkdtemp(prefix="jantaku-replay-"))
    files: list[tuple[Path, str, int]] = []
    skipped = 0
    try:
        data = REPO / "tests" / "data"
        paths = sorted(p for p in data.rglob("*") if p.suffix in (".json", ".jsonl"))
        for i, p in enumerate(paths):
            try:
                rec = import_record(p.read_text(encoding="utf-8"), rs)
            except RecordError:  # tests/data holds other JSON too (schemas, vectors)
                continue
            events = to_mjai_events(rec.inputs, rec.hands, final_scores=rec.final_scores)
            text = "\n".join(json.dumps(e) for e in events)
            f = tmp / f"g{i}.jsonl"
            f.write_text(text)
            try:
                kyokus = list(riichienv.MjaiReplay.from_jsonl(str(f)).take_kyokus())
            except Exception:
                skipped += 1
                continue
            files.append((f, text, len(kyokus)))
        hands = sum(k for _, _, k in files)
        ours = theirs = float("inf")
        steps = 0
        for _ in range(rounds):
            t0 = time.process_time()
            for f, _, _ in files:
                result = replay(import_record(f.read_text(encoding="utf-8"), rs))
                assert result.hands
            ours = min(ours, time.process_time() - t0)
            t0 = time.process_time()
            steps = 0
            for f, _, _ in files:
                for kyoku in riichienv.MjaiReplay.from_jsonl(str(f)).take_kyokus():
                    for _ in kyoku.steps():
                        steps += 1
            theirs = min(theirs, time.process_time() - t0)
        version = getattr(riichienv, "__version__", None)
        if version is None:
            from importlib.metadata import version as dist_version
            version = dist_version("riichienv")
        return {
            "games": len(files),
            "skipped": skipped,
            "hands": hands,
            "ours_hands_per_s": hands / ours,
            "riichienv_hands_per_s": hands / theirs,
            "ratio": theirs / ours,  # our hands/s over riichienv's, same run
            "riichienv_steps": steps,
            "riichienv": version,
        }
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
