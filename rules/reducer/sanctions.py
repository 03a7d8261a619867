"""What a violation costs beyond its own sanction, as the ruleset says: minor-chombo pt
deductions (S §54-3, §54-4) and the offences that become a full chombo (M 7-2-1, μ §70: a call
or riichi by a dead hand; S §55-1(4): an offence of 停和 level by a riichi player).

Applied once per input, after it was handled (or refused): the violations of the input are the
facts, the ruleset's ``penalties`` the price.
"""

from __future__ import annotations

from rules.events import Violation
from rules.evolve import replace
from rules.inputs import Ankan, Call, Discard, Input, Kakan
from rules.outcome import HandOutcome
from rules.reducer.deductions import price_violations
from rules.reducer.hand_ops import hand_context
from rules.reducer.output import Out
from rules.reducer.sealing import end_hand
from rules.ruleset import Ruleset
from rules.seats import SEATS, Seat
from rules.table_state import TableState

_CALLS = (Call, Ankan, Kakan)  # (a tuple: ``A | B`` in an isinstance builds a union each time)


def apply_sanctions(t: TableState, inp: Input, violations: list[Violation], out: Out
                    ) -> TableState:
    rs = t.ruleset
    if rs is None or t.progress is None or not violations:
        return t
    t = price_violations(t, out)
    offender = _chombo_offender(rs, t, inp, violations)
    h = t.hand
    if offender is None or h is None or h.step in ("ended", "won"):
        return t
    riichi_seats = [s for s in SEATS if h.seats[s].riichi == "accepted"]
    outcome = HandOutcome(kind="chombo", context=hand_context(rs, t, h, riichi_seats),
                          offender=offender)
    return end_hand(t, replace(h, step="ended"), outcome, out)


def _chombo_offender(rs: Ruleset, t: TableState, inp: Input, violations: list[Violation]
                     ) -> Seat | None:
    h = t.hand
    for v in violations:
        if v.seat is None:
            continue
        if (v.code == "dead_hand_call" and rs.penalties.dead_hand_call == "chombo"
                and (isinstance(inp, _CALLS) or (isinstance(inp, Discard) and inp.riichi))):
            return v.seat  # M 7-2-1, μ §70
        if (
            rs.penalties.dead_hand_riichi_chombo
            and v.sanction.startswith("dead_hand")
            and h is not None
            and h.seats[v.seat].riichi != "none"
        ):
            return v.seat  # S §55-1(4)
    return None
