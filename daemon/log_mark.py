"""The event log's high-water mark: a small file beside the log (``<log>.mark``) that says how far
the log has come, so that a log that went back (a torn WAL, a restored old copy, a replaced SD
card) is seen at start instead of restarting the table's seqs silently, and how far the log was
read back against its chain (the *seal*), so that the start-up check reads only what came after
(docs/daemon.md, "A damaged log").

The file holds two 64-byte slots, each ``<seq> <chain> <sealed seq> <sealed chain> <crc>``: the
seq and chain (daemon/log_chain.py) of an input that is committed, the seq and chain of the last
input that was read back, with every input before it, and matched its chain, and a CRC-32 of
the slot itself (a slot of three numbers, written before the seal, reads as sealed at 0). A
write goes to the slot that does not hold the newest mark, so a write torn by a power cut leaves
the other one readable; the reader takes the valid slot with the highest seq, then seal.

When it is written: after every group commit that logged inputs (64 bytes into a shared mapping
of the file: the page cache, no system call, a few µs on the input path; the commit's own fsync
has already made those inputs durable, so the mark never claims more than the disk holds); the
seal after each WAL checkpoint, once the records since the last seal were read back
(daemon/log_audit.py). It is fsync'ed after each checkpoint and when the log is closed
(daemon/wal_checkpoint.py). After a power cut the mark is therefore at most a checkpoint behind,
never ahead. It is created whole (a temporary file, fsync'ed, renamed, the directory fsync'ed),
so a cut never leaves an empty mark.
"""

from __future__ import annotations

import errno
import mmap
import os
import threading
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from daemon.errors import EventLogError

SLOT: Final = 64


@dataclass(frozen=True, slots=True)
class Mark:
    """The log held input ``seq`` with chain ``chain`` (and every input before it)."""

    seq: int
    chain: int


NONE: Final = Mark(0, 0)


@dataclass(frozen=True, slots=True)
class MarkRecord:
    """What the mark says: ``last``, the last input logged (durably); ``sealed``, the last input
    read back against its chain with every input before it (:data:`NONE`: none, or damage was
    found since: the next start reads the whole log)."""

    last: Mark
    sealed: Mark = NONE

    @property
    def seq(self) -> int:
        return self.last.seq


def mark_path(log_path: Path | str) -> Path:
    path = Path(log_path)
    return path.with_name(path.name + ".mark")


def _slot(record: MarkRecord) -> bytes:
    return _line(record.last.seq, record.last.chain, record.sealed.seq, record.sealed.chain)


def _line(seq: int, chain: int, sealed_seq: int, sealed_chain: int) -> bytes:
    """A slot's bytes (written after every group commit: bytes formatting, no objects)."""
    text = b"%d %d %d %d" % (seq, chain, sealed_seq, sealed_chain)
    line = b"%s %08x\n" % (text, zlib.crc32(text))
    assert len(line) <= SLOT, line
    return line.ljust(SLOT)


def _parse(raw: bytes) -> MarkRecord | None:
    try:
        *numbers, crc = raw.decode("ascii").split()
        if len(numbers) not in (2, 4) or int(crc, 16) != zlib.crc32(" ".join(numbers).encode()):
            return None
        values = [int(n) for n in numbers]
    except ValueError:  # torn, empty or not ours
        return None
    sealed = Mark(values[2], values[3]) if len(values) == 4 else NONE
    return MarkRecord(Mark(values[0], values[1]), sealed)


#: errors that say the process is short of something, not that the file is wrong
_SCARCE: Final = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOMEM})


