"""Record replay figures: every shared game record imported, replayed through the rules engine and
verified against the record. Prints; asserts nothing.

    .venv/bin/python bench/replay.py [--rounds 3] [--ruleset tenhou] [--json] [DIR]

Figures per round (best of ``--rounds``): inputs/s and events/s through the reducer, hands/s
(import + replay + verify), and hanchans verified/s over the records that are complete games.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rules.records import import_record
from rules.records.replay import replay, verify
from rules.ruleset import load_ruleset

DEFAULT_DIR = Path(__file__).resolve().parent.parent / "tests" / "data" / "game-logs"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("dir", nargs="?", default=str(DEFAULT_DIR))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--ruleset", default="tenhou")
    parser.add_argument("--json", action="store_true", help="print one JSON object of figures")
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
    if args.json:
        sys.stdout = out
        print(json.dumps({"bench": "replay", "records": len(texts), **totals, **best}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
