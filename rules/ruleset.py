"""Rulesets as data.

Each ruleset is one TOML file in ``rules/rulesets/`` holding every parameter in which the rulebooks
differ (each file's comments cite the articles, its ``sources`` the rulebooks). A file may
``extends = "other"`` and override some keys; :func:`load_ruleset` resolves the chain and
validates the result strictly: an unknown key, a wrong type or a missing value fails with the
file, the key and the expected type.

Nothing else in jantaku branches on a ruleset's name: code asks for a parameter instead.
"""

from __future__ import annotations

import dataclasses
import tomllib
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Literal, get_args, get_origin

from rules.errors import RulesError
from rules.frozen_map import FrozenMap
from rules.timers import TimerRules

BUILTIN = ("saikouisen", "saikouisen-classic", "mleague", "mu", "wmc", "tenhou")


class RulesetError(RulesError, ValueError):
    """A ruleset file that cannot be used; the message names the file and the key."""


@dataclass(frozen=True, slots=True)
class Meta:
    title: str
    family: Literal["riichi", "zung_jung"]
    sources: tuple[str, ...]
    description: str
    # The rulebook's article notation (RULESETS.md): violations cite articles in it. "T" = Tenhou
    # (RULESETS.md §7, no article numbers); "C" = the Saikouisen Classic summary (C-sum), which
    # lists only its differences from S.
    notation: Literal["S", "C", "M", "μ", "W", "T"]
    # Where an article is missing in ``notation``: the rulebook the variant departs from (C → S).
    base_notation: Literal["S", "M", "μ", "W", "T"] | None = None


@dataclass(frozen=True, slots=True)
class WallRules:
    # S §28-3(3), μ §14: one roll; W 开门: two rolls summed; M 3-4-2: the table opens by itself.
    break_method: Literal["one_roll", "two_rolls", "auto"]
    # S §12, M 2-2: 14. W lost the digit (王牌与海底牌-1); 14 is the best-supported value.
    dead_wall_tiles: int
    # M 3-4-5 / 3-4-6: where to break when the table did not open or show the indicator.
    auto_fallbacks: bool
    # "jump": the dealer takes the 1st and 3rd stacks' top tiles (S §34, μ §14, W 跳牌) and
    # discards first; "draw": 13 each and the dealer draws his 14th (M auto-deal). Same tiles.
    dealer_fourteenth: Literal["jump", "draw"]
    # μ §16: a wrongly flipped indicator may be corrected until the dealer's first discard.
    indicator_correction: Literal["none", "until_first_discard"]


@dataclass(frozen=True, slots=True)
class DoraRules:
    indicator: bool
    kan_dora: bool
    # When a kan's new indicator is turned, for a closed and an open (daiminkan/kakan) kan:
    # "immediate" = before the replacement draw (S §24-5, §43-10,13,15; M 4-5-5 on exposure);
    # "after_discard" = after the kan player's next discard or win (Tenhou's open-kan timing).
    kan_dora_closed: Literal["immediate", "after_discard"]
    kan_dora_open: Literal["immediate", "after_discard"]
    ura: bool
    kan_ura: bool
    red_fives: bool
    # Whether turning a kan's indicator establishes the kan, so that it can no longer be robbed
    # (S §43-4: "the kan exists once it is turned"). M 4-5-5 says only that a robbed kan turns no
    # indicator: a ron that robs the kan after its indicator flipped stands, the indicator void.
    indicator_establishes_kan: bool = True


@dataclass(frozen=True, slots=True)
class CallRules:
    # S §40-6 forbidden (停和 §55-3); M 7-2-2(3) agari houki; C allows it.
    kuikae: Literal["allowed", "forbidden"]
    max_kans: int
    # Several rons on one discard: head-bump (S §45-4, M 5-1-3, μ §65, W 截和) or all win.
    multiple_ron: Literal["head_bump", "all"]
    # Tenhou: three rons on one discard abort the hand instead.
    triple_ron_abortive: bool
    open_tanyao: bool
    # S-sum, M 4-5-6, W 抢杠-3: no kokushi robbing of an ankan.
    kokushi_robs_ankan: bool
    # Under head-bump: may a ron still bump a winner who has already shown the hand? S §45-4
    # "倒排后不再承认头跳": no; M, μ are silent and W 截和 has "no exceptions": yes.
    head_bump_after_shown: bool = True


