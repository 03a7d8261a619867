"""``python -m hil.runner``: the command lives in :mod:`hil.cli`."""

import sys

if __name__ == "__main__":
    # hil/cli.py imports both this package and hil.scenario (the scenario runner plays through
    # this one): no import cycle between the two.
    from hil.cli import main

    sys.exit(main())
