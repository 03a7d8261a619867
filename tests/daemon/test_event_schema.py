"""The events payload schema: generated from the event classes, committed, and true of real
streams (issue 19 item 5).

* the committed ``daemon/schemas/event.json`` is exactly what ``daemon/schema_gen.py`` generates;
* every event of the riichi-rs notable-feature records (wins, draws, aborts, kans, yakuman)
  validates against its type's ``data`` schema, which forbids
  unknown keys, so a field added to an event class without regenerating fails here;
* no key anywhere in a payload is a Python spelling (``break_``, ``brk``);
* every tile id travels with its mjai name.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from daemon import clocks as dc
from daemon.schema_gen import event_schema, render
from daemon.table import DaemonBadInput, DaemonEngineError
from rules import timers as rt
from rules.events import Drew, Event
from rules.records.replay import replay
from rules.records.tenhou6 import import_tenhou6
from rules.ruleset import load_ruleset
from rules.seats import Seat
from rules.tiles import Tile

ROOT = Path(__file__).resolve().parents[2]
LOGS = ROOT / "tests" / "data" / "game-logs"
# The notable-features records cover every way a hand ends (wins, multiple ron, every abort,
# nagashi, kans, yakuman); the full games are covered by tests/rules/test_records_replay.py.
RECORDS = sorted((LOGS / "riichi-rs" / "notable-features").glob("*.json"))
TENHOU = load_ruleset("tenhou")


@functools.cache
def schema() -> dict[str, Any]:
    return json.loads((ROOT / "daemon" / "schemas" / "event.json").read_text("utf-8"))  # type: ignore[no-any-return]


def data_validator() -> Draft202012Validator:
    s = schema()
    return Draft202012Validator({"$ref": "#/$defs/data", "$defs": s["$defs"]})


def test_committed_schema_is_the_generated_one() -> None:
    committed = (ROOT / "daemon" / "schemas" / "event.json").read_text("utf-8")
    assert committed == render(), "daemon/schemas/event.json is stale: run bin/gen-schemas"
    Draft202012Validator.check_schema(event_schema())


def test_every_event_class_has_a_data_schema() -> None:
    types = set(schema()["$defs"]["data"]["properties"]["type"]["enum"])
    assert {c.TYPE for c in Event.__subclasses__()} <= types
    assert set(dc.CLOCK_TYPES.values()) <= types
    assert {"daemon_bad_input", "daemon_engine_error"} <= types


def keys(obj: Any) -> Iterator[str]:
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield k
            yield from keys(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from keys(v)


def record_events() -> Iterator[tuple[str, dict[str, Any]]]:
    for path in RECORDS:
        rec = import_tenhou6(path.read_text("utf-8"), TENHOU)
        for body in replay(rec, keep_events=True).event_log:
            yield path.name, body


@functools.cache
def all_record_events() -> tuple[tuple[str, dict[str, Any]], ...]:
    return tuple(record_events())


@functools.cache
def type_validator(kind: str) -> Draft202012Validator:
    """The schema ``data`` sends an event of type ``kind`` to (its ``if``/``then`` branch)."""
    return Draft202012Validator({"$ref": f"#/$defs/data.{kind}", "$defs": schema()["$defs"]})


def test_every_event_of_the_shared_records_validates_against_its_type() -> None:
    v = data_validator()
    kinds = set(schema()["$defs"]["data"]["properties"]["type"]["enum"])
    seen: set[str] = set()
    for name, body in all_record_events():
        # ``data`` is: an object whose type is one of its enum, valid against that type's branch.
        # The whole union once per type (the dispatch), then the branch itself for every event:
        # the same verdict, without trying forty-odd ``if``s per event (7 s -> 0.6 s)
        kind = body["type"]
        assert kind in kinds, f"{name}: unknown type {kind}"
        check = type_validator(kind) if kind in seen else v
        errs = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
                for e in check.iter_errors(body)]
        assert not errs, f"{name}: {kind}: {errs[:3]}"
        seen.add(kind)
    # the records exercise the important kinds: a hand from start to settlement and game end
    assert {"game_started", "hand_started", "draw", "discard", "call", "kan", "riichi_declared",
            "win_declared", "hand_ended", "game_ended", "dora_revealed"} <= seen


def test_a_wrong_payload_is_refused_by_the_schema() -> None:
    v = data_validator()
    good = Drew(Seat.S1, Tile(52), None, False, 69).to_json()
    assert not list(v.iter_errors(good))
    for bad in ({**good, "tile": 136}, {**good, "tile_mjai": "0p"}, {**good, "extra": 1},
                {k: x for k, x in good.items() if k != "live_left"}, {**good, "seat": 4}):
        assert list(v.iter_errors(bad)), bad


def test_no_python_spelling_in_any_key() -> None:
    for _, body in all_record_events():
        for k in keys(body):
            assert not k.endswith("_") and k not in {"brk", "break_"}, (body["type"], k)


def test_tiles_travel_with_their_mjai_names() -> None:
    red = Drew(Seat.S0, Tile(16), None, False, 60)
    assert red.to_json(aka=True)["tile_mjai"] == "5mr"
    assert red.to_json(aka=False)["tile_mjai"] == "5m"
    n = 0
    for _, body in all_record_events():
        if body["type"] == "discard" and body["tile"] is not None:
            assert Tile(body["tile"]).mjai() == body["tile_mjai"]
            n += 1
        if body["type"] == "call":
            meld = body["meld"]
            assert [Tile(t).mjai() for t in meld["tiles"]] == meld["tiles_mjai"]
    assert n > 100


def test_clock_and_daemon_events_validate() -> None:
    v = data_validator()
    bodies = [
        dc.event_json(rt.TurnEnded(1, Seat.S2, rt.TurnEndReason.DISCARD, 5, True)),
        dc.event_json(rt.Penalty(1, Seat.S2, rt.PenaltyKind.TURN, 7, 1)),
        dc.event_json(rt.SevereOvertime(1, Seat.S2, 5)),
        dc.event_json(rt.DuplicateDiscard(1, Seat.S2, rt.Source.BUTTON, paired=False)),
        dc.event_json(rt.TimerRejected(1, rt.Pause(1), "pause: already paused")),
        DaemonBadInput(7, "unknown input type 'x'").to_json(),
        DaemonEngineError("ValueError('x')").to_json(),
    ]
    for body in bodies:
        assert body is not None
        assert not list(v.iter_errors(body)), body


def test_the_other_half_of_a_button_sensor_pair_is_not_published() -> None:
    """W 打牌时限: one discard reported by its clock button and its sensor is one discard; only a
    real duplicate (the same button twice) is an event."""
    assert dc.event_json(rt.DuplicateDiscard(1, Seat.S0, rt.Source.BUTTON)) is None
    body = dc.event_json(rt.DuplicateDiscard(1, Seat.S0, rt.Source.BUTTON, paired=False))
    assert body == {"type": "clock_duplicate_discard", "seat": 0, "source": "button"}


@pytest.mark.parametrize("typ", ["break_checked", "wall_fallback"])
def test_break_is_spelled_break(typ: str) -> None:
    props = schema()["$defs"][f"data.{typ}"]["properties"]
    assert "break" in props and "brk" not in props