@dataclass(frozen=True, slots=True)
class RiichiRules:
    enabled: bool
    deposit: int
    # A seat with fewer points than the deposit may not declare (Tenhou); others are silent.
    requires_deposit_points: bool
    # Live tiles that must remain after the declaring discard's draw: Tenhou 4; S §39-4/M 4-8-3
    # allow riichi with no draw left except by the haitei drawer, i.e. 1.
    min_live_tiles: int
    # S §43-11 strict (sets, wait and yaku unchanged); M 4-5-2/4-8-8 composition (sets
    # unchanged, yaku may change); Tenhou: the wait unchanged; C, μ §51(10): never.
    ankan_after: Literal["strict", "composition", "wait", "never"]
    ippatsu: bool
    double_riichi: bool
    furiten_riichi: bool


@dataclass(frozen=True, slots=True)
class FuritenRules:
    # S §51, M 5-5, μ §63-64. W 和牌-5: none.
    enabled: bool


@dataclass(frozen=True, slots=True)
class DrawRules:
    # S-sum 3,000; C none; M 3-11-5; μ §71 option A (3,000) / B (0); W none.
    noten_payment: int
    abortive: tuple[
        Literal["nine_terminals", "four_winds", "four_riichi", "four_kans", "triple_ron"], ...
    ]
    nagashi_mangan: bool


@dataclass(frozen=True, slots=True)
class GameRules:
    rounds: int
    hands_per_round: int
    # S §27-1,2 and M 3-12-3: win or tenpai; C: win; W 庄家及门风-6: none.
    renchan: Literal["win_or_tenpai", "win", "none"]
    honba_value: int
    # S §50-1, M 3-13-1: a draw adds a honba even when the deal passes.
    honba_after_draw: bool
    bust: Literal["continue", "end_below_zero"]
    all_last_dealer_stop: bool
    # Tenhou: play on into the next wind when nobody reached the target.
    extension: Literal["none", "next_wind"]
    extension_target: int
    # μ §24(2): under a session time limit the game ends with the hand during which it is
    # reached ("end_of_hand"); the moment reaches the rules as the referee's ``time_limit``
    # input. "none": the rulebook has no such end.
    time_limit: Literal["none", "end_of_hand"] = "none"


@dataclass(frozen=True, slots=True)
class PointRules:
    start: int
    # Final pt = (points - return) / points_per_pt + uma[rank] (oka sits inside uma, M 6-2-1..4).
    return_points: int
    uma: tuple[int, int, int, int]
    points_per_pt: int
    # M 4-8-5/6-2-5: to the top; S §39-12: withdrawn; μ §43(3): to nobody.
    leftover_deposits: Literal["to_top", "to_nobody"]
    # M 6-2-6: tied ranks split the uma, the odd part to the seat nearest the first dealer;
    # "seat_order": the seat nearest the first dealer ranks higher (Tenhou).
    ties: Literal["split", "seat_order"]


@dataclass(frozen=True, slots=True)
class LimitRules:
    # M 6-4-2, 6-6-1: 30 fu 6 han and 60 fu 5 han (ba-zoro included) round up to mangan.
    kiriage: bool
    # Fu for a pair of the wind that is both the round and the seat wind: 4 (Tenhou), or 2 as
    # for any other value pair (M 6-3-2 note "連風牌の対子も2符", μ §56(2)1).
    double_wind_pair_fu: int
    yakuman_stacking: bool
    kazoe_yakuman: bool
    double_yakuman_patterns: bool


@dataclass(frozen=True, slots=True)
class PaoRules:
    yaku: tuple[Literal["daisangen", "daisuushii", "suukantsu"], ...]


