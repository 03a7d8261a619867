"""Refusals in plain words for the referee console: what rule stopped the action and what to do
(docs/console.md "Refusals"). The engine's code and article stay beside the sentence, so a
referee can quote them in a protest."""

from __future__ import annotations

from typing import Any, Final

from rules.violations import CATALOGUE

SEAT_WORD: Final = ("seat 0", "seat 1", "seat 2", "seat 3")
Row = dict[str, Any]  # a violation event's data

#: code -> (what happened, what to do); ``{expected}``/``{actual}``/``{seat}`` are filled in
PLAIN: Final[dict[str, tuple[str, str]]] = {
    "no_game": ("No game is running.", "Start one in the Game tab."),
    "game_over": ("The game is over.", "Download the standings, or start a new game."),
    "game_in_progress": ("A game is still running.", "End it in the Game tab first."),
    "hand_in_progress": ("A hand is being played.", "Record its result first."),
    "out_of_phase": ("That cannot be done at this point of the hand ({actual}).",
                     "Check the hand's step at the top of the page."),
    "referee_bad_args": ("The entry does not fit: {expected} was needed, {actual} was given.",
                         "Correct the entry and preview again."),
    "abortive_not_in_ruleset": (
        "This ruleset has no abortive draw of that kind ({actual}); it has: {expected}.",
        "Record an exhaustive draw, or let the hand be played on."),
    "abortive_conditions": ("The conditions of that abortive draw do not hold ({actual}).",
                            "Check what happened at the table."),
    "false_win": ("That value does not score: {actual}.",
                  "Check the han and fu against the hand."),
    "impossible_hand_value": ("No hand is worth that: {actual}.",
                              "Pick one of the fu the picker offers for this han and win kind."),
    "undo_not_possible": ("There is nothing to undo: {actual} ({expected} needed).",
                          "Correct the scores in the Scores tab instead."),
    "win_not_shown": ("The winning hand has not been shown yet.", "Enter its value first."),
    "unknown_ruleset": ("The table cannot load that ruleset.", "Pick one from the list."),
}


def _fill(text: str, v: Row) -> str:
    seat = v.get("seat")
    return text.format(
        expected=_show(v.get("expected")),
        actual=_show(v.get("actual")),
        seat=SEAT_WORD[seat] if isinstance(seat, int) and 0 <= seat <= 3 else "a seat",
    )



def _show(x: Any) -> str:
    if isinstance(x, list):
        return ", ".join(str(i) for i in x) if x else "none"
    if x is None:
        return "nothing"
    return str(x)


def plain(v: Row) -> str:
    """One refusal (a violation event's data) as a sentence for the referee."""
    code = str(v.get("code", ""))
    what, todo = PLAIN.get(code, ("", ""))
    if not what:
        entry = CATALOGUE.get(code)
        what = (entry.what[:1].upper() + entry.what[1:] + ".") if entry else f"Refused ({code})."
        todo = "Check the entry against what happened at the table."
    seat = v.get("seat")
    who = f" ({SEAT_WORD[seat]})" if isinstance(seat, int) and 0 <= seat <= 3 else ""
    article = v.get("article")
    rule = f" Rule: {article}." if article else ""
    return f"{_fill(what, v)}{who}{rule} {_fill(todo, v)} [{code}]"
