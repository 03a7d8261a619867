"""The board: the table's signals wired to adapters (docs/firmware.md "Wiring").

:class:`Config` is the pin map (defaults: the documented wiring; a venue may override any key in
``config.json`` on the Pico's flash). :class:`Board` builds every adapter from a ``machine``-like
module -- MicroPython's own on the Pico, :class:`firmware.sim.SimMachine` on the host -- and is
the :class:`firmware.table.Outputs` the firmware carries commands out on.
"""

from firmware import messages as m
from firmware.dice import DiceEntry, DiceLines
from firmware.inputs import Button, Level
from firmware.outputs import Buzzer, Pulse, SeatLeds, StatusLed
from firmware.table import Outputs, Table
from firmware.tm1637 import TM1637, segments

try:
    from typing import TYPE_CHECKING
except ImportError:  # MicroPython has no typing module
    TYPE_CHECKING = False  # type: ignore[misc,unused-ignore]
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


class Config:
    """Pico GPIO numbers of every signal (``None``/empty: the table has no such signal)."""

    def __init__(self) -> None:
        self.transport = "usb"  # "usb" (the Pico's USB CDC serial) or "uart"
        self.uart_id = 0
        self.uart_tx = 0
        self.uart_rx = 1
        self.baud = 115200
        self.start_inputs: list[tuple[int | None, int]] = [(None, 2)]  # (seat or None, pin)
        self.start_relay: int | None = 3
        self.wall_input: int | None = 4
        self.seat_buttons: list[tuple[int, int, int]] = [(0, 0, 5), (1, 0, 6), (2, 0, 7),
                                                         (3, 0, 8)]  # (seat, button, pin)
        self.dice = "lines"  # "lines", "buttons" or "none"
        self.dice_lines: list[list[int]] = [[9, 10, 11], [12, 13, 14]]  # bit 0, 1, 2 per die
        self.dice_buttons: list[int] = [9, 10]  # STEP, ENTER
        self.display_clk: int | None = 16  # shared by every TM1637
        self.honba_dio: int | None = 17
        self.honba_digits = 4
        self.score_dios: list[int] = [18, 19, 20, 21]  # seat 0..3
        self.score_digits = 6
        self.buzzer: int | None = 22
        self.leds: int | None = 26  # WS2812 chain, one pixel per seat
        self.status_led: int | str | None = "LED"
        self.maintenance_pin: int | None = 15  # to GND at power-up: do not run (mpremote)
        self.active_low = True  # optocoupler outputs pull the pin low when the signal is on
        self.stuck_ms = 10000
        self.debounce_ms = 20
        self.dice_settle_ms = 300

    def update(self, values: "dict[str, Any]") -> None:
        """Override keys (from config.json); an unknown key is an error, not silently ignored."""
        for key in values:
            if not hasattr(self, key):
                raise ValueError("unknown config key: " + key)
            setattr(self, key, values[key])


def capabilities(cfg: Config) -> int:
    """What this wiring lets the table announce (§5)."""
    caps = 0
    if cfg.display_clk is not None and cfg.honba_dio is not None:
        caps |= m.CAP_HONBA_DISPLAY
    if cfg.display_clk is not None and len(cfg.score_dios) == 4:
        caps |= m.CAP_SCORE_DISPLAYS
    if cfg.seat_buttons:
        caps |= m.CAP_SEAT_BUTTONS
    return caps


