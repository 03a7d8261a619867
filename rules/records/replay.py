"""Replaying an imported record through the rules engine, and verifying it against the record.

:func:`replay` folds the record's inputs through :func:`rules.reducer.reduce` (the same reducer a
live table runs) and gathers, per hand, what the engine computed: the result, the settlement's
deltas (honba, deposits and every win of a multiple ron included), han/fu/yaku per win, the
violations raised while the hand was played. Nothing from the record's own results is used:
they stay in :class:`~rules.records.model.RecordedHand` for :func:`verify`, which lists every
difference between the two (deltas per hand, han/fu per win, scores at each hand's start,
final points).

Where the engine goes apart from the record (a renchan it does not give, a game it ends early, a
hand it cannot end because it refused an input, a wrong delta), the replay takes the record's next
hand start (dealer, round, honba, deposits, scores) and goes on from there (:class:`Resync`):
:func:`verify` reports that difference once and checks the remaining hands on their own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rules.events import Event, HandEnded, HandStarted, Violation
from rules.evolve import replace
from rules.game_flow import standings
from rules.inputs import GameStart, HandStart, Input, RefereeOverride
from rules.records.model import ImportedRecord, RecordedHand, Scores
from rules.reducer import new_table, reduce
from rules.table_state import TableState


@dataclass(frozen=True, slots=True)
class ReplayedWin:
    winner: int
    loser: int | None
    han: int | None
    fu: int | None
    yakuman: int
    points: int | None
    limit: str | None
    yaku: tuple[tuple[str, int], ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "winner": self.winner,
            "loser": self.loser,
            "han": self.han,
            "fu": self.fu,
            "yakuman": self.yakuman,
            "points": self.points,
            "limit": self.limit,
            "yaku": [[n, h] for n, h in self.yaku],
        }


@dataclass(frozen=True, slots=True)
class ReplayedHand:
    """One hand as the engine played it (``record`` is the record's hand it came from)."""

    record: int | None
    round_wind: int | None = None
    dealer: int | None = None
    hand_in_round: int | None = None  # 1..4 (East 1 = 1), as in RecordedHand
    honba: int | None = None
    deposits: int | None = None
    scores_before: Scores | None = None
    result: str = "unfinished"
    abort_kind: str | None = None
    deltas: Scores = (0, 0, 0, 0)
    scores_after: Scores | None = None
    wins: tuple[ReplayedWin, ...] = ()
    tenpai: tuple[int, ...] = ()
    violations: tuple[dict[str, Any], ...] = ()

    @property
    def label(self) -> str:
        wind = "ESWN"[self.round_wind] if self.round_wind is not None else "?"
        return f"{wind}{self.hand_in_round or '?'}-{'?' if self.honba is None else self.honba}"

    def to_json(self) -> dict[str, Any]:
        return {
            "record_hand": self.record,
            "round": self.label,
            "round_wind": self.round_wind,
            "dealer": self.dealer,
            "hand_in_round": self.hand_in_round,
            "honba": self.honba,
            "deposits": self.deposits,
            "result": self.result,
            "abort_kind": self.abort_kind,
            "deltas": list(self.deltas),
            "scores_before": None if self.scores_before is None else list(self.scores_before),
            "scores_after": None if self.scores_after is None else list(self.scores_after),
            "tenpai": list(self.tenpai),
            "wins": [w.to_json() for w in self.wins],
            "violations": list(self.violations),
        }


@dataclass(frozen=True, slots=True)
class ReplayResult:
    hands: tuple[ReplayedHand, ...]
    final_scores: Scores | None  # points at the end, leftover deposits settled when finished
    scores: Scores | None  # the table's scores at the end (deposits not yet settled)
    deposits: int
    finished: bool
    standings: dict[str, Any] | None
    violations: tuple[dict[str, Any], ...]  # all of them, in order
    events: int
    inputs: int
    state: TableState = field(repr=False, compare=False)
    event_log: tuple[dict[str, Any], ...] = field(default=(), repr=False, compare=False)
    resyncs: tuple[Resync, ...] = ()  # where the replay took the record's hand start (C20)


def _scores(value: Any) -> Scores | None:
    if isinstance(value, list | tuple) and len(value) == 4:
        return (int(value[0]), int(value[1]), int(value[2]), int(value[3]))
    return None


def _wins(settlement: Mapping[str, Any]) -> tuple[ReplayedWin, ...]:
    out = []
    for w in settlement.get("wins", ()):
        if not isinstance(w, Mapping) or w.get("nagashi"):
            continue
        yaku = tuple(
            (str(y[0]), int(y[1]))
            for y in w.get("yaku", ())
            if isinstance(y, list | tuple) and len(y) == 2
        )
        out.append(
            ReplayedWin(
                winner=int(w["winner"]),
                loser=None if w.get("loser") is None else int(w["loser"]),
                han=w.get("han"),
                fu=w.get("fu"),
                yakuman=int(w.get("yakuman") or 0),
                points=w.get("points"),
                limit=w.get("limit"),
                yaku=yaku,
            )
        )
    return tuple(out)


def _win_open(state: TableState) -> bool:
    return state.hand is not None and state.hand.step == "won"


#: Violations of a record's hand start that mean the engine and the record went apart.
_APART = frozenset({"progress_mismatch", "hand_in_progress", "game_over"})


@dataclass(frozen=True, slots=True)
class Resync:
    """The replay took the record's hand start after the engine went apart from it (C20): a
    renchan the engine did not give, a game it ended, a hand it could not end (a rejected
    input), a different delta. ``record`` and ``engine`` hold the values that differed
    (``open_hand``: the engine's hand was still being played)."""

    hand: int | None
    input_index: int
    record: dict[str, Any]
    engine: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"hand": self.hand, "input_index": self.input_index, "record": self.record,
                "engine": self.engine}


