"""The `jantaku` console command.

Each subcommand lives in its own module under `daemon.cli` and is imported only when it runs, so
that quick commands (`jantaku wall`) start fast. An error of the tree rooted at
:class:`rules.errors.JantakuError` that a command does not handle itself is caught here, once:
one line on stderr (``jantaku COMMAND: message``), exit 2. A reader that closes the pipe early
(``jantaku rulesets | head -1``) ends the command quietly, as it ends ``ls`` or ``cat``.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Sequence

#: subcommand -> (module under daemon.cli, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "rulesets": ("rulesets", "list rulesets, or show one's resolved values"),
    "wall": ("wall", "wall geometry for a dealer and dice: break, ring, deal, dead wall"),
    "replay": ("replay", "replay an mjai or tenhou.net/6 record through the rules engine"),
    "export": ("export", "write a hand history as mjai JSONL or tenhou.net/6 JSON"),
    "link": ("link", "table-link protocol analyzer: encode/decode frames"),
    "tiles": ("tiles", "tile sensors: RFID enrolment, camera detection"),
    "timers": ("timers", "WMC timers: replay a hand's timing for a protest review"),
    "run": ("run", "run the table daemon with a config file"),
    "status": ("status", "show the daemon's health: links, broker, outbox, last event"),
    "log": ("log", "event log tools: export a game"),
    "demo": ("demo", "run the daemon against the built-in table simulator, with the overlay"),
    "referee": ("referee", "send referee commands to a table"),
    "follow": ("follow", "print a table's events once each in seq order, gaps filled from its log"),
}


#: the exit status of a command killed by SIGPIPE (128 + 13), as a shell reports it
BROKEN_PIPE = 141


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("jantaku")
    except PackageNotFoundError:  # a checkout run without an install
        return "unknown (not installed)"


def _usage() -> str:
    lines = ["usage: jantaku COMMAND [ARGS...]", "       jantaku --version", "", "commands:"]
    for name, (_, text) in COMMANDS.items():
        lines.append(f"  {name:<10} {text}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    try:
        code = _main(list(sys.argv[1:] if argv is None else argv))
        sys.stdout.flush()  # a closed pipe shows here, not at the interpreter's exit
    except BrokenPipeError:
        # The reader went away (``| head``): nothing more to say. Python would flush stdout
        # again at exit and print "Exception ignored"; point it at /dev/null (Python docs,
        # "Note on SIGPIPE").
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return BROKEN_PIPE
    return code


def _main(args: list[str]) -> int:
    if args in (["--version"], ["-V"]):
        print(f"jantaku {_version()}")
        return 0
    if not args or args[0] in ("-h", "--help", "help"):
        print(_usage())
        return 0 if args else 2
    name, rest = args[0], args[1:]
    if name not in COMMANDS:
        print(f"jantaku: unknown command {name!r} (try 'jantaku --help')", file=sys.stderr)
        return 2
    module_name, _ = COMMANDS[name]
    try:
        module = importlib.import_module(f"daemon.cli.{module_name}")
    except ModuleNotFoundError as exc:
        if exc.name == f"daemon.cli.{module_name}":
            print(f"jantaku: command {name!r} is not available in this build", file=sys.stderr)
            return 2
        raise
    from rules.errors import JantakuError

    try:
        result: int = module.main(rest)
    except JantakuError as exc:
        # Every error jantaku raises on purpose (docs/engineering.md "Exceptions"): its first
        # line, exit 2. Anything else is a bug and keeps its traceback.
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        print(f"jantaku {name}: {first}", file=sys.stderr)
        return 2
    return result


if __name__ == "__main__":
    sys.exit(main())
