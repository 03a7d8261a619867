"""Events: the facts the hand reducer publishes (event log, MQTT, overlays).

Every event is a frozen dataclass; :meth:`Event.to_json` gives ``{"type": <stable snake_case>,
key: value, ...}``: seats and winds as integers, positions and breaks as objects, and every tile
twice: its physical id (0..135, ``rules.tiles``) under the field's key and its mjai name (``5m``,
``5mr`` for a red five where the ruleset plays them, ``E``..``N``, ``P``/``F``/``C``) under
``<key>_mjai``. Keys are the contract (docs/mqtt.md), never Python spellings: a field whose name
is a keyword workaround is renamed in :attr:`Event.KEYS` (``brk`` -> ``break``). The JSON Schema
of every event's payload is generated from these classes (``daemon/schema_gen.py``).

``violation`` events carry ``code``, ``seat``, ``expected``, ``actual``, ``article`` and
``sanction`` (catalogue: :mod:`rules.violations`, docs/rules-engine.md).
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, TypedDict

from rules.errors import EncodeError
from rules.evolve import fast_init
from rules.outcome import HandContext, HandOutcome, ManualValue, Meld, Win
from rules.seats import Seat, Wind
from rules.settlement import Settlement
from rules.standings import Standings
from rules.tiles import Tile
from rules.wall import Break, Position

#: the suffix of the key that carries a tile field's mjai name(s)
MJAI_SUFFIX = "_mjai"


#: classes whose values are their own JSON form (exactly these: not a subclass such as an enum)
_AS_IS: frozenset[type] = frozenset({type(None), bool, str, int, float})


def encode(value: Any, aka: bool = True) -> Any:
    """JSON form of event fields (deterministic: mappings keep their insertion order)."""
    cls = value.__class__  # the commonest classes by identity first: a hand's end encodes
    if cls is Tile:  # hundreds of values
        return value.id
    if cls in _AS_IS:
        return value
    if cls is tuple:
        return [encode(v, aka) for v in value]
    # (tuples, not ``A | B``: a union would be built on every call, and every field is one)
    if value is None or isinstance(value, (bool, str, float)):
        return value
    if isinstance(value, Tile):
        return value.id
    if isinstance(value, (Seat, Wind)):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, Meld):
        return meld_to_json(value, aka)
    if isinstance(value, (Position, Break)):
        return value.to_json()
    if isinstance(value, (tuple, list)):
        return [encode(v, aka) for v in value]
    if isinstance(value, Mapping):
        return {str(k): encode(v, aka) for k, v in value.items()}
    to_json = getattr(value, "to_json", None)
    if callable(to_json):
        return to_json()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: encode(getattr(value, f.name), aka) for f in dataclasses.fields(value)}
    raise EncodeError(f"cannot encode {value!r}")  # pragma: no cover


def mjai_of(value: Any, aka: bool) -> Any:
    """The mjai name(s) of a tile field's value (a tile, ``None`` or a sequence of tiles)."""
    if value is None:
        return None
    if isinstance(value, Tile):
        return value.mjai(aka)
    return [mjai_of(v, aka) for v in value]


def is_tile_hint(hint: Any) -> bool:
    """``Tile``, ``Tile | None`` or a tuple of tiles: fields that get a ``_mjai`` twin."""
    if hint is Tile:
        return True
    args = typing.get_args(hint)
    origin = typing.get_origin(hint)
    if origin in (tuple, list):
        return bool(args) and all(a is Tile or a is Ellipsis for a in args)
    if args and type(None) in args:
        rest = [a for a in args if a is not type(None)]
        return len(rest) == 1 and is_tile_hint(rest[0])
    return False


_HINTS: dict[type, dict[str, Any]] = {}


def hints_of(cls: type) -> dict[str, Any]:
    """The resolved type hints of a class, once per class (serialization is on the hot path)."""
    hints = _HINTS.get(cls)
    if hints is None:
        hints = _HINTS[cls] = typing.get_type_hints(cls)
    return hints


#: per class: (field name, JSON key, the key of its mjai twin or None), in field order
_Plan = tuple[tuple[str, str, str | None], ...]
_PLANS: dict[tuple[type, tuple[tuple[str, str], ...]], _Plan] = {}


def _plan(cls: type, keys: Mapping[str, str] | None) -> _Plan:
    """What :func:`fields_to_json` writes for ``cls``, worked out once per class (the type
    hints and the field list are the slow part, and every event of a replay is encoded)."""
    rename = tuple((keys or {}).items())
    plan = _PLANS.get((cls, rename))
    if plan is None:
        hints, names = hints_of(cls), dict(rename)
        keyed = [(f.name, names.get(f.name, f.name)) for f in dataclasses.fields(cls)]
        plan = _PLANS[(cls, rename)] = tuple(
            (n, k, k + MJAI_SUFFIX if is_tile_hint(hints[n]) else None) for n, k in keyed)
    return plan


