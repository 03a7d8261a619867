"""rules/evolve.py: ``replace`` gives what ``dataclasses.replace`` gives, ``fast_init`` gives
an ``__init__`` that behaves as the dataclass's own (issue 20: the replay's hot path)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import pytest

from rules.events import Discarded, Event
from rules.evolve import fast_init, replace
from rules.inputs import Discard
from rules.seats import Seat
from rules.table_state import HandState, LastDiscard, SeatState, TableState
from rules.tiles import Tile


@dataclass(frozen=True, slots=True)
class _Sample:
    a: int
    b: str = "b"
    c: tuple[int, ...] = ()
    d: int = field(default=4, kw_only=True)

    def __post_init__(self) -> None:
        if self.a < 0:
            raise ValueError(f"a must be >= 0, got {self.a}")


@dataclass(frozen=True, slots=True)
class _WithFactory:
    a: list[int] = field(default_factory=list)


def test_fast_init_behaves_as_the_dataclass_init() -> None:
    reference = _Sample.__init__
    fast_init([_Sample, _WithFactory])
    assert _Sample.__init__ is not reference  # replaced ...
    assert _WithFactory(a=[1]).a == [1] and _WithFactory().a == []  # ... a factory keeps its own
    s = _Sample(1)
    assert (s.a, s.b, s.c, s.d) == (1, "b", (), 4)
    assert _Sample(2, "x", (3,), d=5) == _Sample(a=2, b="x", c=(3,), d=5)
    with pytest.raises(TypeError):
        _Sample(1, "x", (), 5)  # type: ignore[call-arg]  # d is keyword-only
    with pytest.raises(TypeError):
        _Sample()  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="a must be >= 0"):
        _Sample(-1)  # __post_init__ runs
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.a = 3  # type: ignore[misc]


def test_events_inputs_and_turn_records_have_the_quick_init() -> None:
    for cls in (Discarded, Discard, LastDiscard):
        assert cls.__init__.__code__.co_filename == "<string>"  # generated, not dataclass's
    d = Discarded(seat=Seat.S1, tile=Tile(4), riichi=False, tsumogiri=True, houtei=False)
    assert d.to_json()["tile_mjai"] == "2m" and d == Discarded(Seat.S1, Tile(4), False, True,
                                                              False)
    assert Discard(Seat.S2) == Discard(seat=Seat.S2, tile=None, riichi=False, tsumogiri=None)
    assert issubclass(Discarded, Event)


def test_replace_on_state_classes_equals_dataclasses_replace() -> None:
    st = SeatState(count=13)
    h = HandState(number=0, dealer=Seat.S0, round_wind=0, hand_in_round=0,  # type: ignore[arg-type]
                  honba=0, deposits=0, scores=(1, 2, 3, 4), seats=(st, st, st, st),
                  located=(0,) * 136)
    for obj, changes in ((st, {"count": 14, "riichi": "declared"}),
                         (h, {"step": "draw", "turn": Seat.S1}),
                         (TableState(), {"seq": 3})):
        new = replace(obj, **changes)
        assert new == dataclasses.replace(obj, **changes)
        assert new is not obj and type(new) is type(obj)
        assert obj == replace(new, **{k: getattr(obj, k) for k in changes})
    with pytest.raises(TypeError, match="unexpected keyword argument 'bogus'"):
        replace(st, bogus=1)
    with pytest.raises(TypeError, match="unexpected keyword argument 'bogus'"):
        replace(LastDiscard(Seat.S0, None, False, False), bogus=1)
    last = LastDiscard(Seat.S3, Tile(7), True, False)
    assert last.as_passed() == dataclasses.replace(last, passed=True)
