"""The one translation from device to input: ``track(held, state, item) -> Tracked`` (pure).

An *item* is what a device reported, in arrival order: a table link event, an RFID reader's tile
read, rejection or fault, a GPIO clock button's press. :func:`track` turns it into the records to
log (rules inputs with their source, ``tile_rejected`` / ``tracker_hold`` / table markers, clock
``timer`` records) using the table's current state, the clocks' state (the referee's pause button
toggles them) and what the tracker holds (:class:`~daemon.tracking.held.Held`) -- and nothing
else: no clock read, no I/O, no awaits. A GPIO seat press is the table link's clock key (key 0):
one record, the same from either device (:func:`daemon.tracking.keys.clock`). A camera read is
evidence (docs/tiles.md): checked against where the reducer and ``held`` say its kind is
(:func:`daemon.tracking.held.at`), a ``sensor_disagreement`` marker when the counts differ, and
never an input, never a move.

**Items of more than one step.** A read elsewhere or a table event first closes the open meld
areas (daemon.tracking.melds), and the item's own input must be judged on the state *after* the
meld's input (a pon, then the discard that follows it). So an item is split into steps: when
:attr:`Tracked.more` is set, the shell commits the records, then calls :func:`track` again with
the *same* item on the new state. Every step makes at most one record, so a step is atomic in the
log; the table link's position goes with the item's last record (a kill before it: the controller
resends the event, and the restored ``Held`` -- the meld already closed -- takes it from there).

The next ``Held`` is the current one settled with the step's records
(:func:`daemon.tracking.held.settle`): exactly what a restarted daemon computes from the log.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias, assert_never

from daemon.tracking import keys, melds, reads
from daemon.tracking.held import Held, at, settle
from daemon.tracking.records import TABLE, TRACKER, Entry, hold, input_entry, marker
from drivers.link import messages as m
from drivers.presses import RefereePress, SeatPress
from drivers.tiles.camera import CameraRead
from drivers.tiles.crosscheck import disagreement
from drivers.tiles.events import ReaderFault, Rejection, TileRead
from drivers.tiles.places import Zone
from rules.inputs import BreakOpened, DiceRolled, HandStart, IndicatorShown, WallRaised
from rules.seats import Seat, seat_by_dice
from rules.table_state import TableState
from rules.timers import TimerState
from rules.wall import Layer, Position

#: what devices report, in arrival order
Item: TypeAlias = (m.TableEvent | ReaderFault | Rejection | TileRead | CameraRead | SeatPress
                   | RefereePress)


@dataclass(frozen=True, slots=True)
class Setup:
    """What the fold knows of the table's equipment (constant while the daemon runs)."""

    aka: bool = True  # the tile set's red fives (mjai names in rejection texts)
    sensed: bool = False  # tile sensors read faces: an indicator's face follows its position


@dataclass(frozen=True, slots=True)
class Tracked:
    held: Held  # after ``entries``
    entries: tuple[Entry, ...]  # to log, in order (at most one)
    more: bool = False  # the same item again, on the state after ``entries``


def track(held: Held, state: TableState | None, item: Item, setup: Setup = Setup(), *,
          clocks: TimerState | None = None) -> Tracked:
    """The records ``item`` makes now. ``clocks``: the clocks' state folded from the same log
    (only the referee's pause button reads it)."""
    entries, more = _step(held, state, item, setup, clocks)
    after = held
    for e in entries:
        after = settle(after, e.kind, e.source, e.body)
    return Tracked(after, entries, more)


def _step(held: Held, state: TableState | None, item: Item, setup: Setup,
          clocks: TimerState | None) -> tuple[tuple[Entry, ...], bool]:
    # the cases by how often they come: tile reads (sensor tables), then table events
    match item:
        case TileRead():
            read = reads.located(state, held, item)
            if isinstance(read, Entry):
                return (read,), False  # judged where the tile is now: closes nothing
            z, seat = read.place.zone, read.place.seat
            if held.melds and not (z is Zone.MELDS and seat is not None
                                   and held.melds_of(seat) is not None):
                return _close_first(held, state, setup), True
            return reads.place(held, state, read, setup.aka), False
        case m.StartPressed() | m.WallRaised() | m.Dice() | m.BreakOpened() \
                | m.IndicatorTurned() | m.WallManifest() | m.SeatButton() | m.Fault():
            if held.melds:
                return _close_first(held, state, setup), True
            return (_table_event(held, state, item, setup),), False
        case m.ControllerReset() | m.EventsDropped() | m.ConfigFault():
            # about the board, not the game: logged, and no meld area is closed by it
            return (_table_event(held, state, item, setup),), False
        case SeatPress():  # the table link's clock key, from a GPIO button
            if held.melds:
                return _close_first(held, state, setup), True
            return (keys.clock(item.seat, item.t_ns),), False
        case RefereePress():  # not a table event: closes no meld area
            return (keys.referee(clocks, item.t_ns),), False
        case CameraRead():  # evidence, never truth: a marker when it disagrees, nothing moves
            kinds = (t.kind for t in at(state, held, item.place))
            found = disagreement(item, kinds)
            return (() if found is None else (marker(TRACKER, found.as_json()),)), False
        case ReaderFault():
            return (marker(TRACKER, {**item.as_json(), "type": "reader_fault"}),), False
        case Rejection():
            return (marker(TRACKER, item.as_json()),), False
        case _:
            assert_never(item)


def _close_first(held: Held, state: TableState | None, setup: Setup) -> tuple[Entry, ...]:
    seat, tiles = held.melds[0]
    return (melds.close(state, seat, tiles, setup.aka),)


def _table_event(held: Held, state: TableState | None, item: m.TableEvent,
                 setup: Setup) -> Entry:
    match item:
        case m.StartPressed():
            return input_entry(TABLE, HandStart())
        case m.WallRaised():
            return input_entry(TABLE, WallRaised())
        case m.WallManifest():
            return marker(TABLE, {**item.to_json(), "type": "table_wall_manifest"})
        case m.Dice():
            return input_entry(TABLE, DiceRolled(seat=_roller(state), dice=item.values))
        case m.BreakOpened():
            return input_entry(TABLE, BreakOpened(seat=Seat.of(item.seat), count=item.count))
        case m.IndicatorTurned():
            layer = Layer.TOP if item.layer is m.Layer.TOP else Layer.BOTTOM
            pos = Position(Seat.of(item.seat), item.stack, layer)
            if not setup.sensed:  # no sensor to read the face: the position is the input
                return input_entry(TABLE, IndicatorShown(position=pos, tile=None))
            if held.indicator_tile is not None:  # the face was read first
                return input_entry(TABLE, IndicatorShown(position=pos, tile=held.indicator_tile))
            return hold("indicator_position", position=pos.to_json())
        case m.SeatButton():
            return keys.press(held, state, Seat.of(item.seat), item.button)
        case m.Fault() | m.ControllerReset() | m.EventsDropped() | m.ConfigFault():
            body = item.to_json()
            return marker(TABLE, {**body, "type": f"table_{body['type']}"})
        case _:
            assert_never(item)


def _roller(state: TableState | None) -> Seat:
    """Who rolls: S §28-3(3) the dealer; W 开门-2 the second roll is the breaker's, the seat the
    dealer's roll counted to (rules.seats.seat_by_dice)."""
    h = None if state is None else state.hand
    if h is None:
        return Seat.S0
    if h.rolls:
        return seat_by_dice(h.dealer, sum(h.rolls[0][1]))
    return h.dealer
