"""The write-ahead log's checkpoints, off the input path.

SQLite copies the WAL back into the database file when a commit finds 1,000 pages in it
(``wal_autocheckpoint``): in the daemon that was every ~150th group commit, 0.6-1 ms more on that
input's way to the broker, for 0.7 % of the inputs, inside the p99 (measured with
bench/daemon_latency.py). Here a connection of its own runs ``PRAGMA wal_checkpoint(PASSIVE)``
on a thread of its own, at a quiet moment: once :data:`QUIET_COMMITS` commits wait and no commit
came for :data:`POLL_S` (a table has such pauses between nearly all of its inputs), or once
:data:`BUSY_COMMITS` (~1,000 pages) wait however busy the log is, or :data:`STALE_S` after the
last one when any wait. A passive checkpoint never waits for the writer, nor the writer for it
(SQLite's WAL locks); only its fsync can share the disk with a commit's.
The commit's own checkpoint stays as the backstop, at
:data:`BACKSTOP_PAGES`, should this fall behind or fail (a full disk: the checkpoint that would
grow the database file fails, is logged, and is tried again).

Durability is SQLite's either way: a checkpoint copies committed pages only, and a kill during
one leaves the WAL to be replayed on the next open.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Final

log = logging.getLogger("jantaku.eventlog")

#: how often the checkpointer looks (a commit since the last look: the log is not quiet)
POLL_S: Final = 0.5
#: commits waiting before a checkpoint at a quiet moment (~700 WAL pages)
QUIET_COMMITS: Final = 100
#: commits waiting before a checkpoint in any case (a log that is never quiet): ~1,000 WAL
#: pages, where SQLite itself would have checkpointed (a burst must not grow the WAL past that:
#: on a small filesystem the WAL could take the space the checkpoint needs, tests/daemon/
#: test_input_path_disk_full.py)
BUSY_COMMITS: Final = 150
#: a checkpoint at least this long after the last one, when any commit waits
STALE_S: Final = 60.0
#: the commit checkpoints itself only past this many WAL pages (8 MB): the backstop
BACKSTOP_PAGES: Final = 2_000
#: how often a failing checkpoint is logged again
WARN_EVERY_S: Final = 60.0


class WalCheckpointer:
    """Checkpoints the log at ``path`` while ``commits()`` (a count of group commits) grows."""

    def __init__(
        self, path: Path | str, table_id: str, commits: Callable[[], int], *,
        poll_s: float = POLL_S, quiet: int = QUIET_COMMITS, busy: int = BUSY_COMMITS,
        stale_s: float = STALE_S, after: Callable[[], None] = lambda: None,
    ) -> None:
        self._path = Path(path)
        self._table = table_id
        self._commits = commits
        # after each checkpoint: the seal moved on and the mark fsync'ed (log_audit.py)
        self._after = after
        self._poll_s, self._quiet, self._busy, self._stale_s = poll_s, quiet, busy, stale_s
        self._executor = ThreadPoolExecutor(1, thread_name_prefix="jantaku-wal")
        self._db: sqlite3.Connection | None = None
        self._warned = -WARN_EVERY_S
        self.runs = 0  # checkpoints run (tests, benches)
        self.pages = 0  # pages copied back into the database file
        self.failures = 0

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        done = seen = self._commits()
        last = time.monotonic()
        while True:
            await asyncio.sleep(self._poll_s)
            n, now = self._commits(), time.monotonic()
            if self.due(n - done, quiet=n == seen, since_s=now - last):
                await loop.run_in_executor(self._executor, self.checkpoint)
                done, last = n, now
            seen = n

    def due(self, waiting: int, *, quiet: bool, since_s: float) -> bool:
        """Whether to checkpoint with ``waiting`` commits not checkpointed, ``quiet`` when no
        commit came since the last look, ``since_s`` after the last checkpoint."""
        return waiting > 0 and (waiting >= self._busy or (quiet and waiting >= self._quiet)
                                or since_s >= self._stale_s)

    def checkpoint(self) -> None:
        """One passive checkpoint (on the checkpointer's thread)."""
        try:
            if self._db is None:
                self._db = sqlite3.connect(self._path, check_same_thread=False)
            busy, _, copied = self._db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
            self._after()
        except (sqlite3.Error, OSError) as exc:
            self.failures += 1
            if time.monotonic() - self._warned >= WARN_EVERY_S:
                self._warned = time.monotonic()
                log.warning("WAL checkpoint failed: %s", exc, extra={"fields": {
                    "event": "wal_checkpoint_failed", "table": self._table, "error": str(exc),
                    "failures": self.failures}})
            return
        self.runs += 1
        self.pages += max(0, int(copied))
        del busy  # 1 only for a non-passive checkpoint that could not finish

    async def last(self) -> None:
        """One more checkpoint, at shutdown (after the checkpoint thread's last one)."""
        await asyncio.get_running_loop().run_in_executor(self._executor, self.checkpoint)

    def close(self) -> None:
        self._executor.shutdown(wait=True)
        if self._db is not None:
            self._db.close()
            self._db = None
