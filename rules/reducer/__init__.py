"""The hand state machine: ``reduce(state, input) -> (state, events)``.

Pure and deterministic: no I/O, no clock, no iteration over sets; the same inputs give the same
events byte for byte. It never raises: a bad or illegal input gives the unchanged state (or
exactly the ruleset's sanction) and a ``violation`` event (catalogue: :mod:`rules.violations`,
docs/rules-engine.md).

Knowledge is partial by design. A table without sensors reports draws and discards without
tiles; a record (tenhou/mjai import) has tiles but no dice, break or positions. Every check that
needs something unknown is skipped, never guessed: the geometry checks run when the break is
known, the tile checks when the tiles are, the shape checks (furiten, false wins, kan after
riichi, tenpai) when the hand is.

The package holds one phase of a hand per module (docs/architecture.md):

| module | holds |
|---|---|
| ``dispatch`` | ``reduce``, ``new_table``; the one ``match`` over the input classes |
| ``output`` | the events and violations one input gives; the refusal and dead-hand signals |
| ``hand_ops`` | what every phase does to a hand: seats, tile places, furiten, dead hands |
| ``setup`` | game and hand start, wall, dice, break, indicators, deal |
| ``turns`` | draws (live and rinshan) and discards, riichi declaration |
| ``calls`` | chi, pon, the three kans, pao |
| ``wins`` | tsumo, ron (chankan, multiple ron), the shown hand, ura indicators |
| ``sealing`` | sealing a declared win, ending the hand and the game |
| ``draws`` | exhaustive and abortive draws |
| ``referee`` | referee actions and their undo |
"""

from rules.reducer.dispatch import MAX_OPEN_VIOLATIONS, new_table, reduce
from rules.reducer.referee import REFEREE_ACTIONS

__all__ = ["MAX_OPEN_VIOLATIONS", "REFEREE_ACTIONS", "new_table", "reduce"]
