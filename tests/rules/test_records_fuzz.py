"""Lenient importers, strict model: mutated records never crash the importers or the replay. A
mutated record either raises RecordError (not a record) or imports with its problems collected,
and replays through the reducer without an exception.

Bounded by default; ``JANTAKU_SLOW=1`` tries many more mutations."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hil.kit import bounded
from rules.records import RecordError
from rules.records.export import to_mjai_events
from rules.records.mjai import import_mjai
from rules.records.replay import replay, verify
from rules.records.tenhou6 import import_tenhou6
from rules.ruleset import load_ruleset

DATA = Path(__file__).resolve().parent.parent / "data"
SMALL = [
    "mjai-reviewer/double_ron.json",
    "mjai-reviewer/chankan.json",
    "mjai-reviewer/rinshan.json",
    "mjai-reviewer/suukantsu_0.json",
    "riichi-rs/notable-features/abort-nagashi-mangan.json",
    "riichi-rs/notable-features/ron-3.json",
]
TENHOU = load_ruleset("tenhou")
EXAMPLES = bounded(25, 400)
JUNK: list[Any] = [None, 0, 60, 11, 19, 47, 51, 53, 99, -1, "r60", "p111111", "c111213", "zz",
                   "111111a11", "k11111111", [], [11], {}, True, 1.5, "和了", "流局"]


def _leaves(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [path]
    if isinstance(node, list):
        for i, v in enumerate(node):
            out += _leaves(v, (*path, i))
    elif isinstance(node, dict):
        for k, v in node.items():
            out += _leaves(v, (*path, k))
    return out


def _mutate(data: Any, rng: random.Random, n: int) -> Any:
    for _ in range(n):
        paths = [p for p in _leaves(data) if p]
        path = rng.choice(paths)
        parent = data
        for key in path[:-1]:
            parent = parent[key]
        action = rng.random()
        if action < 0.6:
            parent[path[-1]] = copy.deepcopy(rng.choice(JUNK))
        elif isinstance(parent, list) and action < 0.8:
            del parent[path[-1]]
        elif isinstance(parent, list):
            parent.insert(path[-1], copy.deepcopy(rng.choice(JUNK)))
    return data


def _check(result_of: Any) -> None:
    try:
        rec = result_of()
    except RecordError as exc:
        assert str(exc) and "\n" not in str(exc)
        return
    for issue in rec.issues:
        assert issue.reason
    result = replay(rec)  # never raises
    verify(rec, result)


@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(SMALL), seed=st.integers(0, 2**32 - 1), n=st.integers(1, 4))
def test_mutated_tenhou6_never_crashes(name: str, seed: int, n: int) -> None:
    data = json.loads((DATA / "game-logs" / name).read_text(encoding="utf-8"))
    mutated = _mutate(data, random.Random(seed), n)
    _check(lambda: import_tenhou6(json.dumps(mutated, ensure_ascii=False), TENHOU))


@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(SMALL), seed=st.integers(0, 2**32 - 1), n=st.integers(1, 4))
def test_mutated_mjai_never_crashes(name: str, seed: int, n: int) -> None:
    rec = import_tenhou6((DATA / "game-logs" / name).read_text(encoding="utf-8"), TENHOU)
    events = to_mjai_events(rec.inputs, rec.hands)
    mutated = _mutate(events, random.Random(seed), n)
    text = "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in mutated)
    _check(lambda: import_mjai(text, TENHOU))


@pytest.mark.parametrize("text", ["", "\n\n", "[]", "{}", "null", '"log"', "[1,2]",
                                  '{"type": 3}', '{"log": {}}'])
def test_degenerate_texts(text: str) -> None:
    from rules.records import import_record

    with pytest.raises(RecordError):
        import_record(text, TENHOU)
