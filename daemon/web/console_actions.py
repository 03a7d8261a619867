"""What the referee console computes before a command is sent: previews, picked hands, seat draws,
and the standings export.

A **preview** runs the would-be command through the real reducer on the table's current state --
the same input the command path will log (``daemon.commands.action``), folded by the same pure
``reduce``, which settles a hand with ``rules.settlement.settle`` -- and reports what would change
(score deltas, the settlement, the events) without logging anything. What the referee sees is
therefore exactly what confirming does, including the engine's refusals.

A **picked hand** (the console's tile picker, for a table that did not see the tiles) is valued by
``rules.settlement.value_win`` with the hand's real context (dealer, winds, honba, deposits, dora),
and becomes a ``manual_result`` with the han/fu, yakuman count or Zung Jung points it is worth; the
picked tiles travel along in ``shown`` so the log keeps what the referee entered.
"""

from __future__ import annotations

import csv
import io
import random
import re
from dataclasses import dataclass
from typing import Any, Final

from daemon import commands as dcmd
from daemon import schema
from daemon.config import COMMANDS
from daemon.errors import DaemonError
from daemon.tracking.records import KIND_INPUT
from daemon.web.console_words import plain
from rules.game_flow import standings
from rules.inputs import Input, InputError, input_from_json
from rules.outcome import HandContext, Meld, MeldKind, Win
from rules.scoring.value import ScoringError
from rules.seats import SEATS, Seat
from rules.settlement import value_win
from rules.table_view import table_view
from rules.tiles import TileAllocator, TileError, parse_mjai

MELD_SIZES: Final[dict[str, int]] = {"chi": 3, "pon": 3, "daiminkan": 4, "ankan": 4, "kakan": 4}
WIN_FLAGS: Final = (
    "riichi",
    "double_riichi",
    "ippatsu",
    "haitei",
    "houtei",
    "rinshan",
    "chankan",
    "tenhou",
    "chiihou",
)
PLAYER_ID = re.compile(r"^[A-Za-z0-9_.-]{1,32}$")
ID_SEPARATOR: Final = " #"
NAME_MAX: Final = 64  # daemon/schemas/command.json $defs/name


