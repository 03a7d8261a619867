"""The shipped broker config (systemd/mosquitto/) on a private Mosquitto: TLS, passwords, ACL.

The config files are used as shipped; only paths and port numbers are rewritten for the test. The
certificates are a throwaway CA made with the openssl CLI.
"""

from __future__ import annotations

import asyncio
import os
import re
import ssl
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiomqtt
import daemon_kit
import pytest
from conftest import running_service

from daemon import auth
from daemon.cli.referee import build_command, send
from daemon.config import parse_config
from daemon.errors import BrokerError
from daemon.mqtt_session import MqttSession
from daemon.mqtt_wire import Connect
from daemon.topics import Topics
from hil.kit import make_ca

SHIPPED = daemon_kit.REPO / "systemd" / "mosquitto"
TABLE = "tsec1"
PASSWORDS = {
    TABLE: "table-secret-1",
    "tsec2": "table-secret-2",
    "referee.alice": "referee-secret",
    "tool.archive": "tool-secret",
    "broadcast.delay": "delay-secret",
    # the shipped ACL's example table and its command account (docs/install.md)
    "t01": "table-secret-t01",
    "cmd.t01": "cmd-secret-t01",
}


@dataclass
class Venue:
    broker: daemon_kit.Broker
    tls_port: int
    local_port: int
    ws_port: int
    ca: Path

    def tls(self) -> ssl.SSLContext:
        return ssl.create_default_context(cafile=str(self.ca))


@pytest.fixture(scope="module")
def venue(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Venue]:
    tmp_path = tmp_path_factory.mktemp("venue")
    etc = tmp_path / "etc"
    (etc / "certs").mkdir(parents=True)
    make_ca(etc / "certs")
    daemon_kit.password_file(etc / "jantaku.passwd", PASSWORDS)
    for name in ("jantaku.acl", "jantaku-overlay.acl"):
        (etc / name).write_text((SHIPPED / name).read_text())
    tls_port, local_port, ws_port = (daemon_kit.free_port() for _ in range(3))
    conf = (SHIPPED / "jantaku.conf").read_text()
    conf = conf.replace("/etc/mosquitto/", f"{etc}/")
    # the stock main mosquitto.conf gives the location (tests/daemon/test_broker_stock_layout.py)
    conf += f"\npersistence_location {tmp_path}/\n"
    conf = re.sub(r"^listener 8883$", f"listener {tls_port} 127.0.0.1", conf, flags=re.M)
    conf = re.sub(r"^listener 1883 ", f"listener {local_port} ", conf, flags=re.M)
    conf = re.sub(r"^listener 9001$", f"listener {ws_port} 127.0.0.1", conf, flags=re.M)
    broker = daemon_kit.Broker(tmp_path / "broker", port=tls_port, conf=conf).start()
    daemon_kit.wait_port(local_port)
    daemon_kit.wait_port(ws_port)
    yield Venue(broker, tls_port, local_port, ws_port, etc / "certs" / "ca.crt")
    broker.stop()


def _table_config(venue: Venue, tmp_path: Path, table: str = TABLE,
                  command_account: bool = False, command_password: str | None = None) -> Any:
    """The table's config on the TLS listener; ``command_account``: its commands on a
    connection of their own, as ``cmd.<table>`` (docs/install.md)."""
    pw = tmp_path / "mqtt.pass"
    pw.write_text(PASSWORDS[table] + "\n")
    extra = (
        f'username = "{table}"\npassword_file = "{pw}"\n\n'
        f'[mqtt.tls]\nca = "{venue.ca}"\n'
    )
    if command_account:
        (tmp_path / "cmd.pass").write_text((command_password or PASSWORDS[f"cmd.{table}"])
                                           + "\n")
        extra += (f'\n[mqtt.commands]\nusername = "cmd.{table}"\n'
                  f'password_file = "{tmp_path / "cmd.pass"}"\n')
    text = daemon_kit.config_text(
        table=table, db=tmp_path / "t.sqlite", port=venue.tls_port, host="localhost",
        extra_mqtt=extra,
    )
    return parse_config(text)


async def _fresh_table(venue: Venue, tmp_path: Path, table: str = TABLE,
                       command_account: bool = False) -> Any:
    """:func:`_table_config`, and the broker told to forget the table's last log (each test
    starts a new one): what ``jantaku log accept --config`` does for a replaced log, or the
    daemon holds its events (daemon/broker_seq.py)."""
    from daemon.cli.log import accept_broker

    config = _table_config(venue, tmp_path, table, command_account=command_account)
    await accept_broker(config, 0)
    return config


async def _publish_code(port: int, user: str | None, topic: str, **kw: Any) -> int:
    """The v5 PUBACK reason code of one QoS 1 publish (0 = accepted, >= 0x80 = refused), by the
    daemon's own broker client."""
    spec = Connect("127.0.0.1", port, f"test-{os.getpid()}-{time.monotonic_ns()}", v5=True,
                   username=user, password=None if user is None else PASSWORDS[user], **kw)
    async with MqttSession(spec) as client:
        return await asyncio.wait_for(client.publish(topic, b"{}", qos=1), 10)


