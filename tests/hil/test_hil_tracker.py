"""The device tracker refuses what it cannot place: raw device events on the emulated table into
the real daemon, mid-hand. Each refusal is a logged ``tile_rejected`` marker with its reason, no
rules input, and the table state unchanged."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from daemon.tracker import RIICHI, TENPAI
from drivers.tiles.places import Place, Zone
from hil.runner.session import HilSession
from rules.seats import Seat


def _inputs(db: Path) -> int:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return int(con.execute("SELECT COUNT(*) FROM inputs WHERE kind = 'input'").fetchone()[0])
    finally:
        con.close()


def _markers(db: Path) -> list[str]:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = con.execute("SELECT body FROM inputs WHERE kind = 'marker'").fetchall()
    finally:
        con.close()
    return [r[0] for r in rows]


async def test_tracker_rejects_what_it_cannot_place(tmp_path: Path) -> None:
    async with HilSession("mleague", workdir=tmp_path) as session:
        # the game up to the deal and the dealer's first draw (mleague deals 13 + a draw)
        res = await session.play(3, 1, max_steps=8)
        assert res.difference is None, res.difference
        daemon, rig = session.daemon, session.rig
        assert daemon is not None and rig is not None
        state = daemon.service.core.state.table
        h = state.hand
        assert h is not None and h.step == "discard" and h.turn == Seat.S0
        db = tmp_path / "events.sqlite"
        before_inputs, before_snapshot = _inputs(db), daemon.service.core.view()

        async def sync() -> None:
            await daemon.sync(rig.events)

        rig.key(Seat.S2, RIICHI)  # not seat 2's turn
        await sync()
        rig.key(Seat.S1, 42)  # no such key on the panel
        await sync()
        rig.key(Seat.S1, TENPAI)  # the wall is not exhausted
        await sync()
        s1 = h.seats[Seat.S1].concealed
        assert s1 is not None
        odd = sorted(s1, key=lambda t: t.id)
        rig.tags(Place(Zone.MELDS, Seat.S1), [odd[0], odd[-1]])  # two unrelated hand tiles
        await sync()
        rig.key(Seat.S1, 42)  # any next event closes the meld area
        await sync()
        reasons = daemon.tracker.reasons
        for reason in ("not_own_turn", "no_such_key", "wall_not_exhausted", "not_a_meld"):
            assert reasons[reason] >= 1, (reason, dict(reasons))
        assert _inputs(db) == before_inputs  # nothing reached the rules engine
        assert daemon.service.core.view() == before_snapshot
        markers = _markers(db)
        assert sum('"tile_rejected"' in m for m in markers) >= 5

        # and the table plays on: the dealer discards its drawn tile, read on its river
        drawn = daemon.service.core.state.table.hand.seats[Seat.S0].drawn
        assert drawn is not None
        rig.tag(Place(Zone.RIVER, Seat.S0), drawn)
        await sync()
        assert _inputs(db) == before_inputs + 1
        after = daemon.service.core.state.table.hand
        assert after is not None and after.turn == Seat.S1 and after.step == "draw"


def test_tiles_section_of_the_daemon_config(tmp_path: Path) -> None:
    """``[tiles]`` in the daemon's config: readers need an enrolment, a bad zone is named."""
    import pytest

    from daemon.config import parse_config
    from daemon.errors import ConfigError

    base = f"""config_version = 1
[table]
id = "t1"
ruleset = "mleague"
[eventlog]
path = "{tmp_path / 'events.sqlite'}"
[mqtt]
host = "127.0.0.1"
[devices.table]
kind = "none"
"""
    reader = '[[tiles.readers]]\nname = "r"\nkind = "serial"\npath = "/dev/ttyX"\n'
    assert parse_config(base).tiles is None
    with pytest.raises(ConfigError, match="enrolment"):
        parse_config(base + "[tiles]\n" + reader + 'zone = "hand"\nseat = 0\n')
    with pytest.raises(ConfigError, match="zone"):
        parse_config(base + f'[tiles]\nenrolment = "{tmp_path}/e.json"\n' + reader
                     + 'zone = "wall"\nseat = 0\n')
    config = parse_config(base + f'[tiles]\nenrolment = "{tmp_path}/e.json"\n' + reader
                          + 'zone = "dora"\n')
    assert config.tiles is not None and config.tiles.places()["r"].zone is Zone.DORA
