"""The firmware's adapters on simulated pins (firmware.sim), from the table's signals to what the
host decodes (drivers/link's own Endpoint and codec) and from the host's commands to the pins:
start button, wall raised, seat buttons, dice lines and dealer entry, TM1637 displays, buzzer,
LEDs, start relay, status LED, and the fault reports (stuck input, display that does not
answer). Wiring and behaviour: docs/firmware.md; messages: docs/protocol/table-link.md §6."""

from __future__ import annotations

from typing import Any

import pytest

from drivers.link.arq import Endpoint
from drivers.link.messages import (
    Buzzer,
    Capability,
    Dice,
    Fault,
    FaultCode,
    HonbaDisplay,
    Led,
    LedMode,
    PressStart,
    ScoreDisplay,
    SeatButton,
    StartPressed,
    TableEvent,
    WallRaised,
)
from drivers.link.reports import Delivered, Role
from drivers.link.timings import LinkTimings
from firmware.board import Board, Config, capabilities
from firmware.link import Link
from firmware.sim import SimMachine, SimNeoPixel, SimTM1637
from firmware.table import Table
from firmware.tm1637 import number_text


class Rig:
    """The firmware on simulated pins, connected to a host Endpoint; time in ms, advanced by
    ``run`` in steps as the Pico's loop would."""

    def __init__(self, **config: Any) -> None:
        self.cfg = Config()
        self.cfg.update(config)
        self.sim = SimMachine()
        self.board = Board(self.sim, self.cfg, SimNeoPixel)
        clk = self.sim.net(16)
        self.honba = SimTM1637(clk, self.sim.net(17), 4)
        self.scores = [SimTM1637(clk, self.sim.net(n), 6) for n in (18, 19, 20, 21)]
        self.link = Link(0x5EED, self.board.capabilities(), "jantaku-ctl 1.0.0 test")
        self.table = Table(self.link, self.board)
        self.board.table = self.table
        self.host = Endpoint(Role.HOST, boot_id=77, timings=LinkTimings())
        self.now = 0
        self.events: list[TableEvent] = []
        self.table.attach(0)
        self.host.attach(0.0)
        self.run(10)
        assert self.host.connected and self.link.connected

    def exchange(self) -> None:
        for _ in range(4):
            data, outs = self.host.drain()
            if data:
                self.table.receive(data, self.now)
            self.host.receive(self.table.take_output(), self.now / 1000)
            self.events += [o.message for o in outs if isinstance(o, Delivered)
                            and not isinstance(o.message, PressStart | HonbaDisplay
                                               | ScoreDisplay | Buzzer | Led)]
        self.events += [o.message for o in self.host.drain()[1] if isinstance(o, Delivered)]

    def run(self, ms: int, step: int = 5) -> None:
        end = self.now + ms
        while self.now < end:
            self.now += step
            self.table.tick(self.now)
            self.host.tick(self.now / 1000)
            self.exchange()

    def command(self, message: Any) -> None:
        self.host.send(message, self.now / 1000)
        self.exchange()

    def press(self, pin: int, ms: int = 100) -> None:
        self.sim.drive(pin, 0)  # the optocoupler conducts: the input reads low
        self.run(ms)
        self.sim.release(pin)
        self.run(50)


def test_the_documented_wiring_announces_its_capabilities() -> None:
    cfg = Config()
    assert capabilities(cfg) == Capability.HONBA_DISPLAY.bit | Capability.SCORE_DISPLAYS.bit \
        | Capability.SEAT_BUTTONS.bit
    cfg.update({"honba_dio": None, "score_dios": [], "seat_buttons": []})
    assert capabilities(cfg) == 0
    with pytest.raises(ValueError, match="unknown key start_pin"):
        cfg.update({"start_pin": 3})


def test_start_button_wall_and_seat_buttons_become_events() -> None:
    rig = Rig()
    rig.press(2)  # start button (centre): §6.2 start_pressed seat null
    rig.sim.drive(4, 0)  # the wall lift's "up" switch closes and stays closed
    rig.run(100)
    rig.press(7)  # seat 2's button
    assert rig.events == [StartPressed(None), WallRaised(), SeatButton(2, 0)]


def test_contact_bounce_is_no_press_and_a_held_button_at_boot_is_none() -> None:
    rig = Rig()
    for _ in range(5):  # 5 ms closures: bounce, shorter than the 20 ms debounce
        rig.sim.drive(2, 0)
        rig.run(5)
        rig.sim.release(2)
        rig.run(5)
    assert rig.events == []
    sim = SimMachine()
    sim.drive(5, 0)  # seat 0's button already held when the board boots
    board = Board(sim, Config(), SimNeoPixel)
    link = Link(1, board.capabilities(), "jantaku-ctl 1.0.0 test")
    table = Table(link, board)
    board.table = table
    for now in range(0, 500, 5):
        board.poll(now)
    assert link.pending == 0
    sim.release(5)
    for now in range(500, 600, 5):
        board.poll(now)
    sim.drive(5, 0)
    for now in range(600, 700, 5):
        board.poll(now)
    assert link.pending == 1  # the first real press


