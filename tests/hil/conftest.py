"""tests/hil: each test's ``tmp_path`` on tmpfs (/dev/shm) where there is one.

These tests compare the daemon's events with the simulator's, through emulated devices; where its
event log lies is not their question, and on the shared VM's disk a game's thousands of commits
(an fsync each) were a quarter of their time. A process killed with SIGKILL (the kill9 scenarios)
loses no page cache, so what they check is the same there (tests/chaos/chaos_kit.py ``logdir``,
the same reasoning). The fsync path on a real disk is exercised by tests/daemon and bench/."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

SHM = Path("/dev/shm")


@pytest.fixture
def tmp_path(tmp_path: Path) -> Iterator[Path]:
    if not (SHM.is_dir() and os.access(SHM, os.W_OK)):
        yield tmp_path
        return
    path = Path(tempfile.mkdtemp(prefix="jantaku-hil-", dir=SHM))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)
