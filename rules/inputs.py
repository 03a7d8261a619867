"""Inputs to the rules engine: everything that happens at the table, as plain values.

The daemon writes each input to the event log *before* the reducer sees it, so the inputs are the
game's source of truth: ``state = fold(reduce, inputs)``. Every input therefore has a stable JSON
form (:func:`input_to_json` / :func:`input_from_json`) with a ``"type"`` key; the field names below
are that contract (``docs/inputs.md``).

Tiles are physical :class:`~rules.tiles.Tile` ids, or ``None`` where nothing saw the tile (a table
without sensors still reports draws and discards through buttons or the referee). In JSON a tile is
its mjai name with a copy suffix where it matters: we use the integer id (``"tile": 53``) so that
"one tile in two places" can be detected exactly; importers allocate ids with
:class:`~rules.tiles.TileAllocator`.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from operator import attrgetter
from typing import Any, Literal, get_args, get_origin

from rules.errors import RulesError
from rules.evolve import fast_init
from rules.seats import Seat, Wind
from rules.tiles import Tile
from rules.wall import Position


class InputError(RulesError, ValueError):
    """A JSON object that is not a well-formed input; the message says which field and why."""


# --- table and hand flow --------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class GameStart:
    """A new game: ruleset, the seat of the first dealer (起家), names and starting scores."""

    ruleset: str
    first_dealer: Seat
    names: tuple[str, str, str, str] = ("", "", "", "")
    scores: tuple[int, int, int, int] | None = None  # None: the ruleset's start points
    aka: bool | None = None  # None: the ruleset's red-five setting (records override it)
    rounds: int | None = None  # None: the ruleset's game length (records: East-only games)
    # Venue setting: every declared win waits for the referee's confirm_win / reject_win.
    confirm_wins: bool = False
    # A table without a data link (or with its sensors off): nothing presses a start button, so
    # each hand begins by itself, the first at the game start, the next one right after each
    # result, with dealer, round, honba and deposits from the game flow (docs/console.md).
    auto_hands: bool = False


@dataclass(frozen=True, slots=True)
class HandStart:
    """Start button pressed / a new hand begins. Round, honba, deposits and scores come from the
    game state; a record's own values are given to cross-check (``None`` = take the state's)."""

    dealer: Seat | None = None
    round_wind: Wind | None = None
    honba: int | None = None
    deposits: int | None = None
    scores: tuple[int, int, int, int] | None = None


@dataclass(frozen=True, slots=True)
class WallRaised:
    """The table raised the wall. ``wall``: the 136 tiles in ring order when the table or the
    sensors read them (a wall manifest), relative to the break that the dice will call."""

    wall: tuple[Tile, ...] | None = None


@dataclass(frozen=True, slots=True)
class DiceRolled:
    """One roll (two dice). WMC rolls twice: the dealer, then the breaker (W 开门-1,2)."""

    seat: Seat
    dice: tuple[int, int]


@dataclass(frozen=True, slots=True)
class BreakOpened:
    """The table (or a player) opened the wall: ``count`` stacks left on ``seat``'s right."""

    seat: Seat
    count: int


@dataclass(frozen=True, slots=True)
class IndicatorShown:
    """A dora indicator turned face up at ``position`` (the first one, or a kan's). Records know
    the tile but not the position (``position=None``); a table knows the position."""

    position: Position | None = None
    tile: Tile | None = None


@dataclass(frozen=True, slots=True)
class UraRevealed:
    """The ura indicators under the turned indicators, shown after a riichi win (S §24-7)."""

    tiles: tuple[Tile, ...] = ()


@dataclass(frozen=True, slots=True)
class DealDone:
    """The deal is complete. ``hands`` as read by sensors (the dealer's 14th included where the
    ruleset deals it), or ``None`` when nothing read them."""

    hands: tuple[tuple[Tile, ...], tuple[Tile, ...], tuple[Tile, ...], tuple[Tile, ...]] | None = (
        None
    )


@dataclass(frozen=True, slots=True)
class Draw:
    """``seat`` draws from the live wall (``position`` when a sensor saw where from)."""

    seat: Seat
    tile: Tile | None = None
    position: Position | None = None


