"""Minor-chombo pt deductions (S §54-3, §54-4): what a violation costs in points of the game,
priced once, as soon as the game's standings may be read.

A violation is priced when the input that committed it is done (``reduce``) -- or earlier, when
that same input ends the game: the standings in ``game_ended`` must already carry the deduction
of a false tenpai declared at the last hand's draw (S §54-4, §55-4(4)).
"""

from __future__ import annotations

from rules.events import ScoresCorrected
from rules.evolve import replace
from rules.reducer.output import Out
from rules.seats import Seat
from rules.table_state import TableState

#: Who applies a rules sanction in a ScoresCorrected event (a referee names himself).
BY_RULES = "rules"


def price_violations(t: TableState, out: Out) -> TableState:
    """Deduct the ruleset's pt for each violation of this input not yet priced."""
    rs = t.ruleset
    if rs is None or t.progress is None:
        return t
    for v in out.violations[out.priced:]:
        pt = rs.penalties.minor_chombo_pt.get(v.code)
        if pt and v.seat is not None:
            t = _deduct(t, v.seat, pt, v.code, out)
    out.priced = len(out.violations)
    return t


def _deduct(t: TableState, seat: Seat, pt: float, code: str, out: Out) -> TableState:
    p = t.progress
    assert p is not None
    adj = list(p.pt_adjustments)
    adj[seat] += pt
    scores = t.hand.scores if t.hand is not None and t.hand.step != "ended" else p.scores
    deltas = [0.0, 0.0, 0.0, 0.0]
    deltas[seat] = pt
    out.emit(ScoresCorrected(before=scores, after=scores, deltas=(0, 0, 0, 0),
                             pt_deltas=(deltas[0], deltas[1], deltas[2], deltas[3]),
                             by=BY_RULES, reason=code))
    return replace(t, progress=replace(p, pt_adjustments=(adj[0], adj[1], adj[2], adj[3])))
