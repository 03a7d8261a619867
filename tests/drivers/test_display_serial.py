"""Score displays: a standalone serial display (emulator on a real pty) and the table's own
displays through the table link."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from drivers.display import DisplayError, LinkBoardDisplay, Scoreboard, SerialDisplay
from drivers.display.lines import Ping, Pong, SetHonba
from drivers.link.messages import Capability, HonbaDisplay, ScoreDisplay
from drivers.link.timings import LinkTimings
from drivers.table.serial import SerialTransport
from drivers.table.session import LinkSession
from hil.display_emulator import SerialDisplayEmulator, seven_segment
from hil.kit import connected
from hil.table_controller import PtyTableController, TableController

BOARD = Scoreboard(2, 1, (25000, 31000, -1200, 45200))


async def test_serial_display_shows_the_board(tmp_path: Path) -> None:
    async with SerialDisplayEmulator(tmp_path / "ttyDISP") as emu, \
            SerialDisplay(SerialTransport(str(emu.path), 9600), reply_timeout=2) as display:
        assert await display.request(Ping()) == Pong(1, "hil-7seg-6")
        await display.show(BOARD)
        assert emu.rendered() == {"seat0": " 25000", "seat1": " 31000", "seat2": " -1200",
                                  "seat3": " 45200", "honba": " 2", "deposits": " 1"}
        await display.clear()
        assert emu.state.scores == (0, 0, 0, 0)
        assert emu.state.lines == ["PING", "HONBA 2 1", "SCORES 25000 31000 -1200 45200",
                                   "CLEAR"]


async def test_serial_display_refusal_and_silence_raise(tmp_path: Path) -> None:
    async with SerialDisplayEmulator(tmp_path / "ttyDISP") as emu, \
            SerialDisplay(SerialTransport(str(emu.path)), reply_timeout=0.05,
                          retries=1) as display:
        await emu_write_garbage(emu)
        with pytest.raises(DisplayError, match="ERR 2"):
            await display.request(SetHonba(100, 0))  # the display cannot show 3 digits
        emu.muted = True
        with pytest.raises(DisplayError, match="did not answer"):
            await display.show(BOARD)
        assert emu.state.lines[-2:] == ["HONBA 2 1", "HONBA 2 1"]  # tried twice


async def emu_write_garbage(emu: SerialDisplayEmulator) -> None:
    emu.port.write(b"\x00\xffnoise\n")  # noise on the line is not taken for a reply
    await asyncio.sleep(0)


async def test_serial_display_survives_unplug(tmp_path: Path) -> None:
    async with SerialDisplayEmulator(tmp_path / "ttyDISP") as emu, \
            SerialDisplay(SerialTransport(str(emu.path)), reply_timeout=0.2,
                          retries=5) as display:
        await display.show(BOARD)
        emu.port.unplug()
        emu.port.plug()
        await display.show(Scoreboard(0, 0, (1, 2, 3, 4)))
        assert emu.state.scores == (1, 2, 3, 4)


def test_seven_segment_rendering() -> None:
    assert seven_segment(-1200) == " -1200"
    assert seven_segment(1234567) == "------"


async def test_table_displays_over_the_link(tmp_path: Path) -> None:
    fast = LinkTimings(heartbeat_interval=0.05, link_timeout=0.3, ack_timeout=0.05,
                       hello_interval=0.05, backoff_initial=0.02, backoff_max=0.2)
    caps = frozenset({Capability.SCORE_DISPLAYS})  # scores, but no honba display
    controller = TableController(timings=fast, capabilities=caps)
    async with PtyTableController(tmp_path / "ttyT", controller) as table, \
            LinkSession(SerialTransport(str(table.path)), timings=fast) as link:
        async with asyncio.timeout(10):
            await connected(link)
        board = LinkBoardDisplay(link)
        await board.show(BOARD)
        assert controller.commands == [ScoreDisplay(BOARD.scores)]
        await board.show(BOARD)  # again, as after a reconnect
        assert controller.display.scores == BOARD.scores
        assert HonbaDisplay(2, 1) not in controller.commands
