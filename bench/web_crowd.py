"""The web port under attack (issue 27 items 1 and 4), against the real ``jantaku run`` (its
descriptor limit lowered to 512, as a unit's ``LimitNOFILE`` would), each figure beside the same
request on the same daemon while it is idle, in the same run:

* a login flood: ten addresses (127.0.0.2 .. 127.0.0.11) each send 20 wrong passwords at once
  (bench/login_flooder.py, a process of its own) while the referee logs in from 127.0.0.1 with
  the default PBKDF2 iterations; two rounds, the second with the flooders' failures on record;
* a crowd: 2,000 idle and slowloris connections from 127.0.0.1, reopened as soon as the daemon
  closes them, while a client at 127.0.0.2 asks for ``/console/`` and ``/overlay/`` every
  quarter second.

The tests (tests/web/test_login_flood.py, tests/daemon/test_daemon_web_crowd.py) check what is
answered and refused; the waits are measured here. Prints; asserts nothing.

    .venv/bin/python bench/web_crowd.py [--port 1883] [--seconds 6] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import http.client
import json
import os
import resource
import selectors
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from login_flooder import login_from  # noqa: E402  (bench/login_flooder.py)

from daemon.auth import DEFAULT_ITERATIONS, format_key  # noqa: E402
from hil.kit import (  # noqa: E402
    daemon_config,
    die_with_parent,
    free_port,
    jantaku,
    reaped,
    reaped_async,
    until_sync,
)

LIMIT = 512
PASSWORD = "web crowd bench referee password"
FLOODER = Path(__file__).with_name("login_flooder.py")
FLOODERS = [f"127.0.0.{i}" for i in range(2, 12)]
TRIES = 20
ATTACKER, VICTIM = "127.0.0.1", "127.0.0.2"
#: seconds a victim's request may take before it counts as failed (starved by the crowd)
HANG_GUARD_S = 15.0


@dataclass
class Crowd:
    """``size`` connections from ``ATTACKER`` to ``port``, reopened when closed: odd ones send
    one header byte every half second (slowloris), one in four a bad request at once (each
    answered 400, a line in aiohttp's logs), the rest stay idle. ``run`` until ``stop``."""

    port: int
    size: int = 2000
    stop: threading.Event = field(default_factory=threading.Event)
    opened: int = 0
    closed_by_server: int = 0

    def _open(self, sel: selectors.DefaultSelector, i: int) -> None:
        s = socket.socket()
        s.setblocking(False)
        s.bind((ATTACKER, 0))
        with contextlib.suppress(BlockingIOError):
            s.connect((ATTACKER, self.port))
        sel.register(s, selectors.EVENT_READ, i)
        self.opened += 1
        if i % 4 == 2:
            with contextlib.suppress(OSError):
                s.send(b"NOT\x01HTTP\r\n\r\n")

    def _trickle(self, sel: selectors.DefaultSelector) -> None:
        for key in list(sel.get_map().values()):
            if key.data % 2:
                s = key.fileobj
                assert isinstance(s, socket.socket)
                with contextlib.suppress(OSError):
                    s.send(b"GET /console/ HTTP/1.1\r\nHost: x\r\n" if s.fileno() % 7 == 0
                           else b"X")

    def run(self) -> None:
        sel = selectors.DefaultSelector()
        for i in range(self.size):
            self._open(sel, i)
        next_trickle = time.monotonic()
        while not self.stop.is_set():
            for key, _ in sel.select(0.05):
                s = key.fileobj
                assert isinstance(s, socket.socket)
                try:
                    data = s.recv(4096)
                except OSError:
                    data = b""
                if not data:  # reset or closed by the daemon: come back at once
                    self.closed_by_server += 1
                    sel.unregister(s)
                    s.close()
                    self._open(sel, key.data)
            if time.monotonic() >= next_trickle:
                next_trickle += 0.5
                self._trickle(sel)
        for key in list(sel.get_map().values()):
            key.fileobj.close()  # type: ignore[union-attr]


def get(port: int, path: str) -> float | None:
    """One GET from ``VICTIM``: the seconds until it was answered 200, None if it was not."""
    start = time.monotonic()
    conn = http.client.HTTPConnection(ATTACKER, port, timeout=HANG_GUARD_S,
                                      source_address=(VICTIM, 0))
    try:
        conn.request("GET", path)
        resp = conn.getresponse()
        resp.read()
        return time.monotonic() - start if resp.status == 200 else None
    except OSError:
        return None
    finally:
        conn.close()


def _limit_nofile() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (LIMIT, LIMIT))
    die_with_parent()