@dataclass(frozen=True, slots=True)
class PenaltyRules:
    chombo: Literal["pt", "points", "none"]
    chombo_pt: float
    chombo_points: int
    chombo_replay: bool
    # μ §68: the riichi sticks go back to their owners on a chombo.
    chombo_returns_deposits: bool
    # The sanction for 多牌/少牌, kuikae and the like: 停和 / agari houki / 相公.
    dead_hand: Literal["agari_houki", "tinghe", "xianggong"]
    # A riichi hand noten at the exhaustive draw is a chombo (S §54-1, M 7-4-1, μ §68); C-sum:
    # the riichi player may keep his hand hidden and noten riichi is not penalised.
    noten_riichi_chombo: bool
    # pt deducted per violation code as the offence is ruled, play going on or the hand dead:
    # S §54-3 小错和(停和) −10 (kuikae, 多牌/少牌, 先自摸, a call by a 停和 hand: §55-3) and
    # §54-4 小错和(对局继续) −10 (a false tenpai declaration: §55-4(4)).
    minor_chombo_pt: Mapping[str, float] = field(default_factory=FrozenMap)
    # A call, kan or riichi by a seat whose hand is dead: refused ("rejected"), or a chombo
    # (M 7-2-1 "これに反した場合はチョンボ", μ §70 "违反者判为错和").
    dead_hand_call: Literal["rejected", "chombo"] = "rejected"
    # S §55-1(4): an offence of 停和 level by a riichi player is a full chombo (the hand ends).
    dead_hand_riichi_chombo: bool = False
    # W 错鸣-6: a false win is played on and the tiles it exposed become penalty tiles (罚张),
    # the hand stays alive; False: the false win ends or kills the hand (chombo / dead hand).
    false_win_exposes: bool = False


@dataclass(frozen=True, slots=True)
class ZungJungRules:
    limit: int
    # v1.03 / v3.3: a discarder pays 3V-50 and the others 25 above this value; 2008 used 30.
    discard_threshold: int
    minimum: int
    chicken_points: int
    patterns: Mapping[str, int] = field(default_factory=FrozenMap)
    # Whether 1.2 Concealed Hand is also added to the irregular hands (Seven Pairs, Thirteen
    # Terminals): MT-old v1.03 did ([MTN]: WSoM "redefined: not added to irregular hands").
    concealed_hand_irregular: bool = False


@dataclass(frozen=True, slots=True)
class Ruleset:
    name: str
    meta: Meta
    wall: WallRules
    dora: DoraRules
    calls: CallRules
    riichi: RiichiRules
    furiten: FuritenRules
    draws: DrawRules
    game: GameRules
    points: PointRules
    limits: LimitRules
    pao: PaoRules
    penalties: PenaltyRules
    timers: TimerRules
    zung_jung: ZungJungRules | None = None

    def to_dict(self) -> dict[str, Any]:
        return _to_plain(self)  # type: ignore[no-any-return]


def _to_plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _to_plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(k): _to_plain(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [_to_plain(v) for v in value]
    return value


def _describe(tp: Any) -> str:
    origin = get_origin(tp)
    if origin is Literal:
        return "one of " + ", ".join(repr(a) for a in get_args(tp))
    if origin is tuple:
        args = get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            return f"a list of {_describe(args[0])}"
        return f"a list of {len(args)} × {_describe(args[0])}"
    if origin in (Mapping, dict) or (origin is not None and origin is typing.Mapping):
        k, v = get_args(tp)
        return f"a table of {_describe(k)} → {_describe(v)}"
    if isinstance(tp, type):
        names = {"str": "a string", "int": "an integer", "float": "a number", "bool": "a boolean"}
        return names.get(tp.__name__, tp.__name__)
    return str(tp)


def _coerce(tp: Any, value: Any, where: str) -> Any:
    origin = get_origin(tp)
    bad = RulesetError(f"{where}: expected {_describe(tp)}, got {type(value).__name__} {value!r}")
    if origin is Literal:
        if value not in get_args(tp) or isinstance(value, bool) != isinstance(
            get_args(tp)[0], bool
        ):
            raise bad
        return value
    if origin is tuple:
        if not isinstance(value, list):
            raise bad
        args = get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_coerce(args[0], v, f"{where}[{i}]") for i, v in enumerate(value))
        if len(value) != len(args):
            raise bad
        return tuple(_coerce(a, v, f"{where}[{i}]") for i, (a, v) in enumerate(zip(args, value)))
    if origin is not None and (origin is Mapping or origin is dict or origin is typing.Mapping):
        if not isinstance(value, dict):
            raise bad
        kt, vt = get_args(tp)
        return FrozenMap(
            {_coerce(kt, k, where): _coerce(vt, v, f"{where}.{k}") for k, v in value.items()}
        )
    if origin is types.UnionType or origin is typing.Union:
        raise bad
    if tp is bool:
        if not isinstance(value, bool):
            raise bad
        return value
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise bad
        return value
    if tp is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise bad
        return float(value)
    if tp is str:
        if not isinstance(value, str):
            raise bad
        return value
    raise RulesetError(f"{where}: unsupported type {tp!r}")  # pragma: no cover


