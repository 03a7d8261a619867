"""The power switch itself (tests/chaos/lazyfs.py): a write without fsync is gone after a cut,
one with fsync survives, and a file whose directory was not fsync'ed disappears -- so a test
built on it can fail."""

from __future__ import annotations

import os
from pathlib import Path

import lazyfs
import pytest

pytestmark = pytest.mark.skipif(lazyfs.available() is not None, reason=str(lazyfs.available()))


def _write(path: Path, data: bytes, *, sync: bool, append: bool = False) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | (os.O_APPEND if append else 0), 0o644)
    try:
        if append:
            os.lseek(fd, 0, os.SEEK_END)
        os.write(fd, data)
        if sync:
            os.fsync(fd)
    finally:
        os.close(fd)


def _sync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    os.fsync(fd)
    os.close(fd)


def test_a_cut_drops_what_was_not_synced_and_keeps_what_was(tmp_path: Path) -> None:
    with lazyfs.Mount(tmp_path / "disk", tmp_path / "mnt") as fs:
        mnt = Path(fs.mount)
        synced, unsynced, lost = mnt / "synced", mnt / "unsynced", mnt / "lost"
        _write(synced, b"kept " * 2000, sync=True)
        _write(unsynced, b"", sync=True)
        _sync_dir(mnt)
        _write(synced, b"gone", sync=False, append=True)  # after the fsync: not durable
        _write(unsynced, b"never synced", sync=False)
        _write(lost, b"synced, but its directory entry never was", sync=True)
        assert synced.read_bytes().endswith(b"gone")  # before the cut, reads see the writes
        assert unsynced.read_bytes() == b"never synced"
        # nothing reached the disk below yet but what was synced
        assert (tmp_path / "disk" / "unsynced").read_bytes() == b""
        pages, entries = fs.cut()
        assert pages >= 2 and entries == 1
        assert synced.read_bytes() == b"kept " * 2000
        assert unsynced.read_bytes() == b""
        assert not lost.exists()
        # a rename that was not made durable is undone too
        _write(mnt / "new.tmp", b"v2", sync=True)
        os.replace(mnt / "new.tmp", synced)
        assert synced.read_bytes() == b"v2"
        fs.cut()
        assert synced.read_bytes() == b"kept " * 2000 and not (mnt / "new.tmp").exists()
        _write(mnt / "new.tmp", b"v3", sync=True)
        os.replace(mnt / "new.tmp", synced)
        _sync_dir(mnt)
        fs.cut()
        assert synced.read_bytes() == b"v3"
