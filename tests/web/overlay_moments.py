"""A real game played by the simulator, shown through the real overlay server: the moments a
broadcast cares about (deal, riichi, call, win, draw, game end), for the Chromium tests."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from daemon.web.view import overlay_view
from hil.simulator import GameSimulator
from rules.table_view import table_view

MOMENTS = ("deal", "riichi", "call", "win", "draw", "game_end")


@dataclass(frozen=True, slots=True)
class Moment:
    name: str
    view: dict[str, Any]


def _moment(prev: dict[str, Any] | None, view: dict[str, Any]) -> str | None:
    seats = view.get("seats") or []
    before = (prev or {}).get("seats") or []
    if view.get("standings"):
        return "game_end"
    if view.get("status") == "hand_over" and view.get("result"):
        return "win" if view["result"]["wins"] else "draw"
    if view.get("status") != "playing" or not before:
        return None
    if all(len(s["river"]) == 0 for s in seats) and (prev or {}).get("status") != "playing":
        return "deal"
    for s, b in zip(seats, before, strict=False):
        if s["riichi"] and not b["riichi"]:
            return "riichi"
        # a call of a discard (its called tile shown sideways), not a concealed kan
        if len(s["melds"]) > len(b["melds"]) and s["melds"][-1]["called_index"] is not None:
            return "call"
    return None


def moments(ruleset: str = "mleague", seed: int = 1, hands: int = 20,
            table: str = "t-moments") -> Iterator[tuple[int, dict[str, Any], str | None]]:
    """Every view of the game (seq, view, the moment it is or ``None``)."""
    sim = GameSimulator(ruleset, seed=seed, hands=hands)
    prev: dict[str, Any] | None = None
    for seq, _ in enumerate(sim.steps(), start=1):
        view = overlay_view(table_view(sim.state), table=table, seq=seq)
        yield seq, view, _moment(prev, view)
        prev = view


def first_moments(ruleset: str = "mleague", seed: int = 1, hands: int = 20) -> list[Moment]:
    """The first view of each kind of moment, in game order."""
    found: dict[str, dict[str, Any]] = {}
    for _, view, name in moments(ruleset, seed, hands):
        if name is not None and name not in found:
            found[name] = view
    return [Moment(n, found[n]) for n in MOMENTS if n in found]
