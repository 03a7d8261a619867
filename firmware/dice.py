"""The dice roll, two ways (docs/firmware.md "Dice").

* :class:`DiceLines` -- tables with an electronic dice display: its two digits are tapped as
  two 3-bit binary values (1..6; 0 = blank) through optocouplers. While the dice "roll" the
  display flickers; a value counts once it has been steady for ``settle_ms``. A steady value
  that is no die (7, or one die blank) is reported as a ``dice_error`` fault.
* :class:`DiceEntry` -- tables without one: the dealer reads the physical dice and enters them
  with two buttons, STEP (next value, 1..6 round) and ENTER (take it). The value being entered is
  shown on the honba display; after the second ENTER the roll is sent.
"""

from firmware.errors import FirmwareConfigError

try:
    from typing import TYPE_CHECKING
except ImportError:  # MicroPython has no typing module
    TYPE_CHECKING = False  # type: ignore[misc,unused-ignore]
if TYPE_CHECKING:
    from collections.abc import Callable

    from firmware.inputs import PinLike


class DiceLines:
    def __init__(self, die_a: "list[PinLike]", die_b: "list[PinLike]",
                 on_dice: "Callable[[int, int, int], object]",
                 on_error: "Callable[[int], object]", settle_ms: int = 300,
                 active_low: bool = True) -> None:
        if len(die_a) != 3 or len(die_b) != 3:
            raise FirmwareConfigError("each die needs 3 lines (bit 0, bit 1, bit 2)")
        self.die_a = die_a
        self.die_b = die_b
        self.on_dice = on_dice
        self.on_error = on_error
        self.settle_ms = settle_ms
        self.active_low = active_low
        self._last = -1  # die A | die B << 3 (an int: a poll allocates nothing)
        self._since = 0
        self._done = True  # the value at boot is not a roll

    def _value(self, pins: "list[PinLike]") -> int:
        value = 0
        for bit in range(3):
            level = pins[bit].value()
            if (not level) if self.active_low else level:
                value |= 1 << bit
        return value

    def read(self) -> tuple[int, int]:
        return (self._value(self.die_a), self._value(self.die_b))

    def poll(self, now: int) -> None:
        value = self._value(self.die_a) | (self._value(self.die_b) << 3)
        if value != self._last:
            first = self._last == -1
            self._last = value
            self._since = now
            self._done = first
            return
        if self._done or now - self._since < self.settle_ms:
            return
        self._done = True
        a = value & 7
        b = value >> 3
        if a == 0 and b == 0:
            return  # the display went blank: ready for the next roll
        if 1 <= a <= 6 and 1 <= b <= 6:
            self.on_dice(a, b, now)
        else:
            self.on_error(now)


class DiceEntry:
    """``show(a, b)`` displays the entry (``b`` None while the first die is entered; ``a`` None
    when idle), ``on_dice(a, b, now)`` takes the roll."""

    def __init__(self, show: "Callable[[int | None, int | None], object]",
                 on_dice: "Callable[[int, int, int], object]", timeout_ms: int = 30000) -> None:
        self.show = show
        self.on_dice = on_dice
        self.timeout_ms = timeout_ms
        self.first: int | None = None  # die A, once entered
        self.value: int | None = None  # the die being entered
        self._last = 0

    @property
    def entering(self) -> bool:
        return self.value is not None

    def step(self, now: int) -> None:
        self.value = 1 if self.value is None else self.value % 6 + 1
        self._last = now
        self._show()

    def enter(self, now: int) -> None:
        if self.value is None:
            return  # ENTER before any STEP: nothing to take
        self._last = now
        if self.first is None:
            self.first = self.value
            self.value = 1
            self._show()
            return
        a, b = self.first, self.value
        self.first = self.value = None
        self.show(None, None)
        self.on_dice(a, b, now)

    def poll(self, now: int) -> None:
        """An entry left half done for ``timeout_ms`` is abandoned (and the display restored)."""
        if self.value is not None and now - self._last >= self.timeout_ms:
            self.first = self.value = None
            self.show(None, None)

    def _show(self) -> None:
        if self.first is None:
            self.show(self.value, None)
        else:
            self.show(self.first, self.value)
