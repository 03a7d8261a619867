"""The game between hands: dealer, round, honba, deposits, scores and the end of the game.

:func:`advance` takes the settled hand and decides what comes next:

* **renchan** (``game.renchan``): ``win_or_tenpai`` — the dealer keeps the deal on a win (also
  one of several rons) or when tenpai at an exhaustive draw (S §27-1,2, M 3-12-3, μ §22);
  ``win`` — only on a win (C-sum); ``none`` — the deal always passes (W 庄家及门风-6). An
  abortive draw keeps the deal (Tenhou). A chombo with ``penalties.chombo_replay`` replays the
  hand: same dealer, same honba (M 7-4-6 "積み棒は増えない", S §53-5).
* **honba**: +1 on renchan, and on any draw where ``game.honba_after_draw`` (S §50-1,
  M 3-13-1); back to 0 on a non-dealer win (S §50-3, M 3-13-4).
* **scores**: the hand's scores (``HandContext.scores``: the riichi sticks put down during the
  hand already taken) plus the settlement's deltas; **deposits**: what the settlement left.
* **end** after the last hand of the last round (``game.rounds`` × ``hands_per_round``; a
  GameStart may override the rounds), without renchan; or at once when a score goes below zero
  where ``game.bust = "end_below_zero"``; or, where ``game.all_last_dealer_stop``, when the
  all-last dealer keeps the deal by a win or by tenpai while sole top (Tenhou's agari-yame /
  tenpai-yame: an abortive draw, which also keeps the deal, never ends the game; with an
  extension target, only once he has reached it); where ``game.extension = "next_wind"`` and
  nobody reached ``extension_target`` at the scheduled end, play goes on into the next wind and
  stops at the first hand end where somebody has reached it, or after that wind (Tenhou's West
  round); where ``game.time_limit = "end_of_hand"``, with the hand during which the session's
  time limit was reached (μ §24(2); ``GameProgress.time_up``, set by the referee's
  ``time_limit`` input).

:func:`standings` gives ranks, final points (leftover deposits included), uma/oka and pt.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rules.errors import RulesError
from rules.evolve import replace
from rules.outcome import HandOutcome
from rules.ruleset import Ruleset
from rules.seats import SEATS, Seat, Wind
from rules.settlement import Settlement
from rules.standings import Standings, compute_standings


class GameFlowError(RulesError, ValueError):
    """A game state that cannot advance (a finished game, a bad start)."""


@dataclass(frozen=True, slots=True)
class GameProgress:
    """Where a game stands between hands.

    ``hand_in_round`` counts from 0 (East 1 = round_wind EAST, hand_in_round 0); ``rounds`` is the
    game's scheduled length in winds (2 = East and South); ``hands_played`` counts every hand
    ended, replays included. ``pt_adjustments`` accumulate pt-only penalties per seat."""

    first_dealer: Seat
    round_wind: Wind
    dealer: Seat
    hand_in_round: int
    honba: int
    deposits: int
    scores: tuple[int, int, int, int]
    pt_adjustments: tuple[float, float, float, float]
    rounds: int
    finished: bool = False
    hands_played: int = 0
    # Why the game ended: "", "last_hand", "bust", "all_last_stop", "extension_target",
    # "extension_end", "time_limit".
    end_reason: str = ""
    # The session's time limit was reached during the current hand (μ §24(2)).
    time_up: bool = False

    @property
    def in_extension(self) -> bool:
        return int(self.round_wind) >= self.rounds

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "game_progress",
            "first_dealer": int(self.first_dealer),
            "round_wind": self.round_wind.mjai,
            "dealer": int(self.dealer),
            "hand_in_round": self.hand_in_round,
            "honba": self.honba,
            "deposits": self.deposits,
            "scores": list(self.scores),
            "pt_adjustments": list(self.pt_adjustments),
            "rounds": self.rounds,
            "finished": self.finished,
            "hands_played": self.hands_played,
            "end_reason": self.end_reason,
            "time_up": self.time_up,
        }


def start_game(
    ruleset: Ruleset,
    first_dealer: Seat,
    scores: tuple[int, int, int, int] | None = None,
    rounds: int | None = None,
) -> GameProgress:
    """A new game: East 1, no honba or deposits, the ruleset's start points unless given."""
    if rounds is not None and not 1 <= rounds <= 4:
        raise GameFlowError(f"rounds must be 1..4 winds, got {rounds!r}")
    start = ruleset.points.start
    return GameProgress(
        first_dealer=first_dealer,
        round_wind=Wind.EAST,
        dealer=first_dealer,
        hand_in_round=0,
        honba=0,
        deposits=0,
        scores=scores if scores is not None else (start, start, start, start),
        pt_adjustments=(0.0, 0.0, 0.0, 0.0),
        rounds=ruleset.game.rounds if rounds is None else rounds,
    )


def _sole_top(scores: tuple[int, int, int, int], seat: Seat) -> bool:
    return all(scores[seat] > scores[s] for s in SEATS if s != seat)


