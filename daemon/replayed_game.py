"""The game a restart replayed, kept for the device tracker's restore: at a restart each logged
input is read from the log once (issue 30 item 1), by :meth:`daemon.table.TableCore.recover`,
and the tracker's restore (daemon/tracking/held.py) folds the records as recovery read them
(:meth:`daemon.table.TableCore.game_entries`)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from daemon.log_values import Record
from daemon.tracking.records import KIND_INPUT, Entry
from rules.inputs import Input, InputError, input_from_json


@dataclass(frozen=True, slots=True)
class ReplayedGame:
    """The records of ``game`` that recovery replayed (seqs ``start`` + 1 to ``end``), as the
    tracker's restore takes them."""

    game: int
    start: int
    end: int
    entries: list[Entry]


def logged_input(rec: Record) -> tuple[Input | None, str | None]:
    """The input a logged record holds, read from its JSON (None: another kind of record), or
    why the rules cannot read it."""
    if rec.kind != KIND_INPUT:
        return None, None
    try:
        return input_from_json(rec.body), None
    except InputError as exc:
        return None, str(exc)


def entries_of(records: Iterable[Record]) -> list[Entry]:
    """Logged records as the tracker's restore folds them: an input typed, a marker or clock
    record as its JSON; an input the rules cannot read is left out (neither the rules nor the
    tracker fold it)."""
    out: list[Entry] = []
    for rec in records:
        inp, bad = logged_input(rec)
        if bad is None:
            out.append(Entry(rec.kind, rec.source, rec.body if inp is None else inp))
    return out
