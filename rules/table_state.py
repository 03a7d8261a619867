"""The table's state as the hand reducer folds it: the game (ruleset, names, progress) and the hand
in play (wall geometry, indicators, the four seats, whose turn, the claimable discard).

Everything is frozen; the reducer returns new values. Tile knowledge is partial by design: a table
without sensors knows counts only, a record or a sensor table knows tiles. ``None`` always means
"not known", never a guess.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from rules.events import Violation, encode
from rules.evolve import fast_init, maker
from rules.game_flow import GameProgress
from rules.outcome import HandOutcome, Meld, Win
from rules.ruleset import Ruleset
from rules.seats import Seat, Wind
from rules.tiles import Tile
from rules.wall import TILES, Break, Position, Wall

# Ring index after the last live tile with no kan (a 14-tile dead wall: S §12, M 2-2).
LIVE_END = TILES - 14

RiichiStatus = Literal["none", "declared", "accepted"]
# setup: dice/break/indicator/deal; draw: ``turn`` draws next (a discard may be claimed);
# discard: ``turn`` holds 14 and acts; rinshan: ``turn`` draws a replacement (chankan window
# on a kakan); won: a win is declared and not yet settled; ended: the hand is over.
Step = Literal["setup", "draw", "discard", "rinshan", "won", "ended"]

# Where a physical tile is (``HandState.located``): unknown (wall or an unread hand) or known.
LOC_UNKNOWN = 0
LOC_HAND = 1  # + seat
LOC_RIVER = 5  # + seat
LOC_MELD = 9  # + seat
LOC_INDICATOR = 13
LOC_URA = 14
LOC_WALL = 15  # read in the wall manifest and still there (not drawn)
#: the places a tile may come into play from (``hand_ops.check_free``)
FREE = (LOC_UNKNOWN, LOC_WALL)


@dataclass(frozen=True, slots=True)
class RiverTile:
    tile: Tile | None
    riichi: bool = False
    tsumogiri: bool | None = None
    called: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "tile": encode(self.tile),
            "riichi": self.riichi,
            "tsumogiri": self.tsumogiri,
            "called": self.called,
        }


# no __slots__: rules.evolve copies the instance dict in one C call, the hot path of a replay
@dataclass(frozen=True)
class SeatState:
    concealed: tuple[Tile, ...] | None = None  # None: the tiles are not known
    count: int = 0  # concealed tiles held (always known)
    melds: tuple[Meld, ...] = ()
    river: tuple[RiverTile, ...] = ()
    riichi: RiichiStatus = "none"
    double_riichi: bool = False
    ippatsu: bool = False
    dead: str | None = None  # why the hand is dead (a violation code or "referee")
    furiten_temp: bool = False  # a passed winning tile, until own next discard (S §51, M 5-5)
    furiten_riichi: bool = False  # a passed winning tile after riichi: permanent (S §39-9)
    drawn: Tile | None = None  # the tile drawn this turn, where known
    has_drawn: bool = False  # this turn began with a draw (not a call)
    rinshan: bool = False  # this turn's draw was a replacement tile
    kuikae: tuple[int, ...] = ()  # kinds the seat may not discard right now (S §40-6)
    discards: int = 0
    pao: Seat | None = None  # the seat liable for a yakuman this seat's melds completed
    pao_yaku: str | None = None
    # W 罚张: concealed tiles exposed face up (a false win, W 错鸣-6): never in an exposed set,
    # never for a ron by Thirteen Terminals on their kind; a penalty tile discarded (or put in
    # a concealed kong) is one no more (W 罚张-7).
    penalty: tuple[Tile, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "concealed": encode(self.concealed),
            "count": self.count,
            "melds": encode(self.melds),
            "river": [r.to_json() for r in self.river],
            "riichi": self.riichi,
            "dead": self.dead,
            "furiten": self.furiten_temp or self.furiten_riichi,
            "penalty": encode(self.penalty),
        }


@dataclass(frozen=True, slots=True)
class Indicator:
    position: Position | None
    tile: Tile | None


@dataclass(frozen=True, slots=True)
class DoraDue:
    """A kan indicator owed: ``now`` (before the rinshan draw) or after ``seat``'s next discard."""

    timing: Literal["now", "after_discard"]
    seat: Seat
    discarded: bool = False  # after_discard: the kan player has discarded since
    late: bool = False  # already reported missing: show it late without a second report


