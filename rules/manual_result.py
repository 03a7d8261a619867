"""A referee's ``manual_result``: the args of the command, checked against the ruleset and made
into the values the reducer settles (docs/inputs.md "manual_result", docs/console.md).

A table without sensors knows a hand only from what the referee records: who declared riichi
(``riichi``: every declarer, winners included; their sticks go down as in S §39-1, M 4-8-1) and
how the hand ended:

* ``ron`` — ``wins``: every seat that called ron on the one discard (``loser``); the settlement
  applies the ruleset's head-bump or multiple ron (S §45-4, M 5-1-3, μ §65);
* ``tsumo`` — one win, no ``loser``;
* ``exhaustive`` — ``tenpai``: the seats that showed tenpai; a riichi declarer must be among
  them (a noten riichi at the draw is a chombo, S §54-1, M 7-4-1, μ §68: record it with the
  ``chombo`` command);
* ``abortive`` — ``abort``: a draw the ruleset has (``draws.abortive``; none in M 3-2-3, S-sum,
  μ §19, WMC).

Each win is valued by ``han``/``fu`` (``fu`` is ignored from mangan up), a ``yakuman`` count, or
Zung Jung ``points``, with the ``yaku`` the referee ticked if any (they go into the records);
``pao`` names the liable seat of a yakuman where the ruleset has pao (M 8-1, μ §67).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from rules.errors import RulesError
from rules.outcome import ManualValue, Win
from rules.records.tenhou_words import YAKU
from rules.ruleset import Ruleset
from rules.scoring.hand_values import WinKind, fu_table, impossible
from rules.seats import Seat

Kind = Literal["ron", "tsumo", "exhaustive", "abortive"]
KINDS: tuple[Kind, ...] = ("ron", "tsumo", "exhaustive", "abortive")


class ManualResultError(RulesError, ValueError):
    """A manual result the engine refuses: ``code`` (the violation code), the seat concerned,
    what was expected and what was given (the reducer turns it into a rejection)."""

    def __init__(self, code: str, seat: Seat | None, expected: Any, actual: Any) -> None:
        super().__init__(f"{code}: expected {expected!r}, got {actual!r}")
        self.code = code
        self.seat = seat
        self.expected = expected
        self.actual = actual


@dataclass(frozen=True, slots=True)
class ManualResult:
    kind: Kind
    riichi: tuple[Seat, ...]  # every declarer this hand, winners included
    wins: tuple[Win, ...] = ()
    tenpai: tuple[Seat, ...] = ()
    abort: str | None = None


def _bad(expected: Any, actual: Any, seat: Seat | None = None) -> ManualResultError:
    return ManualResultError("referee_bad_args", seat, expected, actual)


def _seat(v: Any, what: str) -> Seat:
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= 3:
        raise _bad(f"{what}: a seat 0..3", v)
    return Seat(v)


def _seats(v: Any, what: str) -> tuple[Seat, ...]:
    if not isinstance(v, list | tuple):
        raise _bad(f"{what}: a list of seats", v)
    seats = [_seat(x, what) for x in v]
    if len(set(seats)) != len(seats):
        raise _bad(f"{what}: each seat once", v)
    return tuple(sorted(seats))


def _count(e: Mapping[str, Any], key: str, seat: Seat) -> int:
    v = e.get(key, 0)
    if isinstance(v, bool) or not isinstance(v, int) or v < 0:
        raise _bad(f"{key}: a whole number 0 or more", v, seat)
    return v


def _win(rs: Ruleset, e: Mapping[str, Any], tsumo: bool, riichi: Sequence[Seat]) -> Win:
    winner = _seat(e.get("winner"), "winner")
    if tsumo:
        if e.get("loser") is not None:
            raise _bad("tsumo: no loser", e.get("loser"), winner)
        loser = None
    else:
        loser = _seat(e.get("loser"), "loser (the seat that dealt in)")
        if loser == winner:
            raise _bad("a loser other than the winner", int(loser), winner)
    value = ManualValue(
        han=_count(e, "han", winner),
        fu=_count(e, "fu", winner),
        yakuman=_count(e, "yakuman", winner),
        points=_count(e, "points", winner),
    )
    zj = rs.meta.family == "zung_jung"
    yaku = _yaku(e.get("yaku"), value, zj, winner)
    if zj and value.points == 0:
        raise _bad("points: the Zung Jung hand value", "none", winner)
    if not zj and value.han == 0 and value.yakuman == 0:
        raise _bad("han/fu or a yakuman count", "none", winner)
    kind: WinKind = "tsumo" if tsumo else "ron"
    why = None if zj or value.yakuman else impossible(rs, kind, value.han, value.fu)
    if why is not None:
        # M 6-3, S §30, §33-3, μ §56: no hand has this value (rules/scoring/hand_values.py).
        raise ManualResultError("impossible_hand_value", winner,
                                list(fu_table(rs).fu(kind, value.han)), why)
    if not zj and value.yakuman == 0 and value.han >= 5:
        # From mangan up the fu do not count (M 6-6-2, S §35): a given fu is ignored.
        value = ManualValue(han=value.han)
    value = ManualValue(han=value.han, fu=value.fu, yakuman=value.yakuman, points=value.points,
                        yaku=yaku)
    flag = e.get("riichi")
    if flag is not None and (not isinstance(flag, bool) or flag != (winner in riichi)):
        raise _bad(f"riichi: {winner in riichi} (as the hand's riichi list says)", flag, winner)
    pao: Seat | None = None
    pao_yaku: str | None = None
    if e.get("pao") is not None:
        pao = _seat(e.get("pao"), "pao")
        if not rs.pao.yaku:
            raise _bad("pao: none in this ruleset", int(pao), winner)
        if value.yakuman == 0:
            raise _bad("pao: only with a yakuman (M 8-1)", int(pao), winner)
        if pao == winner:
            raise _bad("pao: a seat other than the winner", int(pao), winner)
        # The manual value says which limit, not which yaku: any of the ruleset's pao yaku
        # pays the same (one yakuman on the liable seat, M 8-1-3).
        pao_yaku = rs.pao.yaku[0]
    return Win(winner=winner, loser=loser, hand=(), win_tile=None, riichi=winner in riichi,
               pao=pao, pao_yaku=pao_yaku, manual=value)


def _yaku(v: Any, value: ManualValue, zj: bool, seat: Seat) -> tuple[tuple[str, int], ...]:
    """The ticked yaku (``[name, han]`` pairs, the engine's names: ``Riichi``, ``Dora``,
    ``Kokushi Musou``): known names, each once, adding up to the han (a yakuman: 13 han per
    multiple), so a record's yaku strings tell the same value as its points."""
    if v is None:
        return ()
    if zj:
        raise _bad("yaku: riichi rulesets only (a Zung Jung hand is valued in points)", v, seat)
    if not isinstance(v, list | tuple):
        raise _bad("yaku: a list of [name, han] pairs", v, seat)
    out: list[tuple[str, int]] = []
    for item in v:
        if not (isinstance(item, list | tuple) and len(item) == 2 and isinstance(item[0], str)
                and isinstance(item[1], int) and not isinstance(item[1], bool) and item[1] > 0):
            raise _bad("yaku: [name, han] with han 1 or more", item, seat)
        if item[0] not in YAKU:
            raise _bad(f"yaku: one of {', '.join(YAKU)}", item[0], seat)
        out.append((item[0], item[1]))
    if len({name for name, _ in out}) != len(out):
        raise _bad("yaku: each yaku once", [name for name, _ in out], seat)
    total = sum(han for _, han in out)
    want = 13 * value.yakuman if value.yakuman else value.han
    if out and total != want:
        what = f"{value.yakuman} yakuman" if value.yakuman else f"{value.han} han"
        raise _bad(f"yaku adding up to the win's {what} ({want} han)", total, seat)
    return tuple(out)


