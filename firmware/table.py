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
    """The link's :class:`~firmware.link.Listener`: every report it makes has its method here
    (a missing one fails ``mypy --strict`` where :meth:`Link.listen` is called)."""

    def __init__(self, link: ln.Link, outputs: Outputs | None = None) -> None:
        self.link = link
        self.outputs = outputs or Outputs()
        #: called with (kind, payload) for every command carried out (the emulator records them)
        self.on_command: Callable[[int, bytes], None] | None = None
        #: called with (reason) for each problem worth a log line on the board's debug UART
        self.on_log: Callable[[str], None] | None = None
        #: a board whose configuration is wrong wires nothing: it refuses every command
        self.refuse_commands = False
        link.listen(self)

    # --- table events --------------------------------------------------------------------------

    def emit(self, kind: int, payload: bytes, now: int) -> int:
        """Queue one table event; returns its handle (0 when the queue was full: dropped,
        counted, reported to the host as ``events_dropped`` once there is room)."""
        handle = self.link.send(kind, payload, now)
        if not handle:
            self._log("event dropped: the queue is full")
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

    def controller_reset(self, cause: int, lost: int | None, now: int) -> int:
        """The first event of a boot: why the board started, and how many events it held
        unacknowledged when it went down (None: not known)."""
        return self.emit(m.CONTROLLER_RESET, m.controller_reset(cause, lost), now)

    def config_fault(self, problem: int, key: str | None, pin: int | None, now: int) -> int:
        return self.emit(m.CONFIG_FAULT, m.config_fault(problem, key, pin), now)

    # --- link plumbing -------------------------------------------------------------------------

    def attach(self, now: int) -> None:
        self.link.attach(now)

    def detach(self, now: int) -> None:
        self.link.detach(now)

    def receive(self, data: "bytes | bytearray", now: int, size: int = -1) -> None:
        self.link.receive(data, now, size)

    def tick(self, now: int) -> None:
        self.link.tick(now)
        self.outputs.poll(now)

    @property
    def silent(self) -> bool:
        """Fault injection (hil): transmit nothing."""
        return self.link.mute

    @silent.setter
    def silent(self, value: bool) -> None:
        self.link.mute = value

    @property
    def pending_output(self) -> bool:
        return self.link.tx_len > 0

    def take_output(self) -> bytes:
        return self.link.take_tx()

    def write_raw(self, data: bytes) -> None:
        """Bytes for the wire that bypass the protocol (the emulator's fault injection)."""
        self.link.write_raw(data)

    # --- the link's reports (firmware.link.Listener) -------------------------------------------

    def accepts(self, kind: int, payload: bytes) -> bool:
        """A command is carried out only with the capability it needs (§5)."""
        if self.refuse_commands:
            return False
        need = m.required_capability(kind)
        return need == 0 or bool(self.link.capabilities & need)

    def delivered(self, kind: int, payload: bytes, seq: int, now: int) -> None:
        self._carry_out(kind, payload, now)

    def acked(self, handle: int, kind: int, seq: int) -> None:
        pass  # the host has it: nothing left to do

    def rejected(self, handle: int, kind: int, payload: bytes, seq: int) -> None:
        self._log("host rejected an event")

    def connected(self, peer_boot_id: int, now: int) -> None:
        self.outputs.link_status(True, now)

    def lost(self, reason: str, now: int) -> None:
        self.outputs.link_status(False, now)
        self._log("link lost: " + reason)

    def garbled(self, reason: str) -> None:
        pass  # counted by the link (counters.errors); the protocol answers it

    # --- internals -----------------------------------------------------------------------------

    def _log(self, text: str) -> None:
        if self.on_log is not None:
            self.on_log(text)

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
            self.emit(m.START_PRESSED, m.start_pressed(None), now)
        else:  # MicroPython has no `match`: tests/firmware deliver every command code
            self._log("no handler for a command")
            return
        if self.on_command is not None:
            self.on_command(kind, p)
