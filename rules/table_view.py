"""The table's one view model: what every outsider is shown, built once per applied input.

MQTT ``state``, the broadcast overlay (``daemon/web/view.py`` presents it), the table's honba and
score displays and the referee console all read this one value (``table_view(state)``), so
they cannot disagree. It is plain JSON with tiles as ids beside their mjai names.

Concealed facts (each seat's concealed tiles, its drawn tile, furiten, its waits) live only under
the ``private`` key, so the public form is the view without it: the disclosure projection for
public topics removes ``private`` and nothing else. Everything outside ``private`` is what the
table shows anyone watching (rivers, melds, indicators, sticks, scores; after a hand the shown
hands of the winners and of the tenpai seats, S §46, M 6-1-1).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rules.conditions import Condition, conditions
from rules.events import encode, mjai_of, outcome_to_json, shown_ura
from rules.game_flow import standings
from rules.outcome import Meld
from rules.seats import SEATS, Seat, Wind
from rules.table_state import HandState, SeatState, TableState
from rules.tiles import Tile
from rules.waits import seat_waits


def table_view(t: TableState) -> dict[str, Any]:
    rs, g, h = t.ruleset, t.game, t.hand
    aka = True if g is None else g.aka
    out: dict[str, Any] = {
        "seq": t.seq,
        "game": None if g is None else g.number,
        "hand": None if h is None else h.number,
        "ruleset": None if rs is None else rs.name,
        "family": None if rs is None else rs.meta.family,
        "aka": aka,
        "game_over": t.game_over,
        "status": _status(t),
    }
    dealer, scores = _dealer(t), _scores(t)
    out["seats"] = [_seat(t, s, dealer, scores, aka) for s in SEATS]
    for s, c in zip(SEATS, _conditions(t), strict=True):
        out["seats"][s]["conditions"] = None if c is None else c.to_json()
    out["dealer"] = None if dealer is None else int(dealer)
    out["round"] = None
    sticks = _round(t)
    if sticks is not None and dealer is not None:
        wind, number, honba, deposits = sticks
        out.update(round_wind=wind.mjai, hand_in_round=number, honba=honba, deposits=deposits)
        out["round"] = {"wind": wind.mjai, "wind_index": int(wind), "number": number + 1,
                        "honba": honba, "deposits": deposits, "dealer": int(dealer)}
    out["step"] = None if h is None else h.step
    if h is not None:
        out.update(
            turn=int(h.turn),
            acting=int(h.turn) if h.step in ("draw", "discard", "rinshan") else None,
            rolls=[[int(seat), list(dice)] for seat, dice in h.rolls],
            dora_indicators=[encode(i.tile) for i in h.indicators],
            dora_indicators_mjai=[mjai_of(i.tile, aka) for i in h.indicators],
            dora_positions=[encode(i.position) for i in h.indicators],
            ura_indicators=encode(h.ura),
            ura_indicators_mjai=mjai_of(h.ura, aka),
            live_left=h.live_left() if h.dealt else None,
            kans=h.kans,
        )
        out["break"] = None if h.brk is None else h.brk.to_json()
    out["open_violations"] = [v.to_json() for v in t.open_violations]
    out["last_result"] = None if t.last_result is None else dict(t.last_result)
    if h is not None and h.outcome is not None:
        out["outcome"] = outcome_to_json(h.outcome)
    out["result"] = _result(t, aka)
    out["standings"] = _standings(t) if t.game_over else None
    out["private"] = {"seats": [_private(h, s, aka) for s in SEATS]}
    return out


def scoreboard(t: TableState) -> dict[str, Any]:
    """What the score and honba displays show, built without the whole view (the daemon needs
    it after every input, the view only when a retained ``state`` is due): the same values as
    ``table_view(t)``'s seats' names and scores, ``dealer``, ``round_wind``, ``hand_in_round``,
    ``honba`` and ``deposits`` (``None`` where the view has no such key), from the same helpers."""
    g, dealer, scores = t.game, _dealer(t), _scores(t)
    sticks = _round(t) if dealer is not None else None
    return {
        "names": [("" if g is None else g.names[s]) for s in SEATS],
        "scores": [(None if scores is None else scores[s]) for s in SEATS],
        "dealer": None if dealer is None else int(dealer),
        "round_wind": None if sticks is None else sticks[0].mjai,
        # the hand within the round, from 0 (E1 and E4 differ only here on a board)
        "hand_in_round": None if sticks is None else sticks[1],
        "honba": None if sticks is None else sticks[2],
        "deposits": None if sticks is None else sticks[3],
    }


def _dealer(t: TableState) -> Seat | None:
    h, p = t.hand, t.progress
    return h.dealer if h is not None else (p.dealer if p is not None else None)


def _scores(t: TableState) -> Sequence[int] | None:
    """The seats' scores; once the hand has ended the table shows what the next hand starts
    with (the winner took the sticks; a renchan or draw added a honba)."""
    h, p = t.hand, t.progress
    ended = h is not None and h.step == "ended"
    return p.scores if (p is not None and (h is None or ended)) else (
        h.scores if h is not None else None
    )


def _round(t: TableState) -> tuple[Wind, int, int, int] | None:
    """``(round wind, hand in the round, honba, deposits)`` once a game is under way; after a
    hand the next hand's sticks, as the scores."""
    h, p = t.hand, t.progress
    if p is None:
        return None
    ended = h is not None and h.step == "ended"
    wind = h.round_wind if h is not None else p.round_wind
    number = h.hand_in_round if h is not None else p.hand_in_round
    honba = h.honba if (h is not None and not ended) else p.honba
    deposits = h.deposits if (h is not None and not ended) else p.deposits
    return wind, number, honba, deposits