def _plain(v: Any) -> Any:
    return list(v) if isinstance(v, tuple) else int(v) if isinstance(v, int) else v


def _hand_start(state: TableState, inp: HandStart, index: int, hand: int | None
                ) -> tuple[TableState, list[Event], Resync | None]:
    """Feed a record's hand start; where the engine went apart from the record, reseat the
    table at the record's values (dealer, round, honba, deposits, scores) and start the hand
    from there, so one disagreement costs one difference, not the rest of the game."""
    new, events = reduce(state, inp)
    if not any(isinstance(e, Violation) and e.code in _APART for e in events):
        return new, list(events), None
    before: list[Event] = []
    s = state
    if _win_open(s):  # the win closes as the record's next hand start would close it
        s, closing = reduce(s, RefereeOverride(action="confirm_win", by="record"))
        before = list(closing)
    p = s.progress
    assert p is not None
    given = {"dealer": inp.dealer, "round_wind": inp.round_wind, "honba": inp.honba,
             "deposits": inp.deposits, "scores": inp.scores}
    have = {"dealer": p.dealer, "round_wind": p.round_wind, "honba": p.honba,
            "deposits": p.deposits, "scores": p.scores}
    differ = [k for k, v in given.items() if v is not None and v != have[k]]
    engine = {k: _plain(have[k]) for k in differ}
    record = {k: _plain(given[k]) for k in differ}
    if s.hand is not None and s.hand.step != "ended":
        engine["open_hand"], record["open_hand"] = True, False
    if p.finished or s.game_over:
        engine["game_over"], record["game_over"] = True, False
    dealer = inp.dealer if inp.dealer is not None else p.dealer
    p = replace(
        p,
        dealer=dealer,
        round_wind=inp.round_wind if inp.round_wind is not None else p.round_wind,
        hand_in_round=(dealer - p.first_dealer) % 4,
        honba=inp.honba if inp.honba is not None else p.honba,
        deposits=inp.deposits if inp.deposits is not None else p.deposits,
        scores=inp.scores if inp.scores is not None else p.scores,
        finished=False,
        end_reason="",
    )
    hand_state = s.hand if s.hand is None or s.hand.step == "ended" else None
    s, events = reduce(replace(s, progress=p, hand=hand_state, game_over=False), inp)
    return s, before + list(events), Resync(hand, index, record, engine)


#: the events :class:`_Hands` reads (none of them is subclassed)
_GATHERED = frozenset({HandStarted, Violation, HandEnded})


