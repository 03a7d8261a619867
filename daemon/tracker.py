"""The sensor tracker: tile reads + table events + seat declarations → rules inputs.

A sensor table reports *physical* facts: a tile appeared on a seat's hand rack, in its river, in
its meld area, on the dora spot (``drivers/tiles``, RFID); the wall went up, the dice showed 3-4,
the wall opened there, an indicator was turned (the table link); a seat pressed a button on its
panel. The rules engine wants *game* inputs (``rules.inputs``). The tracker turns one into the
other using the table's current state (whose turn, which step, the last discard, the wall
manifest) -- and nothing else: a read it cannot place is reported as a rejected read (a ``marker``
record ``tile_rejected`` in the log, a warning in the JSON log, a counter in health), never
guessed into an input. Rules violations (a draw out of turn, a wrong break) are *not* the
tracker's business: the physical fact goes to the reducer, which judges it.

Zones (``drivers/tiles/places.py``; docs/hil.md has the table drawing):

* ``hand`` of seat s -- before the deal: a dealt tile; after it: a draw (a replacement draw while
  the seat owes one after a kan); a tile read again where it already is changes nothing;
* ``river`` of seat s -- a discard; riichi when the seat pressed its riichi key this turn;
* ``melds`` of seat s -- tiles laid open. A meld is complete when the seat's meld area stops
  changing: the next read or table event anywhere closes it. Then: the last discard + 2 hand
  tiles = chi or pon, + 3 = daiminkan; 4 hand tiles of one kind = ankan; 1 hand tile of an own
  pon's kind = kakan;
* ``dora`` (no seat) -- the face of a turned indicator (paired with the table's
  ``indicator_turned``, which gives the position), and after a riichi win the ura indicators.

Seat panel keys (the table link's ``seat_button`` message, capability ``seat_buttons``):
:data:`BUTTONS`. Key 0 is the seat's clock button (a ``timer`` record, as the daemon always did).

What the tracker holds without an input yet (dealt tiles, a riichi key, meld tiles, ...) is logged
as ``tracker_hold`` markers, so a restarted daemon takes it back from the log (:meth:`_restore`).

The wall manifest (kinds by physical position) is kept and, once the break is known, put in ring
order: every draw, replacement draw and indicator read is checked against it, and a read whose kind
disagrees with the manifest is rejected (a misread tag) -- the tile stays where it was.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final, TypeAlias, assert_never

from daemon.eventlog import LinkPosition
from daemon.intake import InputRefused
from daemon.table import KIND_INPUT, KIND_MARKER, KIND_TIMER, Applied
from drivers.link.messages import SeatKey
from drivers.tiles.events import FaultKind, ReaderFault, Rejection, TileRead
from drivers.tiles.location import Locations
from drivers.tiles.places import Place, Zone
from rules.inputs import (
    AbortiveDraw,
    AbortKind,
    Ankan,
    BreakOpened,
    Call,
    DealDone,
    DiceRolled,
    Discard,
    Draw,
    ExhaustiveDraw,
    HandStart,
    IndicatorShown,
    Input,
    Kakan,
    RinshanDraw,
    Ron,
    Tsumo,
    UraRevealed,
    WallRaised,
    input_from_json,
    input_to_json,
)
from rules.seats import SEATS, Seat, seat_by_dice
from rules.tiles import Kind, Tile, parse_mjai
from rules.wall import Layer, Position, Wall

if TYPE_CHECKING:
    from daemon.service import InputSink
    from drivers.link.messages import TableEvent
    from drivers.tiles.config import TilesConfig
    from drivers.tiles.rfid import RfidTiles, TagReader
    from drivers.tiles.sensor import TileSensor
    from rules.table_state import HandState, TableState

log = logging.getLogger("jantaku.tracker")

# --- the seat panel ----------------------------------------------------------------------------
# the key numbering is the protocol's (drivers.link.messages.SeatKey)
CLOCK: Final = int(SeatKey.CLOCK)
RIICHI: Final = int(SeatKey.RIICHI)
TSUMO: Final = int(SeatKey.TSUMO)
RON: Final = int(SeatKey.RON)
TENPAI: Final = int(SeatKey.TENPAI)
NOTEN: Final = int(SeatKey.NOTEN)
NINE_TERMINALS: Final = int(SeatKey.NINE_TERMINALS)
FOUR_WINDS: Final = int(SeatKey.FOUR_WINDS)
FOUR_RIICHI: Final = int(SeatKey.FOUR_RIICHI)
FOUR_KANS: Final = int(SeatKey.FOUR_KANS)
#: seat panel key → what it declares (docs/hil.md)
BUTTONS: Final[dict[int, str]] = {
    CLOCK: "clock",
    RIICHI: "riichi",
    TSUMO: "tsumo",
    RON: "ron",
    TENPAI: "tenpai",
    NOTEN: "noten",
    NINE_TERMINALS: "nine_terminals",
    FOUR_WINDS: "four_winds",
    FOUR_RIICHI: "four_riichi",
    FOUR_KANS: "four_kans",
}
_ABORTS: Final[dict[int, AbortKind]] = {
    NINE_TERMINALS: "nine_terminals",
    FOUR_WINDS: "four_winds",
    FOUR_RIICHI: "four_riichi",
    FOUR_KANS: "four_kans",
}
#: reducer violations after which the read tile goes back to the wall (M 3-4-8)
_TILE_GOES_BACK: Final = frozenset({"draw_out_of_turn", "early_draw", "draw_twice"})


@dataclass(slots=True)
class _Hand:
    """What the tracker collects within one hand (reset at every start)."""

    deal: dict[Seat, list[Tile]] = field(default_factory=lambda: {s: [] for s in SEATS})
    melds: dict[Seat, list[tuple[Tile, Place | None]]] = field(default_factory=dict)
    riichi: set[Seat] = field(default_factory=set)
    indicator_position: Position | None = None
    indicator_tile: Tile | None = None
    ura: list[Tile] = field(default_factory=list)
    answers: dict[Seat, bool] = field(default_factory=dict)  # exhaustive draw: tenpai?
    manifest: tuple[str | None, ...] | None = None  # physical order (link's manifest_index)
    fourteenth: Tile | None = None  # the dealer's jump tile: the last one dealt to its rack


Item: TypeAlias = "TableEvent | ReaderFault | Rejection | TileRead"  # in arrival order


class SensorTracker:
    """A daemon driver: runs the RFID readers, takes the table link's events, feeds inputs."""

    def __init__(self, readers: Sequence[TagReader] = (), sensor: TileSensor | None = None, *,
                 aka: bool = True, name: str = "tracker") -> None:
        from drivers.tiles.rfid import RfidTiles

        self.name = name
        self.tiles: RfidTiles | None = None
        if sensor is not None:
            self.tiles = RfidTiles(readers, sensor, self.feed)
        self.aka = aka
        self._queue: asyncio.Queue[Item] = asyncio.Queue()
        # id(table event) -> (handled, the link position to commit with its record)
        self._waiters: dict[int, tuple[asyncio.Future[None], LinkPosition | None]] = {}
        self._position: LinkPosition | None = None
        self._hand = _Hand()
        self._sink: InputSink | None = None
        self.consumed = 0  # device events handled (reads, rejections, table events, keys)
        self._consumed_changed = asyncio.Event()
        self.inputs = 0
        self.rejected = 0
        self.reader_faults = 0
        self.reader_connects = 0
        self.last_rejection: dict[str, Any] | None = None
        self.reasons: Counter[str] = Counter()  # rejections by reason
        self._status = "starting"

    @classmethod
    def from_config(cls, tiles: TilesConfig) -> SensorTracker:
        """The tracker for a config's ``[tiles]`` section (readers and their enrolment)."""
        from drivers.tiles.config import build_readers
        from drivers.tiles.enroll import load
        from drivers.tiles.sensor import TileSensor

        if tiles.enrolment is None:
            raise ValueError("tiles: readers need an 'enrolment' file (jantaku tiles enrol)")
        enrolment = load(tiles.enrolment)
        sensor = TileSensor(enrolment.registry(), tiles.places(),
                            window_ns=tiles.debounce_ms * 1_000_000)
        return cls(build_readers(tiles), sensor, aka=enrolment.aka)

    # ------------------------------------------------------------------ intake
    def feed(self, item: Item) -> None:
        """A table event or an RFID outcome, in arrival order (any thread-free caller)."""
        self._queue.put_nowait(item)

    def table_event(self, event: TableEvent) -> None:
        self.feed(event)

    async def take(self, event: TableEvent, position: LinkPosition | None = None) -> None:
        """Feed a table event and wait until it is handled (its record committed): the table
        link acknowledges it only then. ``position`` (the link's, after this event) is committed
        in the same transaction as the event's own record, or alone if it makes none."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters[id(event)] = (done, position)
        self.feed(event)
        await done

    async def _put(self, sink: InputSink, kind: str, source: str,
                   body: dict[str, Any]) -> Applied | None:
        """Log one record; the first one of a table event's own carries the link position."""
        position, self._position = self._position, None
        try:
            return await sink.submit(kind, source, body, link=position)
        except InputRefused as exc:  # not JSON: a bug here, never lose the position
            log.error("record refused: %s", exc)
            if position is not None:
                await sink.mark_link(position)
            return None

    async def wait_consumed(self, n: int, timeout: float = 30.0) -> None:
        """Until ``n`` device events have been handled (the HIL runner's lockstep)."""
        async def _wait() -> None:
            while self.consumed < n:
                self._consumed_changed.clear()
                await self._consumed_changed.wait()

        await asyncio.wait_for(_wait(), timeout)

    # ------------------------------------------------------------------ driver
    async def run(self, sink: InputSink) -> None:
        self._sink = sink
        await self._restore(sink)
        reader: asyncio.Task[None] | None = None
        if self.tiles is not None:
            reader = asyncio.create_task(self.tiles.run(), name="tracker:rfid")
        self._status = "up"
        try:
            while True:
                get = asyncio.ensure_future(self._queue.get())
                waits: list[asyncio.Future[Any]] = [get]
                if reader is not None:
                    waits.append(reader)
                done, _ = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
                if get not in done:
                    get.cancel()
                    assert reader is not None
                    raise RuntimeError("the RFID readers stopped") from reader.exception()
                item = get.result()
                waiter, position = self._waiters.pop(id(item), (None, None))
                try:
                    await self._handle(sink, item, position)
                    if self._position is not None:  # the event made no record of its own
                        pos, self._position = self._position, None
                        await sink.mark_link(pos)
                except BaseException as exc:
                    if waiter is not None and not waiter.done():
                        waiter.set_exception(RuntimeError(f"tracker failed on {item!r}: {exc!r}"))
                    raise
                else:
                    if waiter is not None and not waiter.done():
                        waiter.set_result(None)
                finally:
                    if not isinstance(item, ReaderFault):
                        self.consumed += 1
                        self._consumed_changed.set()
        finally:
            self._status = "closed"
            if reader is not None:
                reader.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await reader

    async def show(self, board: dict[str, Any], events: Sequence[dict[str, Any]]) -> None:
        return None

    def health(self) -> dict[str, Any]:
        return {
            "kind": "tracker",
            "status": self._status,
            "consumed": self.consumed,
            "inputs": self.inputs,
            "rejected": self.rejected,
            "reasons": dict(self.reasons),
            "reader_faults": self.reader_faults,
            "reader_connects": self.reader_connects,
            "last_rejection": self.last_rejection,
        }

    # ------------------------------------------------------------------ helpers
    @staticmethod
    def _state(sink: InputSink) -> TableState | None:
        return sink.table_state()

    def _h(self, sink: InputSink) -> HandState | None:
        st = self._state(sink)
        return None if st is None else st.hand

    async def _input(self, sink: InputSink, source: str, inp: Input) -> list[dict[str, Any]]:
        applied = await self._put(sink, KIND_INPUT, source, _compact(inp))
        assert applied is not None
        self.inputs += 1
        return [e["data"] for e in applied.events]

    async def _reject(self, sink: InputSink, what: str, reason: str, **fields: Any) -> None:
        self.rejected += 1
        self.reasons[reason] += 1
        body = {"type": "tile_rejected", "what": what, "reason": reason, **fields}
        self.last_rejection = body
        log.warning("rejected %s: %s", what, reason, extra={"fields": fields})
        await self._put(sink, KIND_MARKER, "tracker", body)

    def _forget(self, tile: Tile, back_to: Place | None = None) -> None:
        """The tile is not where the sensor model put it (a refused read, a tile back to the
        wall): unseen again, or back at ``back_to`` (a refused meld's tiles go back)."""
        if self.tiles is None:
            return
        sensor = self.tiles.sensor
        places = {t: p for t, p in sensor.locations.places.items() if t != tile}
        if back_to is not None:
            places[tile] = back_to
        locations = Locations(MappingProxyType(places), sensor.locations.moves)
        from dataclasses import replace

        self.tiles.sensor = replace(sensor, locations=locations)

    async def _reject_meld(self, sink: InputSink, seat: Seat,
                           tiles: list[tuple[Tile, Place | None]], reason: str) -> None:
        """Not a meld: the tiles are where they were before (the players put them back)."""
        for tile, previous in tiles:
            self._forget(tile, previous)
        desc = "+".join(t.mjai(self.aka) for t, _ in tiles)
        await self._reject(sink, f"meld {desc} of seat {int(seat)}", reason,
                           tiles=[t.id for t, _ in tiles])

    def _ring_kind(self, h: HandState, index: int) -> Kind | None:
        """The manifest's kind at ring ``index`` (None: no manifest, no break, or unread)."""
        man = self._hand.manifest
        if man is None or h.brk is None:
            return None
        from drivers.link.messages import Layer as LinkLayer
        from drivers.link.messages import manifest_index

        pos = Wall(h.brk).position(index)
        layer = LinkLayer.TOP if pos.layer is Layer.TOP else LinkLayer.BOTTOM
        name = man[manifest_index(int(pos.seat), pos.stack, layer)]
        return None if name is None else parse_mjai(name)[0]

    async def _check_manifest(self, sink: InputSink, h: HandState, index: int, read: TileRead,
                              what: str) -> bool:
        want = self._ring_kind(h, index)
        if want is None or read.tile.kind == want:
            return True
        self._forget(read.tile)
        await self._reject(sink, what, "manifest_mismatch", tile=read.tile.id,
                           read=read.tile.kind.mjai, manifest=want.mjai, ring=index,
                           place=read.place.as_json())
        return False

    async def _check_indicator(self, sink: InputSink, read: TileRead) -> bool:
        """The face on the dora spot against the manifest at the position the table turned."""
        pos, man = self._hand.indicator_position, self._hand.manifest
        if pos is None or man is None:
            return True
        from drivers.link.messages import Layer as LinkLayer
        from drivers.link.messages import manifest_index

        layer = LinkLayer.TOP if pos.layer is Layer.TOP else LinkLayer.BOTTOM
        name = man[manifest_index(int(pos.seat), pos.stack, layer)]
        if name is None or parse_mjai(name)[0] == read.tile.kind:
            return True
        self._forget(read.tile)
        await self._reject(sink, "indicator", "manifest_mismatch", tile=read.tile.id,
                           read=read.tile.kind.mjai, manifest=name, position=pos.to_json())
        return False

    # ------------------------------------------------------------------ restart
    async def _hold(self, sink: InputSink, what: str, **fields: Any) -> None:
        """Log a device event the tracker holds without an input yet (a dealt tile, a riichi
        key, a meld tile, ...): after a restart, :meth:`_restore` picks it up from the log."""
        await self._put(sink, KIND_MARKER, "tracker",
                        {"type": "tracker_hold", "what": what, **fields})

    async def _restore(self, sink: InputSink) -> None:
        """After a restart (kill -9, power loss) mid-hand: the held device events of this hand
        from the log, and the sensor model from the table state (docs/hil.md)."""
        records = await sink.game_records()
        if not records:
            return
        start = max((i for i, r in enumerate(records) if r.kind == KIND_INPUT
                     and r.body.get("type") == "hand_start"), default=None)
        h = self._h(sink)
        if start is None or h is None or h.step == "ended":
            return
        hand = _Hand()
        dealt = False
        for rec in records[start + 1:]:
            body = rec.body
            if rec.kind == KIND_INPUT:
                dealt = dealt or body.get("type") == "deal_done"
                # anything else pending was taken by this input
                hand.riichi, hand.melds, hand.answers, hand.ura = set(), {}, {}, []
                hand.indicator_position = hand.indicator_tile = None
                continue
            if rec.kind != KIND_MARKER:
                continue
            kind, what = body.get("type"), body.get("what")
            if kind == "table_wall_manifest":
                hand.manifest = tuple(body["tiles"])
            elif kind == "tile_rejected" and str(what).startswith("meld"):
                hand.melds = {}
            elif kind == "tracker_hold":
                tile = Tile(body["tile"]) if isinstance(body.get("tile"), int) else None
                seat = Seat.of(body["seat"]) if isinstance(body.get("seat"), int) else None
                if what == "deal" and seat is not None and tile is not None:
                    hand.deal[seat].append(tile)
                elif what == "riichi" and seat is not None:
                    hand.riichi.add(seat)
                elif what == "answer" and seat is not None:
                    hand.answers[seat] = bool(body.get("tenpai"))
                elif what == "meld" and seat is not None and tile is not None:
                    prev = body.get("previous")
                    place = None if prev is None else Place.parse(prev["zone"], prev["seat"])
                    hand.melds.setdefault(seat, []).append((tile, place))
                elif what == "ura" and tile is not None:
                    hand.ura.append(tile)
                elif what == "indicator_tile" and tile is not None:
                    hand.indicator_tile = tile
                elif what == "indicator_position":
                    hand.indicator_position = Position.from_json(body["position"])
        if dealt:
            if self._jump(sink) and hand.deal[h.dealer]:
                hand.fourteenth = hand.deal[h.dealer][-1]
            hand.deal = {s: [] for s in SEATS}
        self._hand = hand
        self._relocate(h)
        log.info("tracker restored after a restart", extra={"fields": {
            "deal": sum(len(v) for v in hand.deal.values()), "riichi": sorted(hand.riichi),
            "melds": {int(k): len(v) for k, v in hand.melds.items()}}})

    def _relocate(self, h: HandState) -> None:
        """The sensor model from the table state: where the rules engine knows each tile is."""
        if self.tiles is None:
            return
        places: dict[Tile, Place] = {}
        for s in SEATS:
            st = h.seats[s]
            for t in st.concealed or ():
                places[t] = Place(Zone.HAND, s)
            for r in st.river:
                if r.tile is not None and not r.called:
                    places[r.tile] = Place(Zone.RIVER, s)
            for m in st.melds:
                for t in m.tiles:
                    places[t] = Place(Zone.MELDS, s)
        for ind in h.indicators:
            if ind.tile is not None:
                places[ind.tile] = Place(Zone.DORA)
        for s, tiles in self._hand.deal.items():
            for t in tiles:
                places[t] = Place(Zone.HAND, s)
        for s, held in self._hand.melds.items():
            for t, _ in held:
                places[t] = Place(Zone.MELDS, s)
        from dataclasses import replace

        sensor = self.tiles.sensor
        locations = Locations(MappingProxyType(places), sensor.locations.moves)
        self.tiles.sensor = replace(sensor, locations=locations)

    # ------------------------------------------------------------------ dispatch
    async def _handle(self, sink: InputSink, item: Item,
                      position: LinkPosition | None = None) -> None:
        match item:
            case ReaderFault():
                if item.kind is FaultKind.CONNECTED:
                    self.reader_connects += 1  # at start and after every re-plug: not a fault
                else:
                    self.reader_faults += 1
                await self._put(sink, KIND_MARKER, "tracker",
                                {**item.as_json(), "type": "reader_fault"})
            case Rejection():
                self.rejected += 1
                self.reasons[item.reason.value] += 1
                self.last_rejection = item.as_json()
                await self._put(sink, KIND_MARKER, "tracker", item.as_json())
            case TileRead():
                if not (item.place.zone is Zone.MELDS and item.place.seat in self._hand.melds):
                    await self._close_melds(sink)
                await self._read(sink, item)
            case _:
                await self._close_melds(sink)
                self._position = position  # from here on, records are this table event's own
                await self._table_event(sink, item)

    async def _table_event(self, sink: InputSink, item: TableEvent) -> None:
        from drivers.link import messages as m

        match item:
            case m.StartPressed():
                await self._start(sink)
            case m.WallRaised():
                await self._input(sink, "table", WallRaised())
            case m.WallManifest():
                self._hand.manifest = item.tiles
                await self._put(sink, KIND_MARKER, "table",
                                {**item.to_json(), "type": "table_wall_manifest"})
            case m.Dice():
                await self._dice(sink, item.values)
            case m.BreakOpened():
                await self._input(sink, "table", BreakOpened(seat=Seat.of(item.seat),
                                                             count=item.count))
            case m.IndicatorTurned():
                layer = Layer.TOP if item.layer is m.Layer.TOP else Layer.BOTTOM
                self._hand.indicator_position = Position(Seat.of(item.seat), item.stack, layer)
                if self.tiles is None:  # no sensor to read the face: the position is the input
                    await self._input(sink, "table", IndicatorShown(
                        position=self._hand.indicator_position, tile=None))
                    self._hand.indicator_position = None
                elif self._hand.indicator_tile is not None:  # the face was read first
                    await self._indicator(sink)
                else:
                    await self._hold(sink, "indicator_position",
                                     position=self._hand.indicator_position.to_json())
            case m.SeatButton():
                await self._button(sink, Seat.of(item.seat), item.button)
            case m.Fault():
                body = item.to_json()
                await self._put(sink, KIND_MARKER, "table",
                                {**body, "type": f"table_{body['type']}"})
            case _:
                assert_never(item)

    async def _start(self, sink: InputSink) -> None:
        self._hand = _Hand()
        if self.tiles is not None:
            self.tiles.reset()
        await self._input(sink, "table", HandStart())

    async def _dice(self, sink: InputSink, values: tuple[int, int]) -> None:
        h = self._h(sink)
        # S §28-3(3): the dealer rolls; W 开门-2: the second roll is the breaker's.
        seat = Seat.S0 if h is None else h.dealer
        if h is not None and h.rolls:
            seat = seat_by_dice(h.dealer, sum(h.rolls[0][1]))
        await self._input(sink, "table", DiceRolled(seat=seat, dice=values))

    async def _indicator(self, sink: InputSink) -> None:
        hs = self._hand
        if hs.indicator_position is None or hs.indicator_tile is None:
            return
        inp = IndicatorShown(position=hs.indicator_position, tile=hs.indicator_tile)
        hs.indicator_position = hs.indicator_tile = None
        await self._input(sink, "table", inp)

    # ------------------------------------------------------------------ keys
    async def _button(self, sink: InputSink, seat: Seat, button: int) -> None:
        what = BUTTONS.get(button)
        if button == CLOCK:
            await self._put(sink, KIND_TIMER, "table", {"type": "button", "seat": int(seat)})
            return
        h = self._h(sink)
        if what is None or h is None:
            await self._reject(sink, f"seat {int(seat)} key {button}", "no_such_key" if
                               what is None else "no_hand", seat=int(seat), button=button)
            return
        if button == RIICHI:
            if h.step == "discard" and h.turn == seat:
                self._hand.riichi.add(seat)
                await self._hold(sink, "riichi", seat=int(seat))
            else:
                await self._reject(sink, f"seat {int(seat)} riichi key", "not_own_turn",
                                   seat=int(seat), turn=int(h.turn), step=h.step)
            return
        if button == TSUMO:
            await self._input(sink, f"seat:{int(seat)}", Tsumo(seat=seat))
        elif button == RON:
            await self._input(sink, f"seat:{int(seat)}", Ron(seat=seat))
        elif button in (TENPAI, NOTEN):
            if not (h.step == "draw" and h.live_left() == 0):
                await self._reject(sink, f"seat {int(seat)} {what} key", "wall_not_exhausted",
                                   seat=int(seat), step=h.step, live_left=h.live_left())
                return
            self._hand.answers[seat] = button == TENPAI
            if len(self._hand.answers) == 4:  # the last answer: the draw is the record
                tenpai = tuple(s for s in SEATS if self._hand.answers[s])
                self._hand.answers = {}
                await self._input(sink, "table", ExhaustiveDraw(tenpai=tenpai))
            else:
                await self._hold(sink, "answer", seat=int(seat), tenpai=button == TENPAI)
        else:
            kind = _ABORTS[button]
            who = seat if kind == "nine_terminals" else None
            await self._input(sink, f"seat:{int(seat)}", AbortiveDraw(kind=kind, seat=who))

    # ------------------------------------------------------------------ reads
    async def _read(self, sink: InputSink, read: TileRead) -> None:
        h = self._h(sink)
        place = read.place
        if h is None or h.step == "ended":
            await self._reject(sink, f"{read.tile.mjai(self.aka)} at {place}", "no_hand",
                               tile=read.tile.id, place=place.as_json())
            return
        if place.zone is Zone.DORA:
            await self._dora(sink, h, read)
            return
        assert place.seat is not None
        seat = place.seat
        if read.previous == place:
            return  # lifted and put back: nothing happened
        if place.zone is Zone.HAND:
            await self._to_hand(sink, h, seat, read)
        elif place.zone is Zone.RIVER:
            await self._to_river(sink, h, seat, read)
        else:
            self._hand.melds.setdefault(seat, []).append((read.tile, read.previous))
            await self._hold(sink, "meld", seat=int(seat), tile=read.tile.id,
                             previous=None if read.previous is None else read.previous.as_json())

    async def _dora(self, sink: InputSink, h: HandState, read: TileRead) -> None:
        hs = self._hand
        if h.step == "won":  # S §24-7: the ura indicators, shown after a riichi win
            st = self._state(sink)
            rs = None if st is None else st.ruleset
            if rs is None or not (rs.dora.indicator and rs.dora.ura) or not any(
                    w.win.riichi for w in h.wins):
                self._forget(read.tile)
                await self._reject(sink, "a tile on the dora spot", "no_ura_here",
                                   tile=read.tile.id)
                return
            hs.ura.append(read.tile)
            await self._hold(sink, "ura", tile=read.tile.id)
            kan_ura = rs is not None and rs.dora.kan_dora and rs.dora.kan_ura
            if len(hs.ura) >= (len(h.indicators) if kan_ura else min(1, len(h.indicators))):
                tiles, hs.ura = tuple(hs.ura), []
                await self._input(sink, "table", UraRevealed(tiles=tiles))
            return
        if not await self._check_indicator(sink, read):
            return
        hs.indicator_tile = read.tile
        await self._hold(sink, "indicator_tile", tile=read.tile.id)
        await self._indicator(sink)

    async def _to_hand(self, sink: InputSink, h: HandState, seat: Seat, read: TileRead) -> None:
        if h.step == "setup":
            need = 14 if (seat == h.dealer and self._jump(sink)) else 13
            deal = self._hand.deal[seat]
            if len(deal) >= need:
                self._forget(read.tile)
                await self._reject(sink, f"deal to seat {int(seat)}", "too_many_tiles",
                                   tile=read.tile.id, seat=int(seat), need=need)
                return
            deal.append(read.tile)
            await self._hold(sink, "deal", seat=int(seat), tile=read.tile.id)
            if all(len(self._hand.deal[s]) == (14 if (s == h.dealer and self._jump(sink))
                                                 else 13) for s in SEATS):
                d = self._hand.deal
                if self._jump(sink):
                    # The dealer picks the jump tile last (RULESETS.md 2.4): its drawn tile.
                    self._hand.fourteenth = d[h.dealer][-1]
                hands = (tuple(d[Seat.S0]), tuple(d[Seat.S1]), tuple(d[Seat.S2]),
                         tuple(d[Seat.S3]))
                await self._input(sink, "table", DealDone(hands=hands))
            return
        if h.step == "rinshan" and seat == h.turn:
            index = Wall.RINSHAN[min(h.rinshan_taken, len(Wall.RINSHAN) - 1)]
            if await self._check_manifest(sink, h, index, read, "replacement draw"):
                await self._input(sink, f"seat:{int(seat)}", RinshanDraw(seat=seat,
                                                                        tile=read.tile))
            return
        on_turn = h.step == "draw" and seat == h.turn and h.live_left() > 0
        if on_turn and not await self._check_manifest(sink, h, h.next_live, read, "draw"):
            return
        events = await self._input(sink, f"seat:{int(seat)}", Draw(seat=seat, tile=read.tile))
        if any(e.get("type") == "violation" and e.get("code") in _TILE_GOES_BACK
               for e in events):
            self._forget(read.tile)  # M 3-4-8: the tile goes back to the wall

    async def _to_river(self, sink: InputSink, h: HandState, seat: Seat, read: TileRead) -> None:
        st = h.seats[seat]
        riichi = seat in self._hand.riichi
        self._hand.riichi.discard(seat)
        drawn = st.drawn
        if drawn is None and seat == h.dealer and st.discards == 0 and st.has_drawn:
            drawn = self._hand.fourteenth
        tsumogiri = drawn is not None and read.tile == drawn
        await self._input(sink, f"seat:{int(seat)}",
                          Discard(seat=seat, tile=read.tile, riichi=riichi, tsumogiri=tsumogiri))

    def _jump(self, sink: InputSink) -> bool:
        st = self._state(sink)
        return st is not None and st.ruleset is not None and (
            st.ruleset.wall.dealer_fourteenth == "jump")

    async def _close_melds(self, sink: InputSink) -> None:
        pending, self._hand.melds = self._hand.melds, {}
        for seat, tiles in pending.items():
            await self._meld(sink, seat, tiles)

    async def _meld(self, sink: InputSink, seat: Seat, tiles: list[tuple[Tile, Place | None]]
                    ) -> None:
        h = self._h(sink)
        if h is None:
            return
        st = h.seats[seat]
        called = [t for t, prev in tiles if prev is not None and prev.zone is Zone.RIVER]
        own = [t for t, prev in tiles if prev is None or prev.zone is not Zone.RIVER]
        source = f"seat:{int(seat)}"
        if len(called) == 1 and len(own) in (2, 3):
            c = called[0]
            if h.last is None or h.last.tile != c:
                await self._reject_meld(sink, seat, tiles, "not_last_discard")
                return
            hand_tiles = tuple(sorted(own, key=lambda t: t.id))
            same = all(t.kind == c.kind for t in hand_tiles)
            if len(own) == 3 and same:
                await self._input(sink, source, Call(seat=seat, kind="daiminkan",
                                                     tiles=hand_tiles))
            elif same:
                await self._input(sink, source, Call(seat=seat, kind="pon", tiles=hand_tiles))
            elif len(own) == 2 and _is_run(c, hand_tiles):
                await self._input(sink, source, Call(seat=seat, kind="chi", tiles=hand_tiles))
            else:
                await self._reject_meld(sink, seat, tiles, "not_a_meld")
            return
        if not called and len(own) == 4 and len({t.kind for t in own}) == 1:
            order = {t: i for i, t in enumerate(st.concealed or ())}
            four = sorted(own, key=lambda t: order.get(t, 99 + t.id))
            await self._input(sink, source, Ankan(seat=seat,
                                                  tiles=(four[0], four[1], four[2], four[3])))
            return
        if not called and len(own) == 1 and any(
            mm.kind == "pon" and mm.tiles[0].kind == own[0].kind for mm in st.melds
        ):
            await self._input(sink, source, Kakan(seat=seat, tile=own[0]))
            return
        await self._reject_meld(sink, seat, tiles, "not_a_meld")


def _is_run(called: Tile, two: Sequence[Tile]) -> bool:
    kinds = sorted([called.kind.value, *(t.kind.value for t in two)])
    if any(Kind(k).is_honor for k in kinds) or len({k // 9 for k in kinds}) != 1:
        return False
    return kinds[1] == kinds[0] + 1 and kinds[2] == kinds[1] + 1


def _compact(inp: Input) -> dict[str, Any]:
    """The input's JSON without the ``null`` fields that are its defaults: what the log holds
    (``{"type": "hand_start"}``), the same input when read back."""
    full = input_to_json(inp)
    short = {k: v for k, v in full.items() if v is not None}
    return short if input_from_json(short) == inp else full