def public_view(view: Mapping[str, Any]) -> dict[str, Any]:
    """The view as anyone may see it: without its ``private`` part."""
    return {k: v for k, v in view.items() if k != "private"}


def _conditions(t: TableState) -> tuple[Condition | None, ...]:
    """Rank-up conditions while a hand is played (from its scores, honba and sticks)."""
    rs, p, h = t.ruleset, t.progress, t.hand
    if rs is None or p is None or h is None or h.step in ("ended", "setup") or t.game_over:
        return (None, None, None, None)
    return conditions(rs, h.scores, h.dealer, p.first_dealer, h.honba, h.deposits)


def _status(t: TableState) -> str:
    h = t.hand
    if t.game_over:
        return "game_over"
    if t.game is None or h is None:
        return "waiting"
    if h.step == "ended":
        return "hand_over"
    return "setup" if h.step == "setup" else "playing"


def _seat(t: TableState, s: Seat, dealer: Seat | None, scores: Sequence[int] | None,
          aka: bool) -> dict[str, Any]:
    h, g = t.hand, t.game
    st = h.seats[s] if h is not None else None
    wind = None if dealer is None else s.wind(dealer)
    return {
        "seat": int(s),
        "name": "" if g is None else g.names[s],
        "wind": None if wind is None else wind.mjai,
        "wind_index": None if wind is None else int(wind),
        "dealer": dealer == s,
        "score": None if scores is None else scores[s],
        "riichi": None if st is None else st.riichi,
        "dead": None if st is None else st.dead,
        "count": None if st is None else st.count,
        "melds": [] if st is None else encode(st.melds, aka),
        "river": [] if st is None else [
            {**r.to_json(), "tile_mjai": mjai_of(r.tile, aka)} for r in st.river
        ],
    }


def _private(h: HandState | None, s: Seat, aka: bool) -> dict[str, Any]:
    st: SeatState | None = None if h is None else h.seats[s]
    concealed = None if st is None or st.concealed is None else tuple(
        sorted(st.concealed, key=lambda x: x.id)
    )
    return {
        "seat": int(s),
        "concealed": encode(concealed),
        "concealed_mjai": mjai_of(concealed, aka),
        "drawn": None if st is None else encode(st.drawn),
        "drawn_mjai": None if st is None else mjai_of(st.drawn, aka),
        "furiten": None if st is None else (st.furiten_temp or st.furiten_riichi),
        "waits": None if h is None or h.step == "ended" else seat_waits(h, s, aka),
    }


