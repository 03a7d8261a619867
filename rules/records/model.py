"""What an imported game record holds: the inputs to replay and the record's own results.

An importer turns a record (mjai JSONL, tenhou.net/6 JSON) into the same :mod:`rules.inputs` values
a table would produce, so a record replays through the same reducer as a live game. The record's
own results (deltas, han/fu/yaku text, tenpai) are kept aside, never fed to the engine: they are
what ``jantaku replay --verify`` compares the engine's results with.

Importers are lenient and the model is strict: a problem in a record is collected as an
:class:`ImportIssue` (hand, position, reason) and the import goes on, in the manner of
python-chess's PGN reader; only a file that is not a record at all raises :class:`RecordError`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from rules.errors import RulesError
from rules.inputs import Input
from rules.seats import Seat, Wind

RecordFormat = Literal["mjai", "tenhou6"]
FORMATS: tuple[RecordFormat, ...] = ("mjai", "tenhou6")

ResultKind = Literal["win", "exhaustive", "nagashi", "abortive", "unknown"]
Scores = tuple[int, int, int, int]


class RecordError(RulesError, ValueError):
    """A file that is not a readable record (not JSON, no hands, wrong shape): one clear line."""


@dataclass(frozen=True, slots=True)
class ImportIssue:
    """One problem found while importing. ``hand`` is the 0-based hand number in the record
    (``None``: the file as a whole); ``index`` is the position inside it (tenhou.net/6: the move
    number in the hand; mjai: the line number in the file); ``input`` is the index, in
    :attr:`ImportedRecord.inputs`, of the input the problem comes before (the one a replay's
    violations name as ``input_index``)."""

    hand: int | None
    index: int | None
    reason: str
    input: int | None = None
    #: False for what the replay does not depend on (an unknown key left aside): reported, but
    #: ``--verify`` does not fail a record for it
    affects_replay: bool = True

    def __str__(self) -> str:
        where = []
        if self.hand is not None:
            where.append(f"hand {self.hand + 1}")
        if self.index is not None:
            where.append(f"at {self.index}")
        if self.input is not None:
            where.append(f"input {self.input}")
        return (", ".join(where) + ": " if where else "") + self.reason

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"hand": self.hand, "index": self.index,
                               "input_index": self.input, "reason": self.reason}
        if not self.affects_replay:
            out["affects_replay"] = False
        return out


@dataclass(frozen=True, slots=True)
class RecordedWin:
    """One win as the record tells it (for verification only)."""

    winner: Seat
    loser: Seat | None  # None: tsumo
    pao: Seat | None = None
    deltas: Scores | None = None
    han: int | None = None  # the sum of the yaku han, when the record lists them
    fu: int | None = None
    yakuman: int = 0  # yakuman count (double yakuman = 2)
    points_text: str | None = None
    yaku: tuple[tuple[str, int], ...] = ()  # (name as recorded, han; yakuman: 13 per yakuman)
    # An engine result's point text in Tenhou's words (``30符3飜1000-2000点``), for the
    # tenhou.net/6 exporter; a record's own text is ``points_text``.
    tenhou_text: str | None = field(default=None, compare=False)
    # The engine's result (yaku named by the scorer, for the exporter to put in Tenhou's words);
    # False: the record's own, written back as it came.
    from_engine: bool = field(default=False, compare=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "winner": int(self.winner),
            "loser": None if self.loser is None else int(self.loser),
            "pao": None if self.pao is None else int(self.pao),
            "deltas": None if self.deltas is None else list(self.deltas),
            "han": self.han,
            "fu": self.fu,
            "yakuman": self.yakuman,
            "points_text": self.points_text,
            "yaku": [[n, h] for n, h in self.yaku],
        }


@dataclass(frozen=True, slots=True)
class RecordedHand:
    """One hand of the record: where it sits, what the record says happened, and the slice of
    :attr:`ImportedRecord.inputs` that plays it (``first_input`` .. ``end_input``)."""

    number: int  # 0-based, in the record
    round_wind: Wind
    dealer: Seat
    hand_in_round: int  # 1..4 (E1 = 1)
    honba: int | None
    deposits: int | None
    scores: Scores | None  # at the start of the hand, as recorded
    result: ResultKind
    result_text: str  # the record's own word: 和了, 流局, hora, ryukyoku, ...
    deltas: Scores | None = None  # all payments of the hand summed, as recorded
    wins: tuple[RecordedWin, ...] = ()
    tenpai: tuple[Seat, ...] | None = None  # as recorded (or derived from the deltas)
    abort_kind: str | None = None
    first_input: int = 0
    end_input: int = 0
    # Ura indicators the engine knew without an UraRevealed input (a table's wall manifest):
    # for exporting a table's own games; importers leave it empty (the inputs carry them).
    ura_indicators: tuple[int, ...] = ()

    @property
    def label(self) -> str:
        honba = "?" if self.honba is None else str(self.honba)
        return f"{self.round_wind.mjai}{self.hand_in_round}-{honba}"

    def to_json(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "label": self.label,
            "round_wind": int(self.round_wind),
            "dealer": int(self.dealer),
            "hand_in_round": self.hand_in_round,
            "honba": self.honba,
            "deposits": self.deposits,
            "scores": None if self.scores is None else list(self.scores),
            "result": self.result,
            "result_text": self.result_text,
            "deltas": None if self.deltas is None else list(self.deltas),
            "wins": [w.to_json() for w in self.wins],
            "tenpai": None if self.tenpai is None else [int(s) for s in self.tenpai],
            "abort_kind": self.abort_kind,
        }


@dataclass(frozen=True, slots=True)
class ImportedRecord:
    format: RecordFormat
    ruleset: str
    names: tuple[str, str, str, str]
    aka: bool
    rounds: int | None  # 1 East-only, 2 East-South; None: the record does not say
    first_dealer: Seat
    start_scores: Scores | None
    inputs: tuple[Input, ...]
    hands: tuple[RecordedHand, ...]
    issues: tuple[ImportIssue, ...] = ()
    final_scores: Scores | None = None  # the record's end-of-game points, when it has them
    title: str = ""
    notes: tuple[str, ...] = field(default=())  # harmless oddities (e.g. red codes, no aka)
    # Record-level values an exporter writes back as they came (tenhou.net/6: ver, ref, dan,
    # rate, sx, lobby, ratingc, rule): they are not the engine's to compute.
    source_meta: Mapping[str, Any] = field(default_factory=dict, compare=False)
    # The record's final pt per seat (tenhou.net/6 ``sc``), kept for the exporter.
    final_pt: tuple[float, float, float, float] | None = None
