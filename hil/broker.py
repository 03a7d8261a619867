"""A private Mosquitto on a free port (``jantaku demo`` without ``--mqtt-host``, the broker-down
scenario), and an MQTT collector of a table's events (what a broadcast overlay subscribes to)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

from hil.errors import MissingToolError, ProcessStartError

MOSQUITTO_PATHS = ("/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto")


def mosquitto_binary() -> str | None:
    """The mosquitto to start; ``JANTAKU_MOSQUITTO`` overrides (a path, or ``none``: there is
    none, as on a fresh machine)."""
    forced = os.environ.get("JANTAKU_MOSQUITTO")
    if forced is not None:
        return None if forced in ("", "none") else forced
    found = shutil.which("mosquitto")
    if found:
        return found
    return next((p for p in MOSQUITTO_PATHS if os.access(p, os.X_OK)), None)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def listening(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket() as s:
        s.settimeout(0.2)
        return s.connect_ex((host, port)) == 0


def _die_with_parent() -> None:
    """In the child: SIGTERM when the parent dies, even by SIGKILL (Linux prctl
    PR_SET_PDEATHSIG), so a killed demo leaves no broker behind."""
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)


class PrivateBroker:
    """``mosquitto -c`` with a listener on 127.0.0.1:``port`` only, anonymous, no persistence."""

    def __init__(self, workdir: Path, port: int | None = None) -> None:
        binary = mosquitto_binary()
        if binary is None:
            raise MissingToolError("no mosquitto binary on this machine")
        self.binary = binary
        self.workdir = workdir
        self.port = port or free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 10.0) -> PrivateBroker:
        self.workdir.mkdir(parents=True, exist_ok=True)
        # persistence: a restart (the broker-down scenario) keeps the subscribers' sessions
        conf = (f"listener {self.port} 127.0.0.1\nallow_anonymous true\npersistence true\n"
                f"persistence_location {self.workdir}/\n")
        if os.getuid() == 0:
            conf = "user root\n" + conf  # mosquitto drops root to 'mosquitto' otherwise
        path = self.workdir / "mosquitto.conf"
        path.write_text(conf, encoding="utf-8")
        with open(self.workdir / "mosquitto.log", "ab") as out:
            self.proc = subprocess.Popen([self.binary, "-c", str(path)], stdout=out,
                                         stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                         start_new_session=True, preexec_fn=_die_with_parent)
        deadline = time.monotonic() + timeout
        while not listening(self.port):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise ProcessStartError(f"mosquitto did not start on port {self.port}: "
                                   f"{(self.workdir / 'mosquitto.log').read_text()[-500:]}")
            time.sleep(0.05)
        return self

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None or proc.poll() is not None:
            return
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None


class EventCollector:
    """Subscribes to ``jantaku/v1/<table>/private/events`` (every event in full: the harness
    checks the drawn tiles too; ``events`` is the public projection, docs/mqtt.md "What is
    public") and keeps every payload, reconnecting."""

    def __init__(self, host: str, port: int, table: str) -> None:
        self.host, self.port, self.table = host, port, table
        self.events: list[dict[str, Any]] = []
        self._task: asyncio.Task[None] | None = None
        self.subscribed = asyncio.Event()
        self.ident = f"hil-collector-{table}-{os.getpid()}"

    async def __aenter__(self) -> EventCollector:
        self._task = asyncio.create_task(self._run(), name="collector")
        await asyncio.wait_for(self.subscribed.wait(), 30)
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task

    async def _run(self) -> None:
        import aiomqtt

        topic = f"jantaku/v1/{self.table}/private/events"
        while True:
            try:
                async with aiomqtt.Client(self.host, self.port, identifier=self.ident,
                                          clean_session=False) as client:
                    await client.subscribe(topic, qos=1)
                    self.subscribed.set()
                    async for msg in client.messages:
                        payload = msg.payload
                        if isinstance(payload, bytes | bytearray):
                            self.events.append(json.loads(payload))
            except aiomqtt.MqttError:
                await asyncio.sleep(0.2)

    def seqs(self) -> list[int]:
        return sorted({int(e["seq"]) for e in self.events})
