"""The real-hardware mode of the runner, with socat's linked ptys standing in for the loopback
harness (a USB-serial adapter looped to the Pi's UART): the controller emulator and one reader
speak through real serial ports opened with pyserial on both ends."""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path

import pytest

from hil.kit import reap
from hil.runner.session import run_game


@pytest.mark.skipif(shutil.which("socat") is None, reason="socat is not installed")
async def test_real_serial_loopback(tmp_path: Path) -> None:
    procs = []
    try:
        for a, b in (("rig", "daemon"), ("r1", "r2")):
            procs.append(subprocess.Popen(
                ["socat", f"pty,raw,echo=0,link={tmp_path / a}",
                 f"pty,raw,echo=0,link={tmp_path / b}"]))
        deadline = time.monotonic() + 5
        while not all((tmp_path / n).exists() for n in ("rig", "daemon", "r1", "r2")):
            assert time.monotonic() < deadline, "socat did not make its ptys"
            time.sleep(0.05)
        res = await run_game("mleague", 2, 1, workdir=tmp_path / "rig-work",
                             real_table=str(tmp_path / "rig"), link_path=str(tmp_path / "daemon"),
                             reader_ports={"seat0-river": (str(tmp_path / "r1"),
                                                           str(tmp_path / "r2"))})
        assert res.difference is None and not res.violations and res.rejections == 0
    finally:
        for p in procs:
            reap(p, 5)
