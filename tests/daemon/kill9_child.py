"""Child process of test_daemon_kill9: recover a table's log, then play the scripted game on.

Prints ``R <input_seq> <event_seq>`` after recovery and ``A <input_seq> <event_seq>`` after each
input is logged and applied (the parent SIGKILLs it at random moments).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import daemon_kit

from daemon.eventlog import EventLog
from daemon.table import TableCore
from hil.kit import commit_one


def main() -> None:
    db, script_file, every = sys.argv[1], sys.argv[2], int(sys.argv[3])
    script = json.loads(Path(script_file).read_text())
    log = EventLog(db, "kill9")
    core = TableCore(log, daemon_kit.engine(), "kill9", checkpoint_every=every)
    core.recover()
    print("R", core.state.input_seq, core.state.event_seq, flush=True)
    for body in script[core.state.input_seq :]:
        applied = commit_one(core, "input", "table", body, time.monotonic_ns(), time.time_ns(), "b")
        print("A", applied.record.seq, core.state.event_seq, flush=True)
    print("DONE", flush=True)


if __name__ == "__main__":
    main()