class ConsoleError(DaemonError, ValueError):
    """A console request that cannot become a command; the message is shown to the referee."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


# --------------------------------------------------------------------------- the would-be input
def command_input(name: str, args: dict[str, Any], user: str, role: str) -> Input | None:
    """The input a command would log (``None`` for the clock commands), read once from its JSON
    after the same schema and input checks as the command path; raises :class:`ConsoleError`."""
    if name not in COMMANDS:
        raise ConsoleError("unknown_command", f"unknown command {name!r}")
    if not isinstance(args, dict):
        raise ConsoleError("bad_args", "args must be a JSON object")
    problems = schema.errors("command", args, f"args_{name}")
    if problems:
        raise ConsoleError("bad_args", f"{name} args: {problems[0]}")
    cmd = dcmd.Command(name=name, id="preview", user=user, role=role, ts=0.0, args=args,
                       client=None)
    act = dcmd.action(cmd)
    if act.kind != KIND_INPUT:
        return None
    try:
        return input_from_json(act.body)
    except InputError as exc:
        raise ConsoleError("bad_args", str(exc)) from None


def dry_run(engine: Any, table: Any, inp: Input) -> dict[str, Any]:
    """Fold ``inp`` into a copy of the table state (nothing is logged): what would happen."""
    before = table_view(table)
    after_state, events = engine.reduce(table, inp)
    evs = [e.to_json() for e in events]
    rejected = [e for e in evs if e.get("type") == "violation" and e.get("sanction") == "rejected"]
    if rejected:
        raise ConsoleError("not_applicable", plain(rejected[0]))
    after = table_view(after_state)
    scores_before = [s.get("score") for s in before.get("seats", [])]
    scores_after = [s.get("score") for s in after.get("seats", [])]
    out: dict[str, Any] = {
        "events": evs,
        "names_before": [s.get("name") for s in before.get("seats", [])],
        "names_after": [s.get("name") for s in after.get("seats", [])],
        "scores_before": scores_before,
        "scores_after": scores_after,
        "deposits_after": after.get("deposits"),
        "honba_after": after.get("honba"),
    }
    if all(isinstance(x, int) for x in scores_before + scores_after) and scores_before:
        out["deltas"] = [a - b for a, b in zip(scores_after, scores_before, strict=True)]
    for e in evs:
        if e.get("type") == "hand_ended":
            out["settlement"] = e.get("settlement")
            out["next"] = e.get("next")
        if e.get("type") == "game_ended":
            out["standings"] = e.get("standings")
    return out


# --------------------------------------------------------------------------- picked hands
@dataclass(frozen=True, slots=True)
class PickedHand:
    win: Win
    dora: tuple[Any, ...]
    ura: tuple[Any, ...]
    compact: str  # the picked tiles, for the log: "2m 3m ... +5m; pon E E E; dora 1z"


def _names(raw: Any, what: str) -> list[str]:
    if not isinstance(raw, list) or not all(isinstance(x, str) for x in raw):
        raise ConsoleError("bad_tiles", f"{what}: a list of tile names (e.g. \"5m\", \"5mr\")")
    return list(raw)


def pick_hand(table: Any, winner: Seat, loser: Seat | None, tiles: dict[str, Any]
              ) -> PickedHand:
    """The :class:`Win` of a hand picked tile by tile (``tiles``: ``hand`` without the winning
    tile, ``win_tile``, ``melds`` [{kind, tiles}], ``dora``/``ura`` indicators, ``flags``)."""
    if not isinstance(tiles, dict):
        raise ConsoleError("bad_tiles", "tiles must be an object")
    g = table.game
    aka = bool(g.aka) if g is not None else True
    alloc = TileAllocator(aka=aka)

    def take(name: str) -> Any:
        try:
            kind, red = parse_mjai(name)
            return alloc.take(kind, red)
        except (TileError, ValueError) as exc:
            raise ConsoleError("bad_tiles", f"tile {name!r}: {exc}") from None

    # Indicators the table saw are in play: they count against the four copies of their kind.
    h = table.hand
    known_dora = tuple(i.tile for i in h.indicators if i.tile is not None) if h else ()
    ura_known = tuple(h.ura) if h is not None else ()
    for t in (*known_dora, *ura_known):
        alloc.take(t.kind, t.is_red(aka))
    melds: list[Meld] = []
    raw_melds = tiles.get("melds", [])
    if not isinstance(raw_melds, list) or len(raw_melds) > 4:
        raise ConsoleError("bad_tiles", "melds: a list of at most 4 melds")
    for i, m in enumerate(raw_melds):
        if not isinstance(m, dict) or m.get("kind") not in MELD_SIZES:
            raise ConsoleError("bad_tiles", f"meld {i + 1}: kind one of {list(MELD_SIZES)}")
        kind: MeldKind = m["kind"]
        names = _names(m.get("tiles"), f"meld {i + 1}")
        if len(names) != MELD_SIZES[kind]:
            raise ConsoleError(
                "bad_tiles", f"meld {i + 1} ({kind}): {MELD_SIZES[kind]} tiles, got {len(names)}"
            )
        ts = tuple(take(n) for n in names)
        kinds = sorted(t.kind for t in ts)
        same = len(set(kinds)) == 1
        run = (
            kind == "chi"
            and not kinds[0].is_honor
            and kinds[0].suit == kinds[2].suit
            and [k - kinds[0] for k in kinds] == [0, 1, 2]
        )
        if not (run if kind == "chi" else same):
            raise ConsoleError("bad_tiles", f"meld {i + 1} ({kind}) is not a {kind}: {names}")
        melds.append(Meld(kind=kind, tiles=ts, called=None if kind == "ankan" else ts[0]))
    hand_names = _names(tiles.get("hand"), "hand")
    win_name = tiles.get("win_tile")
    if not isinstance(win_name, str):
        raise ConsoleError("bad_tiles", "win_tile: the winning tile's name")
    need = 13 - 3 * len(melds)
    if len(hand_names) != need:
        raise ConsoleError(
            "bad_tiles",
            f"the concealed hand needs {need} tiles besides the winning tile"
            f" ({len(melds)} melds), got {len(hand_names)}",
        )
    hand = [take(n) for n in hand_names]
    win_tile = take(win_name)
    # Indicators known to the table win; the picker's fill in what no sensor saw.
    dora = known_dora or tuple(take(n) for n in _names(tiles.get("dora", []), "dora"))
    ura = ura_known or tuple(take(n) for n in _names(tiles.get("ura", []), "ura"))
    flags_raw = tiles.get("flags", {})
    if not isinstance(flags_raw, dict) or any(
        k not in WIN_FLAGS or not isinstance(v, bool) for k, v in flags_raw.items()
    ):
        raise ConsoleError("bad_tiles", f"flags: true/false for any of {list(WIN_FLAGS)}")
    flags = {k: bool(flags_raw.get(k, False)) for k in WIN_FLAGS}
    if h is not None and h.seats[winner].riichi == "accepted":
        flags["riichi"] = True
    win = Win(
        winner=winner,
        loser=loser,
        hand=tuple(sorted((*hand, win_tile), key=lambda t: t.id)),
        win_tile=win_tile,
        melds=tuple(melds),
        riichi=flags["riichi"],
        double_riichi=flags["double_riichi"],
        ippatsu=flags["ippatsu"],
        haitei=flags["haitei"],
        houtei=flags["houtei"],
        rinshan=flags["rinshan"],
        chankan=flags["chankan"],
        tenhou=flags["tenhou"],
        chiihou=flags["chiihou"],
    )
    def mj(ts: Any) -> str:
        return " ".join(t.mjai(aka) for t in ts)

    parts = [f"{mj(hand)} +{win_tile.mjai(aka)}"]
    parts += [f"{m.kind} {mj(m.tiles)}" for m in melds]
    if dora:
        parts.append(f"dora {mj(dora)}")
    if ura:
        parts.append(f"ura {mj(ura)}")
    on = [k for k in WIN_FLAGS if flags[k]]
    if on:
        parts.append(" ".join(on))
    return PickedHand(win=win, dora=dora, ura=ura, compact="; ".join(parts))


def value_picked(table: Any, args: dict[str, Any], tiles: dict[str, Any]) -> tuple[
        dict[str, Any], dict[str, Any]]:
    """``manual_result`` args for a picked hand (``args``: kind ron/tsumo, ``wins`` with one
    entry naming winner and loser), and the hand's valuation (yaku, han, fu ...). The picked
    tiles are appended to ``reason``, so the log keeps what the referee entered."""
    wins = args.get("wins")
    kind = args.get("kind")
    if kind not in ("ron", "tsumo") or not isinstance(wins, list) or len(wins) != 1 or not (
        isinstance(wins[0], dict) and isinstance(wins[0].get("winner"), int)
    ):
        raise ConsoleError("bad_args", "a picked hand: kind ron/tsumo and one win with a winner")
    entry = dict(wins[0])
    if kind == "ron" and not isinstance(entry.get("loser"), int):
        raise ConsoleError("bad_args", "a ron needs the seat that dealt in (loser)")
    rs, h, g = table.ruleset, table.hand, table.game
    if rs is None or h is None or g is None or h.step == "ended":
        raise ConsoleError("not_applicable", "no hand is being played")
    try:
        winner = Seat.of(entry["winner"])
        loser = Seat.of(entry["loser"]) if kind == "ron" else None
    except ValueError as exc:
        raise ConsoleError("bad_args", str(exc)) from None
    picked = pick_hand(table, winner, loser, tiles)
    base = h.win_base or h
    context = HandContext(
        dealer=base.dealer,
        round_wind=base.round_wind,
        honba=base.honba,
        deposits=base.deposits,
        scores=base.scores,
        aka=g.aka,
        dora_indicators=picked.dora,
        ura_indicators=picked.ura,
        riichi_seats=tuple(s for s in SEATS if base.seats[s].riichi == "accepted"),
    )
    try:
        value = value_win(rs, picked.win, context)
    except (ScoringError, ValueError) as exc:
        raise ConsoleError("false_win", f"the picked hand does not score: {exc}") from None
    for key in ("han", "fu", "yakuman", "points"):
        entry.pop(key, None)
    if value.family == "zung_jung":
        entry["points"] = value.value
    elif value.yakuman:
        entry["yakuman"] = value.yakuman
    else:
        entry["han"], entry["fu"] = value.han, value.fu
    entry["riichi"] = picked.win.riichi or picked.win.double_riichi
    reason = str(args.get("reason", "")).strip()
    note = f"picked hand: {picked.compact}"
    out = {**args, "wins": [entry], "reason": (f"{reason} | {note}" if reason else note)[:500]}
    return out, value.to_json()


# --------------------------------------------------------------------------- seating
def seat_draw(players: list[dict[str, str]], seed: int) -> dict[str, Any]:
    """Seats and the first dealer drawn from ``seed``: ``random.Random(seed)`` shuffles the
    players (listed order) onto seats 0..3, then draws the first dealer 0..3. Anyone can redo the
    draw from the published seed."""
    if len(players) != 4:
        raise ConsoleError("bad_args", "a seat draw needs four players")
    rng = random.Random(seed)
    order = list(range(4))
    rng.shuffle(order)
    first_dealer = rng.randrange(4)
    return {
        "seed": seed,
        "seats": [players[i] for i in order],
        "first_dealer": first_dealer,
    }


def seat_name(name: str, player_id: str) -> str:
    """The name logged for a seat: ``"Name #ID"`` when a tournament id is given (GameStart has
    no id field, so the id travels in the logged name; :func:`split_name` reads it back)."""
    name = name.strip()
    player_id = player_id.strip()
    if not player_id:
        return name
    if not PLAYER_ID.match(player_id):
        raise ConsoleError("bad_args", f"player id {player_id!r}: 1..32 of A-Z a-z 0-9 _ . -")
    logged = f"{name}{ID_SEPARATOR}{player_id}"
    if len(logged) > NAME_MAX:
        raise ConsoleError(
            "bad_args",
            f"{logged!r}: name and player id together may have {NAME_MAX - len(ID_SEPARATOR)}"
            " characters",
        )
    return logged


def split_name(logged: str) -> tuple[str, str]:
    name, sep, pid = logged.rpartition(ID_SEPARATOR)
    if sep and PLAYER_ID.match(pid):
        return name, pid
    return logged, ""


# --------------------------------------------------------------------------- standings
def standings_rows(table: Any, table_id: str) -> dict[str, Any]:
    """The standings of the table's current (or last) game, for a tournament system."""
    rs, p, g = table.ruleset, table.progress, table.game
    if rs is None or p is None or g is None:
        raise ConsoleError("no_game", "no game on this table yet")
    st = standings(rs, p)
    rows = []
    for seat in st.order:
        s = st.seats[seat]
        name, pid = split_name(g.names[seat])
        rows.append(
            {
                "rank": s.rank,
                "seat": int(seat),
                "name": name,
                "player_id": pid,
                "points": s.points,
                "deposit_bonus": s.deposit_bonus,
                "score_pt": round(s.score_pt, 1),
                "uma_pt": round(s.uma_pt, 1),
                "penalty_pt": round(s.penalty_pt, 1),
                "total_pt": round(s.total_pt, 1),
            }
        )
    return {
        "table": table_id,
        "game": g.number,
        "ruleset": rs.name,
        "finished": st.finished,
        "end_reason": p.end_reason,
        "standings": rows,
    }


CSV_FIELDS: Final = (
    "table",
    "game",
    "ruleset",
    "finished",
    "rank",
    "seat",
    "name",
    "player_id",
    "points",
    "deposit_bonus",
    "score_pt",
    "uma_pt",
    "penalty_pt",
    "total_pt",
)


def standings_csv(data: dict[str, Any]) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=CSV_FIELDS, lineterminator="\r\n")
    w.writeheader()
    for row in data["standings"]:
        name = str(row["name"])
        if name[:1] in ("=", "+", "-", "@"):  # a spreadsheet must not run a name as a formula
            name = "'" + name
        w.writerow(
            {
                "table": data["table"],
                "game": data["game"],
                "ruleset": data["ruleset"],
                "finished": "true" if data["finished"] else "false",
                **{**row, "name": name},
            }
        )
    return buf.getvalue()


__all__ = [
    "ConsoleError",
    "command_input",
    "dry_run",
    "pick_hand",
    "seat_draw",
    "seat_name",
    "split_name",
    "standings_csv",
    "standings_rows",
    "value_picked",
]
