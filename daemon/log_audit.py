"""The running daemon's reading of its own log (docs/daemon.md, "A damaged log"): the seal moved
on after each checkpoint, and the whole log read once READY, at low priority.

* **The seal.** After each WAL checkpoint (daemon/wal_checkpoint.py, on its thread) the records
  logged since the seal are read back against their chain (daemon/log_chain.py; a checkpoint's
  worth: a few hundred records, 1-3 ms), the mark's seal moved to the last of them and the mark
  fsync'ed (daemon/log_mark.py). The start-up check then reads only what came after the seal.
* **The audit.** Once the daemon is READY, and every :data:`AUDIT_EVERY_S` after, the whole log
  is checked (SQLite's whole ``quick_check``, every record against its chain, the mark:
  :func:`daemon.log_integrity.inspect`) on a thread of its own at the lowest CPU priority, a step
  of :data:`daemon.log_chain.CHUNK` records at a time, resting after each step as long as the step
  took (half the time at most: the table plays on).

What either finds is a fault: one ``event_log_damaged`` line at error level, ``health`` unhealthy
with the line as its ``problem`` and in ``eventlog.audit``, the console's alert; the table plays
on (the damage is in what was logged before, not in the state it plays from). The mark's seal is
dropped, durably: the next start checks the whole log and refuses it, naming what it found, until
the operator restores or accepts it (``jantaku log accept``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sqlite3
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Final

from daemon.eventlog import EventLog
from daemon.log_chain import Finding, walk
from daemon.log_integrity import Checked, inspect, message
from daemon.log_mark import NONE

log = logging.getLogger("jantaku.eventlog")

#: the whole log is read again this long after the last audit (a daemon that runs for days)
AUDIT_EVERY_S: Final = 24 * 3600.0
#: an audit that could not read the log (locked) is tried again this long after
RETRY_S: Final = 60.0
#: the audit rests after each step this many times as long as the step took
REST: Final = 1.0


class _Stopped(Exception):
    """The daemon stops: the audit ends where it is (caught in :meth:`LogAudit._audit`)."""


class LogAudit:
    def __init__(self, eventlog: EventLog, accept: str, *, rest: float = REST) -> None:
        self.eventlog = eventlog
        self.path = eventlog.path
        self.table_id = eventlog.table_id
        self.accept = accept  # how the operator names this log: ``--config FILE``
        self._rest = rest
        self._executor = ThreadPoolExecutor(1, thread_name_prefix="jantaku-audit")
        self._stop = threading.Event()
        self._lock = threading.Lock()  # the seal's connection: the checkpointer, then shutdown
        self._db: sqlite3.Connection | None = None
        self.state = "pending"  # running, passed, failed
        self.fault: str | None = None  # the one line, once damage was found
        self.inputs = 0  # records the last audit read
        self.seconds: float | None = None

    # ------------------------------------------------------------------ the seal
    def after_checkpoint(self) -> None:
        """After each WAL checkpoint (the checkpointer's thread) and at close: the records since
        the seal read back, the seal moved on, the mark fsync'ed."""
        with self._lock:
            sealed = self.eventlog.sealed()
            # no seal yet: the audit reads the whole log first and seals it
            if sealed is not None and (sealed.seq > 0 or self.state == "passed"):
                if self._db is None:
                    self._db = sqlite3.connect(self.path, check_same_thread=False)
                (top,) = self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM inputs").fetchone()
                if top > sealed.seq:
                    last, found = walk(self._db, sealed, top)
                    if found is not None:
                        self._damaged(found)
                    else:
                        self.eventlog.seal(last)
        self.eventlog.sync_mark()

    # ------------------------------------------------------------------ the audit
    async def run(self, ready: asyncio.Event) -> None:
        """The daemon's task: the whole log once READY, then every :data:`AUDIT_EVERY_S`."""
        await ready.wait()
        loop = asyncio.get_running_loop()
        while True:
            done = await loop.run_in_executor(self._executor, self._audit)
            await asyncio.sleep(AUDIT_EVERY_S if done else RETRY_S)

    def _pace(self, took: float) -> None:
        if self._stop.wait(took * self._rest):
            raise _Stopped

    def _audit(self) -> bool:
        """One audit; False: it could not read the log now (to be tried again)."""
        if self.fault is not None or self._stop.is_set():
            return True
        # this thread only (Linux: a thread is a task with its own nice value)
        with contextlib.suppress(OSError, AttributeError):
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
        self.state, began = "running", time.monotonic()
        try:
            found = inspect(self.path, readonly=True, pace=self._pace)
        except _Stopped:
            self.state = "pending"
            return True
        except (sqlite3.OperationalError, OSError) as exc:
            # locked, or no descriptor to spare (a connection crowd): nothing found, tried again
            self.state = "pending"
            log.warning("event log audit postponed: %s", exc)
            return False
        self.seconds = round(time.monotonic() - began, 2)
        if isinstance(found, Finding):
            self._damaged(found)
            return True
        assert isinstance(found, Checked)
        self.inputs = found.records
        self.state = "passed"
        self.eventlog.seal(found.last)
        log.info("event log audited: %d inputs match their chain (%.1f s)", found.records,
                 self.seconds, extra={"fields": {
                     "event": "event_log_audited", "table": self.table_id,
                     "inputs": found.records, "seconds": self.seconds}})
        return True

    def _damaged(self, found: Finding) -> None:
        line = message(self.path, found, self.accept)
        self.fault, self.state = line, "failed"
        self.eventlog.unseal()
        log.error("%s", line, extra={"fields": {
            "event": "event_log_damaged", "table": self.table_id, "problem": found.problem.value,
            "seq": found.seq}})

    def health(self) -> dict[str, Any]:
        """``health.eventlog.audit`` (docs/mqtt.md)."""
        sealed = self.eventlog.sealed()
        return {"state": self.state, "inputs": self.inputs, "seconds": self.seconds,
                "sealed": (sealed or NONE).seq, "fault": self.fault}

    def close(self) -> None:
        """At shutdown, after the last checkpoint: an audit under way stops at its next step."""
        self._stop.set()
        self._executor.shutdown(wait=True, cancel_futures=True)
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None
