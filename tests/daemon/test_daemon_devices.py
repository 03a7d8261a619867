"""The daemon with its devices: the table-controller emulator on a real pty (the same bytes as a
real table), and the clocks driven by table inputs and referee pause/resume."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import daemon_kit
import pytest
from conftest import running_service

from daemon import auth, schema
from daemon.cli.referee import build_command, send
from daemon.config import Config, DisplaysConfig
from daemon.devices import TableLinkDriver
from daemon.errors import ConfigError
from drivers.link.messages import Buzzer, HonbaDisplay, Layer, ScoreDisplay
from drivers.link.timings import LinkTimings
from drivers.table.serial import SerialTransport
from drivers.table.session import LinkSession
from hil.kit import until
from hil.table_controller import PtyTableController, TableController
from rules.inputs import HandStart, input_from_json

FAST = LinkTimings(heartbeat_interval=0.05, link_timeout=0.5, ack_timeout=0.05, max_retries=5,
                   hello_interval=0.05, backoff_initial=0.02, backoff_max=0.2)
ALICE = auth.derive_key("alice", daemon_kit.REFEREE_PASSWORD, 1000)


@pytest.fixture
async def emulator(tmp_path: Path) -> AsyncIterator[PtyTableController]:
    async with PtyTableController(tmp_path / "ttyTABLE", TableController(timings=FAST)) as t:
        yield t


def _driver(emulator: PtyTableController) -> TableLinkDriver:
    return TableLinkDriver(
        lambda resume: LinkSession(SerialTransport(str(emulator.path)), timings=FAST,
                                   resume=resume), DisplaysConfig()
    )


async def test_table_events_are_logged_and_displays_follow(
    emulator: PtyTableController, broker: daemon_kit.Broker, make_config: Callable[..., Config]
) -> None:
    driver = _driver(emulator)
    async with running_service(make_config(broker.port), drivers=[driver]) as service:
        await until(lambda: driver.health().get("status") == "connected")
        # the controller's first event: it has just started (a marker, logged first)
        await until(lambda: service.core.state.input_seq >= 1)
        first = next(iter(service.eventlog.records()))
        assert (first.kind, first.body["type"]) == ("marker", "table_controller_reset")
        await service.submit(
            "input", "referee:alice",
            {"type": "game_start", "ruleset": "mleague", "first_dealer": 1,
             "names": ["a", "b", "c", "d"]},
        )
        ctl = emulator.controller
        ctl.press_start(1)
        ctl.raise_wall()
        ctl.roll_dice(3, 4)
        ctl.open_break(1, 7)
        ctl.turn_indicator(1, 5, Layer.TOP, ring=130, tile="3p")
        ctl.send_manifest()
        ctl.press_seat_button(2)
        await until(lambda: service.core.state.input_seq >= 9)
        records = list(service.eventlog.records())[1:]  # from game_start
        assert [(r.kind, r.body["type"]) for r in records[1:]] == [
            ("input", "hand_start"),
            ("input", "wall_raised"),
            ("input", "dice"),
            ("input", "break_opened"),
            ("input", "indicator"),
            ("marker", "table_wall_manifest"),
            ("timer", "button"),
        ]
        # the clock key is the seat's clock button, whichever device it came over
        assert [r.source for r in records[1:]] == ["table"] * 6 + ["button:2"]
        assert records[3].body["seat"] == 1  # the dealer rolls
        assert records[4].body == {"type": "break_opened", "seat": 1, "count": 7}
        # the effects: the table's displays show the scores and honba of the new hand
        await until(lambda: any(isinstance(c, ScoreDisplay) for c in ctl.commands))
        await until(lambda: any(isinstance(c, HonbaDisplay) for c in ctl.commands))
        assert ctl.display.scores == (25000, 25000, 25000, 25000)
        assert (ctl.display.honba, ctl.display.deposits) == (0, 0)
        # a violation buzzes: a discard by a seat that is not on turn
        await service.submit("input", "table", {"type": "discard", "seat": 3})
        await until(lambda: any(isinstance(c, Buzzer) for c in ctl.commands))
        health = service.health()
        assert schema.errors("health", health) == []
        assert health["links"]["table"]["status"] == "connected"
        assert health["links"]["table"]["events"] == 8  # the reset report and the seven


async def test_a_table_that_lost_its_displays_gets_the_board_again_on_reconnect(
    emulator: PtyTableController, broker: daemon_kit.Broker, make_config: Callable[..., Config]
) -> None:
    """The table unplugged and powered back (its displays blank, the link down meanwhile, so
    nothing sent then arrived): when the link is connected again the daemon sends the board
    again, though the scores and honba did not change (docs/protocol/table-link.md, "Host API")."""
    driver = _driver(emulator)
    async with running_service(make_config(broker.port), drivers=[driver]) as service:
        await until(lambda: driver.health().get("status") == "connected")
        await service.submit(
            "input", "referee:alice",
            {"type": "game_start", "ruleset": "mleague", "first_dealer": 0,
             "names": ["a", "b", "c", "d"]},
        )
        ctl = emulator.controller
        await until(lambda: ctl.display.scores == (25000, 25000, 25000, 25000))
        emulator.unplug()
        await until(lambda: driver.health().get("status") != "connected", 10)
        ctl.display = dataclasses.replace(ctl.display, scores=(0, 0, 0, 0), honba=0, deposits=0)
        sent = len(ctl.commands)
        emulator.plug()
        await until(lambda: ctl.display.scores == (25000, 25000, 25000, 25000), 10,
                    "the scores shown again")
        again = [c for c in ctl.commands[sent:] if isinstance(c, ScoreDisplay | HonbaDisplay)]
        assert {type(c) for c in again} == {ScoreDisplay, HonbaDisplay}
        assert service.core.state.input_seq == 2  # nothing logged for it: an effect only


async def test_referee_pauses_and_resumes_the_clocks(
    broker: daemon_kit.Broker, make_config: Callable[..., Config]
) -> None:
    async with running_service(make_config(broker.port)) as service:
        script = daemon_kit.game_inputs(1, ruleset="wmc", seed=3)
        deal = next(i for i, b in enumerate(script) if b["type"] == "deal_done")
        for body in script[: deal + 1]:
            await service.submit("input", "table", body)
        clocks = service.core.state.clocks
        assert clocks.state is not None and clocks.state.phase.value == "playing"

        async def cmd(name: str) -> dict[str, object]:
            topic, payload = build_command(service.table_id, name, "alice", ALICE, {})
            reply = await send("127.0.0.1", broker.port, service.table_id, topic, payload)
            assert reply is not None
            return reply

        assert (await cmd("resume"))["error"] == {
            "code": "not_applicable", "message": "resume: the clocks are not paused"}
        assert (await cmd("pause"))["status"] == "ok"
        assert service.core.state.clocks.state is not None
        assert service.core.state.clocks.state.paused
        assert (await cmd("pause"))["status"] == "error"
        service._refresh_timers()
        view = json.loads(service.link._retained[service.topics.timers])
        assert schema.errors("timers", view) == []
        assert view["paused"] is True and view["phase"] == "playing"
        assert (await cmd("resume"))["status"] == "ok"
        assert not service.core.state.clocks.state.paused
        records = list(service.eventlog.records())
        assert [(r.kind, r.body["type"], r.source) for r in records[-2:]] == [
            ("timer", "pause", "referee:alice"), ("timer", "resume", "referee:alice")]
        # the clocks are part of the fold: a restart rebuilds them exactly
        before = service.core.state.clocks
    async with running_service(make_config(broker.port, table=service.table_id)) as again:
        assert again.core.state.clocks.state is not None
        # a restart marker was logged (the outage is charged to nobody), the rest is identical
        assert list(again.eventlog.records())[-1].body == {"type": "restart"}
        assert again.core.state.clocks.rules == before.rules
        assert again.core.state.clocks.state.seats == before.state.seats  # type: ignore[union-attr]


async def test_the_emulator_on_its_pty_is_a_plain_serial_table(
    broker: daemon_kit.Broker, make_config: Callable[..., Config], tmp_path: Path,
) -> None:
    """The HIL rig starts the table emulator itself; the daemon gets a serial config for the pty
    (production code never imports hil/)."""
    from daemon.config import TableLinkConfig, parse_config
    from daemon.devices import build_drivers

    emulator = await PtyTableController(tmp_path / "ttyJANTAKU-SIM").__aenter__()
    config = make_config(broker.port)
    sim = dataclasses.replace(
        config, devices=dataclasses.replace(
            config.devices, table=TableLinkConfig("serial", path=emulator.path))
    )
    drivers = build_drivers(sim)
    table = drivers[0]
    assert isinstance(table, TableLinkDriver)
    with pytest.raises(ConfigError, match="simulator"):
        parse_config(daemon_kit.config_text(table="t", db=Path("x.sqlite"), port=1)
                     .replace('kind = "none"', 'kind = "simulator"'))
    async with running_service(sim, drivers=drivers) as service:
        await until(lambda: table.health().get("status") == "connected")
        emulator.controller.press_start(0)
        await until(lambda: service.core.state.input_seq >= 2)
        reset, record = list(service.eventlog.records())[:2]
        assert (reset.kind, reset.body["type"]) == ("marker", "table_controller_reset")
        assert record.source == "table"
        assert input_from_json(record.body) == HandStart()


async def test_clock_buttons_on_gpiozero_mock_pins_are_logged(
    broker: daemon_kit.Broker, make_config: Callable[..., Config]
) -> None:
    from gpiozero.pins.mock import MockFactory

    from daemon.devices import ButtonsDriver

    factory = MockFactory()
    buttons = ButtonsDriver((17, 27, 22, 23), 24, pin_factory=factory)
    try:
        async with running_service(make_config(broker.port), drivers=[buttons]) as service:
            script = daemon_kit.game_inputs(1, ruleset="wmc", seed=3)
            deal = next(i for i, b in enumerate(script) if b["type"] == "deal_done")
            for body in script[: deal + 1]:
                await service.submit("input", "table", body)
            await until(lambda: buttons.health()["status"] == "up")
            dealer = service.core.view()["dealer"]
            pin = factory.pin((17, 27, 22, 23)[dealer])
            pin.drive_low()  # pressed (pull-up wiring)
            await asyncio.sleep(0.05)
            pin.drive_high()
            await until(lambda: service.core.state.input_seq == deal + 2)
            record = list(service.eventlog.records())[-1]
            assert (record.kind, record.body, record.source) == (
                "timer", {"type": "button", "seat": dealer}, f"button:{dealer}")
            referee = factory.pin(24)
            referee.drive_low()
            await asyncio.sleep(0.05)
            referee.drive_high()
            await until(lambda: service.core.state.input_seq == deal + 3)
            assert list(service.eventlog.records())[-1].body["type"] == "pause"
            clocks = service.core.state.clocks.state
            assert clocks is not None and clocks.paused
    finally:
        factory.reset()


async def test_a_gpio_clock_press_and_the_link_clock_key_make_the_same_record(
    emulator: PtyTableController, broker: daemon_kit.Broker, make_config: Callable[..., Config]
) -> None:
    """build_drivers gives the table link and the GPIO buttons one tracker: a seat's clock press
    is the same ``timer`` record, and moves the clocks the same way, from either device."""
    from gpiozero.pins.mock import MockFactory

    from daemon.config import ButtonsConfig, TableLinkConfig
    from daemon.devices import ButtonsDriver, build_drivers
    from daemon.tracker import DeviceTracker
    from drivers.link.messages import SeatKey

    pins = (17, 27, 22, 23)
    config = make_config(broker.port)
    config = dataclasses.replace(config, devices=dataclasses.replace(
        config.devices, table=TableLinkConfig("serial", path=emulator.path),
        buttons=ButtonsConfig("gpio", seat_pins=pins, referee_pin=24)))
    factory = MockFactory()
    try:
        drivers = build_drivers(config, pin_factory=factory)
        table, trackers, buttons = (
            next(d for d in drivers if isinstance(d, kind))
            for kind in (TableLinkDriver, DeviceTracker, ButtonsDriver))
        assert isinstance(table, TableLinkDriver) and isinstance(buttons, ButtonsDriver)
        assert table.tracker is trackers and buttons.tracker is trackers
        async with running_service(config, drivers=drivers) as service:
            await until(lambda: table.health().get("status") == "connected"
                        and buttons.health()["status"] == "up")
            script = daemon_kit.game_inputs(1, ruleset="wmc", seed=3)
            deal = next(i for i, b in enumerate(script) if b["type"] == "deal_done")
            for body in script[: deal + 1]:
                await service.submit("input", "referee:alice", body)
            dealer = service.core.view()["dealer"]
            after = (dealer + 1) % 4

            def turn() -> int | None:
                clocks = service.core.state.clocks.state
                return None if clocks is None or clocks.turn is None else int(clocks.turn.seat)

            assert turn() == dealer
            pin = factory.pin(pins[dealer])
            pin.drive_low()  # pressed (pull-up wiring)
            await asyncio.sleep(0.05)
            pin.drive_high()
            await until(lambda: turn() == after)
            emulator.controller.press_seat_button(after, int(SeatKey.CLOCK))
            await until(lambda: turn() == (after + 1) % 4)
            records = [(r.kind, r.source, r.body) for r in service.eventlog.records()][-2:]
    finally:
        factory.reset()
    assert records == [("timer", f"button:{s}", {"type": "button", "seat": s})
                       for s in (dealer, after)]
