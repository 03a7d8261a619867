"""Issue 29 items 1-2 from the outside: the real ``jantaku run`` (its table controller on a pty,
tests/daemon/link_peer.py) plays through two SIGKILLs of a Mosquitto running the shipped
persistence settings (systemd/mosquitto/jantaku.conf), and ``jantaku follow`` prints every event
the table numbered exactly once, in seq order: connected across the first kill, away (not
running) across the second, then started again from the seq after its last line. Then the daemon
is killed and restarted (its memory of recent events gone): a ``--private`` follow from seq 1
gets the full stream folded again from the log. Every line is the envelope as published.
"""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import chaos_kit
import daemon_kit
import link_peer
import outside
import pytest

from daemon.disclosure import public_event
from daemon.eventlog import EventLog
from hil.kit import reap

logdir = chaos_kit.logdir


class Follow:
    """``jantaku follow`` as a subprocess; its stdout lines collected by a thread."""

    def __init__(self, port: int, table: str, *args: str) -> None:
        self.proc = subprocess.Popen(
            [outside.jantaku(), "follow", "--table", table, "--mqtt-port", str(port), *args],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
        self.lines: list[str] = []
        self.err: list[str] = []
        assert self.proc.stdout is not None and self.proc.stderr is not None
        for stream, into in ((self.proc.stdout, self.lines), (self.proc.stderr, self.err)):
            threading.Thread(target=lambda s=stream, i=into: i.extend(
                ln.decode().rstrip("\n") for ln in s), daemon=True).start()

    def seqs(self) -> list[int]:
        return [json.loads(x)["seq"] for x in list(self.lines)]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            self.proc.wait(10)
        time.sleep(0.2)  # the reader threads take the last lines


def _logged_events(db: Path) -> int:
    log = EventLog(db, "", readonly=True)
    try:
        return log.applied()[1]
    finally:
        log.close()


async def _play(peer: link_peer.LinkPeer, n: int, broker: daemon_kit.Broker | None) -> None:
    """``n`` start presses (each a rules input whose violation is an event), in small bursts;
    the broker SIGKILLed halfway through, mid-stream, and started again a second later."""
    for k in range(n // 10):
        peer.send([link_peer.Event.start_pressed() for _ in range(10)])
        if broker is not None and k == n // 20:
            assert broker.proc is not None
            broker.proc.send_signal(signal.SIGKILL)
            broker.proc.wait()
            await asyncio.sleep(1.0)
            broker.start()
        await asyncio.sleep(0.05)
    await peer.wait(lambda: peer.pending == 0, 60)


@pytest.mark.asyncio
async def test_follow_prints_every_event_once_through_two_broker_kills(
    logdir: Path, tmp_path: Path
) -> None:
    broker = daemon_kit.Broker(tmp_path / "broker")
    broker.conf = (f"listener {broker.port} 127.0.0.1\nallow_anonymous true\n"
                   + chaos_kit.shipped_broker_settings(tmp_path / "broker"))
    broker.start()
    table = daemon_kit.unique_table("fw")
    peer, tty = link_peer.LinkPeer.on_pty()
    cfg, db = tmp_path / "table.toml", logdir / "table.sqlite"
    cfg.write_text(outside.serial_config(table=table, db=db, port=broker.port, tty=tty))
    daemon = outside.Daemon(cfg, tmp_path / "daemon.log")
    first = second = full = None
    try:
        daemon.start()
        await peer.wait(lambda: peer.connected, 60)
        first = Follow(broker.port, table)
        await _play(peer, 200, broker)  # kill 1: the follower connected across it
        await daemon_kit.until(lambda: first is not None and first.seqs()[-1:] == [
            _logged_events(db)], 60)
        first.stop()
        await _play(peer, 200, broker)  # kill 2: the follower away
        last = _logged_events(db)
        after = first.seqs()[-1] + 1
        second = Follow(broker.port, table, "--from-seq", str(after), "--until-seq", str(last))
        assert second.proc.wait(60) == 0, second.err
        time.sleep(0.2)
        daemon.kill9()  # the daemon's memory of recent events is gone: backfill folds the log
        daemon.start()
        await peer.wait(lambda: peer.connected, 60)
        full = Follow(broker.port, table, "--private", "--until-seq", str(last))
        assert full.proc.wait(60) == 0, full.err
        time.sleep(0.2)
    finally:
        for f in (first, second, full):
            if f is not None:
                reap(f.proc, grace_s=0)  # killed and waited for
        if daemon.alive:
            daemon.terminate()
        await peer.close()
        broker.stop()
    ref = chaos_kit.reference(db, table, logdir)
    assert last >= 400, last
    printed = first.lines + second.lines
    assert [json.loads(x)["seq"] for x in printed] == list(range(1, last + 1))
    assert [json.loads(x) for x in printed] == [public_event(e) for e in ref.envelopes[:last]]
    assert [json.loads(x) for x in full.lines] == ref.envelopes[:last]
    # the public lines hide what the projection hides (a violation's expected/actual)
    assert [json.loads(x) for x in printed] != ref.envelopes[:last]
    print(f"{last} events through 2 broker kills; first follower {len(first.lines)},"
          f" second {len(second.lines)}; stderr: {first.err + second.err}", file=sys.stderr)
