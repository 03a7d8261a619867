"""Child of test_chaos_powercut: recover a table's log (on the lazyfs mount), then play the
scripted game on, with the WAL checkpointed, the log's seal moved on and its mark fsync'ed as the
daemon does (daemon/wal_checkpoint.py, daemon/log_audit.py: the whole log audited first). Prints
``R <input_seq> <event_seq>`` after recovery and ``A <input_seq> <event_seq>`` once each input is
committed and applied: what the table acknowledges."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

import daemon_kit

from daemon.eventlog import EventLog
from daemon.log_audit import LogAudit
from daemon.table import TableCore
from daemon.wal_checkpoint import WalCheckpointer
from hil.kit import audit_now, commit_one


def main(db: str, script_file: str, seed: int) -> None:
    script = json.loads(Path(script_file).read_text())
    rng = random.Random(seed)
    log = EventLog(db, "kill9")
    core = TableCore(log, daemon_kit.engine(), "kill9", checkpoint_every=7)
    core.recover()
    audit = LogAudit(log, f"--db {db}")
    audit_now(audit)  # what the daemon does once READY: then the checkpoints seal
    assert audit.fault is None, audit.fault
    wal = WalCheckpointer(db, "kill9", lambda: 0, after=audit.after_checkpoint)
    print("R", core.state.input_seq, core.state.event_seq, flush=True)
    for body in script[core.state.input_seq:]:
        applied = commit_one(core, "input", "table", body, time.monotonic_ns(), time.time_ns(), "b")
        print("A", applied.record.seq, core.state.event_seq, flush=True)
        if rng.random() < 0.2:  # a checkpoint, the seal and the mark's fsync, at random moments
            wal.checkpoint()
    print("DONE", flush=True)
