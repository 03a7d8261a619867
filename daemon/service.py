"""The table daemon: drivers → inputs → event log → reducer → events → MQTT outbox and effects.

Tasks (all named, one asyncio loop; SQLite runs on one database thread so a long read never
stalls the loop, a group commit inline while the disk is quick: :mod:`daemon.log_gate`):

* ``inputs``: takes submissions from the input queue in arrival order, logs and applies each
  (:class:`~daemon.table.TableCore`), wakes the outbox, refreshes the retained state, drives the
  effects (displays, buzzer);
* ``mqtt``: :class:`~daemon.mqtt.BrokerLink` (reconnect loop, outbox, retained, commands);
* one task per driver (table link, buttons), each feeding the input queue;
* ``health``: publishes ``health`` and ``state/timers``, feeds the systemd watchdog only while the
  inputs, drivers and MQTT tasks are healthy.
* ``backfill``: answers requests for past events (:mod:`daemon.backfill`, docs/mqtt.md).

READY=1 goes to systemd once the log is recovered, the drivers are started and the broker is
connected -- or after ``ready_timeout`` seconds without a broker, because a table must play on
without one (the outbox keeps every event until the broker is back).
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import socket
import time
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from typing import Any, ParamSpec, Protocol, TypeVar

from daemon import clocks as dc
from daemon import commands as dcmd
from daemon.backfill import Backfill
from daemon.clock_sync import read_clock
from daemon.command_intake import CommandIntake
from daemon.config import Config
from daemon.engine import Engine
from daemon.eventlog import EventLog, boot_id
from daemon.intake import Intake
from daemon.log_audit import LogAudit
from daemon.log_gate import LogGate
from daemon.log_values import LinkPosition
from daemon.mqtt import BrokerLink, Incoming, Reply
from daemon.outbox import LogOutbox
from daemon.referee_desk import RefereeDesk
from daemon.retained import RetainedState
from daemon.sdnotify import Notifier, watchdog_interval
from daemon.supervisor import Supervisor
from daemon.table import Applied, TableCore, iso
from daemon.topics import SCHEMA_HEALTH, SCHEMA_LINKS, Topics
from daemon.tracking.records import KIND_MARKER, Body, Entry
from daemon.wal_checkpoint import BACKSTOP_PAGES, WalCheckpointer
from daemon.web.listener import WebStats
from rules.table_state import TableState
from rules.timers import Phase

log = logging.getLogger("jantaku.daemon")

P = ParamSpec("P")
T = TypeVar("T")
VERSION = "0.1.0"


#: how often the seen referee command ids are pruned
PRUNE_EVERY_S = 60.0
#: how often the health loop wakes (watchdog, health on a connection change, clocks at 1 Hz)
HEALTH_TICK_S = 1.0


class InputSink(Protocol):
    """What the drivers see of the service: the input intake and the table's state."""

    def put(
        self, kind: str, source: str, body: Body, mono_ns: int | None = None
    ) -> asyncio.Future[Applied]: ...

    async def submit(
        self, kind: str, source: str, body: Body, *, mono_ns: int | None = None,
        link: LinkPosition | None = None,
    ) -> Applied: ...

    async def mark_link(self, position: LinkPosition) -> None: ...

    async def link_position(self, name: str) -> LinkPosition | None: ...

    def table_state(self) -> TableState: ...

    async def game_records(self) -> list[Entry]: ...

    def timers_state(self) -> dc.Clocks: ...


class _Submit(Protocol):
    """:meth:`InputSink.submit` (:meth:`daemon.intake.Intake.submit`)."""

    def __call__(
        self, kind: str, source: str, body: Body, mono_ns: int | None = None, *,
        link: LinkPosition | None = None,
    ) -> Coroutine[Any, Any, Applied]: ...


class Driver(Protocol):
    """A device adapter: feeds inputs, shows effects, reports health."""

    name: str

    async def run(self, sink: InputSink) -> None: ...

    async def show(self, board: dict[str, Any], events: Sequence[dict[str, Any]]) -> None:
        """After a group commit: ``board`` is the scoreboard (rules.table_view.scoreboard:
        names, scores, dealer, round_wind, honba, deposits), ``events`` the new events."""
        ...

    def health(self) -> dict[str, Any]: ...


@dataclass(slots=True)
class _Stats:
    started_mono: float = field(default_factory=time.monotonic)
    ready_mono: float | None = None
    inputs: int = 0
    last_event: dict[str, Any] | None = None
    db_error: str | None = None  # the log's reading thread failed (not a refused write)