@dataclass(frozen=True, slots=True)
class LastDiscard:
    seat: Seat
    tile: Tile | None
    riichi: bool
    houtei: bool
    passed: bool = False  # the next player drew (or the hand moved on): no more claims

    def as_passed(self) -> LastDiscard:
        """This discard, no longer claimable (every draw makes one: by the class's maker,
        quicker than the constructor, which is twice as quick as ``replace`` for a slotted
        class)."""
        return _last_discard(self.seat, self.tile, self.riichi, self.houtei, True)


@dataclass(frozen=True, slots=True)
class PendingWin:
    seat: Seat
    loser: Seat | None
    tile: Tile | None
    win: Win  # flags filled at the declaration; hand/melds completed at settlement


# no __slots__: rules.evolve copies the instance dict in one C call, the hot path of a replay
@dataclass(frozen=True)
class HandState:
    number: int
    dealer: Seat
    round_wind: Wind
    hand_in_round: int
    honba: int
    deposits: int  # on the table now (riichi sticks of this hand included once accepted)
    scores: tuple[int, int, int, int]  # now (riichi sticks paid)
    seats: tuple[SeatState, SeatState, SeatState, SeatState]
    located: bytes  # per tile id, its LOC_* place (bytes: a draw copies 136 bytes, not objects)
    step: Step = "setup"
    turn: Seat = Seat.S0
    rolls: tuple[tuple[Seat, tuple[int, int]], ...] = ()
    brk: Break | None = None
    break_source: str | None = None
    wall: tuple[Tile, ...] | None = None
    wall_raised: bool = False  # the table reported raising the wall (records never do)
    indicators: tuple[Indicator, ...] = ()
    ura: tuple[Tile, ...] = ()
    dealt: bool = False
    next_live: int = Wall.FIRST_DRAW
    kans: int = 0
    kan_seats: tuple[Seat, ...] = ()
    rinshan_taken: int = 0
    dora_due: tuple[DoraDue, ...] = ()
    last: LastDiscard | None = None
    # Before a chi/pon/daiminkan: the state to go back to if a ron on the tile takes priority.
    pre_call: HandState | None = None
    pre_call_seat: Seat | None = None
    # The chankan window of a kakan / ankan: (seat, tile, state before the kan).
    kan_window: tuple[Seat, Tile | None, bool, HandState] | None = None
    robbed: bool = False  # the last kan was robbed: no indicator for it (S §43-8)
    interrupted: bool = False  # a call (ankan included) happened: first go-around broken
    first_discards: tuple[Tile | None, ...] = ()  # the first discard of each seat, in order
    discard_log: tuple[tuple[Seat, Tile | None], ...] = ()  # every discard, in play order
    wins: tuple[PendingWin, ...] = ()
    win_base: HandState | None = None  # the state before the win was declared
    # WinShown: (seat, concealed hand with the winning tile, winning tile, meld tiles).
    shown: tuple[tuple[Seat, tuple[Tile, ...], Tile, tuple[tuple[Tile, ...], ...]], ...] = ()
    fallback: str | None = None
    outcome: HandOutcome | None = None

    def live_left(self) -> int:
        """Live tiles still to draw (each kan moves the haitei into the dead wall, S §12-1)."""
        return max(0, LIVE_END - self.kans - self.next_live)

    def seat(self, s: Seat) -> SeatState:
        return self.seats[s]


@dataclass(frozen=True, slots=True)
class GameInfo:
    number: int
    names: tuple[str, str, str, str]
    aka: bool
    confirm_wins: bool
    auto_hands: bool = False  # GameStart.auto_hands: each hand begins by itself


@dataclass(frozen=True, slots=True)
class RefereeRecord:
    """One applied referee action, kept for ``undo_last``: the compensation to apply."""

    action: str
    by: str
    seq: int  # the input number it was applied at
    before: TableState  # the state just before it (restored only if nothing happened since)
    compensation: Mapping[str, Any] = field(default_factory=dict)


# no __slots__: rules.evolve copies the instance dict in one C call, the hot path of a replay
@dataclass(frozen=True)
class TableState:
    ruleset: Ruleset | None = None
    game: GameInfo | None = None
    progress: GameProgress | None = None
    hand: HandState | None = None
    seq: int = 0  # inputs reduced so far
    hands: int = 0  # hands started in this table's life
    open_violations: tuple[Violation, ...] = ()
    referee_log: tuple[RefereeRecord, ...] = ()
    last_result: Mapping[str, Any] | None = None
    game_over: bool = False


# made on every turn (a river tile, the last discard): the quick constructor (rules/evolve.py)
fast_init([RiverTile, Indicator, DoraDue, LastDiscard, PendingWin, GameInfo])
_last_discard = maker(LastDiscard)