_Encoder = Callable[[Any, bool], dict[str, Any]]
#: per class and renaming, the generated :func:`_encoder` (a few dozen classes)
_ENCODERS: dict[tuple[type, tuple[tuple[str, str], ...], str | None], _Encoder] = {}


def _encoder(cls: type, keys: Mapping[str, str] | None, kind: str | None) -> _Encoder:
    """A function that writes what :func:`fields_to_json` writes for ``cls`` (with ``"type":
    kind`` first, unless ``None``), generated once: one dict display, each field read by its
    name and a value of a JSON class taken as it is before any call to :func:`encode`. The
    loop over the plan with a call per field was a fifth of a refused input's fold (24,000 of
    140,000 instructions for a one-violation input's ``to_json``)."""
    rename = tuple((keys or {}).items())
    made = _ENCODERS.get((cls, rename, kind))
    if made is None:
        env: dict[str, Any] = {"_AS_IS": _AS_IS, "_encode": encode, "_mjai_of": mjai_of,
                               "_kind": kind}
        reads, items = [], ['"type": _kind'] if kind is not None else []
        for i, (name, key, twin) in enumerate(_plan(cls, keys)):
            reads.append(f"    v{i} = o.{name}\n")
            items.append(f"{key!r}: v{i} if v{i}.__class__ in _AS_IS else _encode(v{i}, aka)")
            if twin is not None:
                items.append(f"{twin!r}: _mjai_of(v{i}, aka)")
        body = "".join(reads) + "    return {" + ", ".join(items) + "}\n"
        exec(f"def encoded(o, aka):\n{body}", env)  # (names are fields: identifiers)
        made = _ENCODERS[(cls, rename, kind)] = env["encoded"]
    return made


def fields_to_json(obj: Any, aka: bool, keys: Mapping[str, str] | None = None) -> dict[str, Any]:
    """A dataclass's fields as JSON, tile fields with their ``_mjai`` twins."""
    return _encoder(obj.__class__, keys, None)(obj, aka)


def meld_to_json(m: Meld, aka: bool = True) -> dict[str, Any]:
    """A meld as events carry it: ``Meld.to_json`` plus the mjai names of its tiles."""
    return {
        **m.to_json(),
        "tiles_mjai": mjai_of(m.tiles, aka),
        "called_mjai": mjai_of(m.called, aka),
    }


@dataclass(frozen=True, slots=True)
class Event:
    TYPE: ClassVar[str] = "event"
    #: JSON keys for fields whose Python name is a workaround (a keyword, an abbreviation)
    KEYS: ClassVar[Mapping[str, str]] = {}
    #: the type a ``Mapping`` field is the JSON form of (the schema generator reads it)
    SHAPES: ClassVar[Mapping[str, Any]] = {}

    def to_json(self, aka: bool = True) -> dict[str, Any]:
        """``aka``: whether the game plays red fives (a red copy is then ``5mr``, else ``5m``)."""
        cls = self.__class__
        return (_EVENT_ENCODERS.get(cls) or _event_encoder(cls))(self, aka)


#: per event class, its ``to_json`` without the ``self``: :func:`_encoder` with its type and keys
_EVENT_ENCODERS: dict[type, _Encoder] = {}


def _event_encoder(cls: type[Event]) -> _Encoder:
    made = _EVENT_ENCODERS[cls] = _encoder(cls, cls.KEYS, cls.TYPE)
    return made


class NextHand(TypedDict):
    """``hand_ended.next``: what the next hand starts with (S §60, M 6-1)."""

    dealer: Seat
    round_wind: Wind
    hand_in_round: int
    honba: int
    deposits: int
    finished: bool
    replay: bool


# --- game and hand ----------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class GameStarted(Event):
    TYPE: ClassVar[str] = "game_started"
    game: int
    ruleset: str
    first_dealer: Seat
    names: tuple[str, ...]
    scores: tuple[int, ...]
    aka: bool
    rounds: int
    confirm_wins: bool


@dataclass(frozen=True, slots=True)
class HandStarted(Event):
    TYPE: ClassVar[str] = "hand_started"
    hand: int
    dealer: Seat
    round_wind: Wind
    hand_in_round: int
    honba: int
    deposits: int
    scores: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class WallKnown(Event):
    """The table or sensors reported the 136 tiles of the wall in ring order."""

    TYPE: ClassVar[str] = "wall_known"
    tiles: int


@dataclass(frozen=True, slots=True)
class DiceRolled(Event):
    TYPE: ClassVar[str] = "dice_rolled"
    seat: Seat
    dice: tuple[int, int]
    roll: int  # 1 = the dealer's, 2 = the breaker's (W 开门-2)


