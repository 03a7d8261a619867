"""The host refuses a reference firmware it cannot drive, with a message that says what runs and
what to flash (docs/firmware.md "Versions and compatibility"; the firmware reports its version
in ``welcome.firmware``, docs/protocol/table-link.md §6.1), over a real pty with the firmware
emulator; and it drives the table as soon as the right firmware answers."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

import firmware
from drivers.link.compat import MIN_VERSION, firmware_refusal
from drivers.link.messages import HonbaDisplay, StartPressed
from drivers.link.timings import LinkTimings
from drivers.table.link import LinkChange, LinkStatus
from drivers.table.serial import SerialTransport
from drivers.table.session import LinkSession
from hil.table_controller import PtyTableController, TableController

FAST = LinkTimings(heartbeat_interval=0.05, link_timeout=0.3, ack_timeout=0.05, max_retries=3,
                   hello_interval=0.05, backoff_initial=0.01, backoff_max=0.05)
HANG_GUARD = 10.0  # seconds: only so that a broken build fails instead of hanging


@pytest.mark.parametrize("accepted", [
    "jantaku-ctl 1.0.0 rp2040", "jantaku-ctl 1.0.0", "jantaku-ctl 1.7.12 rp2350", "hil 9",
    "acme-table 0.1", "",
])
def test_accepted_firmwares(accepted: str) -> None:
    assert firmware_refusal(accepted) is None


@pytest.mark.parametrize(("refused", "says"), [
    ("jantaku-ctl 0.9.0 rp2040", "older than 1.0.0"),
    ("jantaku-ctl 2.0.0 rp2040", "major version 2"),
    ("jantaku-ctl 1.0 rp2040", "carries no version"),
    ("jantaku-ctl", "carries no version"),
    ("jantaku-ctl 1.0.0-rc1", "carries no version"),
])
def test_refused_firmwares_say_what_runs_and_what_to_do(refused: str, says: str) -> None:
    reason = firmware_refusal(refused)
    assert reason is not None and says in reason and repr(refused) in reason
    assert "docs/firmware.md" in reason


def test_this_releases_firmware_is_driven_by_this_host() -> None:
    assert firmware_refusal(firmware.firmware_string("rp2040")) is None
    assert tuple(int(p) for p in firmware.VERSION.split(".")) >= MIN_VERSION


async def _change(events: asyncio.Queue[object], status: LinkStatus) -> LinkChange:
    while True:
        item = await events.get()
        if isinstance(item, LinkChange) and item.status is status:
            return item


async def test_an_old_firmware_is_refused_then_a_reflashed_one_is_driven(tmp_path: Path) -> None:
    path = tmp_path / "ttyOLD"
    old = TableController(timings=FAST, firmware="jantaku-ctl 0.9.0 rp2040")
    seen: asyncio.Queue[object] = asyncio.Queue()
    async with LinkSession(SerialTransport(str(path)), timings=FAST) as link:

        async def pump() -> None:
            async for item in link.events():
                seen.put_nowait(item)

        reader = asyncio.create_task(pump())
        async with asyncio.timeout(HANG_GUARD):
            async with PtyTableController(path, old) as table:
                change = await _change(seen, LinkStatus.INCOMPATIBLE)
                assert change.reason is not None
                assert "'jantaku-ctl 0.9.0 rp2040' is older than 1.0.0" in change.reason
                assert link.state.status is LinkStatus.INCOMPATIBLE
                assert link.state.reason == change.reason
                assert link.state.firmware == ""  # not taken on
                # nothing passes while refused: the table's events are not taken, commands wait
                table.controller.press_start(1)
                with pytest.raises(TimeoutError):
                    await link.send(HonbaDisplay(1, 0), timeout=0.3)
                assert old.commands == []
                assert old.endpoint.pending >= 1  # the event is still the controller's
            # the venue reflashes the board: a new boot, the release's firmware
            new = TableController(timings=FAST)
            async with PtyTableController(path, new):
                await _change(seen, LinkStatus.CONNECTED)
                assert link.state.firmware == firmware.firmware_string("sim")
                assert link.state.reason is None
                new.press_start(2)
                while (item := await seen.get()) != StartPressed(2):
                    assert not isinstance(item, StartPressed), item  # the old one never arrives
        reader.cancel()
