"""The board: the table's signals wired to adapters (docs/firmware.md "Wiring").

:class:`~firmware.config.Config` is the pin map. :class:`Board` builds every adapter from a
``machine``-like module -- MicroPython's own on the Pico, :class:`firmware.sim.SimMachine` on the
host -- and is the :class:`firmware.table.Outputs` the firmware carries commands out on.

Displays are written from :meth:`Board.poll`, one display per loop turn: a TM1637 write is the
longest thing the loop does (16 ms measured on the emulated RP2040), so a score update to four
displays and the honba display takes five turns instead of holding the loop for 80 ms.
"""

from firmware import messages as m
from firmware.config import Config
from firmware.dice import DiceEntry, DiceLines
from firmware.errors import FirmwareConfigError
from firmware.inputs import Button, Level
from firmware.outputs import Buzzer, Pulse, SeatLeds, StatusLed
from firmware.table import Outputs, Table
from firmware.tm1637 import TM1637, number_text, segments

try:
    from typing import TYPE_CHECKING
except ImportError:  # MicroPython has no typing module
    TYPE_CHECKING = False  # type: ignore[misc,unused-ignore]
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


INPUT_POLL_MS = 10  # unchanged inputs: how often their timers run (debounce is 20 ms)


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
                 delay_us: "Callable[[int], object] | None" = None,
                 gpio_in: "Callable[[], int] | None" = None) -> None:
        self.cfg = cfg = cfg or Config()
        self.machine = machine
        # every input's level in one read (the RP2040's SIO GPIO_IN): while none changed, the
        # adapters are polled every INPUT_POLL_MS only (debounce and stuck timers), not every
        # turn: an idle turn is then a fraction of a millisecond on the chip
        self._gpio_in = gpio_in
        self._levels = -1
        self._polled = 0
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
            raise FirmwareConfigError(
                "dice must be 'lines', 'buttons' or 'none', not " + str(cfg.dice))
        self._wire_displays(pin, out, delay_us)
        self.buzzer = Buzzer(out(cfg.buzzer)) if cfg.buzzer is not None else None
        self.relay = Pulse(out(cfg.start_relay)) if cfg.start_relay is not None else None
        self.leds = SeatLeds(neopixel(out(cfg.leds), 4)) \
            if cfg.leds is not None and neopixel is not None else None
        self.status = StatusLed(out(cfg.status_led)) if cfg.status_led is not None else None
        self._timed: list[Any] = [x for x in (self.buzzer, self.relay, self.leds, self.status)
                                  if x is not None]

    def _wire_displays(self, pin: "Any", out: "Callable[[int], Any]",
                       delay_us: "Callable[[int], object] | None") -> None:
        cfg = self.cfg
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
        # what each display is to show next (None: up to date), written by poll one at a time;
        # index = seat, 4 = the honba display
        self._displays: list[TM1637 | None] = list(self.score_displays)
        self._displays += [None] * (4 - len(self.score_displays)) + [self.honba_display]
        self._wanted: list[bytes | None] = [None] * 5
        self._dirty = 0  # displays with something new to show
        self._next_display = 0
        self.display_writes = 0

    def capabilities(self) -> int:
        return 0 if self.cfg.safe else capabilities(self.cfg)

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

    def _want(self, index: int, segs: bytes) -> None:
        if self._wanted[index] is None:
            self._dirty += 1
        self._wanted[index] = segs

    def show_honba(self, honba: int, deposits: int, now: int) -> None:
        self.honba = (honba, deposits)
        if self.honba_display is not None and (self.dice_entry is None
                                               or not self.dice_entry.entering):
            self._want(4, self.honba_display.fit(self._honba_text()))

    def _show_entry(self, a: int | None, b: int | None) -> None:
        if self.honba_display is None:
            return
        if a is None:
            self._want(4, self.honba_display.fit(self._honba_text()))
        else:
            self._want(4, segments("d" + str(a) + " " + (str(b) if b else "-")))

    def show_scores(self, scores: tuple[int, int, int, int], now: int) -> None:
        for seat in range(len(self.score_displays)):
            display = self.score_displays[seat]
            self._want(seat, display.fit(number_text(scores[seat], display.digits)))

    def _write_display(self, now: int) -> None:
        """At most one display write per loop turn: the next display (round robin) that has
        something new to show."""
        wanted = self._wanted
        i = self._next_display
        for _ in range(5):
            segs = wanted[i]
            if segs is not None:
                display = self._displays[i]
                wanted[i] = None
                self._dirty -= 1
                self._next_display = (i + 1) % 5
                if display is not None:
                    self.display_writes += 1
                    self._checked(-1 if i == 4 else i, display.write(segs), now)
                return
            i = (i + 1) % 5

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

    def _poll_inputs(self, now: int) -> None:
        self._polled = now
        for adapter in self._inputs:
            adapter.poll(now)

    @property
    def displays_pending(self) -> int:
        """Displays with something new to show (written over the next loop turns)."""
        return self._dirty

    def poll(self, now: int) -> None:
        if self._gpio_in is None:
            self._poll_inputs(now)
        else:
            levels = self._gpio_in()
            if levels != self._levels or now - self._polled >= INPUT_POLL_MS:
                self._levels = levels
                self._poll_inputs(now)
        for timed in self._timed:
            timed.poll(now)
        if self._dirty:
            self._write_display(now)
