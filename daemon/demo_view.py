"""The terminal view of ``jantaku demo``: the table as the overlay sees it, drawn with ``rich``.

Built from the overlay view model (``daemon/web/view.py``, the same dict the browser overlay
gets) plus the last events, so the terminal and the overlay can never disagree: round, honba,
riichi sticks, dora indicators, live tiles left, and per seat its wind, name, score, riichi, clock
and river.

Everything is written for a person: honours as their faces (東 南 西 北 白 發 中: mjai's ``W`` and
``P`` read as West or White to a player), dice, breaks, deltas and scores as words and signed
numbers, never as Python lists or dicts. When stdout is no terminal (``make demo | tee log``),
:func:`hand_line` gives one line per hand instead of the live view. The hands counted are the
``hand_ended`` events seen (:meth:`DemoView.count`), and the footer, the progress lines and the
closing summary all read that one counter.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence
from typing import Any

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from rules.tiles import Tile

WINDS = {"E": "東", "S": "南", "W": "西", "N": "北"}
#: mjai honour letters → the tile's face
HONOURS = {**WINDS, "P": "白", "F": "發", "C": "中"}


def tile_label(mjai: str) -> str:
    """A tile as a player reads it: honours as their faces, suits as ``5m``, red fives ``5m赤``."""
    if mjai in HONOURS:
        return HONOURS[mjai]
    if len(mjai) == 3 and mjai.endswith("r"):
        return f"{mjai[:2]}赤"
    return mjai


def tiles_label(tiles: Iterable[str], sep: str = " ") -> str:
    return sep.join(tile_label(t) for t in tiles)


def signed(deltas: Sequence[int] | None) -> str:
    return "-" if not deltas else " ".join(f"{d:+d}" if d else "0" for d in deltas)


def scores_label(scores: Sequence[int] | None) -> str:
    return "-" if not scores else " ".join(str(s) for s in scores)


class DemoView:
    def __init__(self, table_id: str, overlay_url: str, broker: str, last: int = 8) -> None:
        self.table_id = table_id
        self.overlay_url = overlay_url
        self.broker = broker
        self.view: dict[str, Any] = {}
        self.events: deque[str] = deque(maxlen=last)
        self.hands = 0  # hand_ended events seen: the footer and the summary both say this
        self.pending: list[dict[str, Any]] = []  # events not yet drawn

    def count(self, events: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        """Count the hands these events end (when they arrive); returns those events' data."""
        ended = [env.get("data", env) for env in events if env.get("type") == "hand_ended"]
        self.hands += len(ended)
        return ended

    def update(self, view: dict[str, Any], events: Sequence[dict[str, Any]]) -> None:
        self.view = view
        for env in events:
            line = describe(env.get("data", env))
            if line:
                self.events.append(line)

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
        dora = tiles_label(v.get("dora_indicators") or []) or "-"
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
            seats.add_row(*_seat_row(s), style="bold green" if s.get("seat") == turn else "")
        last = Text("\n".join(self.events) or "…", style="dim")
        foot = Text(f"overlay {self.overlay_url}   broker {self.broker}   hands played "
                    f"{self.hands}   Ctrl-C stops", style="cyan")
        return Panel(Group(head, seats, Panel(last, title="last events"), foot), title=title)


def _seat_row(s: dict[str, Any]) -> tuple[str, ...]:
    clock = s.get("clock") or {}
    remaining = clock.get("turn_remaining")
    # * before a riichi discard, ' after a called one (the overlay turns them sideways)
    river = " ".join(("*" if r.get("riichi") else "") + tile_label(r.get("tile", "?"))
                     + ("'" if r.get("called") else "") for r in s.get("river", []))
    melds = " ".join("[" + tiles_label(m.get("tiles", []), "") + "]" for m in s.get("melds", []))
    wind = WINDS.get(s.get("wind", ""), "?") + ("*" if s.get("dealer") else "")
    return (str(s.get("seat")), wind, str(s.get("name", "")), str(s.get("score")),
            "riichi" if s.get("riichi") else "",
            "" if remaining is None else f"{remaining:.1f}s",
            river + ("  " + melds if melds else ""))


def _wins(settlement: dict[str, Any]) -> str:
    return ", ".join(
        f"seat {w.get('winner')} {w.get('han')} han {w.get('fu')} fu"
        if w.get("han") is not None else f"seat {w.get('winner')} {w.get('value', '')}".rstrip()
        for w in settlement.get("wins", []))


def describe(ev: dict[str, Any]) -> str | None:
    """One line for an event worth showing (None: too small to show, e.g. a draw)."""
    t = ev.get("type")
    seat = ev.get("seat")
    if t == "hand_started":
        return f"hand {ev.get('hand')} starts"
    if t == "dice_rolled":
        dice = ev.get("dice") or []
        return f"seat {seat} rolls {' + '.join(str(d) for d in dice)} = {sum(dice)}"
    if t == "break_checked":
        brk = ev.get("break") or {}  # the event's key (daemon/schemas: `break`, never `brk`)
        # rules.wall.Break: `count` stacks stay on the right of `seat`'s wall
        return (f"wall opened in seat {brk.get('seat')}'s wall, {brk.get('count')} stacks left on "
                f"its right ({'ok' if ev.get('ok') else 'WRONG'})")
    if t == "dora_revealed":
        tile = ev.get("tile")
        return f"dora indicator {tile_label(Tile(tile).mjai()) if isinstance(tile, int) else '?'}"
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
        wins = _wins(settlement)
        return (f"hand over: {outcome.get('kind')}{' ' + wins if wins else ''}; "
                f"{signed(settlement.get('deltas'))}")
    if t == "game_ended":
        return "game over"
    if t == "violation":
        return f"VIOLATION {ev.get('code')} (seat {seat})"
    return None


def hand_line(number: int, ev: dict[str, Any]) -> str:
    """The progress line of one ended hand, for a stdout that is no terminal."""
    outcome = ev.get("outcome") or {}
    settlement = ev.get("settlement") or {}
    wins = _wins(settlement)
    return (f"jantaku demo: hand {number}: {outcome.get('kind') or 'ended'}"
            f"{', ' + wins if wins else ''}; "
            f"deltas {signed(settlement.get('deltas'))}; scores {scores_label(ev.get('scores'))}")
