"""tests/hil: ``logdir``, a directory on tmpfs (/dev/shm) where there is one, for the in-process
games (tests/hil/test_hil_games.py, test_hil_soak.py).

Those compare the daemon's events with the simulator's in lockstep; where the event log lies is
not their question, and on the shared VM's disk a whole game's thousands of commits (an fsync
each) were a fifth of their time (tests/chaos/chaos_kit.py ``logdir``, the same reasoning). The
scenarios that kill a ``jantaku run`` process keep ``tmp_path`` on the disk: on tmpfs, under
load, kill9-mid-meld lost its race between the restarted table link and the meld's last reads."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

SHM = Path("/dev/shm")


@pytest.fixture
def logdir(tmp_path: Path) -> Iterator[Path]:
    if not (SHM.is_dir() and os.access(SHM, os.W_OK)):
        yield tmp_path
        return
    path = Path(tempfile.mkdtemp(prefix="jantaku-hil-", dir=SHM))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)