class _Hands:
    """The hands as the engine plays them, gathered from its events."""

    def __init__(self, keep_events: bool) -> None:
        self.hands: list[ReplayedHand] = []
        self.current: dict[str, Any] | None = None
        self.violations: list[dict[str, Any]] = []
        self.events = 0
        self.log: list[dict[str, Any]] = []
        self.keep = keep_events

    def close(self) -> None:
        if self.current is not None:
            self.current["violations"] = tuple(self.current["violations"])
            self.hands.append(ReplayedHand(**self.current))
            self.current = None

    def take(self, events: Sequence[Event], index: int, record_hand: int | None) -> None:
        self.events += len(events)
        if self.keep:
            self.log.extend(ev.to_json() for ev in events)
        for ev in events:
            if ev.__class__ not in _GATHERED:  # a draw's, a discard's: most events
                continue
            if isinstance(ev, HandStarted):
                self.close()
                self.current = {
                    "record": record_hand,
                    "round_wind": int(ev.round_wind),
                    "dealer": int(ev.dealer),
                    "hand_in_round": ev.hand_in_round + 1,  # the engine counts from 0
                    "honba": ev.honba,
                    "deposits": ev.deposits,
                    "scores_before": _scores(list(ev.scores)),
                    "violations": [],
                }
            elif isinstance(ev, Violation):
                j = ev.to_json()
                j["input_index"] = index
                j["record_hand"] = None if self.current is None else self.current["record"]
                self.violations.append(j)
                if self.current is not None:
                    self.current["violations"].append(j)
            elif isinstance(ev, HandEnded) and self.current is not None:
                self._ended(ev)

    def _ended(self, ev: HandEnded) -> None:
        current = self.current
        assert current is not None
        st, out = ev.settlement, ev.outcome
        current["result"] = str(st.get("kind", out.get("kind", "unknown")))
        if out.get("kind") == "abortive" or st.get("kind") == "abortive":
            current["abort_kind"] = out.get("abort_kind") or "triple_ron"
        current["deltas"] = _scores(st.get("deltas")) or (0, 0, 0, 0)
        current["scores_after"] = _scores(list(ev.scores))
        current["wins"] = _wins(st)
        current["tenpai"] = tuple(int(s) for s in st.get("tenpai", ()))
        self.close()


def replay(record: ImportedRecord, *, keep_events: bool = False,
           ruleset: str | None = None) -> ReplayResult:
    """Fold the record's inputs through the reducer (``keep_events``: keep every event's JSON
    form in :attr:`ReplayResult.event_log`, as the daemon's event log would hold them).
    ``ruleset``: how the game start names the ruleset for the reducer to load, when it is not a
    builtin name (a venue's TOML path: the importer only knows the ruleset's name)."""
    state = new_table()
    inputs: list[Input] = [
        replace(i, ruleset=ruleset) if ruleset is not None and isinstance(i, GameStart) else i
        for i in record.inputs
    ]
    acc = _Hands(keep_events)
    resyncs: list[Resync] = []
    starts = {h.first_input: h.number for h in record.hands}
    record_hand: int | None = None
    index = 0
    n_record = len(record.inputs)
    while index < len(inputs):
        inp = inputs[index]
        if isinstance(inp, HandStart):
            record_hand = starts.get(index)
            state, events, resync = _hand_start(state, inp, index, record_hand)
            if resync is not None:
                resyncs.append(resync)
            acc.take(events, index, record_hand)
        else:
            state, out = reduce(state, inp)
            if len(out) == 1 and not keep_events and out[0].__class__ not in _GATHERED:
                acc.events += 1  # (acc.take's own fast case, without the call: most inputs)
            else:
                acc.take(out, index, record_hand)
        index += 1
        if index == len(inputs) == n_record and _win_open(state):
            # A record's last hand ends with its wins: nobody else called ron. Within a record
            # the next hand_start closes a win; after the last one a referee's confirmation
            # does, as at a table at the end of a session.
            inputs.append(RefereeOverride(action="confirm_win", by="record"))
    acc.close()
    p, rs = state.progress, state.ruleset
    final: Scores | None = None
    table: Scores | None = None
    st_json: dict[str, Any] | None = None
    if p is not None and rs is not None:
        table = p.scores
        final_standings = standings(rs, p)
        st_json = final_standings.to_json()
        points = tuple(s.points for s in final_standings.seats)
        final = _scores(list(points)) if p.finished else table
    return ReplayResult(
        hands=tuple(acc.hands),
        final_scores=final,
        scores=table,
        deposits=0 if p is None else p.deposits,
        finished=bool(p is not None and p.finished),
        standings=st_json,
        violations=tuple(acc.violations),
        events=acc.events,
        inputs=len(inputs),
        state=state,
        event_log=tuple(acc.log),
        resyncs=tuple(resyncs),
    )


