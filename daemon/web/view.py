"""The overlay view: what a broadcast overlay (and a score display) shows, built from the table
state. One function builds it for every consumer, so the overlay, the physical displays and the
retained MQTT state can never disagree (``docs/overlay.md`` documents every key).

Player hands are left out unless ``hands=True``, which only the delayed spectator feed asks for.
"""

from __future__ import annotations

from typing import Any

from rules.game_flow import standings
from rules.seats import SEATS, Seat
from rules.table_state import TableState
from rules.tiles import Tile

SCHEMA = "jantaku.overlay.v1"


def _tile(tile_id: int | None, aka: bool) -> str:
    return "?" if tile_id is None else Tile(tile_id).mjai(aka)


def _t(tile: Tile | None, aka: bool) -> str:
    return "?" if tile is None else tile.mjai(aka)


def _clock(clocks: dict[str, Any] | None, seat: int) -> dict[str, Any] | None:
    if not clocks or clocks.get("phase") in (None, "none") or not clocks.get("seats"):
        return None
    s = clocks["seats"][seat]
    turn = s.get("turn_remaining_ns")
    hand = s.get("hand_remaining_ns")
    return {
        "running": bool(s.get("running")),
        "turn_remaining": None if turn is None else round(turn / 1e9, 1),
        "hand_remaining": None if hand is None else round(hand / 1e9, 1),
        "warning": s.get("warning") not in (None, "none", "ok"),
        "penalty_points": s.get("points", 0),
        "mode": clocks.get("mode"),
    }


def display_values(state: TableState) -> dict[str, Any]:
    """What the table's honba and per-seat score displays show (the same numbers as the view)."""
    view = overlay_view(state, table="")
    return {
        "honba": view["round"]["honba"] if view["round"] else 0,
        "deposits": view["round"]["deposits"] if view["round"] else 0,
        "scores": [s["score"] for s in view["seats"]],
    }


def overlay_view(
    state: TableState,
    *,
    table: str,
    clocks: dict[str, Any] | None = None,
    hands: bool = False,
    seq: int | None = None,
) -> dict[str, Any]:
    rs, game, p, h = state.ruleset, state.game, state.progress, state.hand
    aka = bool(game.aka) if game is not None else False
    view: dict[str, Any] = {
        "schema": SCHEMA,
        "table": table,
        "seq": seq,
        "ruleset": None if rs is None else rs.name,
        "family": None if rs is None else rs.meta.family,
        "game": None if game is None else game.number,
        "hand": None if h is None else h.number,
    }
    if rs is None or p is None or game is None:
        view.update(status="waiting", round=None, seats=[], dora_indicators=[],
                    wall_remaining=None, turn=None, result=None, standings=None)
        return view
    dealer = h.dealer if h is not None else p.dealer
    in_hand = h is not None and h.step != "ended"
    scores = h.scores if (h is not None and in_hand) else p.scores
    round_wind = h.round_wind if h is not None else p.round_wind
    hand_in_round = h.hand_in_round if h is not None else p.hand_in_round
    honba = h.honba if (h is not None and in_hand) else p.honba
    deposits = h.deposits if (h is not None and in_hand) else p.deposits
    if state.game_over:
        status = "game_over"
    elif h is None:
        status = "waiting"
    elif h.step == "ended":
        status = "hand_over"
    elif h.step == "setup":
        status = "setup"
    else:
        status = "playing"
    view["status"] = status
    view["round"] = {
        "wind": round_wind.mjai,
        "wind_index": int(round_wind),
        "number": hand_in_round + 1,
        "honba": honba,
        "deposits": deposits,
        "dealer": int(dealer),
    }
    seats = []
    for s in SEATS:
        st = h.seats[s] if h is not None else None
        wind = s.wind(dealer)
        entry: dict[str, Any] = {
            "seat": int(s),
            "name": game.names[s],
            "wind": wind.mjai,
            "wind_index": int(wind),
            "dealer": s == dealer,
            "score": scores[s],
            "riichi": st is not None and st.riichi != "none",
            "dead": None if st is None else st.dead,
            "river": [],
            "melds": [],
            "hand": None,
            "hand_count": 0 if st is None else st.count,
            "clock": _clock(clocks, int(s)),
        }
        if st is not None:
            entry["river"] = [
                {"tile": _t(r.tile, aka), "riichi": r.riichi, "called": r.called,
                 "tsumogiri": bool(r.tsumogiri)}
                for r in st.river
            ]
            melds = []
            for m in st.melds:
                tiles = list(m.tiles)
                called_index = None
                if m.called is not None and m.called in tiles:
                    called_index = tiles.index(m.called)
                melds.append({
                    "kind": m.kind,
                    "tiles": [_t(x, aka) for x in tiles],
                    "called_index": called_index,
                    "from": None if m.from_seat is None else int(m.from_seat),
                })
            entry["melds"] = melds
            if hands and st.concealed is not None:
                entry["hand"] = [_t(x, aka) for x in sorted(st.concealed, key=lambda t: t.id)]
        seats.append(entry)
    view["seats"] = seats
    view["turn"] = int(h.turn) if (h is not None and h.step in ("draw", "discard", "rinshan")) \
        else None
    view["dora_indicators"] = (
        [] if h is None else [_t(i.tile, aka) for i in h.indicators]
    )
    view["wall_remaining"] = h.live_left() if (h is not None and h.dealt) else None
    view["result"] = _result(state, aka)
    view["standings"] = _standings(state) if state.game_over else None
    view["open_violations"] = [v.to_json() for v in state.open_violations]
    return view


def _result(state: TableState, aka: bool) -> dict[str, Any] | None:
    last = state.last_result
    if not last:
        return None
    outcome = last.get("outcome") or {}
    settlement = last.get("settlement") or {}
    wins = []
    for w in settlement.get("wins", []):
        wins.append({
            "winner": w.get("winner"),
            "loser": w.get("loser"),
            "han": w.get("han"),
            "fu": w.get("fu"),
            "yakuman": w.get("yakuman", 0),
            "limit": w.get("limit"),
            "yaku": w.get("yaku", []),
            "patterns": w.get("patterns", []),
            "value": w.get("value"),
            "points": w.get("points"),
        })
    return {
        "kind": settlement.get("kind") or outcome.get("kind"),
        "wins": wins,
        "deltas": settlement.get("deltas"),
        "tenpai": settlement.get("tenpai", []),
        "abort_kind": outcome.get("abort_kind"),
    }


def _standings(state: TableState) -> list[dict[str, Any]] | None:
    rs, p, game = state.ruleset, state.progress, state.game
    if rs is None or p is None or game is None:
        return None
    st = standings(rs, p)
    rows = []
    for seat in st.order:
        row = st.seats[seat]
        rows.append({
            "seat": int(seat),
            "name": game.names[Seat(seat)],
            "rank": row.rank,
            "points": row.points,
            "pt": round(row.total_pt, 1),
        })
    return rows
