"""Where the installed ``jantaku`` command is, wherever this clone and its venv live.

The console script is installed beside the interpreter that runs the tests (``.venv/bin/``); a
system-wide install puts it on ``PATH`` instead. Never a path of the developer's checkout.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path


def jantaku_command() -> str:
    beside = Path(sys.executable).with_name("jantaku")
    if beside.is_file():
        return str(beside)
    found = shutil.which("jantaku")
    if found is None:
        raise FileNotFoundError(
            f"no jantaku console script beside {sys.executable} nor on PATH: run `make setup`"
        )
    return found
