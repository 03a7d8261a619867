"""Issue 13 item 4, through the real ``jantaku run`` process and its real interfaces (a systemd
notify socket, the real Mosquitto on 127.0.0.1:1883):

* a start that fails never sends ``READY=1`` after ``STOPPING=1`` (systemd would take a dying
  daemon for started);
* ``health.clock`` warns while the wall clock is not synchronised and stops warning once it is
  (the probe injected by ``JANTAKU_CLOCK_PROBES``/``JANTAKU_TIMESYNC_DIR``, daemon/clock_sync.py).
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiomqtt
import pytest

from daemon.clock_sync import ClockReading, ClockSync, kernel, read_clock
from hil.kit import reaped

JANTAKU = str(Path(sys.executable).with_name("jantaku"))


def config(tmp_path: Path, table: str, port: int, web: str = "") -> Path:
    path = tmp_path / "t.toml"
    path.write_text(
        f'config_version = 1\n[table]\nid = "{table}"\nruleset = "mleague"\n'
        f'[eventlog]\npath = "{tmp_path / "t.sqlite"}"\n'
        f'[mqtt]\nhost = "127.0.0.1"\nport = {port}\nhealth_interval = 1.0\n'
        f'[devices.table]\nkind = "none"\n{web}'
    )
    return path


def table_id(prefix: str) -> str:
    return f"{prefix}{os.getpid() % 10000}-{time.monotonic_ns() % 10**9}"


@pytest.fixture
def notify_socket(tmp_path: Path) -> Iterator[socket.socket]:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(tmp_path / "notify.sock"))
    sock.setblocking(False)
    yield sock
    sock.close()


def drain(sock: socket.socket) -> list[str]:
    out = []
    while True:
        try:
            out.append(sock.recv(4096).decode())
        except BlockingIOError:
            return out


async def test_a_start_cut_short_sends_no_ready_after_stopping(
    tmp_path: Path, notify_socket: socket.socket
) -> None:
    # Stopped before it was ready (systemd stopping a start that hangs, or a start that fails),
    # with an input still queued behind a stuck disk and no broker answering: the shutdown's
    # bounded wait for the queue outlasts the READY grace, which used to send READY=1 after
    # STOPPING=1 -- systemd would take a dying daemon for started. Real notify socket, real
    # SQLite file, the production Service and rules engine.
    from daemon.config import parse_config
    from daemon.engine import load_engine
    from daemon.sdnotify import Notifier
    from daemon.service import Service

    with socket.socket() as mute:
        mute.bind(("127.0.0.1", 0))
        mute.listen(8)
        cfg = config(tmp_path, table_id("rdy"), mute.getsockname()[1])
        service = Service(parse_config(cfg.read_text(), str(cfg)), load_engine(),
                          notifier=Notifier(str(tmp_path / "notify.sock")), ready_timeout=1.0)
        run = asyncio.create_task(service.run())
        await asyncio.sleep(0.5)
        service.eventlog._lock.acquire()  # the disk stops answering
        try:
            service.put("input", "table", {"type": "hand_start"})
            service.stop()  # before the READY grace (1 s) is over
            await asyncio.sleep(2.0)  # the shutdown waits for the queued input meanwhile
        finally:
            service.eventlog._lock.release()
        assert await asyncio.wait_for(run, 30) == 0
    kinds = [m.split("\n")[0] for m in drain(notify_socket)]
    assert "STOPPING=1" in kinds, kinds
    assert "READY=1" not in kinds[kinds.index("STOPPING=1"):], kinds


async def _health(table: str, pred: Any, timeout: float = 30.0) -> dict[str, Any]:
    async with aiomqtt.Client("127.0.0.1", 1883) as client:
        await client.subscribe(f"jantaku/v1/{table}/health", qos=1)
        async with asyncio.timeout(timeout):
            async for m in client.messages:
                assert isinstance(m.payload, bytes)
                body: dict[str, Any] = json.loads(m.payload)
                if pred(body):
                    return body
    raise AssertionError("unreachable")


async def test_health_warns_until_the_clock_is_synchronised(tmp_path: Path) -> None:
    timesync = tmp_path / "timesync"
    timesync.mkdir()  # timesyncd runs, has not synchronised yet
    table = table_id("clk")
    env = {**os.environ, "JANTAKU_CLOCK_PROBES": "timesync", "JANTAKU_TIMESYNC_DIR": str(timesync)}
    proc = subprocess.Popen([JANTAKU, "run", "--config", str(config(tmp_path, table, 1883))],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    with reaped(proc):  # gone even if the body or its clean-exit check fails
        try:
            body = await _health(table, lambda b: "clock" in b)
            assert body["clock"]["synchronized"] is False
            assert "not synchronised" in body["clock"]["warning"]
            assert body["healthy"] is True  # a warning, not a fault: the watchdog is still fed
            (timesync / "synchronized").touch()  # what systemd-timesyncd does once it has synced
            body = await _health(table, lambda b: b["clock"]["synchronized"] is True)
            assert body["clock"] == {"synchronized": True, "source": "timesync", "warning": None}
        finally:
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(30) == 0


def test_probe_order_and_the_kernel_probe() -> None:
    unsynced: list[tuple[str, Any]] = [("a", lambda: None), ("b", lambda: ClockSync.UNSYNCHRONIZED)]
    assert read_clock(unsynced) == ClockReading(ClockSync.UNSYNCHRONIZED, "b")
    assert read_clock([]).as_json() == {"synchronized": None, "source": "none", "warning": None}
    # adjtimex(2) read-only answers on any Linux outside a seccomp filter, one way or the other
    assert kernel() in (ClockSync.SYNCHRONIZED, ClockSync.UNSYNCHRONIZED)
