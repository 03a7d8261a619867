"""Players for tests and simulations: one world, several policies.

* :mod:`hil.players.world`: the table's world -- wall, dice, break, deal, draws, dead wall,
  indicators -- and each seat's hand as the players model it (:mod:`hil.players.hand_model`),
  never read from the reducer's state;
* :mod:`hil.players.policy`: what the players choose (the protocol; the random legal policy);
* :mod:`hil.players.bots` and :mod:`hil.players.bot_policy`: the shanten-greedy bots of the demo
  and the HIL rig;
* :mod:`hil.players.hand_play`: one hand, the world and a policy, as moves (inputs);
* :mod:`hil.players.legal_table`: the random legal table (property tests, record round trips,
  daemon tests) in three modes (a sensor table, a record, a table without sensors).

``hil/simulator.py`` adds the timing (human-like think times) to the world and the bots.
"""

from hil.players.bot_policy import BotPolicy
from hil.players.hand_model import SeatModel
from hil.players.hand_play import play_hand
from hil.players.legal_table import Table, games
from hil.players.policy import Policy, RandomLegalPolicy
from hil.players.world import Mode, Move, World

__all__ = ["BotPolicy", "Mode", "Move", "Policy", "RandomLegalPolicy", "SeatModel", "Table",
           "World", "games", "play_hand"]
