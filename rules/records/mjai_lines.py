"""The commonest mjai lines by their exact text: a draw or a discard, as ``json.dumps`` writes it
(``", "`` and ``": "``: jantaku's export) or compactly (``","`` and ``":"``: the mjai servers',
riichienv's). Nine lines in ten of a record are one of them, and there are only a few thousand
such texts: a line found here is what ``json.loads`` would make of it, already read (the actor's
seat, the tile's name), so the importer takes it without the JSON scanner, the event's dict and
the checks that the table's texts pass by construction (known keys, a seat 0-3, a tile name, a
boolean ``tsumogiri``). Any other text, spacing or key order goes the general way."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from rules.records.builder import TileName
from rules.records.mjai_words import KNOWN_KEYS
from rules.records.model import RecordError
from rules.seats import SEATS, Seat
from rules.tiles import Kind, parse_mjai


class Move(NamedTuple):
    """A ``tsumo`` or ``dahai`` line, read (a tuple: no JSON value is one, so the importer
    tells a read line from a parsed one by its class)."""

    kind: str  # "tsumo" or "dahai"
    seat: Seat
    name: TileName | None  # None: an unseen draw ("?")
    pai: str  # the tile's text, as written
    tsumogiri: bool | None  # None: the key is absent
    text: str  # the line, for the general way (a move outside a hand, after its end)


def _line(sep: tuple[str, str], kind: str, seat: Seat, pai: str, giri: bool | None = None
          ) -> str:
    comma, colon = sep
    extra = "" if giri is None else f'{comma}"tsumogiri"{colon}{"true" if giri else "false"}'
    return (f'{{"type"{colon}"{kind}"{comma}"actor"{colon}{int(seat)}{comma}'
            f'"pai"{colon}"{pai}"{extra}}}')


#: every mjai tile name and what it means (the table of rules.tiles.parse_mjai: its own tuples)
NAMES: dict[str, TileName] = {
    pai: parse_mjai(pai) for pai in [k.mjai for k in Kind] + ["5mr", "5pr", "5sr"]}


def _table() -> dict[str, Move]:
    # every key written here must be one the importer knows for the event (else the general way
    # reports it as unknown, and so must this table's lines)
    assert KNOWN_KEYS["tsumo"] >= {"type", "actor", "pai"}
    assert KNOWN_KEYS["dahai"] >= {"type", "actor", "pai", "tsumogiri"}
    table: dict[str, Move] = {}
    for sep in ((", ", ": "), (",", ":")):
        for seat in SEATS:
            text = _line(sep, "tsumo", seat, "?")
            table[text] = Move("tsumo", seat, None, "?", None, text)
            for pai, name in NAMES.items():
                text = _line(sep, "tsumo", seat, pai)
                table[text] = Move("tsumo", seat, name, pai, None, text)
                for giri in (None, False, True):
                    text = _line(sep, "dahai", seat, pai, giri)
                    table[text] = Move("dahai", seat, name, pai, giri, text)
    return table


#: line text -> the move it is (about 1,200 texts)
MOVES: dict[str, Move] = _table()


def parse_lines(source: str | bytes | Iterable[Mapping[str, Any]]) -> list[tuple[int, Any]]:
    """(line number, parsed object) for each non-blank line; raises :class:`RecordError` when a
    line is not JSON or the text holds no mjai event at all."""
    if isinstance(source, str | bytes):
        text = source.decode("utf-8") if isinstance(source, bytes) else source
        out: list[tuple[int, Any]] = []
        scan, moves = _SCAN, MOVES
        for n, line in enumerate(text.splitlines(), 1):
            move = moves.get(line)  # a draw or a discard as commonly written, already read
            if move is not None:
                out.append((n, move))
                continue
            if not line or line.isspace():  # (not ``line.strip()``: no copy of every line)
                continue
            try:
                # ``json.loads(line)``, by the decoder's scanner straight away when the line is
                # one JSON value and nothing else (a record is thousands of lines: ``loads``
                # spends as long around the scanner as in it). Anything else, leading space
                # included, goes through ``loads`` itself, so the value and the error are its.
                try:
                    value, end = scan(line, 0)
                except StopIteration:
                    end = -1
                if end != len(line):
                    value = json.loads(line)
                out.append((n, value))
            except json.JSONDecodeError as exc:
                raise RecordError(f"not an mjai record: line {n} is not JSON ({exc})") from exc
    else:
        out = list(enumerate(source, 1))
    if not any(isinstance(o, dict) and o.get("type") == "start_kyoku" for _, o in out):
        raise RecordError("not an mjai record: no start_kyoku event")
    return out


_SCAN: Any = json.JSONDecoder().scan_once  # type: ignore[attr-defined]


def has_red(items: Sequence[tuple[int, Any]]) -> bool:
    def red(v: Any) -> bool:
        if isinstance(v, str):
            return len(v) == 3 and v[0] == "5" and v.endswith("r")
        if isinstance(v, list):
            return any(red(x) for x in v)
        return False

    return any(red(o.pai) if o.__class__ is Move else
               isinstance(o, dict) and any(red(v) for v in o.values()) for _, o in items)