@dataclass(frozen=True, slots=True)
class BreakChecked(Event):
    """Where the wall was opened, against where the dice (or M 3-4-5/6) put it. ``source``:
    ``dice`` (checked), ``table`` (no dice to check against), ``fallback``."""

    TYPE: ClassVar[str] = "break_checked"
    KEYS: ClassVar[Mapping[str, str]] = {"brk": "break"}
    brk: Break
    expected: Break | None
    ok: bool
    source: str


@dataclass(frozen=True, slots=True)
class WallFallback(Event):
    """M 3-4-5 (indicator shown, no break: break from the indicator) or M 3-4-6 (neither: 自7)."""

    TYPE: ClassVar[str] = "wall_fallback"
    KEYS: ClassVar[Mapping[str, str]] = {"brk": "break"}
    article: str
    brk: Break
    indicator: Position


@dataclass(frozen=True, slots=True)
class DoraRevealed(Event):
    TYPE: ClassVar[str] = "dora_revealed"
    number: int  # 0 = the first indicator, 1.. = kan indicators
    position: Position | None
    tile: Tile | None
    dora_kind: int | None  # the 34-kind the indicator makes dora


@dataclass(frozen=True, slots=True)
class IndicatorCorrected(Event):
    """μ §16: a wrongly turned first indicator replaced before the dealer's first discard."""

    TYPE: ClassVar[str] = "indicator_corrected"
    position: Position | None
    tile: Tile | None


@dataclass(frozen=True, slots=True)
class IndicatorWithdrawn(Event):
    """M 4-5-5, S §43-8: a kan indicator turned before its moment for a kan that was then
    robbed (chankan): the robbed kan is not established, so its indicator does not count."""

    TYPE: ClassVar[str] = "indicator_withdrawn"
    number: int  # the indicator's place (1.. = kan indicators), as dora_revealed numbered it
    position: Position | None
    tile: Tile | None


@dataclass(frozen=True, slots=True)
class Dealt(Event):
    TYPE: ClassVar[str] = "deal_done"
    counts: tuple[int, ...]
    hands_known: bool


@dataclass(frozen=True, slots=True)
class Drew(Event):
    TYPE: ClassVar[str] = "draw"
    seat: Seat
    tile: Tile | None
    position: Position | None
    rinshan: bool
    live_left: int


@dataclass(frozen=True, slots=True)
class HaiteiReached(Event):
    TYPE: ClassVar[str] = "haitei_reached"
    seat: Seat


@dataclass(frozen=True, slots=True)
class Discarded(Event):
    TYPE: ClassVar[str] = "discard"
    seat: Seat
    tile: Tile | None
    riichi: bool
    tsumogiri: bool | None
    houtei: bool


@dataclass(frozen=True, slots=True)
class Called(Event):
    TYPE: ClassVar[str] = "call"
    seat: Seat
    meld: Meld


@dataclass(frozen=True, slots=True)
class Kan(Event):
    TYPE: ClassVar[str] = "kan"
    seat: Seat
    meld: Meld
    kans: int  # kans in the hand after this one


@dataclass(frozen=True, slots=True)
class CallCancelled(Event):
    """A call undone because a ron on the same tile takes priority (W 鸣牌优先-4)."""

    TYPE: ClassVar[str] = "call_cancelled"
    seat: Seat
    kind: str
    by_ron: Seat


@dataclass(frozen=True, slots=True)
class RiichiDeclared(Event):
    TYPE: ClassVar[str] = "riichi_declared"
    seat: Seat
    double: bool


@dataclass(frozen=True, slots=True)
class RiichiAccepted(Event):
    """The declaration tile was not ronned: the stick is down (S §39-1, M 4-8-1, μ §40)."""

    TYPE: ClassVar[str] = "riichi_accepted"
    seat: Seat
    deposits: int
    score: int


@dataclass(frozen=True, slots=True)
class DeadHand(Event):
    TYPE: ClassVar[str] = "dead_hand"
    seat: Seat
    kind: str  # agari_houki | tinghe | xianggong
    reason: str  # the violation code, or "referee"


@dataclass(frozen=True, slots=True)
class WinDeclared(Event):
    TYPE: ClassVar[str] = "win_declared"
    seat: Seat
    kind: str  # tsumo | ron | chankan
    loser: Seat | None
    tile: Tile | None


@dataclass(frozen=True, slots=True)
class RonHeadBumped(Event):
    TYPE: ClassVar[str] = "ron_head_bumped"
    seat: Seat
    by: Seat


@dataclass(frozen=True, slots=True)
class WinShownEv(Event):
    TYPE: ClassVar[str] = "win_shown"
    seat: Seat
    hand: tuple[Tile, ...]
    win_tile: Tile


