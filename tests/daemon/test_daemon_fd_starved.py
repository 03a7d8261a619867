"""Issue 27 item 2: the watchdog never depends on spare resources.

The real ``jantaku run`` under a ``NOTIFY_SOCKET`` the test reads, on a host whose clock state
only the kernel can tell (no ``/run/systemd/timesync``: chrony, ntpd, or before NTP; the health
path then asks ``adjtimex``, and used to run ``ctypes.util.find_library``, a child process, on
every health build). Once it is READY the test takes every spare descriptor from it
(``prlimit`` down to its lowest free descriptor: any ``open``, ``socket``, ``pipe`` or ``accept``
fails with EMFILE) and knocks on its web port meanwhile. ``WATCHDOG=1`` must keep coming, health
must keep being published (counting the failed accepts), the log must stay small; given its
descriptors back, the daemon serves the console again.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import resource
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import daemon_kit
import paho.mqtt.client as paho

STARVED_S = 6.0
WATCHDOG_USEC = 1_000_000  # WATCHDOG=1 every 0.5 s


def _lowest_free_fd(pid: int) -> int:
    used = {int(n) for n in os.listdir(f"/proc/{pid}/fd")}
    return next(i for i in range(len(used) + 1) if i not in used)


class Datagrams(threading.Thread):
    """Reads the notify socket all along (its queue holds only a few datagrams)."""

    def __init__(self, sock: socket.socket) -> None:
        super().__init__(daemon=True)
        self.sock = sock
        self.got: list[tuple[float, str]] = []
        self.stop = threading.Event()

    def run(self) -> None:
        self.sock.settimeout(0.1)
        while not self.stop.is_set():
            with contextlib.suppress(TimeoutError):
                self.got.append((time.monotonic(), self.sock.recv(4096).decode()))

    def watchdogs(self, since: float, until: float) -> list[float]:
        return [t for t, m in self.got if m == "WATCHDOG=1" and since <= t <= until]


def test_the_watchdog_keeps_coming_with_no_descriptor_to_spare(tmp_path: Path) -> None:
    table = daemon_kit.unique_table("starve")
    web_port = daemon_kit.free_port()
    cfg = tmp_path / "t.toml"
    cfg.write_text(daemon_kit.config_text(table=table, db=tmp_path / "t.sqlite", port=1883)
                   + f'\n[web]\nhost = "127.0.0.1"\nport = {web_port}\n')
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(str(tmp_path / "notify.sock"))
    datagrams = Datagrams(notify)
    datagrams.start()
    env = {**os.environ, "NOTIFY_SOCKET": str(tmp_path / "notify.sock"),
           "WATCHDOG_USEC": str(WATCHDOG_USEC), "JANTAKU_TIMESYNC_DIR": str(tmp_path / "none")}
    env.pop("WATCHDOG_PID", None)
    log = tmp_path / "daemon.log"
    health: list[dict[str, object]] = []
    sub = paho.Client(paho.CallbackAPIVersion.VERSION2, client_id=f"{table}-starve-health")
    sub.on_message = lambda c, u, m: health.append(json.loads(m.payload))
    sub.connect("127.0.0.1", 1883)
    sub.subscribe(f"jantaku/v1/{table}/health", qos=1)
    sub.loop_start()
    proc = subprocess.Popen(
        [sys.executable, str(daemon_kit.RUN_DAEMON), "run", "--config", str(cfg)],
        stdout=subprocess.DEVNULL, stderr=open(log, "wb"), env=env,  # noqa: SIM115
    )
    try:
        with daemon_kit.running(proc):
            deadline = time.monotonic() + 60
            while not any(m.startswith("READY=1") for _, m in datagrams.got) \
                    or b"web server up" not in log.read_bytes():
                assert time.monotonic() < deadline and proc.poll() is None, log.read_text()
                time.sleep(0.1)
            soft, hard = resource.prlimit(proc.pid, resource.RLIMIT_NOFILE)
            log_before = log.stat().st_size
            starved_at = time.monotonic()
            resource.prlimit(proc.pid, resource.RLIMIT_NOFILE,
                             (_lowest_free_fd(proc.pid), hard))
            knocks = []
            while time.monotonic() - starved_at < STARVED_S:
                with contextlib.suppress(OSError):  # accepted by the kernel, never by the daemon
                    knocks.append(socket.create_connection(("127.0.0.1", web_port), 0.5))
                time.sleep(0.05)
                assert proc.poll() is None
            starved_until = time.monotonic()
            resource.prlimit(proc.pid, resource.RLIMIT_NOFILE, (soft, hard))
            for k in knocks:
                k.close()
            grown = log.stat().st_size - log_before
            # fed all along: no gap over 2 intervals of 0.5 s
            fed = datagrams.watchdogs(starved_at, starved_until)
            gaps = [b - a for a, b in zip([starved_at, *fed], [*fed, starved_until], strict=True)]
            assert max(gaps) < 1.0, (gaps, log.read_text()[-3000:])
            # the daemon is back: the console answers
            conn = http.client.HTTPConnection("127.0.0.1", web_port, timeout=5,
                                              source_address=("127.0.0.2", 0))
            conn.request("GET", "/console/")
            assert conn.getresponse().status == 200
            conn.close()
            deadline = time.monotonic() + 15
            while not any(h.get("web", {}).get("accept_failed", 0) > 0  # type: ignore[union-attr]
                          for h in health):
                assert time.monotonic() < deadline, health[-1:]
                time.sleep(0.1)
            # the audit that could not open the log without a descriptor found nothing: it is
            # postponed, never a damaged log (which would refuse the next start)
            assert b"event_log_damaged" not in log.read_bytes(), log.read_text()[-3000:]
            during = [h for h in health if h.get("healthy") is not None]
            assert during and all(h["healthy"] for h in during[-3:]), \
                [(h["healthy"], h.get("problem")) for h in during[-3:]]
    finally:
        sub.loop_stop()
        sub.disconnect()
        datagrams.stop.set()
        datagrams.join(2)
        notify.close()
    assert grown / (starved_until - starved_at) * 60 < 1_000_000, grown
    print(f"\nstarved {starved_until - starved_at:.1f} s: {len(fed)} WATCHDOG=1, max gap "
          f"{max(gaps):.2f} s, {len(knocks)} connections knocked, log {grown} B")
