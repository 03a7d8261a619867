"""``jantaku wall``: the wall geometry for a dealer and dice, as one JSON object.

Stable contract: ``jantaku wall --ruleset NAME --dealer D --dice A B [--dice A B] [--kans K]``
prints keys ``break``, ``ring``, ``deal``, ``first_draw``, ``haitei``, ``dora_indicators``,
``ura_indicators``, ``rinshan`` (plus ``ruleset``, ``dealer`` and ``winds``). Bad arguments exit 2
with a one-line error.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        print(f"jantaku wall: {message}", file=sys.stderr)
        raise SystemExit(2)


def main(argv: Sequence[str]) -> int:
    parser = _Parser(prog="jantaku wall", description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--ruleset", required=True)
    parser.add_argument("--dealer", required=True, type=int)
    parser.add_argument("--dice", required=True, action="append", nargs=2, type=int,
                        metavar=("A", "B"))
    parser.add_argument("--kans", type=int, default=0)
    args = parser.parse_args(list(argv))

    from rules.ruleset import RulesetError, load_ruleset
    from rules.seats import Seat
    from rules.wall import WallError, wall_report

    try:
        ruleset = load_ruleset(args.ruleset)
        dealer = Seat.of(args.dealer)
        report = wall_report(ruleset, dealer, tuple(tuple(d) for d in args.dice), args.kans)
    except (RulesetError, WallError, ValueError) as exc:
        print(f"jantaku wall: {str(exc).splitlines()[0]}", file=sys.stderr)
        return 2
    sys.stdout.write(json.dumps(report, separators=(",", ":")) + "\n")
    return 0