def _renchan(ruleset: Ruleset, progress: GameProgress, outcome: HandOutcome,
             settlement: Settlement) -> tuple[bool, int]:
    """(the dealer keeps the deal, the next honba) after a hand that is not replayed."""
    game, dealer, kind = ruleset.game, progress.dealer, settlement.kind
    if kind == "win":
        renchan = dealer in settlement.winners and game.renchan != "none"
        return renchan, progress.honba + 1 if renchan else 0
    if kind == "exhaustive":
        tenpai = dealer in settlement.tenpai or dealer in outcome.tenpai
        renchan = game.renchan == "win_or_tenpai" and tenpai
        return renchan, progress.honba + 1 if (renchan or game.honba_after_draw) else progress.honba
    if kind == "abortive":
        return game.renchan != "none", progress.honba + 1
    return False, progress.honba  # a chombo that is not replayed: the deal passes [I]


def advance(
    ruleset: Ruleset, progress: GameProgress, outcome: HandOutcome, settlement: Settlement
) -> GameProgress:
    """The game after a settled hand (see the module docstring)."""
    if progress.finished:
        raise GameFlowError("the game has already ended")
    game = ruleset.game
    # The hand's own scores (riichi sticks already taken, HandContext.scores) plus the settlement.
    before = outcome.context.scores
    scores = (
        before[0] + settlement.deltas[0],
        before[1] + settlement.deltas[1],
        before[2] + settlement.deltas[2],
        before[3] + settlement.deltas[3],
    )
    pt = (
        progress.pt_adjustments[0] + settlement.pt_penalties[0],
        progress.pt_adjustments[1] + settlement.pt_penalties[1],
        progress.pt_adjustments[2] + settlement.pt_penalties[2],
        progress.pt_adjustments[3] + settlement.pt_penalties[3],
    )
    after = replace(
        progress,
        scores=scores,
        pt_adjustments=pt,
        deposits=settlement.deposits_after,
        hands_played=progress.hands_played + 1,
    )
    if progress.time_up and game.time_limit == "end_of_hand":
        # μ §24(2): the hand during which the time limit was reached is the last, renchan or
        # a replayed chombo notwithstanding.
        return replace(after, finished=True, end_reason="time_limit")
    dealer = progress.dealer
    kind = settlement.kind
    if kind == "chombo" and settlement.replay:
        # M 7-4-6, S §53-5: the hand is played again, honba unchanged (unless a point penalty
        # took a score below zero where that ends the game).
        if game.bust == "end_below_zero" and any(s < 0 for s in scores):
            return replace(after, finished=True, end_reason="bust")
        return after
    renchan, honba = _renchan(ruleset, progress, outcome, settlement)
    after = replace(after, honba=honba)

    if game.bust == "end_below_zero" and any(s < 0 for s in scores):
        return replace(after, finished=True, end_reason="bust")

    last_round = progress.rounds - 1
    in_extension = progress.in_extension
    all_last = (
        int(progress.round_wind) == last_round
        and progress.hand_in_round == game.hands_per_round - 1
    )
    target = game.extension_target if game.extension == "next_wind" else 0
    reached = max(scores) >= target if game.extension == "next_wind" else True

    if in_extension and game.extension == "next_wind" and reached:
        return replace(after, finished=True, end_reason="extension_target")
    if renchan:
        stop_hand = all_last or (
            in_extension and progress.hand_in_round == game.hands_per_round - 1
        )
        if (
            game.all_last_dealer_stop
            and kind in ("win", "exhaustive")  # agari-yame / tenpai-yame, never an abort
            and stop_hand
            and _sole_top(scores, dealer)
            and scores[dealer] >= target
        ):
            return replace(after, finished=True, end_reason="all_last_stop")
        return after

    # The deal passes.
    hand = progress.hand_in_round + 1
    wind = int(progress.round_wind)
    if hand >= game.hands_per_round:
        hand = 0
        wind += 1
    if in_extension and wind > int(progress.round_wind):
        return replace(after, finished=True, end_reason="extension_end")
    # Past the last scheduled hand the game ends, unless nobody reached the extension target:
    # then play goes on into the next wind (Tenhou's West round).
    extend = game.extension == "next_wind" and not reached and wind < 4
    if not in_extension and wind >= progress.rounds and not extend:
        return replace(after, finished=True, end_reason="last_hand")
    return replace(
        after,
        round_wind=Wind(wind),
        hand_in_round=hand,
        dealer=progress.first_dealer.plus(hand),
    )


def standings(ruleset: Ruleset, progress: GameProgress) -> Standings:
    """Ranks, final points (leftover deposits per ``points.leftover_deposits``), uma/oka and pt
    (see :mod:`rules.standings`). Valid mid-game too (``finished`` tells which)."""
    return compute_standings(
        ruleset,
        progress.scores,
        progress.first_dealer,
        deposits=progress.deposits,
        pt_adjustments=progress.pt_adjustments,
        finished=progress.finished,
    )


__all__ = [
    "GameFlowError",
    "GameProgress",
    "Standings",
    "advance",
    "standings",
    "start_game",
]