def _build(cls: type[Any], table: Any, where: str) -> Any:
    if not isinstance(table, dict):
        raise RulesetError(f"{where}: expected a table, got {type(table).__name__}")
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(table) - set(fields))
    if unknown:
        raise RulesetError(
            f"{where}: unknown key {unknown[0]!r} (known: {', '.join(sorted(fields))})"
        )
    values: dict[str, Any] = {}
    for name, f in fields.items():
        tp = hints[name]
        key = f"{where} {name}"
        if name not in table:
            if f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING:
                continue
            raise RulesetError(f"{key}: missing (expected {_describe(tp)})")
        sub = table[name]
        if get_origin(tp) in (types.UnionType, typing.Union):
            tp = next(a for a in get_args(tp) if a is not type(None))
        if isinstance(tp, type) and dataclasses.is_dataclass(tp):
            values[name] = _build(tp, sub, f"{where} [{name}]")
        else:
            values[name] = _coerce(tp, sub, key)
    return cls(**values)


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = _merge(out[k], v)
        else:
            out[k] = v
    return out


def _read_toml(name_or_path: str) -> tuple[str, str, dict[str, Any]]:
    """Return (name, label for errors, parsed table) for a builtin name or a file path."""
    if name_or_path in BUILTIN:
        res = resources.files("rules") / "rulesets" / f"{name_or_path}.toml"
        label = f"rules/rulesets/{name_or_path}.toml"
        text = res.read_text(encoding="utf-8")
        name = name_or_path
    else:
        path = Path(name_or_path)
        if path.suffix != ".toml" or not path.is_file():
            raise RulesetError(
                f"unknown ruleset {name_or_path!r} (builtin: {', '.join(BUILTIN)}; "
                "or give the path of a .toml file)"
            )
        label = str(path)
        text = path.read_text(encoding="utf-8")
        name = path.stem
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RulesetError(f"{label}: not valid TOML: {exc}") from exc
    return name, label, data


def _resolve(name_or_path: str, seen: tuple[str, ...] = ()) -> tuple[str, str, dict[str, Any]]:
    name, label, data = _read_toml(name_or_path)
    parent = data.pop("extends", None)
    if parent is None:
        return name, label, data
    if not isinstance(parent, str):
        raise RulesetError(f"{label}: extends: expected a string, got {parent!r}")
    if parent in seen or parent == name:
        raise RulesetError(f"{label}: extends {parent!r} makes a cycle")
    _, _, base = _resolve(parent, (*seen, name))
    return name, label, _merge(base, data)


_CACHE: dict[str, Ruleset] = {}


def load_ruleset(name_or_path: str) -> Ruleset:
    """Load a builtin ruleset by name, or a venue's own TOML file by path (validated)."""
    cached = _CACHE.get(name_or_path)
    if cached is not None:
        return cached
    name, label, data = _resolve(name_or_path)
    data = dict(data)
    data.setdefault("name", name)
    if data["name"] != name:
        raise RulesetError(f"{label}: name {data['name']!r} does not match the file name {name!r}")
    ruleset = _build(Ruleset, data, label)
    assert isinstance(ruleset, Ruleset)
    if ruleset.meta.family == "zung_jung" and ruleset.zung_jung is None:
        raise RulesetError(f"{label} [zung_jung]: missing (the zung_jung family needs it)")
    _CACHE[name_or_path] = ruleset
    return ruleset

