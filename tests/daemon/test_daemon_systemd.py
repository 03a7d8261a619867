"""systemd integration on real AF_UNIX sockets: READY / WATCHDOG / STOPPING from `jantaku run`, the
watchdog withheld while the daemon is unhealthy, JSON logs without secrets."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import daemon_kit
import pytest
from conftest import running_service

from daemon import auth
from daemon.config import Config
from daemon.sdnotify import Notifier, watchdog_interval


@pytest.fixture
def notify_socket(tmp_path: Path) -> Iterator[socket.socket]:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(tmp_path / "notify.sock"))
    sock.setblocking(False)  # with a timeout, CPython retries EAGAIN until the timeout
    yield sock
    sock.close()


def _drain(sock: socket.socket) -> list[str]:
    """The datagrams waiting now (never blocks)."""
    out = []
    while True:
        try:
            out.append(sock.recv(4096).decode())
        except (TimeoutError, BlockingIOError):
            return out


def test_notifier_sends_datagrams(notify_socket: socket.socket) -> None:
    n = Notifier(notify_socket.getsockname())
    assert n.enabled
    assert n.ready("up")
    assert n.watchdog()
    assert n.stopping()
    got = _drain(notify_socket)
    assert got == ["READY=1\nSTATUS=up", "WATCHDOG=1", "STOPPING=1"]
    n.close()
    assert not Notifier("").enabled
    assert Notifier("").ready() is False


def test_abstract_socket_address() -> None:
    name = f"jantaku-test-{os.getpid()}-{time.monotonic_ns()}"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind("\0" + name)
    sock.settimeout(1)
    try:
        assert Notifier("@" + name).notify("READY=1")
        assert sock.recv(100) == b"READY=1"
    finally:
        sock.close()


def test_watchdog_interval_reads_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WATCHDOG_USEC", "4000000")
    monkeypatch.delenv("WATCHDOG_PID", raising=False)
    assert watchdog_interval() == 2.0
    monkeypatch.setenv("WATCHDOG_PID", str(os.getpid() + 1))
    assert watchdog_interval() is None
    monkeypatch.setenv("WATCHDOG_PID", str(os.getpid()))
    assert watchdog_interval() == 2.0
    monkeypatch.delenv("WATCHDOG_USEC")
    assert watchdog_interval() is None


def test_jantaku_run_notifies_systemd_and_logs_json_without_secrets(
    notify_socket: socket.socket, tmp_path: Path, broker: daemon_kit.Broker
) -> None:
    table = daemon_kit.unique_table()
    mqtt_password = "s3cret-mqtt-Pa55word"
    pw = tmp_path / "mqtt.pass"
    pw.write_text(mqtt_password + "\n")
    # the broker requires this password
    daemon_kit.password_file(tmp_path / "passwd", {table: mqtt_password})
    broker.stop()
    broker.conf = (
        f"listener {broker.port} 127.0.0.1\nallow_anonymous false\n"
        f"password_file {tmp_path}/passwd\n"
    )
    broker.start()
    cfg = tmp_path / "t.toml"
    text = daemon_kit.config_text(
        table=table, db=tmp_path / "t.sqlite", port=broker.port,
        extra_mqtt=f'username = "{table}"\npassword_file = "{pw}"',
    ).replace('level = "info"', 'level = "debug"')
    cfg.write_text(text)
    env = {
        **os.environ,
        "NOTIFY_SOCKET": notify_socket.getsockname(),
        "WATCHDOG_USEC": "400000",
    }
    env.pop("WATCHDOG_PID", None)
    proc = subprocess.Popen(
        [sys.executable, str(daemon_kit.RUN_DAEMON), "run", "--config", str(cfg)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
    )
    with daemon_kit.running(proc):
        got: list[str] = []
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and sum(m == "WATCHDOG=1" for m in got) < 3:
            time.sleep(0.05)
            got.extend(_drain(notify_socket))
            assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
        ready = [i for i, m in enumerate(got) if m.startswith("READY=1")]
        assert ready, got
        assert "broker connected" in got[ready[0]]
        assert sum(m == "WATCHDOG=1" for m in got) >= 3
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(20) == 0
        got.extend(_drain(notify_socket))
        assert any(m.startswith("STOPPING=1") for m in got)
        assert proc.stderr is not None
        logs = proc.stderr.read().decode()
    lines = [json.loads(line) for line in logs.splitlines() if line.strip()]
    assert lines, "no log lines"
    for line in lines:
        assert {"ts", "level", "logger", "msg"} <= set(line)
        assert line["table"] == table
    assert any("connected to" in line["msg"] for line in lines)
    secrets = [mqtt_password, auth.format_key("alice", daemon_kit.REFEREE_PASSWORD, 1000)]
    secrets.append(secrets[1].split("$")[-1])
    for secret in secrets:
        assert secret not in logs


async def test_watchdog_withheld_while_the_log_is_wedged(
    notify_socket: socket.socket,
    broker: daemon_kit.Broker,
    make_config: Callable[..., Config],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("WATCHDOG_USEC", "200000")
    monkeypatch.delenv("WATCHDOG_PID", raising=False)
    notifier = Notifier(notify_socket.getsockname())
    config = make_config(broker.port)
    async with running_service(config, notifier=notifier, db_timeout=0.3) as service:
        await asyncio.sleep(0.5)
        assert "WATCHDOG=1" in await asyncio.to_thread(_drain, notify_socket)
        # a stuck disk: the database thread cannot finish a write
        service.eventlog._lock.acquire()
        try:
            fut = service.put("input", "table", {"type": "hand_start"})
            await asyncio.sleep(0.3)
            await asyncio.to_thread(_drain, notify_socket)  # what was sent before it stuck
            await asyncio.sleep(1.0)
            assert "WATCHDOG=1" not in await asyncio.to_thread(_drain, notify_socket)
            assert not fut.done()
        finally:
            service.eventlog._lock.release()
        await asyncio.wait_for(fut, 5)
        await asyncio.sleep(0.8)
        assert "WATCHDOG=1" in await asyncio.to_thread(_drain, notify_socket)


def test_unit_file_is_notify_watchdog_and_hardened() -> None:
    import re
    import shutil

    unit = daemon_kit.REPO / "systemd" / "jantaku.service"
    text = unit.read_text()
    for line in ("Type=notify", "Restart=always", "User=jantaku", "NoNewPrivileges=yes",
                 "ProtectSystem=strict", "PrivateTmp=yes", "DevicePolicy=closed"):
        assert re.search(rf"^{re.escape(line)}$", text, re.M), line
    assert re.search(r"^WatchdogSec=\d+$", text, re.M)
    assert re.search(r"^DeviceAllow=/dev/jantaku-table rw$", text, re.M)
    tool = shutil.which("systemd-analyze")
    if tool is None:
        pytest.skip("systemd-analyze is not installed here")
    out = subprocess.run([tool, "security", "--offline=true", str(unit)],
                         capture_output=True, text=True)
    match = re.search(r"Overall exposure level for \S+: ([0-9.]+)", out.stdout + out.stderr)
    assert match, out.stdout + out.stderr
    assert float(match.group(1)) <= 2.5
