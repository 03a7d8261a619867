"""Helpers for the daemon tests: the engine, configs, private Mosquitto brokers, game inputs."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import os
import shutil
import socket
import subprocess
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiomqtt

from daemon.auth import format_key
from daemon.engine import Engine, load_engine
from hil.kit import daemon_config, free_port, reap, reaped, until

REPO = Path(__file__).resolve().parents[2]
RUN_DAEMON = Path(__file__).with_name("run_daemon.py")
MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
MOSQUITTO_PASSWD = shutil.which("mosquitto_passwd") or "/usr/bin/mosquitto_passwd"


@functools.cache
def engine() -> Engine:
    """The real rules engine (``rules.reducer``): every daemon test runs on it. Loaded once a
    process (an :class:`Engine` is frozen; loading hashes the rules' and the daemon's sources,
    16 ms, which the kill -9 harnesses paid twice a kill, and a forked child inherits it)."""
    return load_engine()


# --------------------------------------------------------------------------- inputs
def game_inputs(
    hands: int, turns: int = 8, ruleset: str = "mleague", seed: int = 1
) -> list[dict[str, Any]]:
    """A game as table inputs (JSON): a random *legal* game played by hil/players/legal_table.py
    (wall manifest, dice, deal, calls, riichi, wins), at most ``hands`` hands. ``turns`` is kept
    for the callers' signature; the legal player decides the length of each hand."""
    del turns
    return legal_game(hands, ruleset, seed)


def legal_game(hands: int, ruleset: str = "mleague", seed: int = 1) -> list[dict[str, Any]]:
    from hil.players import Table
    from rules.inputs import input_to_json

    table = Table(ruleset, seed)
    table.play_game(max_hands=hands)
    return [input_to_json(i) for i in table.inputs]


# --------------------------------------------------------------------------- brokers


def wait_port(port: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        time.sleep(0.02)
    raise TimeoutError(f"nothing listens on 127.0.0.1:{port}")


@dataclass
class Broker:
    """A private Mosquitto on a free port (``conf``: extra lines; ``listener`` line is ours)."""

    workdir: Path
    port: int = field(default_factory=free_port)
    conf: str = ""
    proc: subprocess.Popen[bytes] | None = None

    @property
    def conf_path(self) -> Path:
        return self.workdir / "mosquitto.conf"

    def start(self) -> Broker:
        self.workdir.mkdir(parents=True, exist_ok=True)
        text = self.conf
        if "listener" not in text:
            text = f"listener {self.port} 127.0.0.1\nallow_anonymous true\n" + text
        if os.getuid() == 0 and "\nuser " not in f"\n{text}":
            text = "user root\n" + text  # mosquitto drops root to 'mosquitto': keep tmp readable
        self.conf_path.write_text(text)
        self.proc = subprocess.Popen(
            [MOSQUITTO, "-c", str(self.conf_path)],
            stdout=open(self.workdir / "mosquitto.log", "ab"),  # noqa: SIM115
            stderr=subprocess.STDOUT,
        )
        wait_port(self.port)
        return self

    def stop(self) -> None:
        if self.proc is not None:
            reap(self.proc, 5)
        self.proc = None

    def log(self) -> str:
        path = self.workdir / "mosquitto.log"
        return path.read_text(errors="replace") if path.exists() else ""


def password_file(path: Path, users: dict[str, str]) -> Path:
    path.write_text("")
    for user, pw in users.items():
        subprocess.run([MOSQUITTO_PASSWD, "-b", str(path), user, pw], check=True)
    return path


# --------------------------------------------------------------------------- configs
REFEREE_PASSWORD = "correct horse battery staple"
OPERATOR_PASSWORD = "operator pass 123"


def referee_users(iterations: int = 1000) -> dict[str, Any]:
    """The ``[referee]`` section the tests log in with: alice (referee) and bob (operator)."""
    return {"users": [
        {"name": "alice", "role": "referee",
         "key": format_key("alice", REFEREE_PASSWORD, iterations)},
        {"name": "bob", "role": "operator",
         "key": format_key("bob", OPERATOR_PASSWORD, iterations)}]}


def config_text(
    *,
    table: str,
    db: Path,
    port: int,
    host: str = "127.0.0.1",
    protocol: str = "5",
    extra_mqtt: str = "",
    checkpoint_every: int = 50,
    iterations: int = 1000,
    full_check_below: int = 100_000,
    link: str | None = None,
    timing_scale: float | None = None,
    web: int | None = None,
) -> str:
    """The daemon tests' config (hil.kit.daemon_config); ``extra_mqtt``: TOML lines added to
    ``[mqtt]`` (its keys, or sub-tables such as ``[mqtt.commands]``); ``link``: the table on that
    serial port, its link timings x ``timing_scale``; ``web``: the web server on that port."""
    mqtt = {"host": host, "protocol": protocol, "keepalive": 10, "health_interval": 1.0,
            **tomllib.loads("[mqtt]\n" + extra_mqtt)["mqtt"]}
    devices = {} if timing_scale is None else {"table": {"timing_scale": timing_scale}}
    return daemon_config(table, db, port, link=link, web=web, sections={
        "devices": devices,
        "eventlog": {"checkpoint_every": checkpoint_every, "full_check_below": full_check_below},
        "mqtt": mqtt,
        "referee": referee_users(iterations),
        "logging": {"level": "info"},
    })


def unique_table(prefix: str = "t") -> str:
    return f"{prefix}{os.getpid() % 10000}-{time.monotonic_ns() % 10**9}"


# --------------------------------------------------------------------------- subscribers
class Collector:
    """An aiomqtt subscriber that collects every message of some topics."""

    def __init__(self, port: int, topics: list[str], *, host: str = "127.0.0.1", **kw: Any):
        self.port, self.topics, self.host, self.kw = port, topics, host, kw
        self.messages: list[aiomqtt.Message] = []
        self._task: asyncio.Task[None] | None = None
        self._subscribed = asyncio.Event()

    async def __aenter__(self) -> Collector:
        self._task = asyncio.create_task(self._run())
        await asyncio.wait_for(self._subscribed.wait(), 10)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._task is not None
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task

    async def _run(self) -> None:
        while True:
            try:
                async with aiomqtt.Client(self.host, self.port, **self.kw) as client:
                    for t in self.topics:
                        await client.subscribe(t, qos=1)
                    self._subscribed.set()
                    async for m in client.messages:
                        self.messages.append(m)
            except aiomqtt.MqttError:
                await asyncio.sleep(0.1)

    def payloads(self, topic_suffix: str) -> list[dict[str, Any]]:
        """Payloads of topics ending with ``topic_suffix``; ``private/...`` topics only when the
        suffix names them (``"/events"`` is the public feed, ``"/private/events"`` the full)."""
        private = "/private/" in topic_suffix
        return [
            json.loads(m.payload)  # type: ignore[arg-type]
            for m in self.messages
            if str(m.topic).endswith(topic_suffix) and m.payload
            and ("/private/" in str(m.topic)) == private
        ]

    async def wait_for(self, pred: Any, timeout: float = 20.0) -> None:
        await until(pred, timeout)


def running(proc: subprocess.Popen[bytes]) -> contextlib.AbstractContextManager[
        subprocess.Popen[bytes]]:
    """The kit's reaper with no grace: the process is SIGKILLed when the block ends (what the
    daemon tests that start ``jantaku run`` always did: no clean shutdown to wait for)."""
    return reaped(proc, grace_s=0)