@dataclass(frozen=True, slots=True)
class Discard:
    seat: Seat
    tile: Tile | None = None
    riichi: bool = False
    tsumogiri: bool | None = None  # the drawn tile itself, where known


CallKind = Literal["chi", "pon", "daiminkan"]


@dataclass(frozen=True, slots=True)
class Call:
    """``seat`` calls the last discard, showing ``tiles`` from its hand (2 for chi/pon, 3 for a
    daiminkan). The called tile is the last discard."""

    seat: Seat
    kind: CallKind
    tiles: tuple[Tile, ...] | None = None


@dataclass(frozen=True, slots=True)
class Ankan:
    seat: Seat
    tiles: tuple[Tile, Tile, Tile, Tile] | None = None


@dataclass(frozen=True, slots=True)
class Kakan:
    """``seat`` adds ``tile`` to its own pon."""

    seat: Seat
    tile: Tile | None = None


@dataclass(frozen=True, slots=True)
class RinshanDraw:
    seat: Seat
    tile: Tile | None = None


@dataclass(frozen=True, slots=True)
class Tsumo:
    seat: Seat


@dataclass(frozen=True, slots=True)
class Ron:
    """``seat`` declares ron on the last discard (or, for chankan, the kakan tile)."""

    seat: Seat


@dataclass(frozen=True, slots=True)
class WinShown:
    """The winner's hand as shown (for a table without sensors: entered by the referee), so the
    engine can score it. ``hand`` excludes melds; ``win_tile`` is the winning tile."""

    seat: Seat
    hand: tuple[Tile, ...]
    win_tile: Tile
    # The tiles of each of the seat's melds, in the order they were made, where the engine did
    # not see them (a table without sensors); () when the melds are known or there are none.
    melds: tuple[tuple[Tile, ...], ...] = ()


@dataclass(frozen=True, slots=True)
class ExhaustiveDraw:
    """The houtei discard passed unclaimed; ``tenpai`` lists the seats that declare tenpai."""

    tenpai: tuple[Seat, ...] = ()


AbortKind = Literal["nine_terminals", "four_winds", "four_riichi", "four_kans", "triple_ron"]


@dataclass(frozen=True, slots=True)
class AbortiveDraw:
    kind: AbortKind
    seat: Seat | None = None


# --- referee ----------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class RefereeOverride:
    """A referee decision that the engine applies as given (audited by ``by``).

    ``action`` names what is overridden; ``args`` carries its values (see docs/inputs.md), e.g.
    ``accept_violation`` (clear a pending violation), ``set_scores``, ``dead_hand`` (a seat loses
    the right to win), ``chombo``, ``penalty``, ``manual_result``, ``undo``.
    """

    action: str
    by: str = "referee"
    args: typing.Mapping[str, Any] = dataclasses.field(default_factory=dict)


# The inputs played within a hand (after its hand_start), the ones a game is played with, and
# every input. The reducer's dispatch narrows them in that order (``match`` over the classes,
# ``assert_never`` at the end), so mypy names a consumer that forgets a new kind.
HandInput = (
    WallRaised
    | DiceRolled
    | BreakOpened
    | IndicatorShown
    | UraRevealed
    | DealDone
    | Draw
    | Discard
    | Call
    | Ankan
    | Kakan
    | RinshanDraw
    | Tsumo
    | Ron
    | WinShown
    | ExhaustiveDraw
    | AbortiveDraw
)
PlayInput = HandStart | HandInput
Input = GameStart | PlayInput | RefereeOverride

_TYPES: dict[str, type[Any]] = {
    "game_start": GameStart,
    "hand_start": HandStart,
    "wall_raised": WallRaised,
    "dice": DiceRolled,
    "break_opened": BreakOpened,
    "indicator": IndicatorShown,
    "ura": UraRevealed,
    "deal_done": DealDone,
    "draw": Draw,
    "discard": Discard,
    "call": Call,
    "ankan": Ankan,
    "kakan": Kakan,
    "rinshan_draw": RinshanDraw,
    "tsumo": Tsumo,
    "ron": Ron,
    "win_shown": WinShown,
    "exhaustive_draw": ExhaustiveDraw,
    "abortive_draw": AbortiveDraw,
    "referee": RefereeOverride,
}
_NAMES: dict[type[Any], str] = {v: k for k, v in _TYPES.items()}
#: each input class's type name (:func:`input_type`, as a table for the reducer's every input)
INPUT_NAMES: typing.Mapping[type[Any], str] = _NAMES
fast_init(_TYPES.values())  # a record becomes one per line: the quick constructor (evolve.py)
INPUT_TYPES: tuple[str, ...] = tuple(_TYPES)