@dataclass(frozen=True, slots=True)
class UraShown(Event):
    TYPE: ClassVar[str] = "ura_revealed"
    tiles: tuple[Tile, ...]


@dataclass(frozen=True, slots=True)
class AwaitingConfirmation(Event):
    """A win waits for the referee (``confirm_win`` / ``reject_win``)."""

    TYPE: ClassVar[str] = "win_awaiting_confirmation"
    seats: tuple[Seat, ...]


@dataclass(frozen=True, slots=True)
class HandEnded(Event):
    TYPE: ClassVar[str] = "hand_ended"
    SHAPES: ClassVar[Mapping[str, Any]] = {
        "outcome": HandOutcome, "settlement": Settlement, "next": NextHand,
    }
    hand: int
    outcome: Mapping[str, Any]
    settlement: Mapping[str, Any]
    scores: tuple[int, ...]
    next: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class GameEnded(Event):
    TYPE: ClassVar[str] = "game_ended"
    SHAPES: ClassVar[Mapping[str, Any]] = {"standings": Standings}
    game: int
    standings: Mapping[str, Any]
    by: str  # "flow" (the game's own end) or the referee


# --- violations and the referee ------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Violation(Event):
    TYPE: ClassVar[str] = "violation"
    code: str
    seat: Seat | None
    expected: Any
    actual: Any
    article: str
    sanction: str
    input: str  # the input type that caused it
    id: int  # stable: the input's sequence number and an index within it


@dataclass(frozen=True, slots=True)
class RefereeApplied(Event):
    TYPE: ClassVar[str] = "referee"
    action: str
    by: str
    args: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class ViolationAccepted(Event):
    TYPE: ClassVar[str] = "violation_accepted"
    id: int
    code: str
    by: str


@dataclass(frozen=True, slots=True)
class ScoresCorrected(Event):
    """An atomic score correction; ``deltas`` compensate (``after - before``)."""

    TYPE: ClassVar[str] = "scores_corrected"
    before: tuple[int, ...]
    after: tuple[int, ...]
    deltas: tuple[int, ...]
    pt_deltas: tuple[float, ...]
    by: str
    reason: str


@dataclass(frozen=True, slots=True)
class SeatsSwapped(Event):
    TYPE: ClassVar[str] = "seats_swapped"
    a: Seat
    b: Seat
    names: tuple[str, ...]
    scores: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class PenaltyTiles(Event):
    """W 罚张: the seat's exposed tiles lie face up as penalty tiles (``tiles``: all of them
    now); play goes on (W 错鸣-6: a false win)."""

    TYPE: ClassVar[str] = "penalty_tiles"
    seat: Seat
    tiles: tuple[Tile, ...]
    reason: str


@dataclass(frozen=True, slots=True)
class DeadHandLifted(Event):
    TYPE: ClassVar[str] = "dead_hand_lifted"
    seat: Seat
    by: str


@dataclass(frozen=True, slots=True)
class Undone(Event):
    TYPE: ClassVar[str] = "undone"
    action: str
    by: str


# --- outcome JSON (HandOutcome has no codec of its own) ----------------------------------------
def manual_to_json(m: ManualValue | None) -> dict[str, Any] | None:
    if m is None:
        return None
    return {"han": m.han, "fu": m.fu, "yakuman": m.yakuman, "points": m.points,
            "yaku": [[name, han] for name, han in m.yaku]}


def win_to_json(w: Win, aka: bool = True) -> dict[str, Any]:
    out = fields_to_json(w, aka)
    out["manual"] = manual_to_json(w.manual)
    return out


def context_to_json(c: HandContext) -> dict[str, Any]:
    return fields_to_json(c, c.aka)


def shown_ura(outcome: Mapping[str, Any]) -> tuple[int, ...]:
    """The ura indicators of an outcome in JSON form that anyone has seen: they are turned over
    only when a riichi winner is paid (S §24-7, M 2-6-3); otherwise none, though the engine may
    know them from the wall."""
    if not any(isinstance(w, Mapping) and w.get("riichi") for w in outcome.get("wins") or ()):
        return ()
    context = outcome.get("context") or {}
    return tuple(int(t) for t in context.get("ura_indicators") or ())


def outcome_to_json(o: HandOutcome) -> dict[str, Any]:
    aka = o.context.aka
    return {
        "kind": o.kind,
        "context": context_to_json(o.context),
        "wins": [win_to_json(w, aka) for w in o.wins],
        "tenpai": encode(o.tenpai),
        "nagashi": encode(o.nagashi),
        "abort_kind": o.abort_kind,
        "offender": encode(o.offender),
        "offenders": encode(o.chombo_seats),
    }


fast_init([Event])  # every input publishes events: the quick constructor (rules/evolve.py)