def _meld_card(m: Mapping[str, Any], aka: bool) -> dict[str, Any]:
    tiles = [Tile(x) for x in m["tiles"]]
    called = m.get("called")
    return {
        "kind": m["kind"],
        "tiles": [x.mjai(aka) for x in tiles],
        "called_index": None if called is None else m["tiles"].index(called),
        "from": m.get("from_seat"),
    }


def _shown(ids: Sequence[int], win_tile: int | None, aka: bool) -> list[str]:
    """A shown hand, sorted, with one copy of the winning tile taken out (it is shown apart)."""
    rest = list(ids)
    if win_tile is not None and win_tile in rest:
        rest.remove(win_tile)
    return [Tile(x).mjai(aka) for x in sorted(rest)]


def _result(t: TableState, aka: bool) -> dict[str, Any] | None:
    """The result card of the last hand: winning hands with the winning tile apart, yaku and
    value, each win's payment per seat; for a draw the tenpai hands (shown at the draw, S §60-2)
    and the draw payments; dora and ura indicators (ura only once revealed: riichi wins)."""
    last = t.last_result
    if not last:
        return None
    outcome: Mapping[str, Any] = last.get("outcome") or {}
    settlement: Mapping[str, Any] = last.get("settlement") or {}
    context: Mapping[str, Any] = outcome.get("context") or {}
    aka = bool(context.get("aka", aka))
    shown = {w["winner"]: w for w in outcome.get("wins", [])}
    wins = []
    for w in settlement.get("wins", []):
        hand = shown.get(w.get("winner"), {})
        win_tile = hand.get("win_tile")
        wins.append({
            "winner": w.get("winner"),
            "loser": w.get("loser"),
            "tsumo": w.get("loser") is None,
            "nagashi": bool(w.get("nagashi", False)),
            "hand": _shown(hand.get("hand", []), win_tile, aka),
            "win_tile": None if win_tile is None else Tile(win_tile).mjai(aka),
            "melds": [_meld_card(m, aka) for m in hand.get("melds", [])],
            "han": w.get("han"),
            "fu": w.get("fu"),
            "yakuman": w.get("yakuman", 0),
            "limit": w.get("limit"),
            "yaku": w.get("yaku", []),
            "patterns": w.get("patterns", []),
            "value": w.get("value"),
            "points": w.get("points"),
            "honba_points": w.get("honba_points", 0),
            "deposit_points": w.get("deposit_points", 0),
            "payments": w.get("payments"),
        })
    tenpai = [int(s) for s in settlement.get("tenpai", outcome.get("tenpai", []))]
    return {
        "kind": settlement.get("kind") or outcome.get("kind"),
        "abort_kind": outcome.get("abort_kind"),
        "wins": wins,
        "deltas": settlement.get("deltas"),
        "draw_payments": settlement.get("draw_payments"),
        "tenpai": tenpai,
        "tenpai_hands": _tenpai_hands(t.hand, tenpai, aka) if not wins else [],
        "dora_indicators": [Tile(x).mjai(aka) for x in context.get("dora_indicators", [])],
        "ura_indicators": [Tile(x).mjai(aka) for x in shown_ura(outcome)],
    }


def _tenpai_hands(h: HandState | None, tenpai: Sequence[int], aka: bool) -> list[dict[str, Any]]:
    """The hands the tenpai seats laid open at the draw (those the sensors know)."""
    if h is None:
        return []
    out = []
    for s in tenpai:
        st = h.seats[Seat(s)]
        if st.concealed is None:
            continue
        out.append({
            "seat": s,
            "hand": [x.mjai(aka) for x in sorted(st.concealed, key=lambda x: x.id)],
            "melds": [_meld_card(_meld_json(m), aka) for m in st.melds],
        })
    return out


def _meld_json(m: Meld) -> dict[str, Any]:
    return m.to_json()


def _standings(t: TableState) -> list[dict[str, Any]] | None:
    rs, p, game = t.ruleset, t.progress, t.game
    if rs is None or p is None or game is None:
        return None
    st = standings(rs, p)
    return [
        {
            "seat": int(seat),
            "name": game.names[Seat(seat)],
            "rank": st.seats[seat].rank,
            "points": st.seats[seat].points,
            "pt": round(st.seats[seat].total_pt, 1),
        }
        for seat in st.order
    ]
