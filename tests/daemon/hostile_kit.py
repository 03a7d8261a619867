"""Helpers for the hostile-input tests (issue 15): a real ``jantaku run`` process on a private
Mosquitto, a raw MQTT publisher that can set the retain flag and any v5 response topic, the
daemon's JSON log lines, and its event log read from outside."""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiomqtt
import daemon_kit
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from daemon import auth
from daemon.cli.referee import build_command
from daemon.eventlog import EventLog
from daemon.topics import Topics
from hil.kit import jantaku, until

ALICE = auth.derive_key("alice", daemon_kit.REFEREE_PASSWORD, 1000)
NEW_GAME = {"ruleset": "mleague", "first_dealer": 0, "names": ["Ai", "Bo", "Cy", "Di"]}




@dataclass
class Daemon:
    """``jantaku run`` as a process (stderr: one JSON log object a line)."""

    config: Path
    log_path: Path
    table: str
    db: Path
    proc: subprocess.Popen[bytes] | None = None

    def start(self) -> Daemon:
        self.proc = subprocess.Popen(
            [jantaku(), "run", "--config", str(self.config)],
            stdout=subprocess.DEVNULL,
            stderr=open(self.log_path, "ab"),  # noqa: SIM115
        )
        return self

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self) -> int | None:
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode

    def lines(self) -> list[dict[str, Any]]:
        out = []
        for raw in self.log_path.read_text(errors="replace").splitlines():
            with contextlib.suppress(ValueError):
                obj = json.loads(raw)
                if isinstance(obj, dict):
                    out.append(obj)
        return out

    def messages(self, fragment: str) -> list[dict[str, Any]]:
        return [r for r in self.lines() if fragment in str(r.get("msg", ""))]

    def inputs(self) -> int:
        """The inputs in the event log, read from outside (the daemon keeps it open: WAL)."""
        log = EventLog(self.db, self.table, readonly=True)
        try:
            return log.last_seq()
        finally:
            log.close()

    def records(self) -> list[Any]:
        log = EventLog(self.db, self.table, readonly=True)
        try:
            return list(log.records())
        finally:
            log.close()


@contextlib.contextmanager
def daemon(tmp: Path, port: int, *, table: str | None = None, extra_mqtt: str = "",
           protocol: str = "5") -> Iterator[Daemon]:
    table = table or daemon_kit.unique_table("h")
    db = tmp / f"{table}.sqlite"
    cfg = tmp / f"{table}.toml"
    cfg.write_text(daemon_kit.config_text(table=table, db=db, port=port, extra_mqtt=extra_mqtt,
                                          protocol=protocol))
    d = Daemon(cfg, tmp / f"{table}.log", table, db).start()
    try:
        yield d
    finally:
        d.stop()


def signed(table: str, name: str, args: dict[str, Any], **kw: Any) -> tuple[str, bytes]:
    topic, payload = build_command(table, name, "alice", ALICE, args, **kw)
    return topic, json.dumps(payload).encode()


def props(response_topic: str | None, correlation: bytes | None) -> Properties | None:
    if response_topic is None and correlation is None:
        return None
    p = Properties(PacketTypes.PUBLISH)  # type: ignore[no-untyped-call]
    if response_topic is not None:
        p.ResponseTopic = response_topic
    if correlation is not None:
        p.CorrelationData = correlation
    return p


class Wire:
    """One MQTT v5 client that publishes anything and collects everything under a filter."""

    def __init__(self, port: int, listen: list[str], **kw: Any) -> None:
        self.port, self.listen, self.kw = port, listen, kw
        self.got: list[aiomqtt.Message] = []
        self.client: aiomqtt.Client | None = None
        self._task: asyncio.Task[None] | None = None

    @contextlib.asynccontextmanager
    async def run(self) -> AsyncIterator[Wire]:
        kw = {"protocol": aiomqtt.ProtocolVersion.V5, **self.kw}
        async with aiomqtt.Client("127.0.0.1", self.port, **kw) as client:
            self.client = client
            for f in self.listen:
                await client.subscribe(f, qos=1)
            self._task = asyncio.create_task(self._collect(client))
            try:
                yield self
            finally:
                self._task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await self._task

    async def _collect(self, client: aiomqtt.Client) -> None:
        async for m in client.messages:
            self.got.append(m)

    async def publish(self, topic: str, payload: bytes, *, retain: bool = False,
                      response_topic: str | None = None, correlation: bytes | None = None,
                      qos: int = 1) -> None:
        assert self.client is not None
        await self.client.publish(topic, payload, qos=qos, retain=retain,
                                  properties=props(response_topic, correlation))

    def on(self, suffix: str) -> list[aiomqtt.Message]:
        return [m for m in self.got if str(m.topic).endswith(suffix)]

    def replies(self, table: str) -> list[dict[str, Any]]:
        prefix = Topics(table).reply("")
        out = []
        for m in self.got:
            if str(m.topic).startswith(prefix) and isinstance(m.payload, bytes) and m.payload:
                out.append(json.loads(m.payload))
        return out

    async def wait_for(self, pred: Any, timeout: float = 30.0) -> None:
        await until(pred, timeout)


async def publish_once(port: int, topic: str, payload: bytes, *, response_topic: str | None = None,
                       correlation: bytes | None = None) -> bool:
    """Publish on a connection of its own (the broker may drop a client for what it sends: a
    wildcard response topic is a protocol error); whether the broker took it.

    It waits for whichever comes first: the broker's PUBACK (taken) or the broker closing the
    connection (refused), which the client's message stream reports at once. (Waiting for the
    PUBACK alone sat out aiomqtt's 10 s timeout for every refused publish.)"""
    try:
        async with aiomqtt.Client("127.0.0.1", port,
                                  protocol=aiomqtt.ProtocolVersion.V5) as client:

            async def dropped() -> None:
                async for _ in client.messages:  # raises MqttError when the broker drops us
                    pass

            watch = asyncio.create_task(dropped())
            pub = asyncio.create_task(client.publish(
                topic, payload, qos=1, properties=props(response_topic, correlation)))
            try:
                await asyncio.wait({pub, watch}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                watch.cancel()
                with contextlib.suppress(asyncio.CancelledError, aiomqtt.MqttError):
                    await watch
            if not pub.done():  # the broker dropped the connection before it acknowledged
                pub.cancel()
                with contextlib.suppress(asyncio.CancelledError, aiomqtt.MqttError):
                    await pub
                return False
            pub.result()  # MqttError if the publish failed
        return True
    except aiomqtt.MqttError:
        return False


async def ask(wire: Wire, table: str, name: str, args: dict[str, Any], *, client: str = "probe",
              timeout: float = 20.0, **kw: Any) -> dict[str, Any]:
    """A signed command with a v5 response topic; its reply (the daemon is up and answering)."""
    topic, payload = signed(table, name, args, **kw)
    cid = json.loads(payload)["id"]
    await wire.publish(topic, payload, response_topic=Topics(table).reply(client),
                       correlation=cid.encode())
    found: list[dict[str, Any]] = []

    def got() -> bool:
        found[:] = [r for r in wire.replies(table) if r.get("id") == cid]
        return bool(found)

    await wire.wait_for(got, timeout)
    return found[0]


async def wait_up(wire: Wire, d: Daemon, timeout: float = 30.0) -> None:
    """Until the daemon's retained status says online."""
    def online() -> bool:
        for m in wire.on(f"{d.table}/status"):
            if isinstance(m.payload, bytes) and json.loads(m.payload).get("state") == "online":
                return True
        return False

    await wire.wait_for(online, timeout)
