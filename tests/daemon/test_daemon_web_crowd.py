"""Issue 27 item 1: a crowd of idle and slowloris connections does not take the web down.

The real ``jantaku run`` with ``[web]``, its descriptor limit lowered to 512 (as a unit's
``LimitNOFILE`` would): 2,000 connections from 127.0.0.1, half idle and half trickling header
bytes, reopened as soon as the daemon closes them. Meanwhile a client from 127.0.0.2 (all of
127.0.0.0/8 is this host) asks for ``/console/`` and ``/overlay/`` and must be answered (200) each
time while the crowd's address is refused at its per-address cap; the daemon's descriptors stay
below its limit; its log grows by less than 1 MB a minute; ``health.web`` counts the refusals (and
validates against the schema).

Bounded: the crowd stays 6 s against a ``header_timeout_seconds`` of 3 s, so the slow ones are
cut off and come back during the run (``JANTAKU_SLOW=1``: a minute against the default 10 s).
How long the victim waits is printed (``-s``), not bounded: bench/web_crowd.py measures it beside
the same request on an idle daemon (the crowd is that bench's).
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import threading
import time
from pathlib import Path

import daemon_kit
import paho.mqtt.client as paho

from daemon import schema
from hil.kit import SLOW, until_sync

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import web_crowd
from web_crowd import ATTACKER, Crowd

LIMIT = 512
CROWD = 2000
CROWD_S = 60.0 if SLOW else 6.0
#: the bounded form cuts the slow connections off sooner, as a site may (docs/daemon.md, web limits)
HEADER_TIMEOUT = "" if SLOW else "header_timeout_seconds = 3\n"


def _get(port: int, path: str) -> float:
    """One request from ``VICTIM``, answered 200; the seconds it took (printed). The bench's
    request (bench/web_crowd.py ``get``): its socket timeout is a hang guard (a victim starved by
    the crowd fails), never a measure of speed."""
    took = web_crowd.get(port, path)
    assert took is not None, f"{path}: not answered 200 within {web_crowd.HANG_GUARD_S} s"
    return took


def _open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def _health(port: int, table: str) -> dict[str, object]:
    got: list[bytes] = []
    client = paho.Client(paho.CallbackAPIVersion.VERSION2, client_id=f"{table}-crowd-health")
    client.on_message = lambda c, u, m: got.append(m.payload)
    client.connect("127.0.0.1", port)
    client.subscribe(f"jantaku/v1/{table}/health", qos=1)
    client.loop_start()
    try:
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if got and "web" in json.loads(got[-1]):
                body: dict[str, object] = json.loads(got[-1])
                return body
            time.sleep(0.1)
        raise AssertionError("no health with a 'web' object")
    finally:
        client.loop_stop()
        client.disconnect()


def _limit_nofile() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (LIMIT, LIMIT))


def test_a_crowd_of_idle_and_slowloris_connections(tmp_path: Path) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < CROWD + 200:  # this test process holds the crowd
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, CROWD + 1000), hard))
    table = daemon_kit.unique_table("crowd")
    web_port = daemon_kit.free_port()
    cfg = tmp_path / "t.toml"
    cfg.write_text(daemon_kit.config_text(table=table, db=tmp_path / "t.sqlite", port=1883)
                   + f'\n[web]\nhost = "{ATTACKER}"\nport = {web_port}\n{HEADER_TIMEOUT}')
    log = tmp_path / "daemon.log"
    proc = subprocess.Popen(
        [sys.executable, str(daemon_kit.RUN_DAEMON), "run", "--config", str(cfg)],
        stdout=subprocess.DEVNULL, stderr=open(log, "wb"),  # noqa: SIM115 (the child's)
        preexec_fn=_limit_nofile,
    )
    with daemon_kit.running(proc):
        # the port is bound before READY, so it accepts before the server is up: wait for that
        until_sync(lambda: b"web server up" in log.read_bytes() or proc.poll() is not None, 60,
                   "the web server up")
        assert proc.poll() is None, log.read_text()
        _get(web_port, "/console/")
        crowd = Crowd(web_port, CROWD)
        attack = threading.Thread(target=crowd.run, daemon=True)
        log_before = log.stat().st_size
        started = time.monotonic()
        attack.start()
        took: list[float] = []
        fds: list[int] = []
        try:
            time.sleep(1.0)  # the crowd is in
            while time.monotonic() - started < CROWD_S:
                for path in ("/console/", "/overlay/"):
                    took.append(_get(web_port, path))  # answered 200 with the crowd in
                fds.append(_open_fds(proc.pid))
                assert proc.poll() is None
                time.sleep(0.25)
        finally:
            crowd.stop.set()
            attack.join(10)
        elapsed = time.monotonic() - started
        grown = log.stat().st_size - log_before
        body = _health(1883, table)
    assert crowd.opened >= CROWD
    assert took, "the victim asked nothing while the crowd was in"
    assert max(fds) < LIMIT, max(fds)
    assert grown / elapsed * 60 < 1_000_000, (grown, elapsed)
    assert schema.errors("health", body) == []
    web = body["web"]
    assert isinstance(web, dict)
    assert web["max_connections"] == LIMIT - 128
    assert web["refused"]["per_address"] > CROWD - 32, web
    assert web["header_timeouts"] > 0 or crowd.closed_by_server > 0
    print(f"\ncrowd: {crowd.opened} opened, victim max {max(took):.3f} s over {len(took)} "
          f"requests, daemon fds max {max(fds)}/{LIMIT}, log {grown} B in {elapsed:.1f} s, "
          f"web {web}")
