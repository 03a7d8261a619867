"""Which (han, fu, win kind) a riichi hand can have: the values a referee may enter by hand.

Below mangan the fu decide the payment, and not every (han, fu) is a hand (M 6-3, S §30, §33,
μ §56). The table, as data per ruleset (:func:`fu_table`):

* **20 fu** only for a concealed pinfu won by tsumo (M 9-1-5, S §33-3): pinfu and menzen tsumo,
  so at least 2 han; never on a ron (a concealed ron adds 10, an open pinfu-shaped ron is 30 fu,
  M 6-3-5);
* **25 fu** only for chiitoitsu (S §30), itself 2 han: from 2 han on a ron, from 3 on a tsumo
  (menzen tsumo comes with it);
* **30 to 100 fu** from 1 han; **110 fu** from 2 han, and at 1 han only on a ron where a
  double-wind pair counts 4 fu (``limits.double_wind_pair_fu``: riichi, two concealed
  terminal kans, a terminal triplet completed by the ron and a double-wind pair come to 102 fu;
  with a 2-fu pair they come to 100). A 1-han tsumo is an open hand (a concealed one has menzen
  tsumo too) and stays at 100 fu at most;
* **120 to 140 fu** only from 3 han (three kans or concealed triplets bring their own yaku);
* from 5 han the fu do not count (M 6-6-2, S §35): any fu given is ignored.

tests/rules/test_hand_values.py checks the table against the ``mahjong`` package for every
riichi ruleset: each entry below 5 han has a witness hand, and no random hand lands outside it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from rules.ruleset import Ruleset

WinKind = Literal["ron", "tsumo"]
#: the fu a hand can be rounded to: 20, 25, then the tens (M 6-3: rounded up to 10, 25 kept)
FU_STEPS: Final = (20, 25, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 130, 140)
#: the fu a console offers (from 120 a hand is worth mangan at the han it needs)
PICKER_FU: Final = FU_STEPS[:11]
MANGAN_HAN: Final = 5


def _min_han(ruleset: Ruleset, kind: WinKind, fu: int) -> int | None:
    """The fewest han a hand of ``fu`` won by ``kind`` has; ``None``: no hand has these fu."""
    match fu:
        case 20:
            return 2 if kind == "tsumo" else None  # M 9-1-5, S §33-3; M 6-3-5
        case 25:
            return 3 if kind == "tsumo" else 2  # S §30: chiitoitsu (+ menzen tsumo)
        case 110:
            four_fu_pair = ruleset.limits.double_wind_pair_fu >= 4
            return 1 if (kind == "ron" and four_fu_pair) else 2
        case 120 | 130 | 140:
            return 3
        case _:
            return 1 if fu in FU_STEPS else None


@dataclass(frozen=True, slots=True)
class FuTable:
    """Per win kind and han below mangan: the fu a hand can have (``fu[kind][han - 1]``)."""

    ruleset: str
    ron: tuple[tuple[int, ...], ...]
    tsumo: tuple[tuple[int, ...], ...]

    def fu(self, kind: WinKind, han: int) -> tuple[int, ...]:
        """The fu a ``kind`` win of ``han`` can have; from 5 han every fu (they do not count)."""
        if han >= MANGAN_HAN:
            return FU_STEPS
        if han < 1:
            return ()
        return (self.ron if kind == "ron" else self.tsumo)[han - 1]

    def to_json(self) -> dict[str, object]:
        return {"ruleset": self.ruleset, "mangan_han": MANGAN_HAN,
                "ron": [list(x) for x in self.ron], "tsumo": [list(x) for x in self.tsumo]}


def fu_table(ruleset: Ruleset) -> FuTable:
    def row(kind: WinKind, han: int) -> tuple[int, ...]:
        return tuple(f for f in FU_STEPS
                     if (m := _min_han(ruleset, kind, f)) is not None and han >= m)

    return FuTable(ruleset=ruleset.name,
                   ron=tuple(row("ron", h) for h in range(1, MANGAN_HAN)),
                   tsumo=tuple(row("tsumo", h) for h in range(1, MANGAN_HAN)))


def impossible(ruleset: Ruleset, kind: WinKind, han: int, fu: int) -> str | None:
    """Why no hand is worth ``han`` han ``fu`` fu won by ``kind`` (``None``: some hand is)."""
    if han >= MANGAN_HAN:
        return None
    if fu in fu_table(ruleset).fu(kind, han):
        return None
    if fu not in FU_STEPS:
        return f"no {kind} is {han} han {fu} fu: fu are 20, 25 or a multiple of 10 up to 140"
    least = _min_han(ruleset, kind, fu)
    why = {
        20: "20 fu is a concealed pinfu won by tsumo, 2 han at least (pinfu + menzen tsumo)",
        25: "25 fu is chiitoitsu: 2 han at least, 3 on a tsumo (+ menzen tsumo)",
    }.get(fu, f"{fu} fu needs {least} han at least")
    if fu == 20 and kind == "ron":
        why = "20 fu is never a ron (a concealed ron adds 10 fu, an open pinfu ron is 30 fu)"
    elif fu == 110 and han == 1:
        why = ("a 1-han tsumo is an open hand: 100 fu at most" if kind == "tsumo" else
               "110 fu at 1 han only where a double-wind pair counts 4 fu (here"
               f" {ruleset.limits.double_wind_pair_fu})")
    return f"no {kind} is {han} han {fu} fu: {why}"


__all__ = ["FU_STEPS", "MANGAN_HAN", "PICKER_FU", "FuTable", "WinKind", "fu_table", "impossible"]
