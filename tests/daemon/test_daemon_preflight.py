"""Issue 27 item 6 / issue 28 item 6: a config that cannot run is refused before READY.

A taken web port, an event-log directory that cannot be written and a log file whose directory
is missing: ``jantaku run --check`` and ``jantaku run`` each print one line and exit 2, and the
start never tells systemd READY (a real ``NOTIFY_SOCKET`` read by the test). A web task that dies
later is restarted, shown in ``health``, and the watchdog keeps coming meanwhile.

Tests run as root, for whom permission bits do not stop a write: the unwritable directory is made
immutable (``chattr +i``) as root, read-only by mode otherwise.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import daemon_kit
import pytest
from conftest import running_service

from daemon.config import Config, parse_config
from daemon.sdnotify import Notifier


@pytest.fixture
def notify_socket(tmp_path: Path) -> Iterator[socket.socket]:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(tmp_path / "notify.sock"))
    sock.setblocking(False)
    yield sock
    sock.close()


def _drain(sock: socket.socket) -> list[str]:
    out = []
    while True:
        try:
            out.append(sock.recv(4096).decode())
        except BlockingIOError:
            return out


@contextlib.contextmanager
def _unwritable_dir(path: Path) -> Iterator[Path]:
    path.mkdir()
    if os.geteuid() == 0:
        done = subprocess.run(["chattr", "+i", str(path)], capture_output=True)
        if done.returncode != 0:
            pytest.skip(f"chattr +i is not possible here: {done.stderr.decode().strip()}")
        try:
            yield path
        finally:
            subprocess.run(["chattr", "-i", str(path)], check=True)
    else:
        path.chmod(0o555)
        try:
            yield path
        finally:
            path.chmod(0o755)


def _config(tmp_path: Path, *, db: Path | None = None, log_file: str = "-",
            web_port: int | None = None) -> Path:
    text = daemon_kit.config_text(table=daemon_kit.unique_table("pre"),
                                  db=db or tmp_path / "t.sqlite", port=1883)
    text = text.replace('level = "info"', f'level = "info"\nfile = "{log_file}"')
    if web_port is not None:
        text += f'\n[web]\nhost = "127.0.0.1"\nport = {web_port}\n'
    cfg = tmp_path / "t.toml"
    cfg.write_text(text)
    return cfg


def _refused(cfg: Path, notify: socket.socket, expect: str) -> None:
    """``--check`` and a start: one line naming ``expect``, exit 2, never READY."""
    env = {**os.environ, "NOTIFY_SOCKET": notify.getsockname(), "WATCHDOG_USEC": "400000"}
    env.pop("WATCHDOG_PID", None)
    for extra in (["--check"], []):
        done = subprocess.run(
            [sys.executable, str(daemon_kit.RUN_DAEMON), "run", "--config", str(cfg), *extra],
            capture_output=True, text=True, env=env, timeout=60)
        lines = done.stderr.splitlines()
        assert done.returncode == 2, (extra, done.stderr)
        assert len(lines) == 1, (extra, done.stderr)
        assert lines[0].startswith(f"jantaku run: {cfg}: "), lines
        assert expect in lines[0], lines
        assert "Traceback" not in done.stderr
        sent = _drain(notify)
        assert not any(m.startswith("READY=1") for m in sent), sent


def test_a_taken_web_port_is_refused_before_ready(
    tmp_path: Path, notify_socket: socket.socket
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        _refused(_config(tmp_path, web_port=port), notify_socket,
                 f"web.port: 127.0.0.1:{port} is taken")
    assert not list(tmp_path.glob("t.sqlite*")), "nothing may be started"


def test_an_event_log_directory_that_cannot_be_written_is_refused(
    tmp_path: Path, notify_socket: socket.socket
) -> None:
    with _unwritable_dir(tmp_path / "ro") as ro:
        _refused(_config(tmp_path, db=ro / "t.sqlite"), notify_socket,
                 f"eventlog.path: directory {ro} cannot be written")


def test_an_event_log_that_is_not_writable_is_refused(
    tmp_path: Path, notify_socket: socket.socket
) -> None:
    # the directory is fine, the log in it is immutable (root) or read-only by mode
    db = tmp_path / "t.sqlite"
    db.write_bytes(b"")
    root = os.geteuid() == 0
    if root:
        done = subprocess.run(["chattr", "+i", str(db)], capture_output=True)
        if done.returncode != 0:
            pytest.skip(f"chattr +i is not possible here: {done.stderr.decode().strip()}")
    else:
        db.chmod(0o444)
    try:
        _refused(_config(tmp_path, db=db), notify_socket, f"eventlog.path: {db} cannot be written")
    finally:
        if root:
            subprocess.run(["chattr", "-i", str(db)], check=True)


def test_a_log_file_in_a_missing_directory_is_refused(
    tmp_path: Path, notify_socket: socket.socket
) -> None:
    missing = tmp_path / "no-such-dir"
    _refused(_config(tmp_path, log_file=str(missing / "jantaku.log")), notify_socket,
             f"logging.file: directory {missing} does not exist")


def test_a_valid_config_still_checks_ok_and_leaves_the_port_free(tmp_path: Path) -> None:
    port = daemon_kit.free_port()
    cfg = _config(tmp_path, web_port=port, log_file=str(tmp_path / "j.log"))
    done = subprocess.run(
        [sys.executable, str(daemon_kit.RUN_DAEMON), "run", "--config", str(cfg), "--check"],
        capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert list(tmp_path.glob(".jantaku-write-probe*")) == []
    with socket.socket() as again:  # --check bound it and let it go
        again.bind(("127.0.0.1", port))


async def test_a_web_task_that_dies_is_restarted_and_the_watchdog_keeps_coming(
    tmp_path: Path, notify_socket: socket.socket, broker: daemon_kit.Broker,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No listener bound before the start (the in-process service): the web task meets a taken
    port, dies, is restarted with backoff, shows in health, and never withholds the watchdog;
    once the port is free the console answers."""
    monkeypatch.setenv("WATCHDOG_USEC", "300000")
    monkeypatch.delenv("WATCHDOG_PID", raising=False)
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    port = taken.getsockname()[1]
    text = daemon_kit.config_text(table=daemon_kit.unique_table("web"),
                                  db=tmp_path / "w.sqlite", port=broker.port)
    config: Config = parse_config(text + f'\n[web]\nhost = "127.0.0.1"\nport = {port}\n')
    async with running_service(config, notifier=Notifier(notify_socket.getsockname())) as svc:
        async def restarts(n: int) -> None:
            while svc.supervisor.records["web"].restarts < n:
                _drain(notify_socket)
                await asyncio.sleep(0.05)

        await asyncio.wait_for(restarts(2), 20)
        _drain(notify_socket)
        # the web task is restarting (its backoff doubles: 0.5, 1, 2 s...) and the watchdog
        # keeps coming all the while
        fed = []
        for _ in range(10):
            await asyncio.sleep(0.2)
            fed.append("WATCHDOG=1" in _drain(notify_socket))
        assert all(fed), fed
        body = svc.health()
        assert body["tasks"]["web"]["restarts"] >= 2
        assert "Address already in use" in body["tasks"]["web"]["last_error"]
        assert body["web"]["serving"] is False
        if body["tasks"]["web"]["restarting"]:
            assert body["healthy"] is False and body["problem"] == "task web restarting"
        taken.close()

        async def serving() -> None:
            while not svc.web_stats.serving:
                _drain(notify_socket)
                await asyncio.sleep(0.05)

        await asyncio.wait_for(serving(), 40)
        async with aiohttp.ClientSession() as http, \
                http.get(f"http://127.0.0.1:{port}/console/") as r:
            assert r.status == 200
        assert svc.healthy() == (True, None)