@dataclass(frozen=True, slots=True)
class Difference:
    hand: int | None  # the record's hand (0-based); None: the game
    label: str
    what: str
    recorded: Any
    computed: Any

    def __str__(self) -> str:
        where = f"hand {self.hand + 1} ({self.label})" if self.hand is not None else self.label
        return f"{where}: {self.what}: record {self.recorded}, computed {self.computed}"

    def to_json(self) -> dict[str, Any]:
        return {
            "hand": self.hand,
            "label": self.label,
            "what": self.what,
            "recorded": self.recorded,
            "computed": self.computed,
        }


def _fmt(d: Sequence[int] | None) -> str:
    return "-" if d is None else "[" + ", ".join(f"{v:+d}" for v in d) + "]"


def verify(record: ImportedRecord, result: ReplayResult) -> list[Difference]:
    """Every difference between the record's results and the engine's, hand by hand. Fields the
    record does not give are not compared; a record hand the engine did not finish is one."""
    diffs: list[Difference] = []
    by_record: dict[int, ReplayedHand] = {}
    for h in result.hands:
        if h.record is not None and h.record not in by_record:
            by_record[h.record] = h
    resynced = {r.hand: r for r in result.resyncs}
    for rh in record.hands:
        got = by_record.get(rh.number)
        resync = resynced.get(rh.number)
        if resync is not None:
            # Once, here: the hand then starts at the record's values and is checked as such.
            diffs.append(Difference(rh.number, rh.label, "hand start (the replay takes the "
                                    "record's)", resync.record, resync.engine))
        if got is None:
            diffs.append(Difference(rh.number, rh.label, "hand", "played", "never started"))
            continue
        diffs.extend(_verify_hand(rh, got))
    if result.violations:
        diffs.append(
            Difference(None, "game", "violations", 0, len(result.violations))
        )
    if (
        record.final_scores is not None
        and result.finished
        and result.final_scores is not None
        and record.final_scores != result.final_scores
    ):
        diffs.append(
            Difference(
                None, "game", "final points", list(record.final_scores), list(result.final_scores)
            )
        )
    return diffs


def _verify_hand(rh: RecordedHand, got: ReplayedHand) -> list[Difference]:
    out: list[Difference] = []

    def diff(what: str, recorded: Any, computed: Any) -> None:
        out.append(Difference(rh.number, rh.label, what, recorded, computed))

    if got.result == "unfinished":
        diff("result", rh.result_text, "the hand did not end")
        return out
    if rh.scores is not None and got.scores_before is not None and rh.scores != got.scores_before:
        diff("scores at the start", _fmt(rh.scores), _fmt(got.scores_before))
    if rh.honba is not None and got.honba is not None and rh.honba != got.honba:
        diff("honba", rh.honba, got.honba)
    if rh.deposits is not None and got.deposits is not None and rh.deposits != got.deposits:
        diff("deposits", rh.deposits, got.deposits)
    expected_kind = {"nagashi": "exhaustive"}.get(rh.result, rh.result)
    if rh.result != "unknown" and expected_kind != got.result:
        diff("result", rh.result_text, got.result)
    if rh.deltas is not None and rh.deltas != got.deltas:
        diff("deltas", _fmt(rh.deltas), _fmt(got.deltas))
    for w in rh.wins:
        mine = next((g for g in got.wins if g.winner == int(w.winner)), None)
        who = f"win by seat {int(w.winner)}"
        if mine is None:
            diff(who, "won", "no such win")
            continue
        loser = None if w.loser is None else int(w.loser)
        if loser != mine.loser:
            diff(f"{who}: paid by", loser, mine.loser)
        if w.yakuman:
            if w.yakuman != mine.yakuman:
                diff(f"{who}: yakuman", w.yakuman, mine.yakuman)
            continue
        if mine.yakuman:
            if w.yaku or w.han is not None:  # a record that lists no yaku says nothing of it
                diff(f"{who}: yakuman", 0, mine.yakuman)
            continue
        if w.han is not None and mine.han is not None and w.han != mine.han:
            diff(f"{who}: han", w.han, mine.han)
        if w.fu is not None and mine.fu is not None and w.fu != mine.fu:
            diff(f"{who}: fu", w.fu, mine.fu)
    return out