@pytest.mark.parametrize("own", [False, True], ids=["shared", "command-account"])
async def test_table_over_tls_with_password_and_referee_command(
    venue: Venue, tmp_path: Path, own: bool
) -> None:
    """Both ways to read commands over TLS: on the table's connection (no command account), and
    on the command account's own connection (the lean reader, daemon/mqtt_lean.py)."""
    table = "t01" if own else TABLE
    config = await _fresh_table(venue, tmp_path, table, command_account=own)
    topics = Topics(table)
    tls = venue.tls()
    async with (
        daemon_kit.Collector(
            venue.tls_port, [topics.events], host="localhost",
            username="tool.archive", password=PASSWORDS["tool.archive"], tls_context=tls,
        ) as sub,
        running_service(config) as service,
    ):
        assert service.link.connected
        key = auth.derive_key("alice", daemon_kit.REFEREE_PASSWORD, 1000)
        args = {"ruleset": "mleague", "first_dealer": 0, "names": ["a", "b", "c", "d"]}
        topic, payload = build_command(table, "new_game", "alice", key, args)
        reply = await send(
            "localhost", venue.tls_port, table, topic, payload, username="referee.alice",
            password=PASSWORDS["referee.alice"], tls=tls,
        )
        assert reply is not None and reply["status"] == "ok", reply
        await sub.wait_for(lambda: len(sub.payloads("/events")) >= 1)
        assert sub.payloads("/events")[0]["data"]["type"] == "game_started"
        intake = service.health()["commands"]["intake"]
        assert intake["connection"] == ("own" if own else "shared"), intake
        assert intake["admitted"] == 1 and intake["received"] == 1, intake
        if own:
            assert intake["connected"] and intake["connects"] == 1, intake


async def test_acl_confines_tables_tools_and_overlays(venue: Venue) -> None:
    local = venue.local_port
    own = Topics(TABLE)
    other = Topics("tsec2")
    # a table publishes under its own tree, not under another table's
    assert await _publish_code(local, TABLE, own.events) < 0x80
    assert await _publish_code(local, TABLE, other.events) >= 0x80
    assert await _publish_code(local, TABLE, own.cmd("new_game")) >= 0x80
    # a read-only tool may not command; a referee may
    assert await _publish_code(local, "tool.archive", own.cmd("new_game")) >= 0x80
    assert await _publish_code(local, "tool.archive", own.events) >= 0x80
    assert await _publish_code(local, "referee.alice", own.cmd("new_game")) < 0x80
    assert await _publish_code(local, "referee.alice", own.events) >= 0x80
    # the TLS listener: the same, encrypted (and nothing without TLS)
    tls = venue.tls()
    code = await _publish_code(venue.tls_port, TABLE, own.state, tls=tls)
    assert code < 0x80
    with pytest.raises(BrokerError):
        await _publish_code(venue.tls_port, TABLE, own.state, timeout=2)
    # a wrong password is refused
    with pytest.raises(aiomqtt.MqttError):
        async with aiomqtt.Client("127.0.0.1", local, username=TABLE, password="wrong"):
            pass
    # no anonymous access on the authenticated listeners
    with pytest.raises(aiomqtt.MqttError):
        async with aiomqtt.Client("127.0.0.1", local):
            pass


async def test_websocket_overlay_reads_state_but_cannot_command(venue: Venue) -> None:
    own = Topics(TABLE)
    async with aiomqtt.Client(
        "127.0.0.1", venue.local_port, username=TABLE, password=PASSWORDS[TABLE]
    ) as table:
        await table.publish(own.state, b'{"x":1}', qos=1, retain=True)
    async with aiomqtt.Client(
        "127.0.0.1", venue.ws_port, transport="websockets", protocol=aiomqtt.ProtocolVersion.V5
    ) as overlay:
        await overlay.subscribe(own.state, qos=1)
        async with asyncio.timeout(10):
            async for m in overlay.messages:
                assert m.payload == b'{"x":1}'
                break
    code = await asyncio.to_thread(_websocket_publish_code, venue.ws_port, own.cmd("new_game"))
    assert code >= 0x80


def _websocket_publish_code(port: int, topic: str) -> int:
    """The v5 PUBACK reason code of an anonymous QoS 1 publish over websockets (paho-mqtt's own
    client: the daemon speaks TCP and TLS only)."""
    import queue

    import paho.mqtt.client as paho

    got: queue.Queue[int] = queue.Queue()
    client = paho.Client(paho.CallbackAPIVersion.VERSION2, protocol=paho.MQTTv5,
                         transport="websockets")
    client.on_publish = lambda c, u, mid, reason, props: got.put(int(reason.value))
    client.connect("127.0.0.1", port)
    client.loop_start()
    try:
        client.publish(topic, b"{}", qos=1)
        return got.get(timeout=10)
    finally:
        client.disconnect()
        client.loop_stop()



async def test_a_command_account_the_broker_refuses_is_reported_and_the_table_plays_on(
    venue: Venue, tmp_path: Path
) -> None:
    """A wrong password for ``cmd.t01``: the table still connects, says "online" and takes its
    inputs; health says the command connection is down, and why."""
    config = _table_config(venue, tmp_path, "t01", command_account=True,
                           command_password="not the password")
    async with running_service(config, ready_timeout=1.0) as service:
        await daemon_kit.until(lambda: service.link.connected, 10)
        intake = service.health()["commands"]["intake"]
        assert intake["connection"] == "own" and not intake["connected"], intake
        assert "refused" in (intake["last_error"] or ""), intake
