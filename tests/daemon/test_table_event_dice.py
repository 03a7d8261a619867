"""Table dice frames become dice inputs from the right seat: the dealer's roll, then (W 开门-2)
the breaker's, the seat the dealer's roll counted to."""

from __future__ import annotations

from daemon.devices import table_event_record
from drivers.link import messages as m
from rules.inputs import DiceRolled, GameStart, HandStart, input_from_json
from rules.reducer import new_table, reduce
from rules.seats import Seat


def test_wmc_second_roll_is_the_breakers() -> None:
    state = new_table()
    for inp in (GameStart(ruleset="wmc", first_dealer=Seat.S1), HandStart()):
        state, _ = reduce(state, inp)
    kind, body = table_event_record(m.Dice((3, 4)), state.snapshot())
    assert kind == "input" and body["seat"] == 1  # the dealer rolls first
    state, events = reduce(state, input_from_json(body))
    assert not [e for e in events if e.to_json()["type"] == "violation"]
    # 7 counted from the dealer (seat 1, counting as 1) lands on seat 1 + 6 = seat 3.
    kind, body = table_event_record(m.Dice((2, 2)), state.snapshot())
    assert body["seat"] == 3
    state, events = reduce(state, input_from_json(body))
    assert [e.to_json()["type"] for e in events] == ["dice_rolled"]
    assert isinstance(input_from_json(body), DiceRolled)