def parse(rs: Ruleset, args: Mapping[str, Any], standing: Sequence[Seat]) -> ManualResult:
    """Check a ``manual_result``'s args. ``standing``: the seats whose riichi the sensors saw
    accepted this hand (their sticks are down already; they must be in the list if one is
    given). Without ``riichi`` the declarers are those seats plus the winners flagged
    ``riichi`` (the form before the list)."""
    kind = args.get("kind")
    if kind not in KINDS:
        raise _bad("kind: ron, tsumo, exhaustive or abortive", kind)
    entries = args.get("wins")
    if kind in ("ron", "tsumo"):
        if entries is None:
            entries = [args]
        if not isinstance(entries, list | tuple) or not entries or not all(
                isinstance(e, Mapping) for e in entries):
            raise _bad("wins: a list of objects", entries)
    elif entries:
        raise _bad(f"{kind}: no wins", entries)
    if "riichi" in args:
        riichi = _seats(args["riichi"], "riichi")
        missing = [s for s in standing if s not in riichi]
        if missing:
            raise _bad("riichi: every declarer (the table saw this one's stick)", riichi,
                       missing[0])
    else:
        flagged = [_seat(e.get("winner"), "winner") for e in entries or ()
                   if e.get("riichi") is True]
        riichi = tuple(sorted({*standing, *flagged}))
    if riichi and not rs.riichi.enabled:
        raise _bad("no riichi in this ruleset", [int(s) for s in riichi])
    if kind == "exhaustive":
        tenpai = _seats(args.get("tenpai", []), "tenpai")
        noten = [s for s in riichi if s not in tenpai]
        if noten and rs.penalties.noten_riichi_chombo:
            # S §54-1, M 7-4-1, μ §68: a riichi that is noten at the draw is a chombo.
            raise _bad("tenpai: every riichi seat (a noten riichi at the draw is a chombo,"
                       " S §54-1, M 7-4-1, μ §68: use the chombo command)",
                       [int(s) for s in tenpai], noten[0])
        return ManualResult("exhaustive", riichi, tenpai=tenpai)
    if kind == "abortive":
        abort = args.get("abort")
        if abort not in rs.draws.abortive:
            raise ManualResultError("abortive_not_in_ruleset", None, list(rs.draws.abortive),
                                    abort)
        if abort == "four_riichi" and len(riichi) != 4:
            raise _bad("four_riichi: riichi by all four seats", [int(s) for s in riichi])
        return ManualResult("abortive", riichi, abort=str(abort))
    assert entries is not None
    wins = tuple(_win(rs, e, kind == "tsumo", riichi) for e in entries)
    if len({w.winner for w in wins}) != len(wins):
        raise _bad("each winner once", [int(w.winner) for w in wins])
    if kind == "tsumo" and len(wins) != 1:
        raise _bad("tsumo: one winner", len(wins))
    if len({w.loser for w in wins}) != 1:
        raise _bad("ron: every winner on the same discard (one loser)",
                   [None if w.loser is None else int(w.loser) for w in wins])
    return ManualResult(kind, riichi, wins=wins)


def riichi_sticks(rs: Ruleset, riichi: Sequence[Seat], standing: Sequence[Seat],
                  scores: tuple[int, int, int, int], deposits: int
                  ) -> tuple[tuple[int, int, int, int], int, tuple[Seat, ...]]:
    """The hand's scores and deposits once the declarers the sensors did not see put their
    sticks down (S §39-1, M 4-8-1): ``(scores, deposits, the seats that paid now)``."""
    new = tuple(s for s in riichi if s not in standing)
    out = list(scores)
    for s in new:
        out[s] -= rs.riichi.deposit
    return (out[0], out[1], out[2], out[3]), deposits + len(new), new


__all__ = ["KINDS", "ManualResult", "ManualResultError", "parse", "riichi_sticks"]
