"""The terminal view of ``jantaku demo``: the table as the overlay sees it, drawn with ``rich``.

Built from the overlay view model (``daemon/web/view.py``, the same dict the browser overlay
gets) plus the last events, so the terminal and the overlay can never disagree: round, honba,
riichi sticks, dora indicators, live tiles left, and per seat its wind, name, score, riichi, clock
and river.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import Any

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from rules.tiles import Tile

WINDS = {"E": "東", "S": "南", "W": "西", "N": "北"}


class DemoView:
    def __init__(self, table_id: str, overlay_url: str, broker: str, last: int = 8) -> None:
        self.table_id = table_id
        self.overlay_url = overlay_url
        self.broker = broker
        self.view: dict[str, Any] = {}
        self.events: deque[str] = deque(maxlen=last)
        self.hands = 0
        self.games = 0
        self.pending: list[dict[str, Any]] = []  # events not yet drawn

    def update(self, view: dict[str, Any], events: Sequence[dict[str, Any]]) -> None:
        self.view = view
        for env in events:
            line = describe(env.get("data", env))
            if line:
                self.events.append(line)
            if env.get("type") == "hand_ended":
                self.hands += 1

    def __rich__(self) -> RenderableType:
        v = self.view
        rnd = v.get("round") or {}
        title = (f"jantaku demo — table {self.table_id} — {v.get('ruleset') or '…'}"
                 f" — game {v.get('game') or '-'} hand {v.get('hand') or '-'}")
        head = Text()
        if rnd:
            wind = str(rnd.get("wind", "?"))
            head.append(f"{WINDS.get(wind, wind)} {rnd.get('number')}局  ", style="bold")
            head.append(f"honba {rnd.get('honba')}  riichi sticks {rnd.get('deposits')}  ")
        dora = " ".join(v.get("dora_indicators") or []) or "-"
        head.append(f"dora ind. {dora}  ", style="yellow")
        wall = v.get("wall_remaining")
        head.append(f"wall {'-' if wall is None else wall}  status {v.get('status', 'starting')}")
        seats = Table(expand=True, show_edge=False, pad_edge=False)
        for col, kw in (("seat", {"width": 4}), ("", {"width": 3}), ("name", {"width": 8}),
                        ("score", {"justify": "right", "width": 8}), ("riichi", {"width": 6}),
                        ("clock", {"width": 10}), ("river", {"ratio": 1})):
            seats.add_column(col, **kw)
        turn = v.get("turn")
        for s in v.get("seats") or []:
            style = "bold green" if s.get("seat") == turn else ""
            clock = s.get("clock") or {}
            remaining = clock.get("turn_remaining")
            river = " ".join(
                ("*" if r.get("riichi") else "") + r.get("tile", "?")
                + ("'" if r.get("called") else "") for r in s.get("river", [])
            )
            melds = " ".join("[" + "".join(m.get("tiles", [])) + "]" for m in s.get("melds", []))
            seats.add_row(
                str(s.get("seat")), WINDS.get(s.get("wind", ""), "?")
                + ("*" if s.get("dealer") else ""), str(s.get("name", "")),
                str(s.get("score")), "riichi" if s.get("riichi") else "",
                "" if remaining is None else f"{remaining:.1f}s",
                (river + ("  " + melds if melds else "")), style=style)
        last = Text("\n".join(self.events) or "…", style="dim")
        foot = Text(f"overlay {self.overlay_url}   broker {self.broker}   hands played "
                    f"{self.hands}   Ctrl-C stops", style="cyan")
        return Panel(Group(head, seats, Panel(last, title="last events"), foot), title=title)


def describe(ev: dict[str, Any]) -> str | None:
    """One line for an event worth showing (None: too small to show, e.g. a draw)."""
    t = ev.get("type")
    seat = ev.get("seat")
    if t == "hand_started":
        return f"hand {ev.get('hand')} starts"
    if t == "dice_rolled":
        return f"seat {seat} rolls {ev.get('dice')}"
    if t == "break_checked":
        return f"wall opened: {ev.get('brk')} ({'ok' if ev.get('ok') else 'WRONG'})"
    if t == "dora_revealed":
        tile = ev.get("tile")
        return f"dora indicator {'?' if not isinstance(tile, int) else Tile(tile).mjai()}"
    if t == "call":
        meld = ev.get("meld") or {}
        return f"seat {seat} calls {meld.get('kind')}"
    if t == "kan":
        return f"seat {seat} kan"
    if t == "riichi_declared":
        return f"seat {seat} riichi"
    if t == "win_declared":
        loser = ev.get("loser")
        return f"seat {seat} {ev.get('kind', 'wins')}" + (
            "" if loser is None else f" off seat {loser}")
    if t == "hand_ended":
        outcome = ev.get("outcome") or {}
        settlement = ev.get("settlement") or {}
        wins = ", ".join(
            f"seat {w.get('winner')} {w.get('han')}han {w.get('fu')}fu"
            if w.get("han") is not None else f"seat {w.get('winner')} {w.get('value', '')}"
            for w in settlement.get("wins", []))
        return (f"hand over: {outcome.get('kind')}{' ' + wins if wins else ''}; deltas "
                f"{settlement.get('deltas')}")
    if t == "game_ended":
        return "game over"
    if t == "violation":
        return f"VIOLATION {ev.get('code')} (seat {seat})"
    return None
