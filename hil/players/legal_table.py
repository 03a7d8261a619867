"""A random *legal* table for the reducer's property tests, the record round trips and the daemon
tests: the :class:`~hil.players.world.World` (a seeded wall, dice, deal and its own hand model)
played by the :class:`~hil.players.policy.RandomLegalPolicy`, every move sent to the reducer and
its events collected.

The players never read the reducer's state; the table reads it only at each ``HandStart``, for
the game's progress (``TableState.progress``: dealer, round wind, honba, deposits, scores, the
game's end), which the settlement decides.

Modes: ``table`` (wall manifest, dice, break, positions, tiles), ``record`` (tiles but no dice,
break or positions: an importer), ``blind`` (dice and break, no tiles at all: a table without
sensors; wins are shown with WinShown).
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from hil.players.hand_play import play_hand
from hil.players.policy import RandomLegalPolicy
from hil.players.world import Mode, World
from rules.events import Event
from rules.inputs import GameStart, HandStart, Input
from rules.reducer import new_table, reduce
from rules.ruleset import Ruleset, load_ruleset
from rules.seats import Seat
from rules.table_state import TableState


class Table:
    """Plays one game; ``inputs`` collects everything sent, ``events`` everything received."""

    def __init__(self, ruleset: str, seed: int, mode: Mode = "table", *, call_rate: float = 0.3,
                 riichi_rate: float = 0.5, kan_rate: float = 0.7, skill: float = 0.9) -> None:
        self.rs: Ruleset = load_ruleset(ruleset)
        self.rng = random.Random(seed)  # one stream: the world's wall and dice, the choices
        self.mode = mode
        self.world = World(self.rs, self.rng, mode)
        self.policy = RandomLegalPolicy(self.rng, call_rate=call_rate, riichi_rate=riichi_rate,
                                        kan_rate=kan_rate, skill=skill)
        self.state: TableState = new_table()
        self.inputs: list[Input] = []
        self.events: list[Event] = []

    def send(self, inp: Input) -> tuple[Event, ...]:
        self.inputs.append(inp)
        self.state, ev = reduce(self.state, inp)
        self.events.extend(ev)
        return ev

    def violations(self) -> list[Event]:
        return [e for e in self.events if e.TYPE == "violation"]

    def play_game(self, max_hands: int = 4) -> None:
        first = Seat(self.rng.randrange(4))
        self.send(GameStart(ruleset=self.rs.name, first_dealer=first,
                            names=("A", "B", "C", "D")))
        for _ in range(max_hands):
            if self.state.game_over:
                break
            self.play_hand()
            if self.state.game_over:
                break

    def play_hand(self) -> None:
        # HandStart first: it may still close the previous hand (a win open to more rons),
        # which decides the dealer.
        self.send(HandStart())
        if self.state.game_over:
            # the HandStart closed the game's last hand (and was refused: game_over)
            assert [e.to_json()["code"] for e in self.violations()] == ["game_over"]
            self.events = [e for e in self.events if e.TYPE != "violation"]
            return
        progress = self.state.progress
        assert progress is not None and self.state.hand is not None, self.events[-3:]
        for move in play_hand(self.world, self.policy, progress):
            self.send(move.input)


def games(ruleset: str, seeds: Iterator[int], mode: Mode = "table") -> Iterator[Table]:
    for seed in seeds:
        t = Table(ruleset, seed, mode)
        t.play_game()
        yield t
