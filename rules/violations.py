"""The violation catalogue: every rule breach the hand reducer detects, with a stable code, what
it means, the articles of each rulebook (notation of RULESETS.md) and the sanction applied.

Sanctions (the ``sanction`` field of a ``violation`` event):

* ``rejected`` — the input is refused; the state is unchanged (the physical action is undone, or
  the referee decides; see docs/rules-engine.md);
* ``recorded`` — the input is applied as it happened and the breach is kept open for the referee;
* ``dead_hand`` — the input is applied and the seat loses the right to win, call or riichi for the
  rest of the hand: the ruleset's ``penalties.dead_hand`` (agari houki M 7-2, 停和 S §55 / μ §70,
  相公 W); the event's sanction names it, e.g. ``dead_hand:agari_houki``;
* ``dead_hand_rejected`` — the input is refused (the tile goes back) *and* the seat's hand is dead
  (M 3-4-8: another player took the dealer's draw);
* ``penalty_tiles_rejected`` — the input is refused and the tiles the seat showed lie face up as
  penalty tiles, its hand alive (W 错鸣-6: a false win where ``penalties.false_win_exposes``);
* ``chombo`` — the hand ends with a chombo by the seat (S §54, M 7-4, μ §68);
* ``treated_noten`` — a tenpai declaration that the known tiles refute counts as noten.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from rules.ruleset import Ruleset

Sanction = Literal[
    "rejected", "recorded", "dead_hand", "dead_hand_rejected", "penalty_tiles_rejected", "chombo",
    "treated_noten",
]


@dataclass(frozen=True, slots=True)
class Entry:
    code: str
    what: str
    sanction: Sanction
    # Articles per rulebook notation ("S", "C", "M", "μ", "W", "T"; "G" = table-geometry.md,
    # "E" = engineering rule of the engine itself).
    articles: tuple[tuple[str, str], ...]


def _e(code: str, what: str, sanction: Sanction, **articles: str) -> Entry:
    keys = {"mu": "μ"}
    return Entry(code, what, sanction, tuple((keys.get(k, k), v) for k, v in articles.items()))


CATALOGUE: dict[str, Entry] = {
    e.code: e
    for e in (
        # --- game and hand flow -------------------------------------------------------------
        _e("no_game", "an input before any game started", "rejected", E="engine: GameStart first"),
        _e("unknown_ruleset", "GameStart names no loadable ruleset", "rejected",
           E="RULESETS.md §6"),
        _e("game_in_progress", "GameStart while a game is running", "rejected",
           E="engine: end_game first"),
        _e("game_over", "a hand started after the game ended", "rejected",
           S="S §27-6", M="M 1-1", T="RULESETS.md §7"),
        _e("hand_in_progress", "HandStart while a hand is being played", "rejected",
           E="engine: one hand at a time"),
        _e("progress_mismatch", "HandStart names a dealer, round, honba, deposit or score that "
           "differs from the game's", "recorded", M="M 3-5", S="S §45-14"),
        _e("out_of_phase", "an input that cannot happen at this point of the hand", "rejected",
           S="S §28-3", M="M 3-4-3", mu="μ §14", W="W 配牌"),
        _e("bad_input", "an input whose values cannot be used", "rejected",
           E="docs/inputs.md"),
        _e("internal_error", "the engine failed on this input (a bug: report it); the input is "
           "refused and the table keeps running", "rejected", E="engineering.md Bad input"),
        # --- dice, break, indicators --------------------------------------------------------
        _e("dice_wrong_seat", "the dice rolled by the wrong seat", "rejected",
           S="S §28-3(3)", mu="μ §14(1)", W="W 开门-1,2", G="table-geometry.md Dice"),
        _e("dice_extra_roll", "more rolls than the ruleset's break method takes", "rejected",
           S="S §28-3(3)", mu="μ §14(1)", W="W 开门-1,2", M="M 3-4-2"),
        _e("break_wrong_seat", "the wall opened at another seat than the dice call for",
           "recorded", S="S §11, §3", mu="μ §14(2), §5", W="W 开门-3,4", M="M 3-4-2",
           G="table-geometry.md The ring"),
        _e("break_wrong_count", "the wall opened with another count of stacks than the dice",
           "recorded", S="S §11", mu="μ §14(2)", W="W 开门-3,4", M="M 3-4-2",
           G="table-geometry.md The ring"),
        _e("break_before_dice", "the wall opened before the dice were rolled", "recorded",
           S="S §28-3", mu="μ §14", W="W 开门-1"),
        _e("indicator_wrong_position", "a dora indicator turned at another position",
           "recorded", S="S §24-2,5", M="M 2-6-2,6", mu="μ §16",
           G="table-geometry.md Dead wall"),
        _e("indicator_wrong_tile", "the indicator is not the tile the known wall holds there",
           "recorded", S="S §24-2", M="M 2-6-1", mu="μ §16"),
        _e("indicator_not_in_ruleset", "an indicator turned that the ruleset does not turn "
           "(no dora, no kan dora, or more than one per kan): it does not count", "rejected",
           S="S §24-5", M="M 2-6-2", mu="μ §16", W="W 王牌与海底牌", T="RULESETS.md §7"),
        _e("indicator_early", "a kan indicator turned before its moment (after the kan "
           "player's next discard for this ruleset)", "recorded", T="RULESETS.md §7",
           S="S §24-5", M="M 4-5-5"),
        _e("indicator_missing", "play went on without an indicator that was due", "recorded",
           S="S §24-2,5, §43-10,13,15", M="M 2-6-6, 4-5-5", mu="μ §16", T="RULESETS.md §7"),
        _e("indicator_after_chankan", "a kan indicator turned for a kan that was robbed: it does "
           "not count", "rejected", S="S §43-8", M="M 4-5-5, 9-1-3"),
        _e("wrong_tile_drawn", "a drawn tile that is not the next tile of the known wall",
           "recorded", S="S §55-3", M="M 3-4-8", mu="μ §70(4)"),
        # --- turn order ---------------------------------------------------------------------
        _e("draw_out_of_turn", "a draw by a seat whose turn it is not", "dead_hand_rejected",
           S="S §55-3", M="M 3-4-8", mu="μ §70(4)", W="W 摸打-1"),
        _e("early_draw", "先自摸: a draw before the previous discard was complete",
           "dead_hand_rejected", S="S §55-3, §35-2", M="M 7-2, 3-8-3", mu="μ §70",
           W="W 摸打-1"),
        _e("draw_twice", "a draw by a seat that holds its 14 tiles (多牌)", "dead_hand_rejected",
           S="S §55-3", M="M 7-2", mu="μ §70", W="W 相公"),
        _e("discard_without_draw", "a discard without the turn's draw: the seat plays short "
           "(少牌)", "dead_hand", M="M 3-4-7, 7-2", W="W 摸打-3", S="S §55-3", mu="μ §70"),
        _e("discard_out_of_turn", "a discard by a seat whose turn it is not", "rejected",
           S="S §55-1,2", M="M 3-8-3", mu="μ §70", W="W 摸打-3"),
        _e("must_draw_rinshan", "after a kan the replacement tile is drawn, not a live tile",
           "rejected", S="S §43-10,13,15", M="M 2-5", mu="μ §27", W="W 开杠-7"),
        _e("rinshan_without_kan", "a replacement draw without a kan", "rejected",
           S="S §12-2", M="M 2-5", W="W 开杠-7"),
        # --- tiles --------------------------------------------------------------------------
        _e("tile_not_in_hand", "a tile discarded or shown that the seat does not hold",
           "rejected", S="S §55-3", M="M 7-2", mu="μ §70"),
        _e("tile_in_two_places", "one physical tile reported in two places", "rejected",
           S="S §2", M="M 1-2-1", mu="μ §1", W="W 牌的构成-1"),
        _e("fifth_copy", "a fifth tile of a kind", "rejected",
           S="S §2", M="M 1-2-1", mu="μ §1", W="W 牌的构成-1"),
        _e("wrong_hand_size", "多牌/少牌: a hand of the wrong size", "dead_hand",
           S="S §55-3", M="M 7-2", mu="μ §70", W="W 相公"),
        # --- calls --------------------------------------------------------------------------
        _e("no_discard_to_claim", "a call or ron with no claimable discard", "rejected",
           S="S §40", M="M 4-2", mu="μ §33", W="W 鸣牌优先"),
        _e("claim_taken", "a call on a discard another seat's call already took (only a ron "
           "keeps priority until the caller discards)", "rejected", W="W 鸣牌优先-4",
           S="S §40-3", M="M 4-2-2", mu="μ §26(1)"),
        _e("call_own_discard", "a seat calls its own discard", "rejected",
           S="S §40", M="M 4-2", mu="μ §33"),
        _e("call_after_draw", "a call after the next player drew", "rejected",
           S="S §45-3", M="M 3-8-2", W="W 摸打-4"),
        _e("chi_not_from_left", "chi from a seat other than the left one", "rejected",
           S="S §41", M="M 4-3", mu="μ §26", W="W 吃牌", G="table-geometry.md Turn order"),
        _e("call_on_houtei", "a call other than ron on the houtei tile", "rejected",
           S="S §40-5", M="M 2-4", mu="μ §34", W="W 王牌与海底牌-4"),
        _e("call_bad_tiles", "the shown tiles do not make the called set", "rejected",
           S="S §55-3", M="M 7-2", mu="μ §70", W="W 错鸣"),
        _e("call_loses_to_ron", "a pon/chi/kan declared while a ron on the same tile is "
           "pending", "rejected", S="S §40-3", M="M 4-2-1", mu="μ §33", W="W 鸣牌优先-2"),
        _e("call_in_riichi", "a chi, pon or daiminkan after riichi", "rejected",
           S="S §39-8", M="M 4-8", mu="μ §51(10)"),
        _e("dead_hand_call", "a call, riichi or win by a seat whose hand is dead", "rejected",
           S="S §55", M="M 7-2, 7-3", mu="μ §70, §72", W="W 相公"),
        _e("kuikae", "食替: a discard the call forbids (the called kind, or the other end of "
           "the chi)", "dead_hand", S="S §40-6, §55-3", M="M 7-2-2(3)"),
        # --- kans ---------------------------------------------------------------------------
        _e("fifth_kan", "a kan beyond the ruleset's maximum", "rejected",
           S="S §43-5,6", M="M 4-5-4", mu="μ §29"),
        _e("kan_after_haitei", "a kan with no live tile left (the haitei drawn)", "rejected",
           S="S §43-6", M="M 2-3", mu="μ §34", W="W 王牌与海底牌-3"),
        _e("kan_bad_tiles", "the kan's tiles are not four of a kind / no pon to add to",
           "rejected", S="S §43", M="M 4-5", mu="μ §27", W="W 开杠"),
        _e("kan_after_riichi", "a kan after riichi that the ruleset forbids", "rejected",
           S="S §43-11", C="C-sum (no ankan after riichi)", M="M 4-5-2, 4-8-8",
           mu="μ §51(10)", T="RULESETS.md §7"),
        _e("kan_not_in_turn", "an ankan or kakan outside the seat's own turn", "rejected",
           S="S §43-10,13", M="M 4-5", mu="μ §27"),
        # --- riichi -------------------------------------------------------------------------
        _e("riichi_not_in_ruleset", "riichi in a ruleset without riichi", "rejected",
           W="W 和牌-5"),
        _e("riichi_open_hand", "riichi with an open hand", "rejected",
           S="S §39-3", M="M 4-8-1", mu="μ §37"),
        _e("riichi_twice", "riichi by a seat already in riichi", "rejected",
           S="S §39-2", M="M 4-8-6"),
        _e("riichi_too_late", "riichi with fewer live tiles left than the ruleset allows",
           "rejected", S="S §39-4,5", M="M 4-8-3", T="RULESETS.md §7"),
        _e("riichi_no_points", "riichi without the points for the deposit", "rejected",
           S="S §39-1(4), §39-13", T="RULESETS.md §7"),
        _e("riichi_furiten", "a furiten riichi where the ruleset forbids it", "rejected",
           S="S §39-4", M="M 4-8-3"),
        _e("riichi_discard_not_drawn", "after riichi, a discard other than the drawn tile",
           "rejected", S="S §39-8", M="M 4-8-7", mu="μ §51(10)"),
        _e("noten_riichi", "a riichi hand noten at the draw", "chombo",
           S="S §54-1", M="M 7-4-1", mu="μ §68"),
        # --- wins ---------------------------------------------------------------------------
        _e("tsumo_not_in_turn", "tsumo by a seat that has not just drawn", "rejected",
           S="S §45", M="M 5-1", mu="μ §62"),
        _e("ron_own_discard", "ron on one's own discard", "rejected",
           S="S §45", M="M 5-1", mu="μ §62"),
        _e("false_win", "a declared win whose known tiles are not a complete hand", "rejected",
           S="S §54-1", M="M 7-4-1", mu="μ §68", W="W 错鸣-6"),
        _e("furiten_ron", "ron while furiten (own discards, same go-around, or after riichi)",
           "rejected", S="S §51, §39-9", M="M 5-5", mu="μ §63, §64"),
        _e("chankan_of_ankan", "ron on an ankan without kokushi, or where no hand may rob "
           "an ankan", "rejected", S="S-sum", M="M 4-5-6", mu="μ §51(6)", W="W 抢杠-3",
           T="RULESETS.md §7"),
        _e("penalty_tile_call", "a chi, pon or kan that would expose a penalty tile (罚张)",
           "rejected", W="W 罚张-3,5"),
        _e("penalty_tile_win", "a ron by Thirteen Terminals on the kind of a penalty tile, or "
           "with two penalty tiles or more", "rejected", W="W 罚张-4"),
        _e("head_bump_after_shown", "a ron that would head-bump a winner who has already "
           "shown the hand", "rejected", S="S §45-4"),
        _e("win_not_shown", "the hand cannot end before the winning hand is shown (WinShown) "
           "or a manual value is entered", "rejected", E="engine: a win must be scorable"),
        _e("win_shown_mismatch", "WinShown differs from the tiles the engine knows", "recorded",
           S="S §45-12", M="M 5-3"),
        # --- draws --------------------------------------------------------------------------
        _e("exhaustive_too_early", "an exhaustive draw with live tiles left or before the "
           "houtei discard passed", "rejected", S="S §52-1", mu="μ §19(2)",
           W="W 王牌与海底牌-6", M="M 3-11-1"),
        _e("abortive_not_in_ruleset", "an abortive draw the ruleset does not have", "rejected",
           S="S-sum", M="M 3-2-3, 3-11-1", mu="μ §19", T="RULESETS.md §7"),
        _e("abortive_conditions", "an abortive draw whose conditions do not hold", "rejected",
           T="RULESETS.md §7"),
        _e("false_tenpai", "a tenpai declaration that the known tiles refute", "treated_noten",
           S="S §55 (小错和, play continues)", M="M 3-11-2,4", mu="μ §71"),
        # --- referee ------------------------------------------------------------------------
        _e("referee_bad_args", "a referee action with missing or wrong arguments", "rejected",
           E="docs/inputs.md referee"),
        _e("impossible_hand_value", "a referee's han and fu that no hand has for that win kind"
           " (20 fu ron, 1 han 20 fu, 25 fu below chiitoitsu's 2 han ...)", "rejected",
           M="M 6-3, 9-1-5", S="S §30, §33-3", mu="μ §56", E="rules/scoring/hand_values.py"),
        _e("undo_not_possible", "undo_last with no referee action that can be undone",
           "rejected", E="docs/rules-engine.md undo_last"),
    )
}


#: per code: its articles by notation, and what is cited where the ruleset's notation has none
#: (worked out once: every violation of every input names its article)
_ARTICLES: dict[str, dict[str, str]] = {c: dict(e.articles) for c, e in CATALOGUE.items()}
_ANY_ARTICLE: dict[str, str] = {
    c: arts["E"] if "E" in arts and len(arts) == 1
    else "; ".join(v for k, v in CATALOGUE[c].articles if k != "E") or arts.get("E", "")
    for c, arts in _ARTICLES.items()
}


def article_for(ruleset: Ruleset | None, code: str) -> str:
    """The article to cite for ``code`` under ``ruleset`` (its own rulebook's, then the one its
    variant departs from, else all)."""
    arts = _ARTICLES[code]
    if ruleset is not None:
        meta = ruleset.meta
        for notation in (meta.notation, meta.base_notation):
            if notation is not None and notation in arts:
                return arts[notation]
    return _ANY_ARTICLE[code]


def sanction_for(ruleset: Ruleset | None, code: str) -> str:
    """The sanction string: ``dead_hand`` names the ruleset's kind (``dead_hand:tinghe``)."""
    s = CATALOGUE[code].sanction
    if code == "false_win" and ruleset is not None and ruleset.penalties.false_win_exposes:
        return "penalty_tiles_rejected"  # W 错鸣-6: refused, the shown tiles become 罚张
    if s in ("dead_hand", "dead_hand_rejected") and ruleset is not None:
        return f"{s}:{ruleset.penalties.dead_hand}"
    return s