def read_mark(path: Path) -> MarkRecord | None:
    """The newest valid mark in ``path`` (None: no file). A file without a valid slot raises."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno in _SCARCE:
            raise  # no descriptor or memory to spare now: nothing found about the mark
        raise EventLogError(f"{path}: cannot read the event log's mark: {exc}") from None
    marks = [m for m in (_parse(raw[i:i + SLOT]) for i in (0, SLOT)) if m is not None]
    if not marks:
        raise EventLogError(f"{path}: the event log's mark is unreadable")
    return max(marks, key=lambda m: (m.last.seq, m.sealed.seq))


def fsync_dir(directory: Path) -> None:
    """Make a directory entry (a created or renamed file) durable."""
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_new(path: Path, record: MarkRecord) -> None:
    """Create (or replace) the mark file whole, durably: temp file, fsync, rename, dir fsync."""
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        os.write(fd, _slot(record) * 2)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
    fsync_dir(path.parent)


class MarkFile:
    """The mark of a log being written (one writer: the daemon's event log; the seal is moved
    on from the checkpointer's thread, and dropped from the audit's: a lock orders the slots)."""

    def __init__(self, path: Path, current: Mark) -> None:
        self.path = path
        found = read_mark_or_none(path)
        if found is None:
            write_new(path, MarkRecord(current))
        self._fd = os.open(path, os.O_RDWR)
        # written through a shared mapping: no system call on the input path (the page is
        # the page cache's; fsync of the file writes it like any other dirty page)
        self._map = mmap.mmap(self._fd, 2 * SLOT)
        self._lock = threading.Lock()
        # a mark ahead of the log stays as it is (the start-up check refuses such a log,
        # daemon/log_integrity.py; here it is never moved back)
        last = current if found is None or found.seq < current.seq else found.last
        # the last mark as two integers: :meth:`note` runs after every group commit
        self._seq, self._chain = last.seq, last.chain
        self._sealed = NONE if found is None else found.sealed
        self._slot = 0  # the slot the next write goes to
        self.dirty = False  # written since the last fsync
        self.broken = False  # damage was found: the seal stays at none until the log is accepted

    @property
    def sealed(self) -> Mark:
        return self._sealed

    def _write(self, *, both: bool = False) -> None:
        sealed = self._sealed
        slot = _line(self._seq, self._chain, sealed.seq, sealed.chain)
        self._put(slot)
        if both:
            self._put(slot)

    def _put(self, slot: bytes) -> None:
        at = self._slot * SLOT
        self._map[at:at + SLOT] = slot
        self._slot ^= 1
        self.dirty = True

    def note(self, seq: int, chain: int) -> None:
        """The log now holds input ``seq`` with chain ``chain`` durably (after a commit): into
        the page cache, no fsync. Two integers, not a :class:`Mark`: this runs once per group
        commit, and the slot is formatted from them directly."""
        if seq <= self._seq:
            return
        with self._lock:
            self._seq, self._chain = seq, chain
            sealed = self._sealed
            self._put(_line(seq, chain, sealed.seq, sealed.chain))

    def seal(self, upto: Mark) -> None:
        """Every input up to ``upto`` (committed) was read back and matched its chain."""
        with self._lock:
            if self.broken or upto.seq <= self._sealed.seq:
                return
            self._sealed = upto
            if upto.seq > self._seq:  # committed, not noted yet: durable all the same
                self._seq, self._chain = upto.seq, upto.chain
            self._write()

    def unseal(self) -> None:
        """Damage was found: the seal goes back to none, in both slots, fsync'ed at once (the
        next start reads the whole log and names what it finds)."""
        with self._lock:
            self.broken = True
            self._sealed = NONE
            self._write(both=True)
            self.dirty = False
            os.fsync(self._fd)

    def sync(self) -> None:
        """fsync the mark (after a WAL checkpoint, at close)."""
        if self.dirty:
            self.dirty = False
            os.fsync(self._fd)

    def close(self) -> None:
        try:
            self.sync()
        finally:
            self._map.close()
            os.close(self._fd)


def read_mark_or_none(path: Path) -> MarkRecord | None:
    """Like :func:`read_mark`, but an unreadable file counts as none (it is then rewritten)."""
    try:
        return read_mark(path)
    except EventLogError:
        return None
