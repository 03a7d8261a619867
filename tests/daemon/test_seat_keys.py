"""One translation from table event to input, whatever sensors the table has: the table
emulator on a pty (hil), the real serial link driver and the daemon's service; the same frames
give the same logged records with no tile sensors (the link driver's own tracker) and with a tile
sensor model (the configured device tracker).

* a seat-panel key means its label (drivers.link.messages.SeatKey): ``clock`` is the seat's clock
  button, ``tsumo``/``ron`` the seat's declaration -- never a clock press;
* the dice: the dealer rolls first; under W 开门-2 the second roll is the breaker's, the seat the
  dealer's roll counted to (the roller counts as 1: rules.seats.seat_by_dice).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import daemon_kit
import pytest
from conftest import running_service

from daemon.config import Config, DisplaysConfig
from daemon.devices import TableLinkDriver
from daemon.tracker import DeviceTracker
from drivers.link.messages import SeatKey
from drivers.table.serial import SerialTransport
from drivers.table.session import LinkSession
from drivers.tiles.registry import TagRegistry
from drivers.tiles.sensor import TileSensor
from hil.kit import until
from hil.table_controller import PtyTableController
from rules.inputs import DiceRolled, HandStart, Ron, Tsumo, input_from_json
from rules.seats import Seat


def _tracker(sensors: bool) -> DeviceTracker | None:
    if not sensors:
        return None  # the link driver translates through its own tracker
    return DeviceTracker((), TileSensor(TagRegistry({}), {}))


@pytest.mark.parametrize("sensors", [False, True], ids=["no-sensors", "sensor-model"])
async def test_seat_keys_and_dice_mean_the_same_with_and_without_sensors(
    sensors: bool, tmp_path: Path, broker: daemon_kit.Broker,
    make_config: Callable[..., Config],
) -> None:
    async with PtyTableController(tmp_path / "ttyTABLE") as emulator:
        tracker = _tracker(sensors)
        driver = TableLinkDriver(
            lambda resume: LinkSession(SerialTransport(str(emulator.path)), resume=resume),
            DisplaysConfig(honba="none", scores="none", buzzer="none"), tracker=tracker,
        )
        drivers: list[Any] = [driver] if tracker is None else [driver, tracker]
        async with running_service(make_config(broker.port), drivers=drivers) as service:
            await until(lambda: driver.health().get("status") == "connected")
            # the controller's first event, logged before the game: it has just started
            await until(lambda: [r.body["type"] for r in service.eventlog.records()]
                        == ["table_controller_reset"])
            await service.submit("input", "referee:alice", {
                "type": "game_start", "ruleset": "wmc", "first_dealer": 1,
                "names": ["a", "b", "c", "d"]})
            ctl = emulator.controller
            ctl.press_start()
            ctl.roll_dice(3, 4)  # the dealer's roll (seat 1)
            ctl.roll_dice(2, 2)  # W 开门-2: 7 counted from seat 1 is seat 3, the breaker
            ctl.press_seat_button(1, int(SeatKey.CLOCK))
            ctl.press_seat_button(2, int(SeatKey.TSUMO))
            ctl.press_seat_button(3, int(SeatKey.RON))
            ctl.press_seat_button(0, 200)  # no such key
            await until(lambda: sum(1 for r in service.eventlog.records()
                                    if r.source != "referee:alice") >= 8)
            records = [(r.kind, r.source, r.body) for r in service.eventlog.records()][2:]
    rejected = records[-1]
    got = [(k, src, input_from_json(b) if k == "input" else b) for k, src, b in records[:6]]
    assert got == [
        ("input", "table", HandStart()),
        ("input", "table", DiceRolled(seat=Seat.S1, dice=(3, 4))),
        ("input", "table", DiceRolled(seat=Seat.S3, dice=(2, 2))),
        ("timer", "button:1", {"type": "button", "seat": 1}),  # as from a GPIO clock button
        ("input", "seat:2", Tsumo(seat=Seat.S2)),
        ("input", "seat:3", Ron(seat=Seat.S3)),
    ]
    assert rejected[0] == "marker" and rejected[2]["type"] == "tile_rejected"
    assert rejected[2]["reason"] == "no_such_key"
