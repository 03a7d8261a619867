"""Issue 29 item 2: ``jantaku follow`` says what it waits for instead of hanging silently (the
table's retained ``status`` offline, no status at all, the broker not reachable), exits 0 after
``--idle-exit``, and 2 with a usage line on bad arguments. The shared broker on 127.0.0.1:1883,
a table id of this test's own."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
from pathlib import Path

import pytest
from console_script import jantaku_command

JANTAKU = jantaku_command()


def _follow(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([JANTAKU, "follow", *args], capture_output=True, text=True, timeout=60)


def _table() -> str:
    return f"fcli{os.getpid() % 10000}-{time.monotonic_ns() % 10**9}"


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize(("args", "says"), [
    (["--from-seq", "0"], "--from-seq"),
    (["--from-seq", "5", "--until-seq", "4"], "--until-seq"),
    (["--idle-exit", "0"], "--idle-exit"),
    (["--username", "tool.archive"], "--password-file"),
    (["--mqtt-port", "70000"], "--mqtt-port"),
    (["--from-seq", "x"], "--from-seq"),
])
def test_bad_arguments_exit_2_naming_the_option(args: list[str], says: str) -> None:
    res = _follow("--table", "t01", *args)
    assert res.returncode == 2, res
    assert says in res.stderr and res.stdout == ""


def test_a_bad_table_id_and_an_unreadable_password_file_exit_2(tmp_path: Path) -> None:
    assert _follow("--table", "t/01").returncode == 2
    res = _follow("--table", "t01", "--username", "u", "--password-file", str(tmp_path / "no"))
    assert res.returncode == 2 and "cannot read" in res.stderr


def test_it_names_the_offline_table_and_exits_after_idle() -> None:
    import paho.mqtt.publish as publish

    table = _table()
    status = f"jantaku/v1/{table}/status"
    body = json.dumps({"schema": "jantaku/status/1", "state": "offline", "table": table,
                       "since": "2026-12-03T17:00:00.000Z"})
    publish.single(status, body, qos=1, retain=True, hostname="127.0.0.1", port=1883)
    try:
        res = _follow("--table", table, "--idle-exit", "3")
    finally:
        publish.single(status, b"", qos=1, retain=True, hostname="127.0.0.1", port=1883)
    assert res.returncode == 0, res.stderr
    assert res.stdout == ""
    assert f"table {table} is offline" in res.stderr and "2026-12-03T17:00:00.000Z" in res.stderr


def test_it_says_when_there_is_no_status_or_no_broker() -> None:
    res = _follow("--table", _table(), "--idle-exit", "4")
    assert res.returncode == 0, res.stderr
    assert "no retained status" in res.stderr
    res = _follow("--table", "t01", "--mqtt-port", str(_closed_port()), "--idle-exit", "2")
    assert res.returncode == 0
    assert "not reachable" in res.stderr