class Service:
    def __init__(
        self,
        config: Config,
        engine: Engine,
        *,
        drivers: Sequence[Driver] = (),
        notifier: Notifier | None = None,
        ready_timeout: float = 5.0,
        db_timeout: float = 5.0,
        mqtt_backoff: tuple[float, float] = (0.2, 5.0),
        wall_ns: Callable[[], int] = time.time_ns,
        mono_ns: Callable[[], int] = time.monotonic_ns,
        web_sockets: list[socket.socket] | None = None,
    ) -> None:
        self.config = config
        #: the web listeners ``jantaku run`` bound before READY (daemon/preflight.py); None:
        #: the web task binds ``[web]``'s port itself
        self.web_sockets = web_sockets
        self.web_stats = WebStats()
        self.table_id = config.table.id
        self.topics = Topics(self.table_id)
        self.engine = engine
        self.drivers = list(drivers)
        self.notifier = notifier or Notifier()
        self.ready_timeout = ready_timeout
        self.db_timeout = db_timeout
        self._wall_ns = wall_ns
        self._mono_ns = mono_ns
        self.boot = boot_id()
        self.stats = _Stats()
        self.eventlog = EventLog(config.eventlog.path, self.table_id)
        self.gate = LogGate(self.table_id, in_use=self.eventlog.in_use)
        self.eventlog.checkpoint_pages(BACKSTOP_PAGES)
        self.core = TableCore(
            self.eventlog,
            engine,
            self.table_id,
            checkpoint_every=config.eventlog.checkpoint_every,
        )
        self.intake = Intake(
            self.core, self.gate.quick, self.boot, mono_ns=mono_ns, wall_ns=wall_ns,
            on_applied=self._applied, on_committed=self._committed,
        )
        self.queue = self.intake.queue
        #: queue an input (waiting for room: back-pressure) and wait until it is committed and
        #: applied; ``mono_ns``: when the device saw it (default: now); ``link``: the table
        #: link's position after it, committed with it. The intake's own method, bound here:
        #: a table event's submission is one coroutine, not two
        self.submit: _Submit = self.intake.submit
        # the seal moved on after each checkpoint; the whole log read after READY (log_audit.py)
        self.audit = LogAudit(self.eventlog, f"--config {config.source}")
        self.wal = WalCheckpointer(config.eventlog.path, self.table_id,
                                   lambda: self.intake.counters.groups,
                                   after=self.audit.after_checkpoint)
        self.outbox = LogOutbox(self.db, self.eventlog, self.topics.events, quick=self.gate.quick)
        self.desk = RefereeDesk(self)
        #: set after every group commit (the table's state moved): what wakes the web views
        self.changed = asyncio.Event()
        self.link = BrokerLink(
            config.mqtt,
            config.client_id,
            self.topics,
            self.outbox,
            backoff=mqtt_backoff,
            log_seq=lambda: self.core.state.event_seq,
            accept=f"--config {config.source}",
        )
        self.commands = CommandIntake(
            config.mqtt, config.client_id, self.topics, config.referee, self.handle_command,
            self.link, wall=lambda: self._wall_ns() / 1e9, backoff=mqtt_backoff,
        )
        self.link.commands = self.commands
        self.backfill = Backfill(self.topics, config.eventlog.path, engine,
                                 lambda: self.core.state.event_seq)
        if self.commands.own:  # read beside the commands, off the main connection
            self.commands.requests = self.backfill
            self.backfill.connection = "own"
        else:
            self.link.requests = self.backfill
        self.retained = RetainedState(
            self.core, self.link, self.topics, interval=config.mqtt.state_interval,
            last_event=lambda: self.stats.last_event, wall_ns=wall_ns, mono_ns=mono_ns,
        )
        self._stop = asyncio.Event()
        #: the last commit's events were published in its step (:meth:`_committed`)
        self._published = False
        self.command_stats = dcmd.CommandStats()
        self.supervisor = Supervisor(fatal=self._fatal, stopping=self._stop.is_set,
                                     optional=frozenset({"web"}))
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self.ready = asyncio.Event()
        self._ready_task: asyncio.Task[None] | None = None

    # ------------------------------------------------------------------ helpers
    async def db(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        return await self.gate.run(fn, *args, **kwargs)

    def context(self) -> dict[str, Any]:
        cs = self.core.state
        return {
            "table": self.table_id,
            "game": cs.game or None,
            "hand": cs.hand,
            "seq": cs.event_seq or None,
        }

    def put(
        self,
        kind: str,
        source: str,
        body: Body,
        mono_ns: int | None = None,
    ) -> asyncio.Future[Applied]:
        """Queue an input (timestamped now, or at ``mono_ns`` when the driver saw it earlier)
        without waiting for room: the future fails if the intake's queue is full."""
        return self.intake.put(kind, source, body, mono_ns)

    async def mark_link(self, position: LinkPosition) -> None:
        await self.intake.mark_link(position)

    async def link_position(self, name: str) -> LinkPosition | None:
        return await self.db(self.eventlog.link_position, name)

    def table_state(self) -> TableState:
        return self.core.state.table

    async def game_records(self) -> list[Entry]:
        """The logged records of the game being played, inputs typed (none before the first
        game): at a restart, the ones the core's recovery read already (TableCore.game_entries)."""
        return await self.db(self.core.game_entries)

    def timers_state(self) -> dc.Clocks:
        return self.core.state.clocks

    @property
    def sensorless(self) -> bool:
        """No table data link: the referee records every hand's result (docs/console.md)."""
        return self.config.devices.table.kind == "none"

    @property
    def controller_notices(self) -> list[str]:
        """What the table's controller said about itself (a reset, a bad config.json)."""
        for driver in self.drivers:
            reports = getattr(driver, "controller", None)
            if reports is not None:
                return list(reports.notices)
        return []

    def stop(self) -> None:
        self._stop.set()

    # ------------------------------------------------------------------ run
    async def run(self) -> int:
        """Run until :meth:`stop` (or SIGTERM/SIGINT when ``install_signals`` was called)."""
        self.notifier.status("recovering the event log")
        recovery = await self.db(self.core.recover)
        log.info(
            "event log recovered",
            extra={
                "fields": {
                    "inputs": recovery.inputs,
                    "replayed": recovery.replayed,
                    "checkpoint": recovery.checkpoint,
                    "completed": recovery.completed,
                }
            },
        )
        clocks = self.core.state.clocks
        if clocks.state is not None and clocks.state.phase is Phase.PLAYING:
            # the clocks stop at the last logged input and run again from here (rules.timers);
            # queued first, before any driver's input (and retried like them on a full disk)
            self.put(KIND_MARKER, "daemon", {"type": "restart"})
        self.retained.refresh()
        self._spawn("inputs", self.intake.run)
        self._spawn("mqtt", self.link.run)
        self._spawn("commands", self.commands.run)
        for driver in self.drivers:
            self._spawn(f"driver:{driver.name}", lambda d=driver: d.run(self))  # type: ignore[misc]
        self._spawn("health", self._health_loop)
        self._spawn("wal", self.wal.run)
        self._spawn("audit", lambda: self.audit.run(self.ready))
        self._spawn("backfill", lambda: self.backfill.run(self.link.publish_reply))
        if self.config.web is not None:
            from daemon.web.runtime import run_web

            web = self.config.web
            self._spawn("web", lambda: run_web(self, web, self.table_id, stats=self.web_stats,
                                               sockets=self.web_sockets))
        self._ready_task = asyncio.create_task(self._ready_when_up(), name="ready")
        stop = asyncio.create_task(self._stop.wait(), name="stop")
        try:
            while not self._stop.is_set():
                done, _ = await asyncio.wait(
                    [stop, *self._tasks.values()], return_when=asyncio.FIRST_COMPLETED
                )
                if self._stop.is_set():
                    break
                for task in done:
                    exc = None if task.cancelled() else task.exception()
                    log.error("task %s ended: %r", task.get_name(), exc)
                    return 1
        finally:
            await self._shutdown(stop)
        return 0

    def _spawn(self, name: str, factory: Callable[[], Coroutine[Any, Any, None]]) -> None:
        """Run a task under the supervisor: restarted with backoff if it dies (health
        ``tasks``); only an event log that cannot be written ends the daemon."""
        self._tasks[name] = asyncio.create_task(
            self.supervisor.supervise(name, factory), name=name
        )

    def _fatal(self, name: str, exc: BaseException) -> bool:
        return name == "inputs" and self.stats.db_error is not None

    async def _shutdown(self, stop: asyncio.Task[Any]) -> None:
        # First: a start that fails (a task ends before the broker answered) must not tell
        # systemd READY=1 after STOPPING=1 while the bounded waits below run.
        if self._ready_task is not None:
            self._ready_task.cancel()
        self.notifier.stopping("stopping")
        stop.cancel()
        # let queued inputs be logged first: nothing accepted is dropped
        # (asyncio.wait, not wait_for: Python 3.11's wait_for can swallow a cancellation)
        join = asyncio.create_task(self.queue.join())
        await asyncio.wait([join], timeout=5.0)
        join.cancel()
        self.retained.flush()  # the state a rate limit was holding back goes out now
        # give the broker the events already logged (bounded: they stay in the outbox anyway)
        deadline = time.monotonic() + 3.0
        while self.link.connected and time.monotonic() < deadline:
            if await self.db(self.eventlog.outbox_depth) == 0:
                break
            await asyncio.sleep(0.05)
        self.link.stop()
        mqtt = self._tasks.get("mqtt")
        if mqtt is not None:
            await asyncio.wait([mqtt], timeout=6.0)
        for task in self._tasks.values():
            task.cancel()
        _, stuck = await asyncio.wait(self._tasks.values(), timeout=5.0)
        for task in stuck:
            log.error("task %s did not stop", task.get_name())
        try:
            await self.outbox.flush()  # the acknowledged rows a delay was holding
            await self.db(self.core.checkpoint)
            await self.wal.last()  # and the seal moved to the end: the next start reads nothing
            await self.db(self.eventlog.close)
        except Exception:  # a broken log: the next start replays it, or says why it cannot
            log.exception("could not close the event log cleanly")
        self.gate.shutdown()
        self.audit.close()
        self.wal.close()
        log.info("stopped")

    def install_signals(self) -> None:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, self.stop)

    async def _ready_when_up(self) -> None:
        deadline = time.monotonic() + self.ready_timeout

        def up() -> bool:  # the broker, and the commands' own connection where they have one
            return self.link.connected and (not self.commands.own
                                            or self.commands.subscribed.is_set())

        while not up() and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        self.stats.ready_mono = time.monotonic()
        self.ready.set()
        broker = "broker connected" if self.link.connected else "broker not reachable yet"
        self.notifier.ready(f"table {self.table_id}: playing; {broker}")
        log.info("ready (%s)", broker)

    # ------------------------------------------------------------------ inputs
    def _committed(self, applied: list[Applied]) -> None:
        """Right after a group commit, before its submitters are answered: hand the events to
        the outbox, which publishes them now (a link that keeps up) or wakes its task, which
        then runs before the drivers' acknowledgements."""
        for a in applied:
            if a.events:
                self.backfill.remember(applied)
                self.outbox.offer(applied)
                self._published = self.link.notify_outbox()
                break
        self.changed.set()  # after the outbox: its task runs first

    async def _applied(self, applied: list[Applied]) -> None:
        """After a group commit (the outbox has its events: :meth:`_committed`): let the outbox
        task publish them first, unless they are on the wire already, then refresh the
        retained state and drive the effects."""
        # (a group of one, the usual: its own tuple, not a list comprehension's copy)
        events: Sequence[dict[str, Any]] = (
            applied[0].events if len(applied) == 1 else [e for a in applied for e in a.events])
        self.stats.inputs += len(applied)
        if events:
            self.stats.last_event = events[-1]
            if not self._published:
                await asyncio.sleep(0)  # the outbox task runs now: the events are on the wire
            self._published = False
        board = self.retained.refresh()
        if events:
            for driver in self.drivers:
                try:
                    await driver.show(board, events)
                except Exception:
                    log.exception("driver %s could not show the state", driver.name)

    def _refresh_timers(self) -> None:
        self.retained.refresh_timers()

    def health(self) -> dict[str, Any]:
        cs = self.core.state
        links = {d.name: d.health() for d in self.drivers}
        last = self.stats.last_event
        return {
            "schema": SCHEMA_HEALTH,
            "table": self.table_id,
            "ts": iso(self._wall_ns()),
            "version": VERSION,
            "pid": os.getpid(),
            "uptime_s": round(time.monotonic() - self.stats.started_mono, 1),
            "healthy": self.healthy()[0],
            "problem": self.healthy()[1],
            "inputs": cs.input_seq,
            "event_seq": cs.event_seq,
            "outbox_depth": self.eventlog.outbox_depth(),
            "eventlog": self.log_health(),
            "last_event": None
            if last is None
            else {"seq": last["seq"], "type": last["type"], "ts": last["ts"]},
            "broker": self.link.health(),
            "links": links,
            "commands": {**self.command_stats.to_json(), **self.commands.health()},
            "backfill": self.backfill.health(),
            "tasks": self.supervisor.health(),
            "clock": read_clock().as_json(),  # a warning while NTP has not synced (no RTC)
            **({} if self.config.web is None else {"web": self.web_stats.to_json()}),
        }

    def log_health(self) -> dict[str, Any]:
        """The event log's write path: ``writable``, and while it is not, why, since when, how
        many attempts and how many inputs are held (not logged, not acknowledged)."""
        fault = self.intake.fault
        return {
            "writable": fault is None,
            "error": None if fault is None else fault.error,
            "since": None if fault is None else iso(fault.since_wall_ns),
            "retries": 0 if fault is None else fault.retries,
            "waiting": self.intake.waiting,
            "faults": self.intake.counters.faults,
            "audit": self.audit.health(),
        }

    def alerts(self) -> list[str]:
        """What the operator must act on now, for the console (also ``health``)."""
        return [a for a in (self.audit.fault, self.link.seq.held) if a]

    def healthy(self) -> tuple[bool, str | None]:
        """Whether the daemon is healthy: the inputs, MQTT and driver tasks are running and the
        log is writable (a broker outage is not a fault: the table plays on)."""
        problem = self._stuck()
        if problem is not None:
            return False, problem
        degraded = self.supervisor.degraded()
        if degraded is not None:  # the web server: the table plays on, the watchdog is fed
            return False, degraded
        fault = self.intake.fault
        if fault is not None:
            return False, (f"event log not writable ({fault.error}): {self.intake.waiting} inputs"
                           " held, retrying")
        alerts = self.alerts()  # a damaged log, a broker ahead of the log: the table plays on
        return (False, alerts[0]) if alerts else (True, None)

    def _stuck(self) -> str | None:
        """Why the watchdog must not be fed (systemd then restarts the daemon). A log that
        refuses writes is *not* a reason: the intake retries and a restart would not help (the
        table would crash-loop into the unit's start limit)."""
        if self.stats.db_error is not None:
            return f"event log: {self.stats.db_error}"
        for name, task in self._tasks.items():
            if task.done():
                return f"task {name} ended"
        restarting = self.supervisor.problem()
        if restarting is not None:
            return restarting
        for driver in self.drivers:
            h = driver.health()
            if h.get("status") == "failed":
                return f"driver {driver.name}: {h.get('reason')}"
        return None

    async def _health_loop(self) -> None:
        interval = self.config.mqtt.health_interval
        wd = watchdog_interval()
        # the loop's own pace (idle CPU: a venue runs a daemon per table), faster only when
        # systemd's watchdog asks for it
        tick = HEALTH_TICK_S if wd is None else min(HEALTH_TICK_S, wd)
        next_health = 0.0
        was_connected = False
        last_timers = 0.0
        next_prune = 0.0
        while True:
            now = time.monotonic()
            problem = self._stuck()
            ok = problem is None
            if ok:
                # a round trip through the database thread: a wedged log stops the watchdog
                try:
                    async with asyncio.timeout(self.db_timeout):
                        await self.db(lambda: None)
                except TimeoutError:
                    ok, problem = False, "event log thread not responding"
            if ok and wd is not None:
                self.notifier.watchdog()
            elif not ok:
                log.error("unhealthy, watchdog not fed: %s", problem)
            self.desk.tick_logs()
            if now >= next_prune:
                next_prune = now + PRUNE_EVERY_S
                await self.desk.prune_commands()
            clocks = self.core.state.clocks
            playing = clocks.state is not None and clocks.state.phase is Phase.PLAYING
            if playing and now - last_timers >= 0.95:  # 1 Hz (a tick may end a hair early)
                last_timers = now
                self._refresh_timers()
            if now >= next_health or self.link.connected != was_connected:
                was_connected = self.link.connected
                body = await self.db(self.health)
                self.link.set_retained_json(self.topics.health, body)
                self.link.set_retained_json(
                    self.topics.links,
                    {
                        "schema": SCHEMA_LINKS,
                        "table": self.table_id,
                        "ts": body["ts"],
                        "links": body["links"],
                    },
                )
                next_health = now + interval
            await asyncio.sleep(tick)

    # ------------------------------------------------------------------ referee commands
    async def handle_command(self, incoming: Incoming) -> Reply | None:
        """Check and run one command (daemon/referee_desk.py); the reply, or ``None``."""
        return await self.desk.handle_command(incoming)
