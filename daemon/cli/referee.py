"""``jantaku referee``: send a signed referee command to a table and print its reply.

    jantaku referee --table t01 --host broker.local --user alice --password-file ~/.jantaku-pw \\
        set_scores scores='[25000,25000,30000,20000]' reason='miscounted sticks'
    jantaku referee --table t01 --host broker.local --user alice new_game --args @game.json
    jantaku referee --table t01 --user alice manual_result \
        --args '{"kind":"ron","riichi":[1],"wins":[{"winner":1,"loser":2,"han":3,"fu":30}],
                 "reason":"E1"}'
    jantaku referee hash --user alice            # password on stdin -> the config's key line

``key=value`` arguments are parsed as JSON where they can be (numbers, lists, true/false) and as
strings otherwise; ``--args`` takes a JSON object (or ``@file``). The password comes from
``--password-file`` or ``$JANTAKU_REFEREE_PASSWORD`` (never from the command line). At a table
without sensors each hand begins by itself: one ``manual_result`` (or ``chombo``) per hand, nothing
between (docs/mqtt.md "A table without sensors"). Exit status:
0 ok, 1 the table refused the command, 2 usage, 3 no reply in time, 4 no broker.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import json
import os
import secrets
import socket
import ssl
import sys
import time
from pathlib import Path
from typing import Any

from daemon import auth
from daemon.config import COMMANDS
from daemon.errors import UsageError
from daemon.topics import SCHEMA_COMMAND, Topics


def parse_args_list(items: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items:
        if "=" not in item:
            raise UsageError(f"expected key=value, got {item!r}")
        key, text = item.split("=", 1)
        try:
            out[key] = json.loads(text)
        except ValueError:
            out[key] = text
    return out


def build_command(
    table: str,
    name: str,
    user: str,
    key: bytes,
    args: dict[str, Any],
    *,
    cid: str | None = None,
    client: str | None = None,
    ts: float | None = None,
) -> tuple[str, dict[str, Any]]:
    """``(topic, signed payload)`` for a command."""
    topic = Topics(table).cmd(name)
    payload: dict[str, Any] = {
        "schema": SCHEMA_COMMAND,
        "id": cid or secrets.token_hex(8),
        "user": user,
        "ts": round(time.time() if ts is None else ts, 3),
        "args": args,
    }
    if client is not None:
        payload["client"] = client
    return topic, auth.sign(key, topic, payload)


async def send(
    host: str,
    port: int,
    table: str,
    topic: str,
    payload: dict[str, Any],
    *,
    protocol: str = "5",
    timeout: float = 10.0,
    username: str | None = None,
    password: str | None = None,
    tls: ssl.SSLContext | None = None,
    client_id: str | None = None,
) -> dict[str, Any] | None:
    """Publish one command and wait for its reply (``None``: no reply within ``timeout``)."""
    import aiomqtt
    from paho.mqtt.packettypes import PacketTypes
    from paho.mqtt.properties import Properties

    # with a username, the shipped broker makes it the client id (use_username_as_clientid)
    client = client_id or username or payload.get("client") or f"referee-{secrets.token_hex(4)}"
    reply_topic = Topics(table).reply(client)
    v5 = protocol == "5"
    async with aiomqtt.Client(
        host,
        port,
        identifier=client,
        username=username,
        password=password,
        protocol=aiomqtt.ProtocolVersion.V5 if v5 else aiomqtt.ProtocolVersion.V311,
        tls_context=tls,
        timeout=timeout,
        # one small command and its reply: without this, delayed ACKs add ~40 ms per round trip
        socket_options=((socket.IPPROTO_TCP, socket.TCP_NODELAY, 1),),
    ) as mqtt:
        await mqtt.subscribe(reply_topic, qos=1)
        props = None
        if v5:
            props = Properties(PacketTypes.PUBLISH)  # type: ignore[no-untyped-call]
            props.ResponseTopic = reply_topic
            props.CorrelationData = str(payload["id"]).encode()
        await mqtt.publish(topic, json.dumps(payload).encode(), qos=1, properties=props)
        try:
            async with asyncio.timeout(timeout):
                async for message in mqtt.messages:
                    if not isinstance(message.payload, bytes):
                        continue
                    body = json.loads(message.payload)
                    if isinstance(body, dict) and body.get("id") == payload["id"]:
                        return body
        except TimeoutError:
            return None
    return None


def _password(args: argparse.Namespace) -> str:
    if args.password_file:
        return Path(args.password_file).read_text(encoding="utf-8").strip()
    env = os.environ.get("JANTAKU_REFEREE_PASSWORD")
    if env:
        return env
    return getpass.getpass(f"password for {args.user}: ")


def _hash(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="jantaku referee hash")
    parser.add_argument("--user", required=True)
    parser.add_argument("--iterations", type=int, default=auth.DEFAULT_ITERATIONS)
    args = parser.parse_args(argv)
    password = sys.stdin.readline().rstrip("\n") if not sys.stdin.isatty() else getpass.getpass()
    if not password:
        print("jantaku referee hash: empty password", file=sys.stderr)
        return 2
    print(f'key = "{auth.format_key(args.user, password, args.iterations)}"')
    return 0


def main(argv: list[str]) -> int:
    if argv[:1] == ["hash"]:
        return _hash(argv[1:])
    parser = argparse.ArgumentParser(prog="jantaku referee", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--table", required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=1883)
    parser.add_argument("--protocol", choices=("5", "3.1.1"), default="5")
    parser.add_argument("--user", required=True, help="the referee user (config referee.users)")
    parser.add_argument("--password-file")
    parser.add_argument("--iterations", type=int, default=auth.DEFAULT_ITERATIONS)
    parser.add_argument("--mqtt-user")
    parser.add_argument("--mqtt-password-file")
    parser.add_argument("--tls-ca")
    parser.add_argument("--timeout", type=float, default=10.0)
    parser.add_argument("--args", dest="json_args", help="a JSON object, or @file")
    parser.add_argument("command", choices=COMMANDS)
    parser.add_argument("pairs", nargs="*", metavar="key=value")
    args = parser.parse_args(argv)
    try:
        cargs = parse_args_list(args.pairs)
        if args.json_args:
            text = args.json_args
            if text.startswith("@"):
                text = Path(text[1:]).read_text(encoding="utf-8")
            extra = json.loads(text)
            if not isinstance(extra, dict):
                raise UsageError("--args must be a JSON object")
            cargs.update(extra)
    except (ValueError, OSError) as exc:
        print(f"jantaku referee: {exc}", file=sys.stderr)
        return 2
    key = auth.derive_key(args.user, _password(args), args.iterations)
    # The shipped broker makes the client id the MQTT username (use_username_as_clientid), and
    # its ACL lets a client read only reply/<its client id>: so with a username, that is the id.
    client = args.mqtt_user or f"referee-{args.user}-{secrets.token_hex(3)}"[:64]
    topic, payload = build_command(args.table, args.command, args.user, key, cargs, client=client)
    mqtt_password = None
    if args.mqtt_password_file:
        mqtt_password = Path(args.mqtt_password_file).read_text(encoding="utf-8").strip()
    tls = ssl.create_default_context(cafile=args.tls_ca) if args.tls_ca else None
    import aiomqtt

    try:
        reply = asyncio.run(
            send(
                args.host,
                args.port,
                args.table,
                topic,
                payload,
                protocol=args.protocol,
                timeout=args.timeout,
                username=args.mqtt_user,
                password=mqtt_password,
                tls=tls,
                client_id=client,
            )
        )
    except aiomqtt.MqttError as exc:
        print(f"jantaku referee: broker {args.host}:{args.port}: {exc}", file=sys.stderr)
        return 4
    if reply is None:
        print(f"jantaku referee: no reply from table {args.table} in {args.timeout} s",
              file=sys.stderr)
        return 3
    print(json.dumps(reply, ensure_ascii=False, indent=2))
    return 0 if reply.get("status") == "ok" else 1
