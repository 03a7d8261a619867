"""What a power cut does to Mosquitto's persistence file, on the lazy FUSE mount
(tests/chaos/lazyfs.py), with the shipped settings (systemd/mosquitto/jantaku.conf).

Mosquitto 2.0 writes ``mosquitto.db.new``, fsyncs it and renames it over ``mosquitto.db``, but
never fsyncs the directory: a power cut may undo the rename, and the broker comes back with an
older file, or none. With synchronous directory entries on its persistence directory (``chattr
+D /var/lib/mosquitto``, docs/install.md; the mount's ``dirsync``) the last save survives. Either
way the table's log holds every event (``jantaku follow`` fills what the broker lost:
tests/chaos/test_chaos_powercut.py)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import chaos_kit
import daemon_kit
import lazyfs
import pytest

pytestmark = pytest.mark.skipif(lazyfs.available() is not None, reason=str(lazyfs.available()))

PUB = shutil.which("mosquitto_pub") or "/usr/bin/mosquitto_pub"
SUB = shutil.which("mosquitto_sub") or "/usr/bin/mosquitto_sub"
RETAINED = 25  # more than autosave_interval changes: the broker saves at least twice


def _retained_after_a_cut(tmp_path: Path, *, dirsync: bool) -> int:
    backing = Path("/dev/shm") if os.access("/dev/shm", os.W_OK) else tmp_path
    with lazyfs.Mount(backing / f"bpc-{os.getpid()}-{dirsync}", tmp_path / "mnt") as fs:
        store = Path(fs.mount) / "mosquitto"
        store.mkdir()
        if dirsync:
            fs.dirsync(store)
        broker = daemon_kit.Broker(tmp_path / "broker")
        broker.conf = (f"listener {broker.port} 127.0.0.1\nallow_anonymous true\n"
                       + chaos_kit.shipped_broker_settings(store))
        broker.start()
        try:
            for i in range(RETAINED):
                subprocess.run([PUB, "-p", str(broker.port), "-q", "1",
                                "-r", "-t", f"t/{i}", "-m", f"v{i}"], check=True, timeout=30)
            deadline = time.monotonic() + 10
            while broker.log().count("Saving in-memory database") < 2:
                assert time.monotonic() < deadline, broker.log()
                time.sleep(0.05)
            assert broker.proc is not None
            broker.proc.send_signal(signal.SIGKILL)
            broker.proc.wait()
            fs.cut()
            broker.start()
            out = subprocess.run([SUB, "-p", str(broker.port), "-t", "t/#",
                                  "-W", "1", "-v"], capture_output=True, text=True, timeout=30)
            return len(out.stdout.splitlines())
        finally:
            broker.stop()


def test_mosquitto_loses_its_saves_to_a_cut_unless_its_directory_is_synchronous(
        tmp_path: Path) -> None:
    assert _retained_after_a_cut(tmp_path / "plain", dirsync=False) == 0
    kept = _retained_after_a_cut(tmp_path / "dirsync", dirsync=True)
    assert 20 <= kept <= RETAINED  # the last save (every 10 changes); not what came after it