def input_type(value: Input) -> str:
    return _NAMES[type(value)]


#: values that are their own JSON: most fields of an input (an exact type: an ``IntEnum`` such as
#: ``Seat`` is not one of them)
_PLAIN: frozenset[type[Any]] = frozenset({int, str, bool, float, type(None)})


def _enc(value: Any) -> Any:
    cls = type(value)
    if cls in _PLAIN:
        return value
    exact = _EXACT.get(cls)
    if exact is not None:  # the usual classes, by a lookup (the chain below, for its subclasses)
        return exact(value)
    if isinstance(value, Tile):
        return value.id
    if isinstance(value, Seat | Wind):
        return int(value)
    if isinstance(value, Position):
        return value.to_json()
    if isinstance(value, tuple | list):
        return [_enc(v) for v in value]
    if isinstance(value, typing.Mapping):
        return {str(k): _enc(v) for k, v in value.items()}
    return value


def _seq(value: tuple[Any, ...] | list[Any]) -> list[Any]:
    """A tuple's or list's JSON: plain items as they are, without a call each (dice, seats)."""
    return [v if type(v) in _PLAIN else _enc(v) for v in value]


#: what :func:`_enc` makes of a value of exactly these classes, without its ``isinstance`` chain
#: (the same result: each class's branch of the chain)
_EXACT: dict[type[Any], Callable[[Any], Any]] = {
    Seat: int, Wind: int, Tile: attrgetter("id"), tuple: _seq, list: _seq,
}


#: each input class's field names, in order (``dataclasses.fields`` filters the class's fields
#: on every call: a tenth of an input's way into the log, measured)
_FIELD_NAMES: dict[type[Any], tuple[str, ...]] = {}


def input_to_json(value: Input) -> dict[str, Any]:
    """The stable JSON form: ``{"type": ..., field: value, ...}`` (fields at their defaults are
    kept, so a reader never has to know the defaults)."""
    cls = type(value)
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(f.name for f in dataclasses.fields(value))
    out: dict[str, Any] = {"type": _NAMES[cls]}
    for name in names:
        out[name] = _enc(getattr(value, name))
    return out


#: per input class: its field names, and those whose default is not ``None`` (a required field, a
#: default factory, another value): :func:`input_to_compact_json` writes a ``null`` there
_COMPACT: dict[type[Any], tuple[tuple[str, ...], frozenset[str]]] = {}


def input_to_compact_json(value: Input) -> dict[str, Any]:
    """:func:`input_to_json` without the ``null`` fields that are their defaults: what the event
    log holds (``{"type": "hand_start"}``), the same input when read back (``input_from_json``
    fills a missing field with its default). A ``null`` whose default is something else stays
    (then the whole form is written: the bytes of the log do not change). One pass over the
    fields (the log writes one per input), not the full form and a filtered copy of it."""
    cls = type(value)
    plan = _COMPACT.get(cls)
    if plan is None:
        fields = dataclasses.fields(value)
        plan = _COMPACT[cls] = (tuple(f.name for f in fields),
                                frozenset(f.name for f in fields if f.default is not None))
    names, strict = plan
    out: dict[str, Any] = {"type": _NAMES[cls]}
    for name in names:
        v = _enc(getattr(value, name))
        if v is not None:
            out[name] = v
        elif name in strict:
            return input_to_json(value)
    return out


