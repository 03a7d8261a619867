"""Referee commands over MQTT (``cmd/<name>`` → ``reply/<client>``) for the table daemon: checked,
run through the input path (logged with their reply, in the group commit) and answered.

Nothing from outside reaches a topic or a reply unvalidated (daemon/commands.py), and no payload
ends the handler: an unexpected error is an ``internal`` refusal, a log line with the traceback
and a counter in ``health``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sqlite3
from collections.abc import Callable
from dataclasses import replace
from typing import Any, ParamSpec, Protocol, TypeVar

from daemon import commands as dcmd
from daemon.bounded_json import MAX_BYTES
from daemon.config import Config
from daemon.errors import CommandError
from daemon.eventlog import EventLog
from daemon.intake import Intake, RepeatedCommand, Submission
from daemon.log_sample import SampledLog
from daemon.mqtt import Incoming, Reply
from daemon.table import Applied, CommandStamp, TableCore
from daemon.topics import Topics
from daemon.tracking.records import KIND_INPUT, KIND_TIMER
from rules.inputs import Input, InputError, input_from_json
from rules.timers import Phase

P = ParamSpec("P")
T = TypeVar("T")

log = logging.getLogger("jantaku.daemon")

#: how long a referee command waits for a log that cannot be written before it is withdrawn
COMMAND_LOG_WAIT_S = 5.0


class DeskHost(Protocol):
    """What the desk uses of its service (daemon/service.py ``Service`` is the one host): the
    desk depends on this shape, not on the service module, so neither imports the other."""

    table_id: str
    topics: Topics
    config: Config
    core: TableCore
    eventlog: EventLog
    intake: Intake
    command_stats: dcmd.CommandStats
    _wall_ns: Callable[[], int]

    @property
    def sensorless(self) -> bool: ...

    async def db(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T: ...


class RefereeDesk:
    """The service's command handler (``BrokerLink``'s ``on_command``)."""

    def __init__(self, service: DeskHost) -> None:
        self.svc = service
        # a few lines a window, then a summary: refusals come in floods (the gate answers up
        # to 20 a second, daemon/command_gate.py)
        self.refusals = SampledLog(log, "command refusals", burst=20)
        self.unaddressed = SampledLog(log, "unaddressed commands", burst=20)

    def tick_logs(self) -> None:
        """The summary line of a window that suppressed any (the health loop, each tick)."""
        self.refusals.tick()
        self.unaddressed.tick()

    async def handle_command(self, incoming: Incoming) -> Reply | None:
        """Check and run one command; the reply, or ``None`` when it cannot be addressed.

        Nothing from outside reaches a topic or a reply unvalidated (daemon/commands.py), and
        no payload ends this handler: an unexpected error is an ``internal`` refusal, a log line
        with the traceback and a counter in ``health``."""
        name = self.svc.topics.command_name(incoming.topic)
        if name is None:
            self.svc.command_stats.unanswered += 1
            log.warning("not a command topic, no reply: %s",
                        incoming.topic.encode("ascii", "backslashreplace").decode()[:120])
            return None
        env = dcmd.peek(incoming.payload)
        reply_topic, topic_problem = self._reply_topic(incoming, env)
        try:
            if topic_problem is not None:
                raise CommandError("bad_reply_topic", topic_problem)
            body = await self._execute(name, incoming)
        except CommandError as exc:
            body = dcmd.reply_error(self.svc.table_id, name, env.id, exc.code, str(exc))
            self.svc.command_stats.refused[exc.code] += 1
            self.refusals.warning(
                exc.code, "command %s refused: %s",
                dcmd.echo_name(name),
                exc.code,
                extra={"fields": {"user": env.user, "command_id": env.id, "error": str(exc)}},
            )
        except Exception as exc:  # a bug must not end the broker task: refuse, say, count
            self.svc.command_stats.refused["internal"] += 1
            self.svc.command_stats.last_internal = ascii(exc)[:300]  # health is public
            log.exception(
                "command %s: internal error", dcmd.echo_name(name),
                extra={"fields": {"user": env.user, "command_id": env.id}},
            )
            body = dcmd.reply_error(
                self.svc.table_id, name, env.id, "internal",
                "the table could not check this command",
            )
        if reply_topic is None:
            self.svc.command_stats.unanswered += 1
            self.unaddressed.warning(
                "no_reply_address", "command %s: no valid reply address, no reply",
                dcmd.echo_name(name),
                extra={"fields": {"user": env.user, "command_id": env.id,
                                  "problem": topic_problem}},
            )
            return None
        return Reply(reply_topic, _dump_ascii(body), incoming.correlation)

    def _reply_topic(
        self, incoming: Incoming, env: dcmd.Envelope
    ) -> tuple[str | None, str | None]:
        """``(where the reply goes, why the response topic is refused)``: only
        ``jantaku/v1/<table>/reply/<client>`` with ``<client>`` one plain level."""
        fallback = self.svc.topics.reply(env.client) if env.client is not None else None
        rt = incoming.response_topic
        if rt is None or rt == "":
            return fallback, None
        prefix = self.svc.topics.reply("")
        if rt.startswith(prefix) and dcmd.plain_level(rt[len(prefix):]):
            return rt, None
        return fallback, f"replies go only to {prefix}<client> (one plain topic level)"

    async def _execute(self, name: str, incoming: Incoming) -> dict[str, Any]:
        now = self.svc._wall_ns()
        if incoming.refused is not None:
            raise self._gate_refusal(name, incoming, now / 1e9)
        cmd = dcmd.parse(name, incoming.topic, incoming.payload, self.svc.config.referee, now / 1e9)
        previous = await self.svc.db(self.svc.eventlog.command_reply, cmd.user, cmd.id)
        if previous is not None:
            return {**previous, "repeated": True}
        cmd = replace(cmd, args=dcmd.executed_args(cmd.name, cmd.args,
                                                   sensorless=self.svc.sensorless))
        act = dcmd.action(cmd)
        inp: Input | None = None
        if act.kind == KIND_INPUT:
            try:  # read once: the typed input rides on the stamp to the reducer
                inp = input_from_json(act.body)
            except InputError as exc:
                raise CommandError("bad_args", str(exc)) from None
            if cmd.name == "new_game":
                from rules.ruleset import RulesetError, load_ruleset

                try:
                    load_ruleset(cmd.args["ruleset"])
                except (RulesetError, OSError) as exc:
                    raise CommandError("bad_args", f"new_game: {exc}") from None
        else:
            clocks = self.svc.core.state.clocks
            if clocks.state is None or clocks.state.phase is not Phase.PLAYING:
                raise CommandError("not_applicable", f"{name}: no hand is being played")
            if (cmd.name == "pause") == clocks.state.paused:
                state = "paused" if clocks.state.paused else "not paused"
                raise CommandError("not_applicable", f"{name}: the clocks are {state}")
        if self.svc.intake.fault is not None:
            raise CommandError("unavailable", self._unavailable(name))
        kind = KIND_TIMER if act.kind == "timer" else KIND_INPUT
        # the (user, id) and the reply are committed with the input: a retry after any crash
        # finds them (the check is repeated inside the transaction, for a racing retry)
        stamp = CommandStamp(cmd.user, cmd.id, now, lambda applied: self._reply(cmd, applied),
                             inp)
        item = self.svc.intake.pending(kind, cmd.source, act.body, link=None, command=stamp)
        sub = await self.svc.intake.enqueue(item)
        try:
            applied: Applied = await self._wait_logged(name, sub)
        except RepeatedCommand as rep:
            return {**rep.reply, "repeated": True}
        except dcmd.EngineRefused as exc:
            # nothing logged: the same id may be sent again once the table allows it
            body = dcmd.reply_error(self.svc.table_id, name, cmd.id, exc.code, str(exc))
            body["violations"] = exc.violations
            self.svc.command_stats.refused[exc.code] += 1
            log.warning("command %s refused by the rules engine", name,
                        extra={"fields": {"user": cmd.user, "command_id": cmd.id,
                                          "violations": exc.violations}})
            return body
        reply = applied.reply
        assert reply is not None
        log.info(
            "command %s by %s: %s",
            name,
            cmd.user,
            reply["status"],
            extra={"fields": {"command_id": cmd.id, "input_seq": applied.record.seq}},
        )
        return reply

    def _gate_refusal(self, name: str, incoming: Incoming, now_wall: float) -> CommandError:
        """The reply's error for a message the command gate refused (daemon/command_gate.py):
        the full checks' own refusal where they find one (the precise message), else the
        gate's code. Never executed, whatever the full checks say."""
        code = incoming.refused or "refused"
        size = len(incoming.payload) if incoming.size is None else incoming.size
        if size > MAX_BYTES:
            return CommandError("too_large", f"the payload has {size} bytes (at most {MAX_BYTES})")
        if code == "rate_limited":
            bounds = self.svc.config.mqtt.commands
            return CommandError(code, f"more than {bounds.per_user_burst} commands at once or"
                                f" {bounds.per_user_per_second:g} a second from this user: send"
                                " it again (same id) in a few seconds")
        try:
            dcmd.parse(name, incoming.topic, incoming.payload, self.svc.config.referee, now_wall)
        except CommandError as exc:
            return exc
        return CommandError(code, f"refused by the command gate: {code}")

    async def _wait_logged(self, name: str, sub: Submission) -> Applied:
        """The command's outcome; if the log cannot be written for COMMAND_LOG_WAIT_S, the
        command is withdrawn (never applied) and refused, so the referee is not kept waiting."""
        while True:
            done, _ = await asyncio.wait([sub.done], timeout=COMMAND_LOG_WAIT_S)
            if done:
                result: Applied = sub.done.result()
                return result
            if self.svc.intake.fault is not None and self.svc.intake.withdraw(sub):
                raise CommandError("unavailable", self._unavailable(name))

    def _unavailable(self, name: str) -> str:
        fault = self.svc.intake.fault
        why = fault.error if fault is not None else "not writable"
        return (f"{name}: not applied: the event log cannot be written ({why}); send it again"
                " (same id) when health shows the log writable")

    def _reply(self, cmd: dcmd.Command, applied: Applied) -> dict[str, Any]:
        """A command's reply from what its input did (runs in the group commit)."""
        violations = [e["data"] for e in applied.events if e["type"] == "violation"]
        reply = dcmd.reply_ok(
            self.svc.table_id, cmd, applied.record.seq, [e["seq"] for e in applied.events],
            violations,
        )
        return reply

    async def prune_commands(self) -> None:
        """Forget command ids that can no longer be replayed: a command is accepted while its
        signed ``ts`` is within ``max_skew_seconds`` of the table's clock, so one received at R
        cannot come again after R + 2 * skew (one more minute of margin for clock steps)."""
        horizon = int((2 * self.svc.config.referee.max_skew_seconds + 60) * 1e9)
        try:
            n = await self.svc.db(self.svc.eventlog.forget_commands, self.svc._wall_ns() - horizon)
        except (sqlite3.Error, OSError) as exc:
            log.warning("command ids not pruned: %s", exc)
            return
        if n:
            log.info("forgot %d referee command ids past the freshness window", n)


def _dump_ascii(body: dict[str, Any]) -> bytes:
    """A reply: ASCII JSON, so no string in it can fail to encode."""
    return json.dumps(body, separators=(",", ":"), ensure_ascii=True).encode()
