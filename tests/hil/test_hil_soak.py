"""The soak command: whole games for every ruleset, no anomaly (bounded; JANTAKU_SLOW=1: 24)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hil.kit import bounded
from hil.soak import soak


@pytest.mark.slow
async def test_soak_games_without_anomaly(logdir: Path) -> None:
    games = bounded(2, 24)
    lines: list[str] = []
    report = await soak(games=games, hours=None, seed=500, workdir=logdir, emit=lines.append)
    assert report["games"] == games and len(lines) == games
    assert report["anomalies"] == []
    assert report["hands"] >= games * 4  # whole games: at least an East round each