def _dec(tp: Any, value: Any, where: str) -> Any:
    simple = _SIMPLE.get(tp) if isinstance(tp, type) or tp is Any else None
    if simple is not None:  # most fields: no get_origin (the daemon's input path)
        return simple(value, where)
    origin = get_origin(tp)
    if origin in (types.UnionType, typing.Union):
        args = get_args(tp)
        if value is None and type(None) in args:
            return None
        errors = []
        for a in args:
            if a is type(None):
                continue
            try:
                return _dec(a, value, where)
            except InputError as exc:
                errors.append(str(exc))
        raise InputError(errors[0] if errors else f"{where}: bad value {value!r}")
    if origin is Literal:
        if value not in get_args(tp):
            raise InputError(f"{where}: expected one of {list(get_args(tp))}, got {value!r}")
        return value
    if origin is tuple:
        if not isinstance(value, list | tuple):
            raise InputError(f"{where}: expected a list, got {value!r}")
        args = get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_dec(args[0], v, f"{where}[{i}]") for i, v in enumerate(value))
        if len(value) != len(args):
            raise InputError(f"{where}: expected {len(args)} items, got {len(value)}")
        return tuple(_dec(a, v, f"{where}[{i}]") for i, (a, v) in enumerate(zip(args, value)))
    if (origin is not None and origin is typing.Mapping) or tp is typing.Mapping:
        if not isinstance(value, dict):
            raise InputError(f"{where}: expected an object, got {value!r}")
        return types.MappingProxyType(dict(value))
    if origin is not None and issubclass(origin, typing.Mapping):
        if not isinstance(value, dict):
            raise InputError(f"{where}: expected an object, got {value!r}")
        return types.MappingProxyType(dict(value))
    raise InputError(f"{where}: unsupported field type {tp!r}")  # pragma: no cover


def _tile(value: Any, where: str) -> Tile:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"{where}: tile id must be an integer 0..135, got {value!r}")
    try:
        return Tile(value)
    except ValueError as exc:
        raise InputError(f"{where}: {exc}") from exc


def _parsed(parse: Callable[[Any], Any]) -> Callable[[Any, str], Any]:
    """A decoder from a parser that raises ``ValueError``, naming the field in the error."""

    def decode(value: Any, where: str) -> Any:
        try:
            return parse(value)
        except ValueError as exc:
            raise InputError(f"{where}: {exc}") from exc

    return decode


def _wind(value: Any, where: str) -> Wind:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 3:
        raise InputError(f"{where}: wind must be 0..3, got {value!r}")
    return Wind(value)


def _bool(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise InputError(f"{where}: expected true/false, got {value!r}")
    return value


def _int(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"{where}: expected an integer, got {value!r}")
    return value


def _str(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise InputError(f"{where}: expected a string, got {value!r}")
    return value


#: the field types decoded without looking inside them
_SIMPLE: dict[Any, Callable[[Any, str], Any]] = {
    Tile: _tile, Seat: _parsed(Seat.of), Wind: _wind, Position: _parsed(Position.from_json),
    bool: _bool, int: _int, str: _str, Any: lambda value, where: value,
}

_HINTS: dict[type[Any], dict[str, Any]] = {}
_FIELDS: dict[type[Any], dict[str, dataclasses.Field[Any]]] = {}


def input_from_json(obj: Any) -> Input:
    """Parse the JSON form; raises :class:`InputError` naming the field for anything malformed."""
    if not isinstance(obj, dict):
        raise InputError(f"an input must be a JSON object, got {type(obj).__name__}")
    kind = obj.get("type")
    cls = _TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise InputError(f"unknown input type {kind!r} (known: {', '.join(INPUT_TYPES)})")
    hints = _HINTS.get(cls)
    if hints is None:
        hints = _HINTS[cls] = typing.get_type_hints(cls)
    fields = _FIELDS.get(cls)
    if fields is None:
        fields = _FIELDS[cls] = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(obj) - set(fields) - {"type"})
    if unknown:
        raise InputError(f"{kind}: unknown field {unknown[0]!r}")
    values: dict[str, Any] = {}
    for name, f in fields.items():
        if name not in obj:
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise InputError(f"{kind}: missing field {name!r}")
            continue
        values[name] = _dec(hints[name], obj[name], f"{kind}.{name}")
    try:
        return typing.cast(Input, cls(**values))
    except (TypeError, ValueError) as exc:
        raise InputError(f"{kind}: {exc}") from exc
