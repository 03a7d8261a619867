"""``jantaku follow``: every event of a table, once each, in ``seq`` order, gaps filled from the
table's own log (docs/mqtt.md "Backfill"), then live.

The reference consumer (a central archive, a score display): it prints each event as one JSON
line, the envelope as published (with its ``seq``), strictly in ``seq`` order and each exactly
once, from ``--from-seq`` (default 1: everything the table's log holds). It keeps no broker
session of its own: every (re)connection asks the table for what it has not printed, so a broker
restart, its own absence or a lost message leaves no gap.

Exit status: 0 once ``--until-seq`` is printed, or after ``--idle-exit`` seconds without a new
event; 2 on bad arguments. While the table is offline (its retained ``status``) or the broker
unreachable it says so on stderr and waits.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HELP_EPILOG = """\
examples:
  jantaku follow --table t01 --idle-exit 5
  jantaku follow --table t01 --mqtt-host 127.0.0.1 --mqtt-port 1883 --from-seq 1042
  jantaku follow --table t01 --private --username referee.alice --password-file alice.pass \
      --from-seq 1 --until-seq 500
"""

#: a backfill request not answered within this is sent again
REQUEST_TIMEOUT_S = 5.0
#: live events held while a gap before them is filled (beyond: asked again later)
MAX_BUFFER = 20000
TICK_S = 0.2


@dataclass(frozen=True, slots=True)
class Options:
    table: str
    host: str
    port: int
    username: str | None
    password: str | None
    private: bool
    from_seq: int
    until_seq: int | None
    idle_exit: float | None


class _Finished(Exception):
    """``--until-seq`` printed, or ``--idle-exit`` elapsed."""


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="jantaku follow", description=__doc__.split("\n\n")[0],
        epilog=HELP_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--table", required=True, metavar="ID", help="the table id (jantaku/v1/<ID>/)")
    p.add_argument("--mqtt-host", default="127.0.0.1", metavar="H",
                   help="the broker's host (default 127.0.0.1)")
    p.add_argument("--mqtt-port", type=int, default=1883, metavar="P",
                   help="the broker's port (default 1883)")
    p.add_argument("--username", metavar="U", help="broker account (with --password-file)")
    p.add_argument("--password-file", type=Path, metavar="F",
                   help="a file whose first line is the account's password")
    p.add_argument("--private", action="store_true",
                   help="the full stream (private/events): referee and broadcast.delay accounts")
    p.add_argument("--from-seq", type=int, default=1, metavar="N",
                   help="the first seq to print (default 1: all the table's log holds)")
    p.add_argument("--until-seq", type=int, metavar="M", help="exit 0 once seq M is printed")
    p.add_argument("--idle-exit", type=float, metavar="S",
                   help="exit 0 after S seconds without a new event")
    return p


def options(argv: list[str]) -> Options:
    """The checked arguments (argparse exits 2 with a usage line on a bad one)."""
    p = parser()
    a = p.parse_args(argv)
    if not a.table or any(c in a.table for c in "/+#") or len(a.table) > 64:
        p.error(f"--table: expected a table id (no '/', '+', '#'), got {a.table!r}")
    if not 0 < a.mqtt_port < 65536:
        p.error(f"--mqtt-port: expected 1..65535, got {a.mqtt_port}")
    if (a.username is None) != (a.password_file is None):
        p.error("--username and --password-file go together")
    if a.from_seq < 1:
        p.error(f"--from-seq: expected an integer >= 1, got {a.from_seq}")
    if a.until_seq is not None and a.until_seq < a.from_seq:
        p.error(f"--until-seq: expected an integer >= --from-seq ({a.from_seq}), got {a.until_seq}")
    if a.idle_exit is not None and not a.idle_exit > 0:
        p.error(f"--idle-exit: expected a number of seconds > 0, got {a.idle_exit}")
    password = None
    if a.password_file is not None:
        try:
            lines = a.password_file.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            p.error(f"--password-file: cannot read {a.password_file}: {exc}")
        password = lines[0] if lines else ""
    return Options(a.table, a.mqtt_host, a.mqtt_port, a.username, password, a.private,
                   a.from_seq, a.until_seq, a.idle_exit)


def _line(event: dict[str, Any]) -> str:
    """The envelope as the daemon encodes every payload (daemon/outbox.py ``dumps``)."""
    return json.dumps(event, separators=(",", ":"), ensure_ascii=False)


class Follower:
    """The ordering, the gap filling and the exits; one MQTT connection at a time."""

    def __init__(self, opts: Options, out: Any = None) -> None:
        from daemon.topics import Topics

        self.o = opts
        self.topics = Topics(opts.table)
        self.client_id = opts.username or f"follow-{os.getpid()}-{time.monotonic_ns() % 10**9}"
        self.events_topic = self.topics.private_events if opts.private else self.topics.events
        self.reply_topic = self.topics.backfill_reply(self.client_id, private=opts.private)
        self.request_topic = self.topics.backfill_request(self.client_id, private=opts.private)
        self.out = out or sys.stdout
        self.next = opts.from_seq
        self.held: dict[int, str] = {}
        self.known_last = 0  # the newest seq the table is known to have
        self.pending: tuple[str, float] | None = None  # (request id, sent at)
        self.retry_at = 0.0
        self.asked_at = 0.0
        self.requests = 0
        self.last_new = time.monotonic()
        self.table_state: str | None = None
        self.said: str | None = None

    # ------------------------------------------------------------------ output
    def say(self, text: str) -> None:
        """One line on stderr, once per change of what there is to say."""
        if text != self.said:
            self.said = text
            print(f"jantaku follow: {text}", file=sys.stderr, flush=True)

    def take(self, event: object) -> None:
        """An event from the live stream or a backfill reply: printed when it is the next,
        held when it is later, dropped when it is already printed."""
        if not isinstance(event, dict) or event.get("table") != self.o.table:
            return
        seq = event.get("seq")
        if not isinstance(seq, int) or isinstance(seq, bool) or seq < self.next:
            return
        self.known_last = max(self.known_last, seq)
        if self.o.until_seq is not None and seq > self.o.until_seq:
            return
        if seq not in self.held and len(self.held) < MAX_BUFFER:
            self.held[seq] = _line(event)
        while self.next in self.held:
            self.out.write(self.held.pop(self.next) + "\n")
            self.out.flush()
            self.last_new = time.monotonic()
            if self.o.until_seq is not None and self.next == self.o.until_seq:
                raise _Finished
            self.next += 1

    # ------------------------------------------------------------------ backfill
    def want(self) -> bool:
        """Whether events before what is held (or the table's newest) are missing."""
        return self.next <= self.known_last and self.next not in self.held

    async def ask(self, client: Any, *, force: bool = False) -> None:
        """Ask the table from ``next`` on when a gap is known, when the last request went
        unanswered, and every :data:`REQUEST_TIMEOUT_S` anyway: a lost tail with nothing
        after it shows no gap in the live stream."""
        now = time.monotonic()
        if self.pending is not None:
            if now - self.pending[1] < REQUEST_TIMEOUT_S:
                return
            if self.table_state not in (None, "online"):
                self.say(f"table {self.o.table} is {self.table_state} (its retained status): "
                         "waiting for it to answer")
            force = True
        elif now - self.asked_at >= REQUEST_TIMEOUT_S:
            force = True
        if not (force or self.want()) or now < self.retry_at:
            return
        self.asked_at = now
        self.requests += 1
        rid = f"{self.client_id}-{os.getpid()}-{self.requests}"
        body: dict[str, Any] = {"schema": "jantaku/backfill-request/1", "id": rid,
                                "from_seq": self.next}
        if self.o.until_seq is not None:
            body["until_seq"] = self.o.until_seq
        self.pending = (rid, now)
        await client.publish(self.request_topic, json.dumps(body).encode(), qos=1)

    def answered(self, body: dict[str, Any]) -> None:
        """A backfill reply: its events are taken whatever request they answer; the end or the
        refusal of the pending one lets the next request go."""
        events = body.get("events")
        for event in events if isinstance(events, list) else ():
            self.take(event)
        last = body.get("last_seq")
        if isinstance(last, int) and not isinstance(last, bool):
            self.known_last = max(self.known_last, last)
        if self.pending is None or body.get("id") != self.pending[0]:
            return
        if body.get("status") == "error":
            err = body.get("error") if isinstance(body.get("error"), dict) else {}
            code = err.get("code") if isinstance(err, dict) else None
            if code != "busy":
                self.say(f"table {self.o.table} refused the backfill: {code}: "
                         f"{err.get('message') if isinstance(err, dict) else ''}")
            self.pending = None
            self.retry_at = time.monotonic() + (1.0 if code == "busy" else REQUEST_TIMEOUT_S)
        elif body.get("final") is True:
            self.pending = None

    # ------------------------------------------------------------------ the connection
    def on_message(self, topic: str, payload: bytes) -> None:
        try:
            body = json.loads(payload)
        except (ValueError, UnicodeDecodeError):
            return
        if not isinstance(body, dict):
            return
        if topic == self.topics.status:
            state = body.get("state")
            self.table_state = state if isinstance(state, str) else None
            if self.table_state != "online":
                self.say(f"table {self.o.table} is {self.table_state} (retained status, since "
                         f"{body.get('since')}): waiting for it")
            else:
                self.say(f"table {self.o.table} is online")
        elif topic == self.reply_topic:
            self.answered(body)
        elif topic == self.events_topic:
            self.take(body)

    async def session(self) -> None:
        import aiomqtt

        async with aiomqtt.Client(
            self.o.host, self.o.port, username=self.o.username, password=self.o.password,
            identifier=self.client_id, protocol=aiomqtt.ProtocolVersion.V5, clean_start=True,
            keepalive=10, timeout=10,
        ) as client:
            for topic in (self.reply_topic, self.events_topic, self.topics.status):
                await client.subscribe(topic, qos=1)
            self.say(f"connected to {self.o.host}:{self.o.port}")
            self.pending = None
            await self.ask(client, force=True)  # what was missed while away
            async with asyncio.TaskGroup() as tg:
                tg.create_task(self._read(client))
                tg.create_task(self._tick(client))

    async def _read(self, client: Any) -> None:
        async for m in client.messages:
            if isinstance(m.payload, bytes):
                self.on_message(str(m.topic), m.payload)

    async def _tick(self, client: Any) -> None:
        began = time.monotonic()
        while True:
            self.idle()
            if self.table_state is None and time.monotonic() - began > 2.0:
                self.say(f"no retained status for table {self.o.table} on this broker: the "
                         "table has never connected here (or the id is wrong); waiting")
            await self.ask(client)
            await asyncio.sleep(TICK_S)

    def idle(self) -> None:
        if self.o.idle_exit is not None and time.monotonic() - self.last_new >= self.o.idle_exit:
            raise _Finished

    async def run(self) -> int:
        import aiomqtt

        delay = 0.2
        while True:
            finished = False
            try:
                await self.session()
            except* _Finished:
                finished = True
            except* (aiomqtt.MqttError, OSError) as group:
                self.say(f"broker {self.o.host}:{self.o.port} not reachable: "
                         f"{group.exceptions[0]}; retrying")
            if finished:
                return 0
            deadline = time.monotonic() + delay
            while time.monotonic() < deadline:
                try:
                    self.idle()
                except _Finished:
                    return 0
                await asyncio.sleep(min(TICK_S, delay))
            delay = min(delay * 2, 5.0)


def main(argv: list[str]) -> int:
    opts = options(argv)
    try:
        return asyncio.run(Follower(opts).run())
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
