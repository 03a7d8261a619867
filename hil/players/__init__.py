"""Players for tests and simulations (issue 16 item 4, in progress).

* :mod:`hil.players.hand_model`: a seat's hand as the player models it (never the reducer's
  state);
* :mod:`hil.players.legal_table`: a random legal table (wall, dice, deal, four rule-abiding
  players) in three modes (a sensor table, a record, a table without sensors).

``hil/simulator.py`` (the HIL and demo bots, with think times) still keeps its own choices; it is
to play through these players next.
"""

from hil.players.hand_model import SeatModel
from hil.players.legal_table import Mode, Table, games

__all__ = ["Mode", "SeatModel", "Table", "games"]
