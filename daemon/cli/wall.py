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

EPILOG = """\
output keys: ruleset, dealer, winds (seat -> wind), break {seat, count}, ring (the 136 wall
  positions {seat, stack, layer} in drawing order from the break), deal (seat -> ring indices of
  its 13 starting tiles), first_draw, haitei, dora_indicators, ura_indicators, rinshan (ring
  indices; haitei moves back one per kan).
rolls: one roll for every ruleset but wmc (the dealer's, S §28-3(3), μ §14; for mleague the
  table's own roll, M 3-4-2); wmc takes two, the dealer's then the breaker's (W 开门-1..4).

examples:
  jantaku wall --ruleset mleague --dealer 0 --dice 3 4
  jantaku wall --ruleset wmc --dealer 2 --dice 5 6 --dice 1 2 --kans 1
"""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        print(f"jantaku wall: {message}", file=sys.stderr)
        raise SystemExit(2)


def main(argv: Sequence[str]) -> int:
    parser = _Parser(prog="jantaku wall", epilog=EPILOG,
                     formatter_class=argparse.RawDescriptionHelpFormatter,
                     description="The wall geometry for a dealer and dice, as one JSON object on\n"
                                 "stdout. Bad arguments exit 2 with a one-line error.")
    parser.add_argument("--ruleset", required=True, metavar="NAME",
                        help="ruleset name (jantaku rulesets lists them), e.g. mleague")
    parser.add_argument("--dealer", required=True, type=int, metavar="D",
                        help="the dealer's seat, 0..3 (seat 0 is the first dealer's chair)")
    parser.add_argument("--dice", required=True, action="append", nargs=2, type=int,
                        metavar=("A", "B"),
                        help="one roll, two dice 1..6; give it twice for two-roll rulesets "
                             "(the dealer's roll, then the breaker's)")
    parser.add_argument("--kans", type=int, default=0, metavar="K",
                        help="kans declared so far, 0..4 (moves haitei; default 0)")
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
