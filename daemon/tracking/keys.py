"""A seat-panel key → what its label says, whatever sensors the table has (pure).

The key numbering is the table link protocol's (:class:`drivers.link.messages.SeatKey`,
docs/protocol/table-link.md §6.2). Key 0 is the seat's clock button: a ``timer`` record (the
clocks fold it, W 打牌时限) -- the very record a GPIO clock button's press makes (:func:`clock`),
so a clock press means the same whichever device it came over. The referee's pause button toggles
(:func:`referee`): pause when the clocks run, resume when they are paused. A key that does not
apply now is a ``tile_rejected`` marker with the reason, never a guessed input; whether the
declaration itself is legal is the reducer's business.
"""

from __future__ import annotations

from typing import Final

from daemon.tracking.held import Held
from daemon.tracking.records import (
    KIND_TIMER,
    REFEREE_BUTTON,
    TABLE,
    Entry,
    button_source,
    hold,
    input_entry,
    rejected,
    seat_source,
)
from drivers.link.messages import SeatKey
from rules.inputs import AbortiveDraw, AbortKind, ExhaustiveDraw, Ron, Tsumo
from rules.seats import SEATS, Seat
from rules.table_state import TableState
from rules.timers import Pause, TimerState, toggle_pause

#: seat panel key → what it declares (docs/hil.md)
BUTTONS: Final[dict[int, str]] = {int(k): k.name.lower() for k in SeatKey}
_ABORTS: Final[dict[int, AbortKind]] = {
    SeatKey.NINE_TERMINALS: "nine_terminals",
    SeatKey.FOUR_WINDS: "four_winds",
    SeatKey.FOUR_RIICHI: "four_riichi",
    SeatKey.FOUR_KANS: "four_kans",
}


def clock(seat: Seat, t_ns: int | None = None) -> Entry:
    """A seat hit its clock (it has discarded): charged to ``t_ns`` when the device saw it (a GPIO
    edge), else to when the intake takes it (the table link reports no instant)."""
    return Entry(KIND_TIMER, button_source(seat), {"type": "button", "seat": int(seat)}, t_ns)


def referee(clocks: TimerState | None, t_ns: int) -> Entry:
    """The referee's single pause button, on the clocks as they are when the press is taken
    (no clocks yet: a pause, which the clocks ignore)."""
    toggled = Pause(t_ns) if clocks is None else toggle_pause(clocks, t_ns)
    kind = "pause" if isinstance(toggled, Pause) else "resume"
    return Entry(KIND_TIMER, REFEREE_BUTTON, {"type": kind}, t_ns)


def press(held: Held, state: TableState | None, seat: Seat, button: int) -> Entry:
    """The one record a key press makes."""
    s = int(seat)
    if button == SeatKey.CLOCK:
        return clock(seat)
    what = BUTTONS.get(button)
    h = None if state is None else state.hand
    if what is None or h is None:
        return rejected(f"seat {s} key {button}", "no_such_key" if what is None else "no_hand",
                        seat=s, button=button)
    match button:
        case SeatKey.RIICHI:
            if h.step == "discard" and h.turn == seat:
                return hold("riichi", seat=s)
            return rejected(f"seat {s} riichi key", "not_own_turn", seat=s, turn=int(h.turn),
                            step=h.step)
        case SeatKey.TSUMO:
            return input_entry(seat_source(seat), Tsumo(seat=seat))
        case SeatKey.RON:
            return input_entry(seat_source(seat), Ron(seat=seat))
        case SeatKey.TENPAI | SeatKey.NOTEN:
            if not (h.step == "draw" and h.live_left() == 0):
                return rejected(f"seat {s} {what} key", "wall_not_exhausted", seat=s,
                                step=h.step, live_left=h.live_left())
            return _answer(held, seat, button == SeatKey.TENPAI)
        case _:
            kind = _ABORTS[button]
            who = seat if kind == "nine_terminals" else None
            return input_entry(seat_source(seat), AbortiveDraw(kind=kind, seat=who))


def _answer(held: Held, seat: Seat, tenpai: bool) -> Entry:
    """Tenpai or noten at an exhaustive draw: the last of the four answers is the draw."""
    answers = {**dict(held.answers), seat: tenpai}
    if len(answers) < 4:
        return hold("answer", seat=int(seat), tenpai=tenpai)
    return input_entry(TABLE, ExhaustiveDraw(tenpai=tuple(s for s in SEATS if answers[s])))
