"""A rig and a daemon brought up together: :class:`HilSession` for one game after another
(``jantaku demo``), :func:`run_game` for one game compared with the simulator."""

from __future__ import annotations

import contextlib
import itertools
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from hil.kit import free_port
from hil.rig import Rig
from hil.runner.compare import comparable, first_difference, renumbered
from hil.runner.inprocess import InProcessDaemon
from hil.runner.lockstep import HilRunner, Hook, Perform
from hil.runner.result import GameResult, table_scores
from hil.simulator import GameSimulator, Step
from rules import inputs as ri
from rules.ruleset import load_ruleset


class HilSession:
    """A rig and an in-process daemon that stay up for one game after another (``jantaku
    demo``); :func:`run_game` is one session with one game."""

    def __init__(self, ruleset: str, *, workdir: Path, table_id: str = "hil",
                 mqtt: tuple[str, int] | None = None, real_table: str | None = None,
                 link_path: str | None = None,
                 on_events: Callable[[dict[str, Any], Sequence[dict[str, Any]]], None]
                 | None = None, process: bool = False,
                 real_buttons: tuple[tuple[int, int], ...] | None = None,
                 reader_ports: dict[str, tuple[str, str]] | None = None) -> None:
        self.process = process
        self.real_buttons, self.reader_ports = real_buttons, reader_ports
        self.ruleset = ruleset
        self.rs = load_ruleset(ruleset)
        self.workdir = workdir
        self.table_id = table_id
        self.mqtt = mqtt
        self.real_table, self.link_path = real_table, link_path
        self.on_events = on_events
        self._stack = contextlib.AsyncExitStack()
        self.rig: Rig | None = None
        self.daemon: Any = None  # InProcessDaemon, or hil.procdaemon.ProcessDaemon
        self.runner: HilRunner | None = None

    async def __aenter__(self) -> HilSession:
        from gpiozero import Device
        from gpiozero.pins.mock import MockFactory

        # real GPIO (a loopback harness on a Pi): the default pin factory, no mock
        gpio = None if (self.process or self.real_buttons) else MockFactory()
        if gpio is not None:
            Device.pin_factory = gpio
        host, port = self.mqtt if self.mqtt is not None else ("127.0.0.1", free_port())
        try:
            self.rig = await self._stack.enter_async_context(
                Rig(self.workdir, aka=self.rs.dora.red_fives, gpio=gpio,
                    real_table=self.real_table, real_buttons=self.real_buttons,
                    reader_ports=self.reader_ports))
            referee = None
            if self.process:
                from hil.procdaemon import referee_key

                referee = referee_key()
            eventlog = self.workdir / "events.sqlite"
            text = self.rig.config_toml(table_id=self.table_id, ruleset=self.ruleset,
                                        eventlog=eventlog, mqtt_host=host,
                                        mqtt_port=port, link=self.link_path, referee=referee)
            config = self.workdir / "jantaku.toml"
            config.write_text(text, encoding="utf-8")
            if self.process:
                from hil.procdaemon import ProcessDaemon

                self.daemon = await self._stack.enter_async_context(
                    ProcessDaemon(config, eventlog, self.table_id, (host, port),
                                  readers=len(self.rig.readers), unread=self.rig.unread))
            else:
                self.daemon = await self._stack.enter_async_context(
                    InProcessDaemon(text, config, gpio, self.on_events))
        except BaseException:
            await self._stack.aclose()
            raise
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._stack.aclose()

    async def play(self, seed: int, hands: int | None, *, speed: float = 0.0,
                   before: Hook | None = None, after: Hook | None = None,
                   replace: Callable[[HilRunner, Perform], Any] | None = None,
                   drain: bool = False, max_steps: int | None = None) -> GameResult:
        assert self.rig is not None and self.daemon is not None
        rig, daemon = self.rig, self.daemon
        if daemon.game_running():
            # the last game was cut short (--hands): the referee ends it before a new one
            await daemon.submit_referee(ri.RefereeOverride(action="end_game", by="hil"))
        sim = GameSimulator(self.ruleset, seed, hands=hands)
        steps: Iterable[Step] = sim.steps()  # the bots think as the game goes
        if max_steps is not None:
            steps = itertools.islice(steps, max_steps)
        runner = HilRunner(rig, daemon, self.rs, speed=speed, before=before, after=after,
                           replace=replace)
        self.runner = runner
        first_event = len(daemon.events)
        rejected, faults, reasons = daemon.stats()
        t0 = time.monotonic()
        await runner.play(steps)
        await runner.finish()
        await daemon.sync(rig.events)
        await daemon.step_done(runner.expected_inputs)
        await daemon.settled()
        if drain:
            await daemon.drained()
        seconds = time.monotonic() - t0
        d_all = daemon.events[first_event:]
        a = comparable(runner.sim_events)
        b = renumbered(comparable(d_all), a)
        rejected_now, faults_now, reasons_now = daemon.stats()
        return GameResult(
            ruleset=self.ruleset, seed=seed, hands=runner.hand, steps=runner.played,
            seconds=seconds, sim_events=a, daemon_events=b,
            violations=[e for e in d_all if e.get("type") == "violation"],
            sim_violations=list(sim.violations),
            rejections=rejected_now - rejected,
            reader_faults=faults_now - faults,
            difference=first_difference(a, b),
            final_scores=daemon.scores(), sim_scores=table_scores(sim.state),
            rejection_reasons=dict(reasons_now - reasons),
            published=daemon.published(),
            outbox_depth=daemon.outbox_depth(),
            envelopes=list(daemon.envelopes[first_event:]),
            clock_events=dict(Counter(str(e.get("type")) for e in d_all
                                      if str(e.get("type", "")).startswith("clock_"))),
        )


async def run_game(ruleset: str, seed: int, hands: int | None, *, workdir: Path,
                   speed: float = 0.0, table_id: str = "hil", mqtt: tuple[str, int] | None = None,
                   real_table: str | None = None, link_path: str | None = None,
                   before: Hook | None = None, after: Hook | None = None,
                   replace: Callable[[HilRunner, Perform], Any] | None = None,
                   on_events: Callable[[dict[str, Any], Sequence[dict[str, Any]]], None]
                   | None = None, drain: bool = False,
                   max_steps: int | None = None, process: bool = False,
                   real_buttons: tuple[tuple[int, int], ...] | None = None,
                   reader_ports: dict[str, tuple[str, str]] | None = None) -> GameResult:
    """One game through the rig into a daemon (in this process, or ``jantaku run`` with
    ``process``); the result compares both sides."""
    async with HilSession(ruleset, workdir=workdir, table_id=table_id, mqtt=mqtt,
                          real_table=real_table, link_path=link_path,
                          on_events=on_events, process=process, real_buttons=real_buttons,
                          reader_ports=reader_ports) as session:
        return await session.play(seed, hands, speed=speed, before=before, after=after,
                                  replace=replace, drain=drain, max_steps=max_steps)
