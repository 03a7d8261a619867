"""``jantaku`` for the daemon tests' subprocesses: the real CLI, with the tests' engine choice
(daemon_kit.engine: the real rules.reducer)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import daemon_kit

import daemon.engine
from daemon.cli import main

daemon.engine.load_engine = daemon_kit.engine

if __name__ == "__main__":
    sys.exit(main())
