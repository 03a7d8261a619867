"""A complete simulated game for the HIL rig, ``jantaku demo``, tests and benchmarks: the shared
:class:`~hil.players.world.World` (the shuffled wall, dice, break, deal) played by the
:class:`~hil.players.bot_policy.BotPolicy`, with the timing a table has: every action is stamped
with a simulated time (bots think at human-like, seeded speeds).

The players decide from the world's own model, never from the reducer. The simulator applies
every input to the real reducer only as the *reference run* the HIL runner compares the daemon
with (``Step.events``, ``state``: scores, honba, renchan, end of game), and to take the game's
progress at each ``HandStart`` (the settlement's result). The same seed always yields the same
inputs.

The hardware-in-the-loop runner and ``jantaku demo`` turn these steps into table-link frames,
sensor reads and button presses; tests and benchmarks use the input stream directly.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from hil.errors import SimulationError
from hil.players.bot_policy import BotPolicy
from hil.players.hand_play import play_hand
from hil.players.world import Move, World
from rules import inputs as ri
from rules.events import Event
from rules.reducer import new_table, reduce
from rules.ruleset import Ruleset, load_ruleset
from rules.seats import SEATS, Seat
from rules.table_state import TableState

DEFAULT_NAMES = ("Aiko", "Bo", "Chen", "Dana")

#: seconds a table action takes (the start button, raising the wall, ...)
TABLE_SECONDS: dict[type[Any], float] = {
    ri.HandStart: 4.0, ri.WallRaised: 6.0, ri.DiceRolled: 1.5, ri.BreakOpened: 2.0,
    ri.IndicatorShown: 1.0, ri.DealDone: 8.0, ri.Draw: 1.0, ri.RinshanDraw: 0.8,
    ri.ExhaustiveDraw: 3.0, ri.AbortiveDraw: 2.0, ri.RefereeOverride: 2.0,
}


@dataclass(frozen=True, slots=True)
class Step:
    """One action: simulated time (seconds since the game started), the input, what the
    reference reducer made of it, and the seat whose decision it was (``None``: the table's)."""

    t: float
    input: ri.Input
    events: tuple[Event, ...]
    actor: Seat | None


def think_seconds(rng: random.Random, speed: float) -> float:
    """A human-like thinking delay (log-normal around 1.5 s), scaled by the demo speed."""
    if speed <= 0:
        return 0.0
    return min(12.0, rng.lognormvariate(0.3, 0.6)) / speed


def bot_players(ruleset: Ruleset, seed: int) -> tuple[World, BotPolicy, random.Random]:
    """The world, the bots and the think-time stream a seed gives (tests rebuild them)."""
    rng = random.Random(seed)
    policy = BotPolicy(random.Random(rng.getrandbits(64)))
    world = World(ruleset, random.Random(rng.getrandbits(64)), "table", tsumogiri=True,
                  draw_positions=False)
    return world, policy, random.Random(rng.getrandbits(64))


class GameSimulator:
    """Plays one game. Iterate :meth:`steps` to get every action in order."""

    def __init__(
        self,
        ruleset: str | Ruleset,
        seed: int,
        *,
        hands: int | None = None,
        names: tuple[str, str, str, str] = DEFAULT_NAMES,
        first_dealer: Seat = Seat.S0,
        strict: bool = True,
    ) -> None:
        self.ruleset = load_ruleset(ruleset) if isinstance(ruleset, str) else ruleset
        self.world, self.policy, self.timing = bot_players(self.ruleset, seed)
        self.max_hands = hands
        self.names = names
        self.first_dealer = first_dealer
        self.strict = strict
        self.state: TableState = new_table()
        self.t = 0.0
        self.violations: list[dict[str, Any]] = []
        self.hands_played = 0

    def _apply(self, inp: ri.Input, actor: Seat | None, think: float) -> Step:
        self.t += think
        self.state, events = reduce(self.state, inp)
        for ev in events:
            js = ev.to_json()
            if js.get("type") == "violation":
                self.violations.append(js)
                if self.strict:
                    raise SimulationError(f"reducer rejected {inp!r}: {js}")
        return Step(round(self.t, 3), inp, events, actor)

    def _think(self, move: Move) -> float:
        """A table action's fixed time; a seat's decision: its think time (a riichi seat's
        forced discard and a ron are quicker)."""
        inp = move.input
        fixed = TABLE_SECONDS.get(type(inp))
        if fixed is not None:
            return fixed
        if isinstance(inp, ri.Discard) and move.actor is not None \
                and self.world.players[move.actor].riichi and not inp.riichi:
            return 0.8
        think = max(0.3, think_seconds(self.timing, 1.0))
        return think * 0.5 if isinstance(inp, ri.Ron) else think

    def steps(self) -> Iterator[Step]:
        yield self._apply(
            ri.GameStart(ruleset=self.ruleset.name, first_dealer=self.first_dealer,
                         names=self.names), None, 0.0)
        while not self.state.game_over:
            if self.max_hands is not None and self.hands_played >= self.max_hands:
                return
            yield self._apply(ri.HandStart(), None, TABLE_SECONDS[ri.HandStart])
            progress = self.state.progress
            if progress is None or self.state.hand is None:
                raise SimulationError("HandStart began no hand")
            for move in play_hand(self.world, self.policy, progress):
                yield self._apply(move.input, move.actor, self._think(move))
            self.hands_played += 1
            p = self.state.progress
            if p is not None and p.finished:
                return


def play(ruleset: str, seed: int, hands: int | None = None) -> list[Step]:
    """The whole game as a list of steps (tests and benchmarks)."""
    return list(GameSimulator(ruleset, seed, hands=hands).steps())


__all__ = ["DEFAULT_NAMES", "SEATS", "GameSimulator", "Step", "bot_players", "play",
           "think_seconds"]
