"""bench/venue.py's table starts (issue 20 item 3): with ``--start spread`` each table starts at
its own seeded moment within one hand of its own game, as a venue's tables do; ``--start
together`` is the synchronised worst case."""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "bench"))

import venue_kit  # noqa: E402


def test_one_hand_lasts_from_its_start_to_the_next_or_to_the_last_input() -> None:
    one = venue_kit.game_script(1, 1)
    two = venue_kit.game_script(1, 2)
    starts = [at for at, body in two if body["type"] == "hand_start"]
    assert len(starts) == 2
    assert venue_kit.hand_seconds(two) == starts[1] - starts[0]
    first = next(at for at, body in one if body["type"] == "hand_start")
    assert venue_kit.hand_seconds(one) == one[-1][0] - first
    # the simulator's pace: a hand of a minute or more, not the burst of its set-up
    assert venue_kit.hand_seconds(one) > 60


def test_spread_starts_are_seeded_within_one_hand_and_together_is_all_at_once() -> None:
    games = [venue_kit.hand_seconds(venue_kit.game_script(1 + seed, 1)) for seed in range(8)]
    hands = [games[i % 8] for i in range(100)]  # as bench/venue_run.py reuses eight games
    spread = venue_kit.start_offsets(hands, "spread", 1)
    assert spread == venue_kit.start_offsets(hands, "spread", 1), "repeatable"
    assert spread != venue_kit.start_offsets(hands, "spread", 2)
    assert all(0 <= s < d for s, d in zip(spread, hands, strict=True))
    # spread over the hand, not bunched: at most a few tables start in the same second
    per_second: dict[int, int] = {}
    for s in spread:
        per_second[int(s)] = per_second.get(int(s), 0) + 1
    assert max(per_second.values()) <= 6
    assert max(spread) - min(spread) > 0.8 * min(hands)
    assert venue_kit.start_offsets(hands, "together", 1) == [0.0] * 100
