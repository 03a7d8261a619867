"""The event log's chain and mark (docs/performance.md, "The chain and the mark"):

1. ``--check N [N ...]``: for each N, a log of N inputs (written straight with their chains, as the
   daemon writes them) with its mark sealed as the checkpointer leaves it after a power cut
   (:data:`TAIL` records after the seal: two checkpoints' worth), then timed in one run, on the
   same file: the start-up check of ``jantaku run`` (bounded: daemon/log_integrity.py) beside the
   reference, the full check (SQLite's whole ``quick_check`` and every record against its
   chain: what the start-up check was before the seal, and what ``log verify`` and the audit
   read), and the daemon's audit of the whole log as it paces itself (daemon/log_audit.py);
2. ``--ab OLD_EVENTLOG_PY``: one group commit of one input (``EventLog.append``) with this
   code, without its mark, and with another version of daemon/eventlog.py (e.g. the one before
   the chain: ``git show 7fbd6c2:daemon/eventlog.py > /tmp/old.py``), interleaved rounds in one
   process so that a loaded machine weighs on all three alike.

    .venv/bin/python bench/log_chain.py --check 100000 1000000 [--dir DIR]
    .venv/bin/python bench/log_chain.py --ab /tmp/old.py [--dir /dev/shm]
"""

from __future__ import annotations

import argparse
import importlib.util
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from daemon.eventlog import EventLog
from daemon.log_audit import LogAudit
from daemon.log_chain import canonical, chained, walk
from daemon.log_integrity import Checked, inspect
from daemon.log_mark import Mark, MarkRecord, mark_path, write_new
from hil.kit import audit_now

BODY = '{"riichi":false,"seat":2,"tile":"5m","tsumogiri":false,"type":"discard"}'
BOOT = "5c7e3f6a-1c2b-4d5e-9f00-0123456789ab"


#: records after the seal: two checkpoints' worth (daemon/wal_checkpoint.py BUSY_COMMITS), what a
#: power cut can leave unsealed
TAIL = 300


def build(path: Path, n: int) -> None:
    EventLog(path, "bench").close()
    db = sqlite3.connect(path)
    chain, rows = 0, []
    for seq in range(1, n + 1):
        fields = (seq, 1 + seq // 1000, "input", "table", 10**12 + seq * 10**6,
                  1_700_000_000_000_000_000 + seq, BOOT, BODY)
        chain = chained(chain, canonical(*fields))
        rows.append((*fields, chain))
    db.executemany("INSERT INTO inputs (seq, game, kind, source, mono_ns, wall_ns, boot, body,"
                   " chain) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
    db.commit()
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    sealed = rows[-1 - TAIL] if n > TAIL else None
    write_new(mark_path(path), MarkRecord(Mark(n, rows[-1][-1]), Mark(
        sealed[0], sealed[-1]) if sealed else Mark(0, 0)))


def _timed(fn: Callable[[], object]) -> tuple[float, object]:
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def check(n: int, where: str) -> None:
    path = Path(tempfile.mkdtemp(dir=where)) / "t.sqlite"
    build(path, n)
    db = sqlite3.connect(path)
    qc, _ = _timed(lambda: db.execute("PRAGMA quick_check(3)").fetchall())
    chain, _ = _timed(lambda: walk(db, Mark(0, 0), n))
    db.close()
    full, whole = _timed(lambda: inspect(path))
    start, bounded = _timed(lambda: inspect(path, full=False))
    assert isinstance(whole, Checked) and isinstance(bounded, Checked), (whole, bounded)
    assert whole.full and not bounded.full and bounded.walked == min(n, TAIL), bounded
    log = EventLog(path, "bench")
    audit = LogAudit(log, "--db bench")
    audited, _ = _timed(lambda: audit_now(audit))
    assert audit.state == "passed", audit.fault
    audit.close()
    log.close()
    size = path.stat().st_size / 1e6
    print(f"{n} inputs ({size:.0f} MB): start-up check {start:.3f} s ({bounded.walked} after the"
          f" seal) | reference, the full check {full:.2f} s (quick_check {qc:.2f} s, chain"
          f" {chain:.2f} s) | the audit after READY, paced {audited:.1f} s")
    shutil.rmtree(path.parent)


def _load(name: str, path: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def ab(old_path: str, where: str, rounds: int = 60) -> None:
    old = _load("old_eventlog", old_path)
    work = Path(tempfile.mkdtemp(dir=where))
    logs = {name: mod.EventLog(Path(tempfile.mkdtemp(dir=work)) / "t.sqlite", "ab")
            for name, mod in (("before", old), ("chain+mark", sys.modules["daemon.eventlog"]),
                              ("chain only", sys.modules["daemon.eventlog"]))}
    logs["chain only"]._mark = None
    took: dict[str, list[float]] = {k: [] for k in logs}
    body = {"type": "discard", "seat": 2, "tile": "5m", "tsumogiri": False, "riichi": False}
    for _ in range(rounds):
        for name, log in logs.items():
            t = time.perf_counter()
            for i in range(50):
                log.append(game=1, kind="input", source="table", body=body, mono_ns=i,
                           wall_ns=i, boot="b")
            took[name].append((time.perf_counter() - t) / 50 * 1e6)
    for name, values in took.items():
        print(f"{name}: median {statistics.median(values):.1f} µs per group commit ({where})")
    for log in logs.values():
        log.close()
    shutil.rmtree(work)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", type=int, nargs="+")
    parser.add_argument("--ab")
    parser.add_argument("--dir", default="/dev/shm" if Path("/dev/shm").is_dir() else None)
    args = parser.parse_args()
    for n in args.check or ():
        check(n, args.dir)
    if args.ab:
        ab(args.ab, args.dir)


if __name__ == "__main__":
    main()
