"""``jantaku rulesets``: list the builtin rulesets; ``jantaku rulesets show NAME`` prints one's
resolved values (after ``extends``) as TOML-like JSON."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

PROG = "jantaku rulesets"
EPILOG = """examples:
  jantaku rulesets
  jantaku rulesets show mleague
"""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        print(f"{self.prog}: {message}", file=sys.stderr)
        raise SystemExit(2)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, description="list the builtin rulesets, or show one's resolved "
                     "values (after extends)", epilog=EPILOG,
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="cmd", parser_class=_Parser)
    sub.add_parser("list", help="the builtin rulesets with their titles (the default)")
    show = sub.add_parser("show", help="one ruleset's resolved values as JSON")
    show.add_argument("ruleset", metavar="NAME|FILE.toml",
                      help="a builtin ruleset's name or a ruleset TOML file")
    return parser


def main(argv: Sequence[str]) -> int:
    from rules.ruleset import BUILTIN, RulesetError, load_ruleset

    args = _parser().parse_args(list(argv))
    if args.cmd in (None, "list"):
        for name in BUILTIN:
            try:
                rs = load_ruleset(name)
            except RulesetError as exc:
                print(f"{name:<20} ERROR {exc}")
                continue
            print(f"{name:<20} {rs.meta.title}")
        return 0
    rs = load_ruleset(args.ruleset)  # a RulesetError: one line, exit 2 (daemon.cli)
    print(json.dumps(rs.to_dict(), indent=2, ensure_ascii=False))
    return 0