class Board(Outputs):
    def __init__(self, machine: "Any", cfg: Config | None = None,
                 neopixel: "Callable[[Any, int], Any] | None" = None,
                 delay_us: "Callable[[int], object] | None" = None) -> None:
        self.cfg = cfg = cfg or Config()
        self.machine = machine
        self.table: Table | None = None
        self.honba = (0, 0)
        self._display_ok: dict[int, bool] = {}  # per display (seat, -1 = honba): last write ok
        pin = machine.Pin
        self._inputs: list[Any] = []

        def inp(n: int) -> "Any":
            return pin(n, pin.IN, pin.PULL_UP)

        def out(n: int | str) -> "Any":
            return pin(n, pin.OUT, value=0)

        for seat, n in cfg.start_inputs:
            self._inputs.append(Button(inp(n), self._start_cb(seat), self._stuck_cb(seat),
                                       cfg.stuck_ms, cfg.debounce_ms, cfg.active_low))
        if cfg.wall_input is not None:
            self._inputs.append(Level(inp(cfg.wall_input), self._wall, 50, cfg.active_low))
        for seat, button, n in cfg.seat_buttons:
            self._inputs.append(Button(inp(n), self._seat_cb(seat, button), self._stuck_cb(seat),
                                       cfg.stuck_ms, cfg.debounce_ms, cfg.active_low))
        self.dice_entry: DiceEntry | None = None
        if cfg.dice == "lines":
            a, b = cfg.dice_lines
            self._inputs.append(DiceLines([inp(n) for n in a], [inp(n) for n in b], self._dice,
                                          self._dice_error, cfg.dice_settle_ms, cfg.active_low))
        elif cfg.dice == "buttons":
            step, enter = cfg.dice_buttons
            entry = self.dice_entry = DiceEntry(self._show_entry, self._dice)
            self._inputs.append(entry)
            self._inputs.append(Button(inp(step), entry.step, self._stuck_cb(None),
                                       cfg.stuck_ms, cfg.debounce_ms, cfg.active_low))
            self._inputs.append(Button(inp(enter), entry.enter, self._stuck_cb(None),
                                       cfg.stuck_ms, cfg.debounce_ms, cfg.active_low))
        elif cfg.dice != "none":
            raise ValueError("dice must be 'lines', 'buttons' or 'none', not " + str(cfg.dice))
        self.honba_display: TM1637 | None = None
        self.score_displays: list[TM1637] = []
        if cfg.display_clk is not None:
            clk = out(cfg.display_clk)
            io = (pin.OUT, pin.IN)
            if cfg.honba_dio is not None:
                self.honba_display = TM1637(clk, out(cfg.honba_dio), cfg.honba_digits, 5,
                                            delay_us, *io)
            self.score_displays = [TM1637(clk, out(n), cfg.score_digits, 5, delay_us, *io)
                                   for n in cfg.score_dios]
        self.buzzer = Buzzer(out(cfg.buzzer)) if cfg.buzzer is not None else None
        self.relay = Pulse(out(cfg.start_relay)) if cfg.start_relay is not None else None
        self.leds = SeatLeds(neopixel(out(cfg.leds), 4)) \
            if cfg.leds is not None and neopixel is not None else None
        self.status = StatusLed(out(cfg.status_led)) if cfg.status_led is not None else None

    def capabilities(self) -> int:
        return capabilities(self.cfg)

    # --- inputs -> table events ----------------------------------------------------------------

    def _emit_fault(self, code: int, seat: int | None, now: int) -> None:
        if self.table is not None:
            self.table.fault(code, seat, now)

    def _start_cb(self, seat: int | None) -> "Callable[[int], None]":
        def pressed(now: int) -> None:
            if self.table is not None:
                self.table.press_start(seat, now)
        return pressed

    def _seat_cb(self, seat: int, button: int) -> "Callable[[int], None]":
        def pressed(now: int) -> None:
            if self.table is not None:
                self.table.seat_button(seat, button, now)
        return pressed

    def _stuck_cb(self, seat: int | None) -> "Callable[[int], None]":
        def stuck(now: int) -> None:
            self._emit_fault(m.FAULT_INPUT_STUCK, seat, now)
        return stuck

    def _wall(self, now: int) -> None:
        if self.table is not None:
            self.table.wall_raised(now)

    def _dice(self, a: int, b: int, now: int) -> None:
        if self.table is not None:
            self.table.dice(a, b, now)

    def _dice_error(self, now: int) -> None:
        self._emit_fault(m.FAULT_DICE_ERROR, None, now)

    # --- displays ------------------------------------------------------------------------------

    def _checked(self, key: int, ok: bool, now: int) -> bool:
        """A display that stops answering is reported once (fault display, its seat), again only
        after it has answered in between."""
        was = self._display_ok.get(key, True)
        self._display_ok[key] = ok
        if was and not ok:
            self._emit_fault(m.FAULT_DISPLAY, None if key < 0 else key, now)
        return ok

    def _honba_text(self) -> str:
        honba, deposits = self.honba
        h = str(honba) if honba < 100 else "--"
        d = str(deposits) if deposits < 100 else "--"
        # the colon (grid 1's point on clock modules) separates honba from deposits
        return " " * (2 - len(h)) + h + "." + " " * (2 - len(d)) + d

    def show_honba(self, honba: int, deposits: int, now: int) -> None:
        self.honba = (honba, deposits)
        if self.honba_display is not None and (self.dice_entry is None
                                               or not self.dice_entry.entering):
            self._checked(-1, self.honba_display.show(self._honba_text()), now)

    def _show_entry(self, a: int | None, b: int | None) -> None:
        if self.honba_display is None:
            return
        if a is None:
            self.honba_display.show(self._honba_text())
        else:
            self.honba_display.write(segments("d" + str(a) + " " + (str(b) if b else "-")))

    def show_scores(self, scores: tuple[int, int, int, int], now: int) -> None:
        for seat in range(len(self.score_displays)):
            self._checked(seat, self.score_displays[seat].number(scores[seat]), now)

    # --- other outputs -------------------------------------------------------------------------

    def buzz(self, duration_ms: int, count: int, now: int) -> None:
        if self.buzzer is not None:
            self.buzzer.buzz(duration_ms, count, now)

    def led(self, seat: int | None, mode: int, rgb: tuple[int, int, int], now: int) -> None:
        if self.leds is not None:
            self.leds.set(seat, mode, rgb, now)

    def pulse_start(self, now: int) -> None:
        if self.relay is not None:
            self.relay.pulse(now)

    def link_status(self, connected: bool, now: int) -> None:
        if self.status is not None:
            self.status.connected = connected

    def poll(self, now: int) -> None:
        for adapter in self._inputs:
            adapter.poll(now)
        for timed in (self.buzzer, self.relay, self.leds, self.status):
            if timed is not None:
                timed.poll(now)