@contextlib.contextmanager
def daemon(work: Path, broker_port: int) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    """``jantaku run`` with its console on a free port (3 s header timeout, as the crowd test's
    bounded form); yields it and the port once its web server is up."""
    web = free_port()
    cfg = work / "t.toml"
    cfg.write_text(daemon_config(f"crowd{os.getpid() % 10000}", work / "t.sqlite", broker_port,
                                 web=web, sections={
        "web": {"header_timeout_seconds": 3},
        "referee": {"users": [{"name": "alice", "role": "referee",
                               "key": format_key("alice", PASSWORD, DEFAULT_ITERATIONS)}]},
    }))
    log = work / "daemon.log"
    proc = subprocess.Popen([jantaku(), "run", "--config", str(cfg)], stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=open(log, "wb"),  # noqa: SIM115
                            preexec_fn=_limit_nofile)
    with reaped(proc, 20):
        # the port is bound before READY, so it accepts before the server is up: wait for that
        until_sync(lambda: b"web server up" in log.read_bytes() or proc.poll() is not None, 60,
                   "the web server up")
        if proc.poll() is not None:
            raise SystemExit(f"the daemon exited: {log.read_text()[-2000:]}")
        yield proc, web


async def login(address: str, base: str, password: str) -> tuple[int, float]:
    """The referee's login from ``address``: its status and seconds."""
    start = time.monotonic()
    status, _, answered = await login_from(address, base, password)
    return status, answered - start


async def login_flood(web: int, rounds: int = 2) -> dict[str, Any]:
    base = f"http://127.0.0.1:{web}"
    idle: list[float | None] = [(await login("127.0.0.1", base, PASSWORD))[1] for _ in range(3)]
    flooded: list[float | None] = []
    refused: list[int] = []
    for n in range(rounds):  # a second round: the flooders' addresses have failures now
        if n:
            await asyncio.sleep(2.5)  # the Retry-After the last flood was given
        proc = await asyncio.create_subprocess_exec(
            sys.executable, str(FLOODER), base, str(TRIES), *FLOODERS,
            stdout=asyncio.subprocess.PIPE, preexec_fn=die_with_parent)
        async with reaped_async(proc):
            await asyncio.sleep(0.5)  # the flood is on (the process has started sending)
            status, took = await login("127.0.0.1", base, PASSWORD)
            out, _ = await proc.communicate()
        flooded.append(took if status == 200 else None)
        refused.append(sum(s == 429 for s, *_ in json.loads(out)))
    return {"idle_s": idle, "flooded_s": flooded, "refused_429": refused,
            "attempts": len(FLOODERS) * TRIES}


def _victim(web: int, seconds: float) -> list[float | None]:
    took: list[float | None] = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        took.extend(get(web, path) for path in ("/console/", "/overlay/"))
        time.sleep(0.25)
    return took


def crowd(proc: subprocess.Popen[bytes], web: int, seconds: float) -> dict[str, Any]:
    idle = _victim(web, 2.0)
    c = Crowd(web)
    attack = threading.Thread(target=c.run, daemon=True)
    attack.start()
    try:
        time.sleep(1.0)  # the crowd is in
        under = _victim(web, seconds)
        fds = len(os.listdir(f"/proc/{proc.pid}/fd"))
    finally:
        c.stop.set()
        attack.join(10)
    return {"idle_s": idle, "crowd_s": under, "opened": c.opened, "daemon_fds": fds}


def _stats(xs: list[float | None]) -> str:
    ok = [x for x in xs if x is not None]
    if not ok:
        return f"n={len(xs):4d}  all failed"
    return (f"n={len(xs):4d}  p50 {statistics.median(ok) * 1000:8.1f} ms  max "
            f"{max(ok) * 1000:8.1f} ms  failed {len(xs) - len(ok)}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--port", type=int, default=1883, help="the broker the daemon publishes to")
    ap.add_argument("--seconds", type=float, default=6.0, help="how long the crowd stays")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 3000:  # this process holds the crowd
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 3000), hard))
    with tempfile.TemporaryDirectory() as tmp, daemon(Path(tmp), a.port) as (proc, web):
        out = {"login": asyncio.run(login_flood(web)), "crowd": crowd(proc, web, a.seconds)}
    if a.json:
        print(json.dumps(out))
        return 0
    lf, cr = out["login"], out["crowd"]
    rows = [("referee login, idle daemon", _stats(lf["idle_s"])),
            (f"referee login, flood of {lf['attempts']}",
             f"{_stats(lf['flooded_s'])}  refused 429: {lf['refused_429']}"),
            ("victim GET, idle daemon", _stats(cr["idle_s"])),
            (f"victim GET, crowd ({cr['opened']} opened)",
             f"{_stats(cr['crowd_s'])}  daemon fds {cr['daemon_fds']}/{LIMIT}")]
    for label, figures in rows:
        print(f"{label:38s} {figures}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
