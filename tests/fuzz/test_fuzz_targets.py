"""Bounded fuzzing in CI: every parser that takes bytes from outside, and the reducer, take
~10^4 generated/mutated inputs each (bench/fuzz.py; ``python bench/fuzz.py`` runs 10^6 per target).

Zero crashes, and every rejection has a reason. Each test also checks that the fuzzer *reaches*
the parser: a share of the inputs is accepted and the rejections span several distinct reasons
(a generator that produced only garbage, or only valid inputs, would make the test vacuous).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import fuzz

from hil.kit import bounded

pytestmark = pytest.mark.slow  # bounded (10^4 per target) unless JANTAKU_SLOW=1

N = bounded(10_000, 200_000)
SEED = int(os.environ.get("JANTAKU_SEED", "1"))

#: (target, inputs in CI, at least this many distinct rejection reasons)
CASES = [
    ("link", N, 6),
    ("rfid", N, 3),
    ("records", N // 4, 5),  # ~2 ms per input: a whole record import
    ("commands", N // 2, 6),
    ("reducer", N, 8),
]


@pytest.mark.parametrize(("target", "n", "reasons"), CASES, ids=[c[0] for c in CASES])
def test_fuzz_target(target: str, n: int, reasons: int) -> None:
    counts = fuzz.run_target(target, n, SEED)
    body = counts.to_json()
    print(f"{target}: {body['inputs']} inputs, {body['accepted']} accepted, "
          f"{body['rejected']} rejected, {body['crashes']} crashes; {body['crash_sites']}")
    assert counts.crash_count == 0, "\n".join(counts.crashes)
    assert counts.inputs == n
    assert counts.accepted >= n // 50, "the generator hardly reaches valid inputs"
    assert len(counts.rejected) >= reasons, dict(counts.rejected)
    assert all(reason.strip() for reason in counts.rejected)


def test_fuzz_oracles_catch_a_broken_parser(monkeypatch: pytest.MonkeyPatch) -> None:
    """The harness counts an exception outside the contract as a crash (so the tests above can
    fail): a decoder that raises on one byte value is caught within a few hundred inputs."""
    from drivers.link import frame

    real = frame.Decoder.feed

    def feed(self: frame.Decoder, data: bytes | bytearray | memoryview) -> list[frame.Decoded]:
        if b"\x07\x07" in bytes(data):
            raise IndexError("planted bug")
        return real(self, data)

    monkeypatch.setattr(frame.Decoder, "feed", feed)
    counts = fuzz.run_target("link", 3000, SEED)
    assert counts.crash_count > 0
    assert any("IndexError" in site for site in counts.sites)


def test_reducer_invariants_catch_a_corrupting_reducer(monkeypatch: pytest.MonkeyPatch) -> None:
    """A reducer that duplicates a tile into a river is reported (the invariant check is live)."""
    from dataclasses import replace

    import rules.reducer as reducer
    from rules.table_state import RiverTile

    real = reducer.reduce

    def corrupt(state, inp):  # type: ignore[no-untyped-def]
        new, events = real(state, inp)
        h = new.hand
        if h is not None and h.seats[0].concealed:
            s0 = h.seats[0]
            bad = replace(s0, river=(*s0.river, RiverTile(s0.concealed[0])))
            new = replace(new, hand=replace(h, seats=(bad, *h.seats[1:])))
        return new, events

    monkeypatch.setattr(reducer, "reduce", corrupt)
    counts = fuzz.run_target("reducer", 2000, SEED)
    assert counts.crash_count > 0
    assert any("AssertionError" in site for site in counts.sites)
