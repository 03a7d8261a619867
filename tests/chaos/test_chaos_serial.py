"""The table's serial cable is pulled during play and plugged back (the HIL table emulator on a
pty that the test starts, driven through the daemon's real serial link driver: a plain
``devices.table.kind = "serial"`` config naming the pty).

Table events that happen while the cable is out wait in the table's link layer (its ARQ queue)
and arrive after the replug: every table event becomes exactly one logged input, in order, the
state equals the fault-free fold of the same inputs, every event reaches the subscriber, and the
link's health and the daemon's log say the link was lost and came back.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import chaos_kit
import daemon_kit
import pytest

from daemon.config import parse_config
from daemon.devices import build_drivers
from daemon.tracking.records import KIND_INPUT
from hil.kit import SLOW
from hil.table_controller import PtyTableController

logdir = chaos_kit.logdir  # the fixture: event logs on tmpfs

PULLS = 5 if SLOW else 1


@pytest.mark.asyncio
async def test_serial_cable_pulled_during_play(
    logdir: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="jantaku.devices")
    broker = daemon_kit.Broker(tmp_path / "broker").start()
    table = daemon_kit.unique_table("sp")
    text = daemon_kit.config_text(table=table, db=logdir / f"{table}.sqlite", port=broker.port)
    game = chaos_kit.script(hands=1, seed=1)[0]  # the referee's game_start
    try:
        async with PtyTableController(tmp_path / "ttyJANTAKU-SIM") as emulator, \
                chaos_kit.event_collector(broker.port, table) as collector:
            config = parse_config(text.replace('kind = "none"',
                                               f'kind = "serial"\npath = "{emulator.path}"'))
            drivers = build_drivers(config)
            async with chaos_kit.running(config, drivers=drivers) as service:
                sim = drivers[0]
                await daemon_kit.until(lambda: sim.health().get("status") == "connected")
                await service.submit(KIND_INPUT, "referee:alice", game)
                expected: list[dict[str, Any]] = [game]
                ctl = emulator.controller

                def table_inputs() -> int:
                    return sum(1 for r in service.eventlog.records()
                               if r.kind == KIND_INPUT and r.source == "table")

                ctl.press_start()
                ctl.raise_wall()
                expected += [{"type": "hand_start"}, {"type": "wall_raised"}]
                await daemon_kit.until(lambda: table_inputs() >= len(expected) - 1)
                for pull in range(PULLS):
                    opens = sim.health()["opens"]
                    emulator.unplug()  # the cable is out ...
                    await daemon_kit.until(lambda: sim.health().get("status") != "connected")
                    ctl.roll_dice(3, 4)  # ... while the table goes on (a re-roll after the first)
                    # the rolling seat is the dealer when the daemon takes the roll (a first roll
                    # may itself choose the dealer): filled in from the log below
                    expected.append({"type": "dice", "seat": None, "dice": [3, 4]})
                    if pull == PULLS - 1:
                        ctl.open_break(2, 7)
                        expected.append({"type": "break_opened", "seat": 2, "count": 7})
                    await asyncio.sleep(0.3)
                    assert table_inputs() < len(expected) - 1  # nothing came through
                    emulator.plug()
                    await daemon_kit.until(lambda: table_inputs() >= len(expected) - 1)
                    await daemon_kit.until(lambda: sim.health().get("status") == "connected")
                    assert sim.health()["opens"] > opens
                last = service.core.state.event_seq
                await collector.wait_for(
                    lambda: {e["seq"] for e in collector.payloads("/events")}
                    >= set(range(1, last + 1)),
                    30,
                )
                snapshot = service.core.view()
                health = service.health()
        ref = chaos_kit.reference(config.eventlog.path, table, logdir)
        got, _ = chaos_kit.delivered(collector)
        expected = [
            {**e, "seat": ref.inputs[i].get("seat")}
            if e.get("seat", 0) is None and i < len(ref.inputs) else e
            for i, e in enumerate(expected)
        ]
        chaos_kit.assert_consistent(got, ref, expected)
        assert snapshot == ref.view
        link = health["links"]["table"]
        assert link["status"] == "connected" and link["opens"] >= 2
        said = [r.getMessage() for r in caplog.records if "table link" in r.getMessage()]
        assert any("lost" in m for m in said), said
        print(f"{len(expected)} inputs, {ref.last_seq} events; link log: {said}")
    finally:
        broker.stop()
