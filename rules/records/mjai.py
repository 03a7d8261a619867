"""mjai JSON Lines records → :mod:`rules.inputs`.

One JSON object per line, ``{"type": ...}``. Two dialects are read alike:

* the original mjai (gimite/mjai): ``start_game`` with ``names`` (and ``id``), ``hora`` with
  ``uradora_markers``, ``hora_tehais``, ``yakus`` (``[[name, han], ...]``), ``fu``, ``fan``,
  ``hora_points``, ``deltas``, ``scores``; ``ryukyoku`` with ``reason``, ``tehais``, ``tenpais``,
  ``deltas``, ``scores``; ``dahai`` sometimes without ``tsumogiri``;
* Mortal / libriichi style (and mjai-reviewer's convlog): ``start_game`` with ``kyoku_first``
  (0 = East-South, 4 = East only) and ``aka_flag``; ``hora`` with ``ura_markers`` and optional
  ``deltas``; ``ryukyoku`` with only optional ``deltas``; ``reach_accepted`` with or without
  ``deltas``/``scores``.

Every optional field may be missing: results are computed by the engine, the record's are kept
aside for verification. A ``ryukyoku`` without a ``reason`` is classified from the tiles (wall
exhausted, nine terminals, four winds, four riichi, four kans, triple ron). Seats are absolute;
``start_kyoku.oya`` is the dealer, so the first dealer is the first hand's dealer counted back
``kyoku - 1`` places. A draw right after a kan is the replacement draw (:class:`RinshanDraw`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from rules.inputs import GameStart, HandStart, Input
from rules.records.builder import HandBuilder, TileName
from rules.records.mjai_lines import NAMES, Move, has_red, parse_lines
from rules.records.mjai_words import (
    HAND_EVENTS,
    INFORMATIONAL_KEYS,
    KNOWN_KEYS,
    NAGASHI_ALIASES,
    REASON_OF,
    REASONS,
    reason_key,
)
from rules.records.model import (
    ImportedRecord,
    ImportIssue,
    RecordedHand,
    RecordedWin,
    RecordError,
    ResultKind,
    Scores,
)
from rules.ruleset import Ruleset
from rules.seats import SEATS, Seat, Wind
from rules.tiles import TileError, parse_mjai


class _Bad(ValueError):
    pass


#: the seats by their number (``Seat.of`` for an ``int`` 0..3, as a lookup: every event
#: names one)
_SEAT_OF: dict[int, Seat] = {int(s): s for s in SEATS}


def _seat(ev: Mapping[str, Any], key: str) -> Seat:
    value: Any = ev.get(key)
    if value.__class__ is int:  # (not a bool: True == 1 would find seat 1)
        seat = _SEAT_OF.get(value)
        if seat is not None:
            return seat
    try:
        return Seat.of(value)
    except ValueError as exc:
        raise _Bad(f"{ev.get('type')}.{key}: {exc}") from exc


def _int(ev: Mapping[str, Any], key: str) -> int | None:
    value = ev.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise _Bad(f"{ev.get('type')}.{key}: expected an integer, got {value!r}")
    return value


def _scores(ev: Mapping[str, Any], key: str) -> Scores | None:
    value = ev.get(key)
    if value is None:
        return None
    if (
        not isinstance(value, list)
        or len(value) != 4
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        raise _Bad(f"{ev.get('type')}.{key}: expected 4 integers, got {value!r}")
    return (value[0], value[1], value[2], value[3])


#: an unseen tile in a hand (a one-player view, or a results-only record)
UNSEEN = "?"


class _Reader:
    def __init__(self, ruleset: Ruleset, aka: bool) -> None:
        self.ruleset = ruleset
        self.aka = aka
        self.issues: list[ImportIssue] = []
        self.notes: set[str] = set()
        self.inputs: list[Input] = []
        self.hands: list[RecordedHand] = []
        self.names: tuple[str, str, str, str] = ("", "", "", "")
        self.rounds: int | None = None
        self.final: Scores | None = None
        self.first_dealer: Seat | None = None
        self.start_scores: Scores | None = None
        self.game_started = False
        self.informational: dict[str, int] = {}  # INFORMATIONAL_KEYS seen: events
        self.unseen_hands = 0  # start_kyoku with every tile "?": a results-only record
        # the open hand
        self.b: HandBuilder | None = None
        self.meta: dict[str, Any] = {}
        self.riichi_next: set[Seat] = set()
        self.wins: list[RecordedWin] = []
        # Each hora's ura list as written (None: the hora has no ura key at all).
        self.ura: list[list[TileName] | None] = []
        self.ended: tuple[ResultKind, str, dict[str, Any]] | None = None

    def tile(self, text: Any) -> TileName:
        try:
            name = parse_mjai(text)  # (the table's own tuple: every tile of a record)
        except TileError as exc:
            raise _Bad(str(exc)) from exc
        if name[1] and not self.aka:
            self.notes.add("red fives in a game without them are read as ordinary fives")
            return name[0], False
        return name

    def tiles(self, value: Any, n: int | None, what: str) -> list[TileName]:
        if not isinstance(value, list) or (n is not None and len(value) != n):
            raise _Bad(f"{what}: expected a list of {n if n else 'some'} tiles, got {value!r}")
        # each name by one look-up (a deal names 52 tiles); anything else tile by tile, as a
        # red five in a game without them (its note)
        names = [NAMES.get(t) if t.__class__ is str else None for t in value]
        if not all(names) or (not self.aka and any(x[1] for x in names if x is not None)):
            return [self.tile(t) for t in value]
        return names  # type: ignore[return-value]  # (all found)

    # --- hands ----------------------------------------------------------------------------------
    def start_hand(self, line: int, ev: Mapping[str, Any]) -> None:
        if self.b is not None:
            self.close_hand(line)
        bakaze = ev.get("bakaze")
        if not isinstance(bakaze, str) or bakaze not in ("E", "S", "W", "N"):
            raise _Bad(f"start_kyoku.bakaze: expected one of E S W N, got {bakaze!r}")
        wind = Wind.from_mjai(bakaze)
        kyoku = _int(ev, "kyoku")
        if kyoku is None or not 1 <= kyoku <= 4:
            raise _Bad(f"start_kyoku.kyoku: expected 1..4, got {ev.get('kyoku')!r}")
        dealer = _seat(ev, "oya")
        honba, deposits = _int(ev, "honba"), _int(ev, "kyotaku")
        scores = _scores(ev, "scores")
        tehais = ev.get("tehais")
        if not isinstance(tehais, list) or len(tehais) != 4:
            raise _Bad(f"start_kyoku.tehais: expected 4 hands, got {tehais!r}")
        # (compared one by one: a garbled hand may hold lists, which a set cannot)
        if all(isinstance(t, list) and t and all(x == UNSEEN for x in t) for t in tehais):
            self.unseen_hands += 1
        if any(UNSEEN in t for t in tehais if isinstance(t, list)):
            raise _Bad("start_kyoku.tehais: hidden tiles ('?'): a one-player view cannot replay")
        hands = [self.tiles(t, 13, f"start_kyoku.tehais[{i}]") for i, t in enumerate(tehais)]
        dora = self.tile(ev.get("dora_marker"))
        number = len(self.hands)
        if not self.game_started:
            self.first_dealer = dealer.plus(-(kyoku - 1))
            self.start_scores = scores
            self.inputs.append(
                GameStart(
                    ruleset=self.ruleset.name,
                    first_dealer=self.first_dealer,
                    names=self.names,
                    scores=scores,
                    aka=self.aka,
                    rounds=self.rounds,
                )
            )
            self.game_started = True
        self.meta = {
            "number": number,
            "round_wind": wind,
            "dealer": dealer,
            "hand_in_round": kyoku,
            "honba": honba,
            "deposits": deposits,
            "scores": scores,
            "first_input": len(self.inputs),
        }
        self.inputs.append(
            HandStart(dealer=dealer, round_wind=wind, honba=honba, deposits=deposits, scores=scores)
        )
        self.b = HandBuilder(
            aka=self.aka,
            hand=number,
            issues=self.issues,
            out=self.inputs,
            dealer=dealer,
            dealer_fourteenth=self.ruleset.wall.dealer_fourteenth,
        )
        self.b.where = line
        self.b.deal(hands, dora)
        self.riichi_next = set()
        self.wins = []
        self.ura = []
        self.ended = None

    def close_hand(self, line: int) -> None:
        b = self.b
        if b is None:
            return
        b.where = line
        if self.wins:
            self.reveal_ura(b)
        if self.ended is None:
            b.issue("the hand has no result (no hora or ryukyoku before it ends)")
            kind: ResultKind = "unknown"
            text = "none"
            extra: dict[str, Any] = {}
        else:
            kind, text, extra = self.ended
        if kind == "win":
            extra = dict(extra)
            extra["wins"] = tuple(self.wins)
            if all(w.deltas is not None for w in self.wins):
                sums = [sum(w.deltas[s] for w in self.wins if w.deltas is not None) for s in SEATS]
                extra["deltas"] = (sums[0], sums[1], sums[2], sums[3])
        self.hands.append(
            RecordedHand(
                result=kind, result_text=text, end_input=len(self.inputs), **self.meta, **extra
            )
        )
        self.b = None

    def reveal_ura(self, b: HandBuilder) -> None:
        """The ura indicators of the hand's win(s). Every hora of a multiple ron shows the same
        indicators, but Mortal, libriichi and mjai.app write ``ura_markers: []`` for a winner
        without riichi: the first non-empty list is the hand's, and an empty one is no ura
        reveal at all (an UraRevealed nobody is owed is out of phase)."""
        lists = [u for u in self.ura if u]
        if lists:
            if any(u != lists[0] for u in lists[1:]):
                b.issue("the hora events list different ura indicators; the first list is used")
            b.ura(lists[0])
            return
        riichi = [int(w.winner) for w in self.wins if b.riichi[w.winner]]
        if riichi and self.ruleset.dora.ura:
            if all(u is None for u in self.ura):
                what = "the record has no ura_markers / uradora_markers"
            else:
                what = "the record's ura indicator list is empty"
            b.issue(f"riichi win by seat {riichi[0]} but {what}: no ura dora counted")

    def event(self, line: int, ev: Mapping[str, Any]) -> None:
        kind = ev.get("type")
        known = KNOWN_KEYS.get(kind) if isinstance(kind, str) else None
        # (``keys() <=``, not ``known.issuperset(ev)``: no set made of every event's keys)
        if known is not None and not ev.keys() <= known:
            for key in sorted(set(ev) - known):
                if key in INFORMATIONAL_KEYS:
                    self.informational[key] = self.informational.get(key, 0) + 1
                    continue
                hand = None if self.b is None else self.b.hand
                if kind == "start_kyoku":  # the hand it starts
                    hand = len(self.hands) + (self.b is not None)
                elif kind == "start_game":
                    hand = None
                self.issues.append(ImportIssue(
                    hand, line, f"{kind}: unknown key {key!r} ignored "
                    f"(known: {', '.join(sorted(known - {'type'}))})", affects_replay=False))
        if kind == "dahai" or kind == "tsumo":  # most lines: straight to them
            b = self.b
            if b is not None and self.ended is None:  # (else as below: an issue)
                b.where = line
                if kind == "dahai":
                    self.dahai(b, ev)
                else:
                    self.tsumo(b, ev)
                return
        if kind == "start_game":
            names = ev.get("names")
            if isinstance(names, list) and len(names) == 4:
                self.names = (str(names[0]), str(names[1]), str(names[2]), str(names[3]))
            first = ev.get("kyoku_first")
            if isinstance(first, int):
                self.rounds = 1 if first == 4 else 2
            return
        if kind == "start_kyoku":
            self.start_hand(line, ev)
            return
        if kind == "end_game":
            self.close_hand(line)
            self.final = _scores(ev, "scores")
            return
        if kind not in HAND_EVENTS:
            return  # none, hello, error, ...: not part of the game
        b = self.b
        if b is None:
            raise _Bad(f"{kind} outside a hand (no start_kyoku before it)")
        b.where = line
        if kind == "end_kyoku":
            self.close_hand(line)
            return
        if self.ended is not None and kind not in ("hora", "dora"):
            raise _Bad(f"{kind} after the hand ended")
        if kind == "tsumo":
            self.tsumo(b, ev)
        elif kind == "reach":
            self.riichi_next.add(_seat(ev, "actor"))
        elif kind == "reach_accepted":
            pass  # the engine takes the deposit when the riichi discard passes
        elif kind == "dahai":
            self.dahai(b, ev)
        elif kind in ("chi", "pon", "daiminkan"):
            n = 3 if kind == "daiminkan" else 2
            b.call(
                _seat(ev, "actor"),
                kind,
                self.tile(ev.get("pai")),
                self.tiles(ev.get("consumed"), n, f"{kind}.consumed"),
                _seat(ev, "target"),
            )
        elif kind == "ankan":
            b.ankan(_seat(ev, "actor"), self.tiles(ev.get("consumed"), 4, "ankan.consumed"))
        elif kind == "kakan":
            b.kakan(_seat(ev, "actor"), self.tile(ev.get("pai")))
        elif kind == "dora":
            b.indicator(self.tile(ev.get("dora_marker")))
        elif kind == "hora":
            self.hora(b, ev)
        elif kind == "ryukyoku":
            self.ryukyoku(b, ev)

    def move(self, line: int, mv: Move) -> None:
        """A draw or a discard read by its text (rules.records.mjai_lines): what
        :meth:`event` does with its JSON, but for the tile's name, already parsed."""
        b = self.b
        if b is None or self.ended is not None:  # (an issue: as any line, the general way)
            self.event(line, json.loads(mv.text))
            return
        b.where = line
        name = mv.name
        if name is not None and name[1] and not self.aka:
            name = self.tile(mv.pai)  # (the note on red fives)
        seat = mv.seat
        if mv.kind == "tsumo":
            b.draw(seat, name)
            return
        assert name is not None  # (no "?" discard in the table)
        riichi = seat in self.riichi_next
        if riichi:
            self.riichi_next.discard(seat)
        b.discard(seat, name, riichi=riichi, tsumogiri=mv.tsumogiri)

    def tsumo(self, b: HandBuilder, ev: Mapping[str, Any]) -> None:
        pai = ev.get("pai")
        b.draw(_seat(ev, "actor"), None if pai == "?" else self.tile(pai))

    def dahai(self, b: HandBuilder, ev: Mapping[str, Any]) -> None:
        actor = _seat(ev, "actor")
        tsumogiri = ev.get("tsumogiri")
        if tsumogiri is not None and not isinstance(tsumogiri, bool):
            raise _Bad(f"dahai.tsumogiri: expected true/false, got {tsumogiri!r}")
        riichi = actor in self.riichi_next
        if riichi:
            self.riichi_next.discard(actor)
        b.discard(actor, self.tile(ev.get("pai")), riichi=riichi, tsumogiri=tsumogiri)

    def hora(self, b: HandBuilder, ev: Mapping[str, Any]) -> None:
        actor, target = _seat(ev, "actor"), _seat(ev, "target")
        if self.ended is not None and (self.ended[0] != "win" or actor == target):
            raise _Bad("a second result for the hand")
        if actor == target:
            b.tsumo(actor)
        else:
            b.ron(actor)
        ura: list[TileName] | None = None
        for key in ("uradora_markers", "ura_markers"):
            if key in ev and ev[key] is not None and ura is None:
                ura = self.tiles(ev[key], None, f"hora.{key}")
        self.ura.append(ura)
        yakus = ev.get("yakus")
        yaku: list[tuple[str, int]] = []
        if isinstance(yakus, list):
            for y in yakus:
                if isinstance(y, list) and len(y) == 2 and isinstance(y[1], int):
                    yaku.append((str(y[0]), y[1]))
        fan, fu = _int(ev, "fan"), _int(ev, "fu")
        yakuman = 0
        if fan is not None and fan >= 13 and yaku and all(h >= 13 for _, h in yaku):
            yakuman = sum(h // 13 for _, h in yaku)
        points = ev.get("hora_points")
        self.wins.append(
            RecordedWin(
                winner=actor,
                loser=None if actor == target else target,
                deltas=_scores(ev, "deltas"),
                han=None if yakuman else fan,
                fu=fu,
                yakuman=yakuman,
                points_text=None if points is None else str(points),
                yaku=tuple(yaku),
            )
        )
        self.ended = ("win", "hora", {})

    def ryukyoku(self, b: HandBuilder, ev: Mapping[str, Any]) -> None:
        if self.ended is not None:
            raise _Bad("a second result for the hand")
        reason = ev.get("reason")
        deltas = _scores(ev, "deltas")
        told: tuple[Seat, ...] | None = None
        tenpais = ev.get("tenpais")
        if isinstance(tenpais, list) and len(tenpais) == 4:
            told = tuple(s for s in SEATS if tenpais[s])
        if reason is not None and not isinstance(reason, str):  # found by bench/fuzz.py
            b.issue(f"ryukyoku reason {reason!r} is not a string; classified from the tiles")
            reason = None
        key = reason_key(reason) if isinstance(reason, str) else None
        nagashi = key in NAGASHI_ALIASES
        if key is not None and key not in REASONS and not nagashi:
            b.issue(f"unknown ryukyoku reason {reason!r}; classified from the tiles")
            key = None
        if key is None:
            abort, seat = b.guess_abort()
        elif nagashi:
            abort, seat = None, None
        else:
            abort = REASONS[key]
            seat = b.last_actor if abort == "nine_terminals" else None
        if abort is not None:
            b.abort(abort, seat)
            text = reason if isinstance(reason, str) and key is not None else REASON_OF[abort]
            self.ended = ("abortive", text, {"abort_kind": abort, "deltas": deltas})
            return
        tenpai = b.tenpai_seats()
        if told is not None and told != tenpai:
            b.issue(
                f"the record's tenpai seats {[int(s) for s in told]} differ from the tiles' "
                f"{[int(s) for s in tenpai]}"
            )
        b.exhaustive(tenpai)
        kind: ResultKind = "nagashi" if nagashi else "exhaustive"
        text = reason if isinstance(reason, str) and key is not None else "ryukyoku"
        self.ended = (kind, text, {"deltas": deltas, "tenpai": told})


def import_mjai(
    source: str | bytes | Iterable[Mapping[str, Any]], ruleset: Ruleset
) -> ImportedRecord:
    """Import an mjai record (JSON Lines text, or the parsed events). Raises
    :class:`RecordError` only for text that is not an mjai record; problems inside hands are
    collected in ``issues`` with the line number."""
    items = parse_lines(source)
    start = next((o for _, o in items if isinstance(o, dict) and o.get("type") == "start_game"), {})
    flag = start.get("aka_flag")
    # Red fives as the record says: aka_flag, else whether any red five occurs at all.
    aka = bool(flag) if isinstance(flag, bool) else has_red(items)
    r = _Reader(ruleset, aka)
    for line, ev in items:
        move = ev.__class__ is Move  # (a line read by its text: see parse_lines)
        if not move and (not isinstance(ev, dict) or not isinstance(ev.get("type"), str)):
            r.issues.append(ImportIssue(None, line, "not an mjai event (no 'type')", len(r.inputs)))
            continue
        try:
            if move:
                r.move(line, ev)
            else:
                r.event(line, ev)
        except (_Bad, ValueError) as exc:
            hand = None if r.b is None else r.b.hand
            r.issues.append(ImportIssue(hand, line, str(exc), len(r.inputs)))
    r.close_hand(len(items) + 1)
    for key, count in r.informational.items():
        r.notes.add(f"{INFORMATIONAL_KEYS[key]} ({key!r}, on {count} event(s)): informational, "
                    "left aside")
    if not r.hands or r.first_dealer is None:
        if r.unseen_hands:
            # jantaku's own export of a table without sensors (rules/records/table_game.py)
            # and any record like it: per hand its place and result, no tile.
            raise RecordError(
                f"a results-only record ({r.unseen_hands} hand(s), every tile unseen '?', as "
                "written for a table without sensors): it holds each hand's result, not its "
                "play, so it cannot be replayed")
        raise RecordError("not an mjai record: no readable hand")
    return ImportedRecord(
        format="mjai",
        ruleset=ruleset.name,
        names=r.names,
        aka=aka,
        rounds=r.rounds,
        first_dealer=r.first_dealer,
        start_scores=r.start_scores,
        inputs=tuple(r.inputs),
        hands=tuple(r.hands),
        issues=tuple(r.issues),
        final_scores=r.final,
        notes=tuple(sorted(r.notes)),
    )
