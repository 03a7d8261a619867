"""The players (hil/players/): one world, two policies, and the reducer checked against them.

The world and the policies decide from their own model of the hands (never the reducer's state):
a hand they play with no reducer at all is accepted by the reducer without a single refusal; the
simulator is exactly the world played by the bot policy (plus think times); and the modules that
decide import neither the reducer nor its state."""

from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest

from hil.players import BotPolicy, Move, Policy, RandomLegalPolicy, World, play_hand
from hil.players.world import Mode
from hil.simulator import GameSimulator, bot_players
from rules.game_flow import start_game
from rules.inputs import GameStart, HandStart, Input
from rules.reducer import new_table, reduce
from rules.ruleset import load_ruleset
from rules.seats import Seat

RULESETS = ("mleague", "saikouisen", "saikouisen-classic", "mu", "wmc", "tenhou")
PLAYERS = Path(__file__).resolve().parents[2] / "hil" / "players"


def _first_hand(ruleset: str, seed: int, mode: Mode, bots: bool) -> tuple[Seat, list[Move]]:
    """East 1 played by the world and a policy alone: no reducer anywhere."""
    rs = load_ruleset(ruleset)
    rng = random.Random(seed)
    first = Seat(rng.randrange(4))
    policy: Policy = BotPolicy(rng) if bots else RandomLegalPolicy(rng)
    world = World(rs, rng, mode, tsumogiri=bots, draw_positions=not bots)
    return first, list(play_hand(world, policy, start_game(rs, first)))


@pytest.mark.parametrize("ruleset", RULESETS)
@pytest.mark.parametrize("mode", ["table", "record", "blind"])
def test_a_hand_played_without_the_reducer_is_accepted_whole(ruleset: str, mode: Mode) -> None:
    ended = 0
    for seed in range(25):
        bots = seed % 2 == 1 and mode == "table"
        first, moves = _first_hand(ruleset, seed, mode, bots)
        state = new_table()
        stream: list[Input] = [GameStart(ruleset=ruleset, first_dealer=first,
                                         names=("A", "B", "C", "D")), HandStart(),
                               *(m.input for m in moves)]
        for i, inp in enumerate(stream):
            state, events = reduce(state, inp)
            refused = [e.to_json() for e in events if e.TYPE == "violation"]
            assert not refused, (seed, i, inp, refused)
        assert state.hand is not None
        ended += state.hand.step == "ended"
        assert state.hand.step in ("ended", "won"), (seed, state.hand.step)
    # "won": a ron another seat could still claim (always, without sensors: the reducer does not
    # know the other hands), closed by the next hand's start or by the referee
    assert ended >= 10


@pytest.mark.parametrize("ruleset", ["mleague", "wmc", "saikouisen"])
def test_the_simulator_is_the_world_played_by_the_bots(ruleset: str) -> None:
    seed = 3
    sim = [s.input for s in GameSimulator(ruleset, seed, hands=3).steps()]
    # The same world and bots, driven here: the reducer is asked only for each hand's progress.
    world, policy, _ = bot_players(load_ruleset(ruleset), seed)
    state, _ = reduce(new_table(), sim[0])
    own: list[Input] = [sim[0]]
    for _hand in range(3):
        state, _ = reduce(state, HandStart())
        own.append(HandStart())
        assert state.progress is not None
        for move in play_hand(world, policy, state.progress):
            own.append(move.input)
            state, _ = reduce(state, move.input)
    assert own == sim


def test_same_seed_same_inputs() -> None:
    a = [s.input for s in GameSimulator("mleague", 9, hands=2).steps()]
    b = [s.input for s in GameSimulator("mleague", 9, hands=2).steps()]
    c = [s.input for s in GameSimulator("mleague", 10, hands=2).steps()]
    assert a == b and a != c


def _imports(path: Path) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return out


def test_the_deciding_modules_never_import_the_reducer() -> None:
    """Only the legal table (which sends the moves to the reducer) may import it."""
    deciding = [p for p in PLAYERS.glob("*.py") if p.name not in ("__init__.py",
                                                                  "legal_table.py")]
    assert {p.name for p in deciding} >= {"world.py", "policy.py", "hand_play.py",
                                          "bot_policy.py", "bots.py", "hand_model.py"}
    for p in deciding:
        bad = {m for m in _imports(p) if m.startswith(("rules.reducer", "rules.table_state",
                                                       "hil.simulator", "hil.players.legal"))}
        assert not bad, (p.name, bad)
