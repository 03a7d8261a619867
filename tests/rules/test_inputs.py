"""The input contract: every input has a stable JSON form that round-trips exactly, and a
malformed object is refused naming the field."""

from __future__ import annotations

import json
import types

import pytest

from rules.inputs import (
    INPUT_TYPES,
    AbortiveDraw,
    Ankan,
    BreakOpened,
    Call,
    DealDone,
    DiceRolled,
    Discard,
    Draw,
    ExhaustiveDraw,
    GameStart,
    HandStart,
    IndicatorShown,
    Input,
    InputError,
    Kakan,
    RefereeOverride,
    RinshanDraw,
    Ron,
    Tsumo,
    UraRevealed,
    WallRaised,
    WinShown,
    input_from_json,
    input_to_json,
)
from rules.seats import Seat, Wind
from rules.tiles import Tile
from rules.wall import Layer, Position

T = Tile
EXAMPLES: list[Input] = [
    GameStart("mleague", Seat.S2, ("a", "b", "c", "d"), (25000, 25000, 25000, 25000), True, 1,
              confirm_wins=True),
    GameStart("wmc", Seat.S0),
    HandStart(Seat.S1, Wind.SOUTH, 2, 1, (1, 2, 3, 4)),
    HandStart(),
    WallRaised(tuple(T(i) for i in range(136))),
    WallRaised(),
    DiceRolled(Seat.S3, (6, 1)),
    BreakOpened(Seat.S2, 18),
    IndicatorShown(Position(Seat.S2, 5, Layer.TOP), T(17)),
    IndicatorShown(None, T(0)),
    UraRevealed((T(1), T(2))),
    DealDone((tuple(T(i) for i in range(14)), tuple(T(i) for i in range(14, 27)),
              tuple(T(i) for i in range(27, 40)), tuple(T(i) for i in range(40, 53)))),
    DealDone(),
    Draw(Seat.S1, T(88), Position(Seat.S0, 17, Layer.BOTTOM)),
    Draw(Seat.S1),
    Discard(Seat.S1, T(5), riichi=True, tsumogiri=False),
    Call(Seat.S2, "chi", (T(4), T(8))),
    Call(Seat.S3, "daiminkan", None),
    Ankan(Seat.S0, (T(0), T(1), T(2), T(3))),
    Kakan(Seat.S0, T(7)),
    RinshanDraw(Seat.S0, T(9)),
    Tsumo(Seat.S0),
    Ron(Seat.S1),
    WinShown(Seat.S1, (T(0), T(1)), T(1), ((T(4), T(5), T(6)),)),
    ExhaustiveDraw((Seat.S0, Seat.S3)),
    AbortiveDraw("nine_terminals", Seat.S2),
    AbortiveDraw("four_riichi"),
    RefereeOverride("set_scores", "ref-1", types.MappingProxyType({"scores": [1, 2, 3, 4]})),
]


def test_every_input_type_has_an_example() -> None:
    from rules.inputs import input_type

    assert {input_type(x) for x in EXAMPLES} == set(INPUT_TYPES)


@pytest.mark.parametrize("inp", EXAMPLES, ids=lambda x: type(x).__name__)
def test_json_round_trip(inp: Input) -> None:
    obj = input_to_json(inp)
    text = json.dumps(obj, ensure_ascii=False, sort_keys=True)
    back = input_from_json(json.loads(text))
    assert back == inp
    assert input_to_json(back) == obj


def test_fields_at_defaults_are_kept() -> None:
    assert input_to_json(Draw(Seat.S0)) == {"type": "draw", "seat": 0, "tile": None,
                                            "position": None}


def test_optional_fields_may_be_left_out() -> None:
    assert input_from_json({"type": "game_start", "ruleset": "mu", "first_dealer": 1}) == \
        GameStart("mu", Seat.S1)
    assert input_from_json({"type": "win_shown", "seat": 0, "hand": [1, 2], "win_tile": 2}) \
        == WinShown(Seat.S0, (T(1), T(2)), T(2))


@pytest.mark.parametrize(
    ("obj", "where"),
    [
        ([], "JSON object"),
        ({"type": "dance"}, "unknown input type"),
        ({"type": "draw"}, "missing field 'seat'"),
        ({"type": "draw", "seat": 4}, "draw.seat"),
        ({"type": "draw", "seat": 0, "tile": 136}, "draw.tile"),
        ({"type": "draw", "seat": 0, "tile": True}, "draw.tile"),
        ({"type": "draw", "seat": 0, "colour": "red"}, "unknown field 'colour'"),
        ({"type": "discard", "seat": 0, "riichi": 1}, "discard.riichi"),
        ({"type": "call", "seat": 0, "kind": "kong"}, "call.kind"),
        ({"type": "dice", "seat": 0, "dice": [1, 2, 3]}, "dice.dice"),
        ({"type": "break_opened", "seat": 0, "count": "7"}, "break_opened.count"),
        ({"type": "indicator", "position": {"seat": 0, "stack": 19, "layer": "top"}},
         "indicator.position"),
        ({"type": "hand_start", "round_wind": 4}, "hand_start.round_wind"),
        ({"type": "referee", "action": "penalty", "args": [1]}, "referee.args"),
        ({"type": "abortive_draw", "kind": "five_winds"}, "abortive_draw.kind"),
    ],
)
def test_malformed_inputs_name_the_field(obj: object, where: str) -> None:
    with pytest.raises(InputError, match=where.replace(".", r"\.").replace("(", r"\(")):
        input_from_json(obj)
