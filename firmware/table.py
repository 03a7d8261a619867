"""The controller's application: table events in, commands out, over one :class:`Link`.

Adapters (``firmware.inputs``, ``firmware.dice``) call :meth:`Table.emit` with what the table's
signals say; commands the host sends are carried out by an :class:`Outputs` (the board's
displays, buzzer, LEDs and start relay). The same object runs on the Pico (``firmware.pico``)
and in the host's emulator (``hil/table_controller.py``).
"""

from firmware import link as ln
from firmware import messages as m

try:
    from typing import TYPE_CHECKING
except ImportError:  # MicroPython has no typing module
    TYPE_CHECKING = False  # type: ignore[misc,unused-ignore]
if TYPE_CHECKING:
    from collections.abc import Callable


class Outputs:
    """What the board does for each command; this base does nothing (a table without displays,
    or the emulator's bare controller). Each method returns at once (no blocking sleeps): timed
    outputs (buzzer, blinking, the relay pulse) run from :meth:`poll`."""

    def show_honba(self, honba: int, deposits: int, now: int) -> None:
        pass

    def show_scores(self, scores: tuple[int, int, int, int], now: int) -> None:
        pass

    def buzz(self, duration_ms: int, count: int, now: int) -> None:
        pass

    def led(self, seat: int | None, mode: int, rgb: tuple[int, int, int], now: int) -> None:
        pass

    def pulse_start(self, now: int) -> None:
        pass

    def link_status(self, connected: bool, now: int) -> None:
        pass

    def poll(self, now: int) -> None:
        pass


class Table:
    def __init__(self, link: ln.Link, outputs: Outputs | None = None) -> None:
        self.link = link
        self.outputs = outputs or Outputs()
        #: called with (kind, payload) for every command carried out (the emulator records them)
        self.on_command: Callable[[int, bytes], None] | None = None
        #: called with (reason) for each problem worth a log line on the board's debug UART
        self.on_log: Callable[[str], None] | None = None
        self.silent = False  # fault injection (hil): transmit nothing
        self._tx = bytearray()
        link.set_accept(self.accepts)

    # --- table events --------------------------------------------------------------------------

    def emit(self, kind: int, payload: bytes, now: int) -> int:
        """Queue one table event; returns its handle (0 when the queue was full: logged and
        counted in ``link.counters.overflows``)."""
        try:
            handle = self.link.send(kind, payload, now)
        except ln.QueueFull as exc:
            self._log(f"event 0x{kind:02x} dropped: {exc}")
            handle = 0
        self._collect(now)
        return handle

    def press_start(self, seat: int | None, now: int) -> int:
        return self.emit(m.START_PRESSED, m.start_pressed(seat), now)

    def wall_raised(self, now: int) -> int:
        return self.emit(m.WALL_RAISED, b"", now)

    def dice(self, a: int, b: int, now: int) -> int:
        return self.emit(m.DICE, m.dice(a, b), now)

    def seat_button(self, seat: int, button: int, now: int) -> int:
        return self.emit(m.SEAT_BUTTON, m.seat_button(seat, button), now)

    def fault(self, code: int, seat: int | None, now: int) -> int:
        return self.emit(m.FAULT, m.fault(code, seat), now)

    # --- link plumbing -------------------------------------------------------------------------

    def attach(self, now: int) -> None:
        self.link.attach(now)
        self._collect(now)

    def detach(self, now: int) -> None:
        self.link.detach(now)
        self._collect(now)
        self._tx = bytearray()

    def receive(self, data: bytes | bytearray, now: int) -> None:
        self.link.receive(data, now)
        self._collect(now)

    def tick(self, now: int) -> None:
        self.link.tick(now)
        self.outputs.poll(now)
        self._collect(now)

    @property
    def pending_output(self) -> bool:
        return bool(self._tx)

    def take_output(self) -> bytes:
        data = bytes(self._tx)
        self._tx = bytearray()
        return data

    def write_raw(self, data: bytes) -> None:
        """Bytes for the wire that bypass the protocol (the emulator's fault injection)."""
        self._tx += data

    def accepts(self, kind: int, payload: bytes) -> bool:
        """A command is carried out only with the capability it needs (§5)."""
        need = m.required_capability(kind)
        return need == 0 or bool(self.link.capabilities & need)

    # --- internals -----------------------------------------------------------------------------

    def _log(self, text: str) -> None:
        if self.on_log is not None:
            self.on_log(text)

    def _collect(self, now: int) -> None:
        while True:
            data, outputs = self.link.drain()
            if not data and not outputs:
                return
            if not self.silent:
                self._tx += data
            for out in outputs:
                what = out.what
                if what == ln.DELIVERED:
                    self._carry_out(out.kind, out.payload, now)
                elif what == ln.CONNECTED:
                    self.outputs.link_status(True, now)
                elif what == ln.LOST:
                    self.outputs.link_status(False, now)
                    self._log("link lost: " + out.reason)
                elif what == ln.REJECTED:
                    self._log(f"host rejected event 0x{out.kind:02x} seq {out.seq}")

    def _carry_out(self, kind: int, p: bytes, now: int) -> None:
        o = self.outputs
        if kind == m.HONBA_DISPLAY:
            o.show_honba(p[0], p[1], now)
        elif kind == m.SCORE_DISPLAY:
            o.show_scores(m.scores(p), now)
        elif kind == m.BUZZER:
            duration, count = m.buzzer(p)
            o.buzz(duration, count, now)
        elif kind == m.LED:
            o.led(None if p[0] == m.NONE_U8 else p[0], p[1], (p[2], p[3], p[4]), now)
        elif kind == m.PRESS_START:
            # the table starts its cycle as if its start button were pressed (§6.3)
            o.pulse_start(now)
            try:
                self.link.send(m.START_PRESSED, m.start_pressed(None), now)
            except ln.QueueFull as exc:
                self._log(f"start_pressed dropped: {exc}")
        if self.on_command is not None:
            self.on_command(kind, p)
