"""The daemon as a venue runs it: ``jantaku run --config FILE`` in its own process.

Used where a separate process is the point (the ``kill -9`` scenario): the rig's devices are the
same (table link on a pty, RFID readers on ptys); the clock buttons are the table's seat keys
(GPIO mock pins cannot be driven across processes); the game is started by a signed referee
``new_game`` command over MQTT, as a referee console does; the events are what an MQTT subscriber
receives. Lockstep: after every step the runner waits until the event log holds the inputs the step
must have produced (read-only SQLite, as ``jantaku status`` reads it); between device events on
different wires it leaves ``gap`` seconds.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hil.broker import EventCollector
from hil.errors import EmulatorTimeout, EmulatorUsageError, ProcessStartError
from rules import inputs as ri

REFEREE_USER = "hil"
REFEREE_PASSWORD = "hil-referee-password"  # a throwaway table's key, derived below
ITERATIONS = 1000


def referee_key() -> tuple[str, str]:
    from daemon.auth import format_key

    return REFEREE_USER, format_key(REFEREE_USER, REFEREE_PASSWORD, ITERATIONS)


class ProcessDaemon:
    def __init__(self, config: Path, eventlog: Path, table_id: str, mqtt: tuple[str, int],
                 gap: float = 0.03, readers: int = 0,
                 unread: Callable[[], int] = lambda: 0) -> None:
        self.readers = readers  # RFID readers the config names: all must be open to play
        # bytes the rig wrote to the readers' ptys that the daemon has not read yet
        self.unread = unread
        self.config, self.eventlog, self.table_id, self.mqtt = config, eventlog, table_id, mqtt
        self.gap = gap
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0
        self.collector = EventCollector(mqtt[0], mqtt[1], table_id)
        self.logfile = config.with_name("daemon.log")

    async def __aenter__(self) -> ProcessDaemon:
        await self.collector.__aenter__()
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.wait_published()
        self.stop()
        await self.collector.__aexit__(*exc)

    async def start(self, timeout: float = 20.0) -> None:
        jantaku = str(Path(sys.executable).with_name("jantaku"))
        with open(self.logfile, "ab") as log:
            self.proc = subprocess.Popen([jantaku, "run", "--config", str(self.config)],
                                         stdout=log, stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL)
        self.starts += 1
        connected = self._connects() if self.eventlog.exists() else 0
        deadline = time.monotonic() + timeout
        while self._log_count('"ready') < self.starts:
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise ProcessStartError("jantaku run did not start: "
                                        f"{self.logfile.read_text()[-800:]}")
            await asyncio.sleep(0.05)
        # a serial port flushes its input when opened: a tag written before the daemon's reader
        # (re)opened its port would be lost, so play resumes once every reader is open again
        while self._connects() < connected + self.readers:
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise ProcessStartError(f"{self._connects() - connected} of {self.readers} readers "
                                   "reopened")
            await asyncio.sleep(0.02)

    def _connects(self) -> int:
        return sum(1 for m in self._markers() if m.get("type") == "reader_fault"
                   and m.get("fault") == "connected")

    def _log_count(self, needle: str) -> int:
        try:
            return self.logfile.read_text(errors="replace").count(needle)
        except FileNotFoundError:
            return 0

    def kill9(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    # ------------------------------------------------------------------ the runner's interface
    async def submit_referee(self, inp: ri.Input) -> None:
        from daemon.auth import derive_key
        from daemon.cli.referee import build_command, send

        key = derive_key(REFEREE_USER, REFEREE_PASSWORD, ITERATIONS)
        if isinstance(inp, ri.GameStart):
            name = "new_game"
            args: dict[str, Any] = {"ruleset": inp.ruleset, "first_dealer": int(inp.first_dealer),
                                    "names": list(inp.names)}
        elif isinstance(inp, ri.RefereeOverride) and inp.action in ("end_game", "confirm_win"):
            name, args = inp.action, {}
        else:
            raise EmulatorUsageError(
                f"the runner sends new_game, confirm_win and end_game, not {inp!r}")
        topic, payload = build_command(self.table_id, name, REFEREE_USER, key, args)
        reply = await send(self.mqtt[0], self.mqtt[1], self.table_id, topic, payload,
                           timeout=30.0)
        if reply is None or reply.get("status") != "ok":
            raise ProcessStartError(f"{name} refused: {reply}")

    async def sync(self, consumed: int, timeout: float = 10.0, ordering: bool = True) -> None:
        """Before a device event on another wire: ``gap``, and then until the readers' bytes
        are read by the daemon (their ptys' input queues empty: under load a fixed gap let a
        clock key on the table link overtake a meld's last tags), and ``gap`` again for what
        it does with them. (The kernel moves a pty's bytes to that queue a moment after the
        write: the first gap covers that.)"""
        if not ordering:
            return
        await asyncio.sleep(self.gap)
        if not self.unread():
            return
        deadline = time.monotonic() + timeout
        while self.unread() and self.running and time.monotonic() < deadline:
            await asyncio.sleep(0.002)
        await asyncio.sleep(self.gap)

    def _query(self, sql: str) -> list[tuple[Any, ...]]:
        db = sqlite3.connect(f"file:{self.eventlog}?mode=ro", uri=True, timeout=5)
        try:
            return list(db.execute(sql))
        finally:
            db.close()

    async def step_done(self, expected_inputs: int, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while True:
            n = self._query("SELECT COUNT(*) FROM inputs WHERE kind = 'input'")[0][0]
            if n >= expected_inputs:
                return
            if time.monotonic() > deadline:
                raise EmulatorTimeout(f"the daemon logged {n} inputs, {expected_inputs} expected")
            await asyncio.sleep(0.005)

    def _markers(self) -> list[dict[str, Any]]:
        rows = self._query("SELECT body FROM inputs WHERE kind = 'marker'")
        return [json.loads(r[0]) for r in rows]

    def holds(self, what: str) -> int:
        """Device events the tracker logged as held (``tracker_hold`` markers of a kind)."""
        return sum(1 for m in self._markers() if m.get("type") == "tracker_hold"
                   and m.get("what") == what)

    async def wait_holds(self, what: str, n: int, timeout: float = 15.0) -> None:
        deadline = time.monotonic() + timeout
        while self.holds(what) < n:
            if time.monotonic() > deadline:
                raise EmulatorTimeout(f"{self.holds(what)} {what} holds logged, {n} expected")
            await asyncio.sleep(0.01)

    def stats(self) -> tuple[int, int, Counter[str]]:
        marks = self._markers()
        reasons: Counter[str] = Counter(
            str(m.get("reason")) for m in marks if m.get("type") in ("tile_rejected",))
        faults = sum(1 for m in marks if m.get("type") == "reader_fault"
                     and m.get("fault") != "connected")
        return sum(reasons.values()), faults, reasons

    def published(self) -> int:
        from daemon.log_format import APPLIED_SQL  # the last event seq: on the inputs' rows

        rows = self._query(APPLIED_SQL)
        return int(rows[0][1]) if rows else 0

    def outbox_depth(self) -> int:
        return int(self._query("SELECT COUNT(*) FROM outbox")[0][0])

    async def wait_published(self, timeout: float = 15.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.running and len(self.collector.seqs()) >= self.published():
                return
            await asyncio.sleep(0.05)

    @property
    def envelopes(self) -> list[dict[str, Any]]:
        by_seq = {int(e["seq"]): e for e in self.collector.events}
        return [by_seq[s] for s in sorted(by_seq)]

    @property
    def events(self) -> list[dict[str, Any]]:
        return [e["data"] for e in self.envelopes]

    def game_running(self) -> bool:
        started = sum(1 for e in self.events if e.get("type") == "game_started")
        ended = sum(1 for e in self.events if e.get("type") == "game_ended")
        return started > ended

    def scores(self) -> list[int] | None:
        ended = [e for e in self.events if e.get("type") == "hand_ended"]
        return list(ended[-1]["scores"]) if ended else None

    async def drained(self, timeout: float = 20.0) -> None:
        await self.wait_published(timeout)

    async def settled(self) -> None:
        await self.wait_published()
