"""Issue 29 item 3: the shipped broker files install cleanly under Debian's (and Raspberry Pi
OS's) stock ``/etc/mosquitto/mosquitto.conf`` (a copy in tests/data/mosquitto/, with its
provenance), as docs/install.md says: ``conf.d/jantaku.conf`` and ``conf.d/jantaku-zz-bridge.conf``
beside it, the broker actually started, its persistence file written where the stock file puts
it, after a handful of changes (``autosave_on_changes``), not after a minute.

Only paths and ports are rewritten (the stock file's /run, /var/lib, /var/log and /etc paths
into the test's directory; the listeners on free ports; the bridge's centre on a closed local
port); as root a ``conf.d/00-test-user.conf`` keeps the broker from dropping to the
``mosquitto`` user, which could not read the test's files.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import time
from pathlib import Path

import aiomqtt
import daemon_kit
from test_daemon_broker_security import PASSWORDS, make_ca

from hil.kit import reap

DATA = daemon_kit.REPO / "tests" / "data" / "mosquitto"
SHIPPED = daemon_kit.REPO / "systemd" / "mosquitto"


def _stock_main(root: Path) -> str:
    text = (DATA / "debian-mosquitto.conf").read_text()
    moved = (text.replace("/run/mosquitto/", f"{root}/run/")
             .replace("/var/lib/mosquitto/", f"{root}/lib/")
             .replace("/var/log/mosquitto/", f"{root}/log/")
             .replace("/etc/mosquitto/", f"{root}/etc/"))
    # the same options as the stock file, only the paths moved
    keys = [ln.split()[0] for ln in text.splitlines() if ln and not ln.startswith("#")]
    assert keys == ["pid_file", "persistence", "persistence_location", "log_dest", "include_dir"]
    assert [ln.split()[0] for ln in moved.splitlines() if ln and not ln.startswith("#")] == keys
    return moved


def _install(root: Path, *, extra: str = "") -> tuple[Path, dict[str, int]]:
    etc = root / "etc"
    for d in (etc / "conf.d", etc / "certs", root / "run", root / "lib", root / "log"):
        d.mkdir(parents=True, exist_ok=True)
    make_ca(etc / "certs")
    daemon_kit.password_file(etc / "jantaku.passwd", PASSWORDS)
    for name in ("jantaku.acl", "jantaku-overlay.acl"):
        (etc / name).write_text((SHIPPED / name).read_text())
    ports = {name: daemon_kit.free_port() for name in ("tls", "local", "ws", "centre")}
    conf = (SHIPPED / "jantaku.conf").read_text().replace("/etc/mosquitto/", f"{etc}/")
    conf = re.sub(r"^listener 8883$", f"listener {ports['tls']} 127.0.0.1", conf, flags=re.M)
    conf = re.sub(r"^listener 1883 ", f"listener {ports['local']} ", conf, flags=re.M)
    conf = re.sub(r"^listener 9001$", f"listener {ports['ws']} 127.0.0.1", conf, flags=re.M)
    (etc / "conf.d" / "jantaku.conf").write_text(conf + extra)
    bridge = (SHIPPED / "jantaku-bridge.conf").read_text()
    bridge = re.sub(r"^address .*$", f"address 127.0.0.1:{ports['centre']}", bridge, flags=re.M)
    bridge = bridge.replace("/etc/mosquitto/certs/central-ca.crt", f"{etc}/certs/ca.crt")
    (etc / "conf.d" / "jantaku-zz-bridge.conf").write_text(bridge)
    if os.getuid() == 0:
        (etc / "conf.d" / "00-test-user.conf").write_text("user root\n")
    main = etc / "mosquitto.conf"
    main.write_text(_stock_main(root))
    return main, ports


def test_the_shipped_files_start_under_the_stock_main_config(tmp_path: Path) -> None:
    main, ports = _install(tmp_path)
    proc = subprocess.Popen([daemon_kit.MOSQUITTO, "-c", str(main)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        for name in ("tls", "local", "ws"):
            daemon_kit.wait_port(ports[name])
        assert proc.poll() is None

        async def changes() -> None:
            async with aiomqtt.Client("127.0.0.1", ports["local"], username="tsec1",
                                      password=PASSWORDS["tsec1"]) as client:
                for k in range(12):
                    await client.publish(f"jantaku/v1/tsec1/state/x{k}", b"{}", qos=1,
                                         retain=True)

        asyncio.run(changes())
        db = tmp_path / "lib" / "mosquitto.db"
        deadline = time.monotonic() + 10
        while not db.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        # written after ~10 changes, at the stock file's persistence_location
        assert db.exists(), (tmp_path / "log" / "mosquitto.log").read_text()
    finally:
        reap(proc, 10)  # SIGTERM, SIGKILL if it is still there after 10 s
    log = (tmp_path / "log" / "mosquitto.log").read_text()
    # the one error is the bridge's: its centre (a closed port here) does not answer
    errors = [ln for ln in log.splitlines() if "Error" in ln and "bridge" not in ln]
    assert errors == [], log
    assert "Config loaded" in log or "running" in log, log


def test_a_conf_d_file_that_repeats_the_location_is_refused(tmp_path: Path) -> None:
    """The fault this guards against (issue 29): the old shipped file repeated the stock
    persistence_location, and Mosquitto 2 refuses to start."""
    main, _ = _install(tmp_path, extra="\npersistence_location /var/lib/mosquitto/\n")
    res = subprocess.run([daemon_kit.MOSQUITTO, "-c", str(main)], capture_output=True,
                         text=True, timeout=20)
    assert res.returncode != 0
    log = tmp_path / "log" / "mosquitto.log"
    out = res.stdout + res.stderr + (log.read_text() if log.exists() else "")
    assert "Duplicate persistence_location" in out, out
