"""Why the board started, and how many events went with its RAM (docs/firmware.md "Resets").

On the RP2040 the chip says why it reset: the watchdog's ``REASON`` register (timer: the loop
stopped feeding it; force: the firmware reset itself) and ``VREG_AND_CHIP_RESET.CHIP_RESET``
(power-on or brown-out, the RUN pin). MicroPython's ``machine.reset_cause()`` folds these into
two (``PWRON_RESET``, ``WDT_RESET``), so on an RP2040 the firmware reads the registers; elsewhere
(RP2350, the host's simulation) it takes ``reset_cause()``.

The watchdog's scratch registers survive a watchdog or software reset, not a power-on or a RUN
reset: the main loop keeps in them the number of events it holds unacknowledged (queued,
outstanding, dropped and not yet reported), so the next boot can say how many were lost.
"""

from firmware import messages as m

try:
    from typing import TYPE_CHECKING
except ImportError:  # MicroPython has no typing module
    TYPE_CHECKING = False  # type: ignore[misc,unused-ignore]
if TYPE_CHECKING:
    from typing import Any

# RP2040 datasheet §4.7 (watchdog) and §2.10 (VREG_AND_CHIP_RESET)
WATCHDOG_REASON = 0x40058008
SCRATCH_COUNT = 0x4005800C  # WATCHDOG_SCRATCH0: events held (the boot ROM uses 4..7)
SCRATCH_MAGIC = 0x40058010  # WATCHDOG_SCRATCH1: MAGIC once this firmware has written SCRATCH0
CHIP_RESET = 0x40064008
MAGIC = 0x6A74
REASON_TIMER = 1
REASON_FORCE = 2
HAD_POR = 1 << 8  # power-on or brown-out
HAD_RUN = 1 << 16


def chip_cause(mem32: "Any") -> int:
    """The cause as an RP2040's registers tell it (a watchdog reset leaves REASON set and the
    chip-level bits as they were, so REASON is read first)."""
    reason = mem32[WATCHDOG_REASON] & 3
    if reason & REASON_TIMER:
        return m.RESET_WATCHDOG
    if reason & REASON_FORCE:
        return m.RESET_SOFTWARE
    chip = mem32[CHIP_RESET]
    if chip & HAD_RUN:
        return m.RESET_PIN
    if chip & HAD_POR:
        return m.RESET_POWER_ON
    return m.RESET_UNKNOWN


class ResetMemory:
    """``cause`` and ``lost`` of this boot (``lost`` None: not known), and :meth:`note`, which
    keeps the count of events held for the next boot. ``mem32``: ``machine.mem32`` on an RP2040,
    None elsewhere; ``fallback``/``wdt``: ``machine.reset_cause()`` and ``machine.WDT_RESET``."""

    def __init__(self, mem32: "Any", fallback: int | None, wdt: int = 3) -> None:
        self._mem = mem32
        self._last = -1
        if mem32 is None:
            self.cause = m.RESET_UNKNOWN if fallback is None else \
                m.RESET_WATCHDOG if fallback == wdt else m.RESET_POWER_ON
            self.lost: int | None = None
            return
        self.cause = chip_cause(mem32)
        kept = self.cause in (m.RESET_WATCHDOG, m.RESET_SOFTWARE) \
            and mem32[SCRATCH_MAGIC] == MAGIC
        self.lost = mem32[SCRATCH_COUNT] if kept else None
        mem32[SCRATCH_MAGIC] = MAGIC
        self.note(0)

    def note(self, held: int) -> None:
        """``held`` events would be lost by a reset now (written only when it changed)."""
        if held != self._last and self._mem is not None:
            self._mem[SCRATCH_COUNT] = held
            self._last = held
