"""Settling a hand: from a :class:`~rules.outcome.HandOutcome` to score changes, under a ruleset.

One payment path for every way a hand ends, tile-scored or entered by a referee:

* **win** — each win is valued (riichi: :mod:`rules.scoring.riichi`, or the referee's han/fu or
  yakuman count; Zung Jung: :mod:`rules.scoring.zung_jung`) and paid: ron by the discarder,
  tsumo split (M 6-5-3: 一家包 / 三家包), each share rounded up to 100 (μ §58, M 6-4-2). Honba
  (``game.honba_value`` per count, M 3-13-3): a ron's discarder pays it all, on a tsumo each
  payer a third (M 6-5-6 "1300・2600は1400・2700"). The riichi deposits go to the winner
  (S §39-12, M 4-8-5). Several rons on one discard: with ``calls.multiple_ron = "head_bump"``
  only the winner nearest the discarder in turn order wins (S §45-4, M 5-1-3, μ §65); with
  ``"all"`` each ron is paid on its own and honba and deposits go to that nearest winner only
  (as the Tenhou records show). Three rons where ``calls.triple_ron_abortive``: an abortive draw.
* **pao** (``pao.yaku``; M 8-1, μ §67): tsumo — the liable seat pays the pao yakuman alone;
  ron by someone else — the liable seat and the discarder pay half each; the liable seat pays
  the honba (M 8-1-2); with several yakuman the liable seat pays only the pao one, the rest is
  paid as usual (M 8-1-3, example "東家16000、西家32300+8000、北家8000").
* **exhaustive draw** — ``draws.noten_payment`` moves from the noten to the tenpai seats
  (S §52-8, μ §71(A): 1/2/3 tenpai → 3000/1500/1000 to each; 0 or 4 tenpai: nothing);
  nagashi mangan where the ruleset has it: paid as a mangan tsumo, without honba, instead of
  the tenpai payments (Tenhou records). Deposits stay on the table (S §39-11, μ §43(2)).
* **abortive draw** — nothing moves; deposits stay.
* **chombo** — ``penalties.chombo``: pt (M 7-4-1, S §54-1) or points (μ §68 (B)); the riichi
  sticks of the hand go back where ``chombo_returns_deposits`` (μ §68); ``replay`` where
  ``chombo_replay`` (M 7-4-6, S §53-5, μ §68).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from rules.outcome import HandContext, HandOutcome, Win
from rules.ruleset import Ruleset
from rules.scoring.limits import YAKUMAN_BASIC, basic_points, ron_points, tsumo_points
from rules.scoring.riichi import riichi_hand
from rules.scoring.value import ScoringError, WinValue
from rules.scoring.zung_jung import ZungJungError, zung_jung_payments, zung_jung_value
from rules.seats import SEATS, Seat

SettlementKind = Literal["win", "exhaustive", "abortive", "chombo"]

Deltas = tuple[int, int, int, int]
ZERO: Deltas = (0, 0, 0, 0)


@dataclass(frozen=True, slots=True)
class Settlement:
    """The score changes of one hand.

    ``deltas``: everything in points (hand payments, honba, deposits collected, tenpai payments,
    nagashi, point penalties) — not the riichi sticks put down during the hand, which the
    reducer has already taken from the scores (HandContext.scores). ``deposits_after``: riichi
    sticks left on the table. ``kind``: how the hand ended as settled (a triple ron under
    ``triple_ron_abortive`` settles as ``abortive``); ``wins``: the wins paid (after a
    head-bump, only the one that stood), nagashi mangan included (``nagashi=True``).
    """

    kind: SettlementKind
    deltas: Deltas
    deposits_after: int
    wins: tuple[WinValue, ...] = ()
    pt_penalties: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)
    replay: bool = False
    tenpai: tuple[Seat, ...] = ()
    draw_payments: Deltas = ZERO
    penalty_points: Deltas = ZERO
    returned_deposits: Deltas = ZERO
    notes: tuple[str, ...] = field(default=())

    @property
    def winners(self) -> tuple[Seat, ...]:
        return tuple(w.winner for w in self.wins if not w.nagashi)

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "settlement",
            "kind": self.kind,
            "deltas": list(self.deltas),
            "deposits_after": self.deposits_after,
            "wins": [w.to_json() for w in self.wins],
            "pt_penalties": list(self.pt_penalties),
            "replay": self.replay,
            "tenpai": [int(s) for s in self.tenpai],
            "draw_payments": list(self.draw_payments),
            "penalty_points": list(self.penalty_points),
            "returned_deposits": list(self.returned_deposits),
            "notes": list(self.notes),
        }


def _add(*parts: Deltas) -> Deltas:
    return (
        sum(p[0] for p in parts),
        sum(p[1] for p in parts),
        sum(p[2] for p in parts),
        sum(p[3] for p in parts),
    )


def _deltas(values: dict[Seat, int]) -> Deltas:
    return (
        values.get(Seat.S0, 0),
        values.get(Seat.S1, 0),
        values.get(Seat.S2, 0),
        values.get(Seat.S3, 0),
    )


# --- riichi payments ------------------------------------------------------------------------


def riichi_payments(
    ruleset: Ruleset,
    context: HandContext,
    winner: Seat,
    loser: Seat | None,
    basic: int,
    *,
    honba: int = 0,
    deposit_points: int = 0,
    pao: Seat | None = None,
    pao_basic: int = 0,
) -> tuple[Deltas, int, int]:
    """Per-seat deltas of one riichi win worth ``basic`` basic points, with ``honba`` counters
    and ``deposit_points`` collected; ``pao``/``pao_basic``: the liable seat and the part of the
    basic points it is liable for. Returns (deltas, hand points, honba points)."""
    if loser == winner:
        raise ScoringError(f"seat {int(winner)} cannot ron its own discard")
    dealer = context.dealer
    winner_is_dealer = winner == dealer
    honba_total = honba * ruleset.game.honba_value  # M 3-13-3
    pay: dict[Seat, int] = {}

    def owe(seat: Seat, amount: int) -> None:
        pay[seat] = pay.get(seat, 0) + amount

    if pao is not None and pao != winner and pao_basic > 0:
        rest = basic - pao_basic
        pao_value = ron_points(pao_basic, winner_is_dealer)
        if loser is None or loser == pao:
            # M 8-1: tsumo → the liable seat pays the pao yakuman alone, and the honba (8-1-2).
            owe(pao, pao_value + honba_total)
            hand = pao_value
            if rest > 0:
                if loser is None:
                    hand += _tsumo_split(rest, winner, dealer, owe)
                else:
                    value = ron_points(rest, winner_is_dealer)
                    owe(loser, value)
                    hand += value
        else:
            # M 8-1, μ §67: ron by another → half each; honba on the liable seat (M 8-1-2).
            owe(pao, pao_value // 2 + honba_total)
            owe(loser, pao_value - pao_value // 2)
            hand = pao_value
            if rest > 0:
                value = ron_points(rest, winner_is_dealer)
                owe(loser, value)
                hand += value
    elif loser is not None:
        hand = ron_points(basic, winner_is_dealer)
        owe(loser, hand + honba_total)
    else:
        hand = _tsumo_split(basic, winner, dealer, owe)
        for seat in SEATS:
            if seat != winner:
                owe(seat, honba_total // 3)  # M 6-5-6: +100 from each per honba
    received = sum(pay.values()) + deposit_points
    deltas = {seat: -amount for seat, amount in pay.items()}
    deltas[winner] = received
    return _deltas(deltas), hand, honba_total


def _tsumo_split(basic: int, winner: Seat, dealer: Seat, owe: Any) -> int:
    from_dealer, from_other = tsumo_points(basic, winner == dealer)
    total = 0
    for seat in SEATS:
        if seat == winner:
            continue
        amount = from_dealer if seat == dealer else from_other
        owe(seat, amount)
        total += amount
    return total


def _riichi_win(
    ruleset: Ruleset, win: Win, context: HandContext, honba: int, deposit_points: int
) -> WinValue:
    pao = win.pao if (win.pao is not None and win.pao_yaku in ruleset.pao.yaku) else None
    if win.manual is not None:
        m = win.manual
        if m.yakuman < 0 or m.han < 0 or m.fu < 0:
            raise ScoringError(f"manual value must not be negative: {m!r}")
        if m.yakuman == 0 and m.han == 0:
            raise ScoringError(f"manual value needs han (with fu) or a yakuman count: {m!r}")
        if m.yakuman == 0 and m.han < 5 and (m.fu < 20 or (m.fu != 25 and m.fu % 10)):
            raise ScoringError(
                f"manual value below mangan needs fu of 20, 25 or a multiple of 10: {m!r}"
            )
        yakuman = m.yakuman if ruleset.limits.yakuman_stacking else min(m.yakuman, 1)
        basic, limit = basic_points(ruleset, m.han, m.fu, yakuman)
        pao_yakuman = 1 if (pao is not None and yakuman > 0) else 0
        han, fu = (0, 0) if yakuman else (m.han, m.fu)
        yaku: tuple[tuple[str, int], ...] = m.yaku  # the referee's checklist, if any
        fu_details: tuple[tuple[str, int], ...] = ()
    else:
        hand = riichi_hand(ruleset, win, context)
        yakuman = hand.yakuman
        basic, limit = basic_points(ruleset, hand.han, hand.fu, yakuman)
        pao_yakuman = hand.pao_yakuman if pao is not None else 0
        han, fu, yaku, fu_details = hand.han, hand.fu, hand.yaku, hand.fu_details
    if pao_yakuman == 0:
        pao = None
    deltas, points, honba_points = riichi_payments(
        ruleset,
        context,
        win.winner,
        win.loser,
        basic,
        honba=honba,
        deposit_points=deposit_points,
        pao=pao,
        pao_basic=YAKUMAN_BASIC * pao_yakuman,
    )
    return WinValue(
        family="riichi",
        winner=win.winner,
        loser=win.loser,
        payments=deltas,
        points=points,
        honba_points=honba_points,
        deposit_points=deposit_points,
        han=han,
        fu=fu,
        yakuman=yakuman,
        yaku=yaku,
        fu_details=fu_details,
        limit=limit,
        basic=basic,
        pao=pao,
        manual=win.manual is not None,
    )


def _zung_jung_win(ruleset: Ruleset, win: Win, context: HandContext) -> WinValue:
    rules = ruleset.zung_jung
    if rules is None:
        raise ScoringError(f"ruleset {ruleset.name!r} has no [zung_jung] table")
    try:
        value = zung_jung_value(ruleset, win, context)
    except ZungJungError as exc:
        raise ScoringError(str(exc)) from exc
    deltas = zung_jung_payments(
        value.total, win.winner, win.loser, win.responsible, rules.discard_threshold
    )
    return WinValue(
        family="zung_jung",
        winner=win.winner,
        loser=win.loser,
        payments=deltas,
        points=deltas[win.winner],
        patterns=value.patterns,
        value=value.total,
        limit=value.limit or "",
        manual=value.manual,
    )


def value_win(
    ruleset: Ruleset, win: Win, context: HandContext, *, honba: int = 0, deposits: int = 0
) -> WinValue:
    """Value and pay one win, with ``honba`` counters and ``deposits`` sticks going to it."""
    if ruleset.meta.family == "zung_jung":
        return _zung_jung_win(ruleset, win, context)
    return _riichi_win(ruleset, win, context, honba, deposits * ruleset.riichi.deposit)


# --- the outcome kinds ------------------------------------------------------------------------


def _settle_wins(ruleset: Ruleset, outcome: HandOutcome) -> Settlement:
    context = outcome.context
    wins = outcome.wins
    if not wins:
        raise ScoringError("a win outcome without wins")
    winners = [w.winner for w in wins]
    if len(set(winners)) != len(winners):
        raise ScoringError(f"a seat wins twice: {[int(s) for s in winners]}")
    notes: list[str] = []
    if len(wins) > 1:
        losers = {w.loser for w in wins}
        if None in losers or len(losers) != 1:
            raise ScoringError("several wins must all be rons on the same discard")
        loser = wins[0].loser
        assert loser is not None
        # Turn order from the discarder: shimocha, toimen, kamicha (S §45-4, M 5-1-3, μ §65).
        wins = tuple(sorted(wins, key=lambda w: loser.relative(w.winner)))
        if len(wins) == 3 and ruleset.calls.triple_ron_abortive:
            return Settlement(
                kind="abortive",
                deltas=ZERO,
                deposits_after=context.deposits,
                notes=("triple ron: abortive draw",),
            )
        if ruleset.calls.multiple_ron == "head_bump":
            notes.extend(f"head-bump: seat {int(w.winner)} loses the ron" for w in wins[1:])
            wins = wins[:1]
    values: list[WinValue] = []
    for i, win in enumerate(wins):
        first = i == 0
        values.append(
            value_win(
                ruleset,
                win,
                context,
                honba=context.honba if first else 0,
                deposits=context.deposits if first else 0,
            )
        )
    deposits_after = 0 if ruleset.meta.family == "riichi" else context.deposits
    return Settlement(
        kind="win",
        deltas=_add(*(v.payments for v in values)),
        deposits_after=deposits_after,
        wins=tuple(values),
        notes=tuple(notes),
    )


def tenpai_payments(total: int, tenpai: tuple[Seat, ...]) -> Deltas:
    """S §52-8, μ §71(A): ``total`` from the noten seats to the tenpai seats; none if all four or
    nobody are tenpai."""
    n = len(set(tenpai))
    if total == 0 or n in (0, 4):
        return ZERO
    gain, loss = total // n, total // (4 - n)
    return _deltas({seat: (gain if seat in tenpai else -loss) for seat in SEATS})


def _settle_exhaustive(ruleset: Ruleset, outcome: HandOutcome) -> Settlement:
    context = outcome.context
    tenpai = tuple(sorted(set(outcome.tenpai)))
    nagashi = tuple(sorted(set(outcome.nagashi))) if ruleset.draws.nagashi_mangan else ()
    if nagashi:
        wins = []
        for seat in nagashi:
            deltas, points, _ = riichi_payments(ruleset, context, seat, None, 2000)
            wins.append(
                WinValue(
                    family="riichi",
                    winner=seat,
                    loser=None,
                    payments=deltas,
                    points=points,
                    han=5,
                    yaku=(("Nagashi Mangan", 5),),
                    limit="mangan",
                    basic=2000,
                    nagashi=True,
                )
            )
        return Settlement(
            kind="exhaustive",
            deltas=_add(*(w.payments for w in wins)),
            deposits_after=context.deposits,
            wins=tuple(wins),
            tenpai=tenpai,
        )
    draw = tenpai_payments(ruleset.draws.noten_payment, tenpai)
    return Settlement(
        kind="exhaustive",
        deltas=draw,
        deposits_after=context.deposits,
        tenpai=tenpai,
        draw_payments=draw,
    )


def _settle_chombo(ruleset: Ruleset, outcome: HandOutcome) -> Settlement:
    context = outcome.context
    offenders = outcome.chombo_seats
    if not offenders:
        raise ScoringError("a chombo outcome names no offender")
    rules = ruleset.penalties
    pt = [0.0, 0.0, 0.0, 0.0]
    points = [0, 0, 0, 0]
    for offender in offenders:  # M 7-4-5, μ §69: every offender is penalised
        if rules.chombo == "pt":
            pt[offender] += rules.chombo_pt  # M 7-4-1, S §54-1, μ §68 (A)
        elif rules.chombo == "points":
            points[offender] += rules.chombo_points  # μ §68 (B): taken on the spot
    returned = [0, 0, 0, 0]
    deposits_after = context.deposits
    if rules.chombo_returns_deposits:
        # μ §68: the riichi sticks go back to their owners.
        for seat in set(context.riichi_seats):
            returned[seat] += ruleset.riichi.deposit
        deposits_after = max(0, context.deposits - len(set(context.riichi_seats)))
    penalty = (points[0], points[1], points[2], points[3])
    back = (returned[0], returned[1], returned[2], returned[3])
    return Settlement(
        kind="chombo",
        deltas=_add(penalty, back),
        deposits_after=deposits_after,
        pt_penalties=(pt[0], pt[1], pt[2], pt[3]),
        replay=rules.chombo_replay,
        penalty_points=penalty,
        returned_deposits=back,
    )


def settle(ruleset: Ruleset, outcome: HandOutcome) -> Settlement:
    """Settle a hand under ``ruleset``. Raises :class:`~rules.scoring.value.ScoringError` for a
    win that does not score (the reducer checks wins first: :func:`rules.scoring.riichi.check_win`)
    or an inconsistent outcome."""
    if outcome.kind == "win":
        return _settle_wins(ruleset, outcome)
    if outcome.kind == "exhaustive":
        return _settle_exhaustive(ruleset, outcome)
    if outcome.kind == "abortive":
        return Settlement(kind="abortive", deltas=ZERO, deposits_after=outcome.context.deposits)
    if outcome.kind == "chombo":
        return _settle_chombo(ruleset, outcome)
    raise ScoringError(f"unknown outcome kind {outcome.kind!r}")
