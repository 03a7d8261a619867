"""Issue 15 item 5: the broker link through a TCP proxy the test controls (tests/chaos/chaos_kit):
a connection reset during CONNECT is retried at once (with backoff), not after the connect
timeout; a black-holed link is noticed by the default keepalive; TCP_NODELAY is set on the
daemon's socket and on ``jantaku referee``'s."""

from __future__ import annotations

import socket
import time
from dataclasses import replace
from pathlib import Path

import aiomqtt
import chaos_kit
import daemon_kit

from daemon.cli import referee
from daemon.config import MqttConfig
from hil.kit import until


def test_defaults_notice_a_dead_link_within_10_s() -> None:
    """The client (daemon/mqtt_session.py) pings every ``keepalive`` s and drops a link silent
    for two of them, looking every second: 2 x 4 + 1 = 9 s < 10 s."""
    cfg = MqttConfig(host="x")
    assert 2 * cfg.keepalive + 1 < 10
    assert cfg.connect_timeout <= 5


async def test_reset_during_connect_is_retried_at_once(tmp_path: Path) -> None:
    broker = daemon_kit.Broker(tmp_path / "broker").start()
    table = daemon_kit.unique_table("rs")
    try:
        async with chaos_kit.TcpProxy(broker.port) as proxy:
            proxy.cut("reset")  # every connection is reset as soon as it is accepted
            config = chaos_kit.make_config(tmp_path, proxy.port, table)
            # a long connect timeout: only a fail-fast on the reset can make several attempts
            config = replace(config, mqtt=replace(config.mqtt, connect_timeout=60.0))
            async with chaos_kit.running(config) as service:
                await until(lambda: proxy.accepted >= 4, 30)
                assert not service.link.connected
                assert service.link.last_error, "the reset is reported in health"
                proxy.heal()
                await until(lambda: service.link.connected, 30)
                assert service.link.nodelay is True
    finally:
        broker.stop()


async def test_black_hole_is_noticed_and_the_link_comes_back(tmp_path: Path) -> None:
    broker = daemon_kit.Broker(tmp_path / "broker").start()
    table = daemon_kit.unique_table("bh")
    try:
        async with chaos_kit.TcpProxy(broker.port) as proxy:
            config = chaos_kit.make_config(tmp_path, proxy.port, table)
            config = replace(config, mqtt=replace(config.mqtt, keepalive=MqttConfig("x").keepalive))
            async with chaos_kit.running(config) as service:
                assert service.link.connected
                t0 = time.monotonic()
                proxy.cut("blackhole")
                await until(lambda: not service.link.connected, 60)
                noticed = time.monotonic() - t0
                proxy.heal()
                await until(lambda: service.link.connected, 30)
                assert service.link.connects == 2
                print(f"black hole noticed after {noticed:.1f} s (keepalive "
                      f"{config.mqtt.keepalive} s)")
    finally:
        broker.stop()


async def test_referee_client_sets_tcp_nodelay(tmp_path: Path) -> None:
    """``jantaku referee``'s connection has TCP_NODELAY (checked on its socket while it waits)."""
    seen: list[int] = []
    real = aiomqtt.Client.__aenter__

    async def spy(self: aiomqtt.Client) -> aiomqtt.Client:
        out = await real(self)
        sock = self._client.socket()
        assert isinstance(sock, socket.socket)
        seen.append(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
        return out

    aiomqtt.Client.__aenter__ = spy  # type: ignore[method-assign]
    try:
        topic, payload = referee.build_command("nobody", "pause", "alice", b"k" * 32,
                                               {"reason": "x"})
        assert await referee.send("127.0.0.1", 1883, "nobody", topic, payload,
                                  timeout=0.5) is None
    finally:
        aiomqtt.Client.__aenter__ = real  # type: ignore[method-assign]
    assert seen and all(seen), seen
