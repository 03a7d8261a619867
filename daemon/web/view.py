"""The overlay view: the table's one view model (``rules/table_view.py``, ``table_view(state)``)
as the broadcast overlay renders it, with the clocks and the table id (``docs/overlay.md``
documents every key).

It reads the view model only, never the rules state, so the overlay, MQTT ``state``, the table's
displays and the console show the same numbers. Player hands and waits come from the view's
``private`` part only when ``hands=True``, which only the delayed spectator feed asks for.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rules.tiles import Tile

SCHEMA = "jantaku.overlay.v1"

#: the clock modes in which a ruleset times play (rules/timers/ Mode): "monitor" keeps
#: statistics for the referee but puts nothing on air (docs/timers.md: clocks are WMC's)
TIMED_MODES = frozenset({"penalty"})


def _name(tile_id: int | None, aka: bool) -> str:
    return "?" if tile_id is None else Tile(tile_id).mjai(aka)


def _clock(clocks: Mapping[str, Any] | None, seat: int) -> dict[str, Any] | None:
    if not clocks or clocks.get("phase") in (None, "none") or not clocks.get("seats"):
        return None
    if clocks.get("mode") not in TIMED_MODES:
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


def _meld(m: Mapping[str, Any], aka: bool) -> dict[str, Any]:
    tiles = list(m["tiles"])
    called = m.get("called")
    return {
        "kind": m["kind"],
        "tiles": [_name(x, aka) for x in tiles],
        "called_index": tiles.index(called) if called is not None and called in tiles else None,
        "from": m.get("from_seat"),
    }


def _seat(view: Mapping[str, Any], s: Mapping[str, Any], clocks: Mapping[str, Any] | None,
          hands: bool) -> dict[str, Any]:
    aka = bool(view.get("aka", True))
    private = view.get("private", {}).get("seats", [{}] * 4)[s["seat"]]
    entry: dict[str, Any] = {
        "seat": s["seat"],
        "name": s["name"],
        "wind": s["wind"],
        "wind_index": s["wind_index"],
        "dealer": s["dealer"],
        "score": s["score"],
        "riichi": s["riichi"] not in (None, "none"),
        "dead": s["dead"],
        "river": [
            {"tile": _name(r["tile"], aka), "riichi": r["riichi"], "called": r["called"],
             "tsumogiri": bool(r["tsumogiri"])}
            for r in s["river"]
        ],
        "melds": [_meld(m, aka) for m in s["melds"]],
        "hand": None,
        "waits": None,
        "hand_count": s["count"] or 0,
        "conditions": s.get("conditions"),
        "clock": _clock(clocks, s["seat"]),
    }
    if hands and private.get("concealed_mjai") is not None:
        entry["hand"] = list(private["concealed_mjai"])
        entry["waits"] = private.get("waits")
    return entry


def overlay_view(
    view: Mapping[str, Any],
    *,
    table: str,
    clocks: Mapping[str, Any] | None = None,
    hands: bool = False,
    seq: int | None = None,
) -> dict[str, Any]:
    """``view``: the table's view model (``table_view(state)``); ``seq``: the event sequence
    it reflects; ``clocks``: ``daemon.clocks.view_json``."""
    out: dict[str, Any] = {
        "schema": SCHEMA,
        "table": table,
        "seq": seq,
        "ruleset": view.get("ruleset"),
        "family": view.get("family"),
        "game": view.get("game"),
        "hand": view.get("hand"),
    }
    if view.get("round") is None:
        out.update(status="waiting", round=None, seats=[], dora_indicators=[],
                   wall_remaining=None, turn=None, result=None, standings=None,
                   open_violations=[])
        return out
    out["status"] = view["status"]
    out["round"] = dict(view["round"])
    out["seats"] = [_seat(view, s, clocks, hands) for s in view["seats"]]
    out["turn"] = view.get("acting")
    aka = bool(view.get("aka", True))
    out["dora_indicators"] = [_name(x, aka) for x in view.get("dora_indicators", [])]
    out["wall_remaining"] = view.get("live_left")
    out["result"] = view.get("result")
    out["standings"] = view.get("standings")
    out["open_violations"] = list(view.get("open_violations", []))
    return out


def hold_standings(previous: Mapping[str, Any] | None, view: dict[str, Any]) -> dict[str, Any]:
    """Final standings stay on air from the game's end until the next game's first hand is
    dealt (a broadcast shows the final table while the next game is set up): ``view`` with the
    previous game's standings carried over while the new game is still waiting or in setup."""
    if previous is None or view.get("standings") or not previous.get("standings"):
        return view
    if view.get("status") not in ("waiting", "setup"):
        return view
    return {**view, "standings": previous["standings"],
            "standings_game": previous.get("standings_game", previous.get("game"))}
