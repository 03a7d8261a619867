"""Leading-edge debouncing of a push button, from timestamped raw edges (pure).

gpiozero's MockFactory pins do not debounce, and the kernel's debouncing would delay the press
by the debounce time; a chess clock wants the instant of first contact. So we take every raw
edge with its own timestamp and decide here:

* a press is the first closing edge after the contact has been quiet (no edge at all) for at
  least ``window_ns``: its timestamp is that first edge, so debouncing adds no error to the clock;
* every other edge (contact bounce on press or release, a chattering switch) is ignored.

A release is never reported: the clocks only need presses. A line that is quiet for the window and
then closes is a press even if the preceding opening edge was lost (edges can be coalesced under
load), so a lost edge costs at most one press, never all following ones.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from drivers.gpio_errors import GpioConfigError

DEFAULT_WINDOW_NS: Final = 20_000_000  # 20 ms: longer than the bounce of ordinary arcade buttons


@dataclass(frozen=True, slots=True)
class Debouncer:
    """The state of one button's debouncer; :meth:`feed` returns the next state."""

    window_ns: int = DEFAULT_WINDOW_NS
    last_edge_ns: int | None = None  # the latest raw edge seen, whatever its direction

    def __post_init__(self) -> None:
        if isinstance(self.window_ns, bool) or not isinstance(self.window_ns, int):
            raise GpioConfigError("window_ns must be an int of nanoseconds, got "
                                  f"{self.window_ns!r}")
        if self.window_ns < 0:
            raise GpioConfigError(f"window_ns must be >= 0, got {self.window_ns}")

    def feed(self, t_ns: int, closed: bool) -> tuple[Debouncer, bool]:
        """One raw edge at ``t_ns``; ``closed`` is the level after it (True = contact made).

        Returns the new state and whether this edge is a press. An edge older than the latest one
        (timestamps taken on different threads) counts as simultaneous with it.
        """
        last = self.last_edge_ns
        quiet = last is None or t_ns - last >= self.window_ns
        newest = t_ns if last is None else max(last, t_ns)
        return Debouncer(self.window_ns, newest), closed and quiet


def presses(edges: list[tuple[int, bool]], window_ns: int = DEFAULT_WINDOW_NS) -> list[int]:
    """The press instants in a list of raw ``(t_ns, closed)`` edges (for tests and benches)."""
    state = Debouncer(window_ns)
    out: list[int] = []
    for t, closed in edges:
        state, pressed = state.feed(t, closed)
        if pressed:
            out.append(t)
    return out
