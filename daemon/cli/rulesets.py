"""``jantaku rulesets``: list the builtin rulesets; ``jantaku rulesets show NAME`` prints one's
resolved values (after ``extends``) as TOML-like JSON."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence


def main(argv: Sequence[str]) -> int:
    from rules.ruleset import BUILTIN, RulesetError, load_ruleset

    args = list(argv)
    if not args or args == ["list"]:
        for name in BUILTIN:
            try:
                rs = load_ruleset(name)
            except RulesetError as exc:
                print(f"{name:<20} ERROR {exc}")
                continue
            print(f"{name:<20} {rs.meta.title}")
        return 0
    if args[0] == "show" and len(args) == 2:
        rs = load_ruleset(args[1])  # a RulesetError: one line, exit 2 (daemon.cli)
        print(json.dumps(rs.to_dict(), indent=2, ensure_ascii=False))
        return 0
    print("usage: jantaku rulesets [list] | jantaku rulesets show NAME|FILE.toml", file=sys.stderr)
    return 2