def test_a_stuck_input_is_reported_once_and_presses_resume_after_release() -> None:
    rig = Rig(stuck_ms=1000)
    rig.sim.drive(6, 0)  # seat 1's button jammed
    rig.run(3000)
    assert rig.events == [SeatButton(1, 0), Fault(FaultCode.INPUT_STUCK, 1)]
    assert Fault(FaultCode.INPUT_STUCK, 1).name == "input_stuck"
    rig.sim.release(6)
    rig.run(100)
    rig.press(6)
    assert rig.events[2:] == [SeatButton(1, 0)]


def test_dice_lines_report_the_settled_roll() -> None:
    rig = Rig()

    def show(a: int, b: int) -> None:
        for bit in range(3):
            rig.sim.drive(9 + bit, 0 if a >> bit & 1 else 1)
            rig.sim.drive(12 + bit, 0 if b >> bit & 1 else 1)

    for a, b in [(1, 5), (6, 2), (4, 4), (2, 6)]:  # the display animates: 50 ms each
        show(a, b)
        rig.run(50)
    show(3, 4)
    rig.run(400)  # settled for 300 ms
    assert rig.events == [Dice((3, 4))]
    show(0, 0)  # blank: ready for the next roll
    rig.run(400)
    show(7, 2)  # no die shows 7
    rig.run(400)
    assert rig.events == [Dice((3, 4)), Fault(FaultCode.DICE_ERROR, None)]


def test_dice_entered_with_the_dealers_buttons_show_on_the_honba_display() -> None:
    rig = Rig(dice="buttons")
    for _ in range(3):
        rig.press(9)  # STEP: 1, 2, 3
    assert rig.honba.text(4).replace(" ", "") == "d3-"
    rig.press(10)  # ENTER die A
    for _ in range(3):
        rig.press(9)  # die B: 1 -> 2, 3, 4
    assert rig.honba.text(4).replace(" ", "") == "d34"
    rig.press(10)
    assert rig.events == [Dice((3, 4))]
    assert rig.honba.text(4) == " 0. 0"  # back to honba / deposits


def test_honba_and_score_displays_show_the_commands() -> None:
    rig = Rig()
    rig.command(HonbaDisplay(3, 2))
    rig.command(ScoreDisplay((25000, -1200, 31000, 145200)))
    # one display write per loop turn (a TM1637 write holds the loop ~16 ms on the chip)
    writes = [rig.board.display_writes]
    for _ in range(6):
        rig.run(5)
        writes.append(rig.board.display_writes)
    assert writes == [0, 1, 2, 3, 4, 5, 5]
    assert rig.honba.text(4) == " 3. 2" and rig.honba.on
    assert [c.text() for c in rig.scores] == [" 25000", " -1200", " 31000", "145200"]
    assert number_text(25000, 4) == " 250." and number_text(-1200, 4) == " -12."
    assert number_text(1234567, 6) == "------"


def test_a_display_that_does_not_answer_is_reported_once_per_failure() -> None:
    rig = Rig()
    rig.scores[2].present = False  # seat 2's module unplugged
    rig.command(ScoreDisplay((1, 2, 3, 4)))
    rig.command(ScoreDisplay((5, 6, 7, 8)))
    rig.run(20)
    assert rig.events == [Fault(FaultCode.DISPLAY, 2)]
    assert [c.text() for c in rig.scores] == ["     5", "     6", "      ", "     8"]
    rig.scores[2].present = True
    rig.command(ScoreDisplay((5, 6, 7, 8)))
    rig.run(20)
    rig.honba.present = False
    rig.command(HonbaDisplay(1, 0))
    rig.run(20)
    rig.scores[2].present = False
    rig.command(ScoreDisplay((9, 9, 9, 9)))
    rig.run(20)
    assert rig.events[1:] == [Fault(FaultCode.DISPLAY, None), Fault(FaultCode.DISPLAY, 2)]


def test_buzzer_leds_relay_and_status_led() -> None:
    rig = Rig()
    assert rig.sim.level("LED") == 1  # connected: steady
    rig.command(Buzzer(200, 2))
    levels = []
    for _ in range(12):
        levels.append(rig.sim.level(22))
        rig.run(50)
    assert levels == [1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1]
    rig.run(200)
    assert rig.sim.level(22) == 0 and rig.board.buzzer is not None \
        and rig.board.buzzer.beeps == 2
    strip = rig.board.leds
    assert strip is not None
    rig.command(Led(None, LedMode.ON, (0, 0, 255)))
    rig.command(Led(1, LedMode.BLINK, (255, 64, 0)))
    seen = set()
    for _ in range(6):
        rig.run(250)
        seen.add(strip.shown[1])
        assert strip.shown[0] == strip.shown[2] == (0, 0, 255)
    assert seen == {(255, 64, 0), (0, 0, 0)}
    rig.command(PressStart())  # §6.3: the relay closes across the start button ...
    assert rig.sim.level(3) == 1
    rig.run(300)
    assert rig.sim.level(3) == 0 and rig.board.relay is not None and rig.board.relay.pulses == 1
    assert rig.events == [StartPressed(None)]  # ... and the table reports start_pressed
    rig.run(1500)  # the host goes quiet: the link is lost, the status LED blinks
    rig.host.detach(rig.now / 1000)
    rig.run(1200)
    blink = []
    for _ in range(4):
        rig.run(500)
        blink.append(rig.sim.level("LED"))
    assert set(blink) == {0, 1}
