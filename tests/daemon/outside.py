"""The outside of ``jantaku run`` for the input-path tests: the real console script as a
subprocess, a table controller on a pty (tests/daemon/link_peer.py, written from the protocol
document), the log file read back as ``jantaku log export`` would, a broker subscriber."""

from __future__ import annotations

import os
import signal
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import daemon_kit
import link_peer

from daemon.eventlog import EventLog
from hil.kit import jantaku


def serial_config(*, table: str, db: Path, port: int, tty: str, **kw: Any) -> str:
    """The daemon tests' config with the table on a plain serial port (the pty's slave end)."""
    return daemon_kit.config_text(table=table, db=db, port=port, link=tty, **kw)


@dataclass
class Daemon:
    """``jantaku run --config CFG`` started, killed and restarted from the outside."""

    config: Path
    log: Path
    proc: subprocess.Popen[bytes] | None = None
    starts: int = 0
    env: dict[str, str] = field(default_factory=dict)

    def start(self) -> None:
        assert self.proc is None or self.proc.poll() is not None
        self.starts += 1
        self.proc = subprocess.Popen(
            [jantaku(), "run", "--config", str(self.config)],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=open(self.log, "ab"),  # noqa: SIM115 (the child owns it)
            env={**os.environ, **self.env},
        )

    def kill9(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def terminate(self, timeout: float = 30.0) -> int:
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return int(self.proc.returncode)

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None


def table_events(db: Path) -> list[tuple[str, int | None]]:
    """The table's events as logged, in log order: ``(input type, fault code or None)``."""
    log = EventLog(db, "", readonly=True)
    try:
        return [(r.body["type"], r.body.get("code")) for r in log.records()
                if r.source == "table"]
    finally:
        log.close()


def expected(events: list[link_peer.Event]) -> list[tuple[str, int | None]]:
    """What the daemon logs for each event the controller sent (docs/daemon.md)."""
    names = {link_peer.FAULT: "table_fault", link_peer.START_PRESSED: "hand_start",
             link_peer.WALL_RAISED: "wall_raised"}
    return [(names[e.mtype], e.code) for e in events]
