"""Record replay figures: every shared game record imported, replayed through the rules engine and
verified against the record. Prints; asserts nothing.

    .venv/bin/python bench/replay.py [--rounds 3] [--ruleset tenhou] [--json] [--no-riichienv]
                                     [--copies 16] [DIR]

Figures per round (best of ``--rounds``): inputs/s and events/s through the reducer, hands/s
(import + replay + verify), and hanchans verified/s over the records that are complete games.
Then, where ``riichienv`` is installed (the ``bench`` extra), the same run compares hands/s with
it on the same games exported as mjai, CPU time (other load on the machine distorts both sides
alike), twice; ``bench/report.py`` calls both:

* in this process (:func:`versus_riichienv`): import + replay against ``MjaiReplay`` + steps;
* as whole processes (:func:`versus_riichienv_process`, the goal's form): ``jantaku replay DIR``
  against a Python process that replays the same files with riichienv, on a folder holding the
  games ``--copies`` times (16: about 2,500 hands, so that the interpreter's start is part of the
  figure without being most of it). The CPU time is the child's own (``wait4``). Both run with
  their bytecode compiled (into a cache of the bench's own, as an install has it), after one
  unmeasured run each.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hil.kit import reaped
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
    parser.add_argument("--copies", type=int, default=16,
                        help="whole-process comparison: each game this many times in the folder")
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
        process = versus_riichienv_process(args.rounds, args.copies)
        versus["process"] = process
        if "ratio" in process:
            print(f"  whole processes, {process['hands']} hands ({process['files']} files): "
                  f"`jantaku replay DIR` {process['ours_cpu_s']:.2f} s CPU "
                  f"({process['ours_wall_s']:.2f} s wall), riichienv "
                  f"{process['riichienv_cpu_s']:.2f} s CPU ({process['riichienv_wall_s']:.2f} s"
                  f" wall), ratio {process['ratio']:.3f}")
    if args.json:
        sys.stdout = out
        extra = {} if versus is None else {"riichienv": versus}
        print(json.dumps({"bench": "replay", "records": len(texts), **totals, **best, **extra}))
    return 0


def _mjai_games(riichienv: Any, tmp: Path) -> tuple[list[tuple[Path, str, int]], int]:
    """The shared records exported as mjai by our exporter into ``tmp``: (file, text, hands)
    for each game riichienv reads, and how many it cannot read (left out of both sides)."""
    from rules.records import import_record
    from rules.records.export import to_mjai_events
    from rules.records.model import RecordError
    from rules.ruleset import load_ruleset

    rs = load_ruleset("tenhou")
    files: list[tuple[Path, str, int]] = []
    skipped = 0
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
            f.unlink()
            continue
        files.append((f, text, len(kyokus)))
    return files, skipped


#: the reference process: every file of a folder through riichienv's replay, every step
#: issue 30 item 8's replay goal: ``jantaku replay DIR`` as a whole process at least half as fast
#: as riichienv's whole-process replay of the same files (CPU time, same run)
RATIO_GOAL = 0.5

RIICHIENV_PROCESS = """
import sys
from pathlib import Path
import riichienv
hands = steps = 0
for f in sorted(Path(sys.argv[1]).glob("*.jsonl")):
    for kyoku in riichienv.MjaiReplay.from_jsonl(str(f)).take_kyokus():
        hands += 1
        for _ in kyoku.steps():
            steps += 1
print(hands, steps)
"""


def _run_measured(cmd: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """(CPU seconds, wall seconds, output) of one child process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                            cwd=tempfile.gettempdir())
    with reaped(proc, grace_s=0):  # an interrupted bench leaves no replay running
        assert proc.stdout is not None
        out = proc.stdout.read()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        # wait4 reaped it: the returncode tells Popen (and the reaper) so
        proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{cmd[0]} exited {proc.returncode}: {out.decode()[-500:]}")
    return usage.ru_utime + usage.ru_stime, wall, out.decode()


def versus_riichienv_process(rounds: int, copies: int = 16) -> dict[str, Any]:
    """CPU time of ``jantaku replay DIR`` and of a Python process replaying the same folder
    with riichienv (:data:`RIICHIENV_PROCESS`), best of ``rounds``; the folder holds each game
    ``copies`` times."""
    try:
        riichienv: Any = importlib.import_module("riichienv")
    except ImportError:
        return {"riichienv": "not installed"}
    jantaku = Path(sys.executable).with_name("jantaku")
    ours_cmd = [str(jantaku)] if jantaku.exists() else [
        sys.executable, "-c", "import sys; from daemon.cli import main; sys.exit(main())"]
    tmp = Path(tempfile.mkdtemp(prefix="jantaku-replay-process-"))
    try:
        games, skipped = _mjai_games(riichienv, tmp)
        folder = tmp / "games"
        folder.mkdir()
        for k in range(copies):
            for f, _, _ in games:
                shutil.copyfile(f, folder / f"c{k:02d}-{f.name}")
        hands = copies * sum(n for _, _, n in games)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")  # compiled once, as installed
        ours = [*ours_cmd, "replay", str(folder)]
        theirs = [sys.executable, "-c", RIICHIENV_PROCESS, str(folder)]
        _run_measured(ours, env)  # the unmeasured first runs: bytecode, page cache
        _run_measured(theirs, env)
        best = {"ours": (float("inf"), 0.0), "theirs": (float("inf"), 0.0)}
        out_ours = out_theirs = ""
        for _ in range(rounds):
            cpu, wall, out_ours = _run_measured(ours, env)
            best["ours"] = min(best["ours"], (cpu, wall))
            cpu, wall, out_theirs = _run_measured(theirs, env)
            best["theirs"] = min(best["theirs"], (cpu, wall))
        summary = out_ours.strip().splitlines()[-1]
        if f"{len(games) * copies} replayed, 0 failed" not in summary:
            raise SystemExit(f"jantaku replay did not replay every file: {summary}")
        their_hands = int(out_theirs.split()[0])
        if their_hands != hands:
            raise SystemExit(f"riichienv replayed {their_hands} hands, expected {hands}")
        (ours_cpu, ours_wall), (theirs_cpu, theirs_wall) = best["ours"], best["theirs"]
        return {
            "files": len(games) * copies,
            "hands": hands,
            "skipped": skipped,
            "ours_cpu_s": ours_cpu,
            "ours_wall_s": ours_wall,
            "riichienv_cpu_s": theirs_cpu,
            "riichienv_wall_s": theirs_wall,
            "ours_hands_per_s": hands / ours_cpu,
            "riichienv_hands_per_s": hands / theirs_cpu,
            "ratio": theirs_cpu / ours_cpu,  # our hands/s over riichienv's, CPU, same run
            "loadavg": os.getloadavg(),
        }
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def versus_riichienv(rounds: int) -> dict[str, Any]:
    """hands/s on the same games: ours (import mjai + replay through the reducer) and riichienv
    (``MjaiReplay.from_jsonl`` + every step of every kyoku), on the shared records exported as
    mjai by our exporter. Games riichienv cannot read are left out of both."""
    from rules.records import import_record
    from rules.records.replay import replay
    from rules.ruleset import load_ruleset

    try:
        riichienv: Any = importlib.import_module("riichienv")
    except ImportError:
        return {"riichienv": "not installed"}
    rs = load_ruleset("tenhou")
    tmp = Path(tempfile.mkdtemp(prefix="jantaku-replay-"))
    try:
        files, skipped = _mjai_games(riichienv, tmp)
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
