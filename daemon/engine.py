"""The rules engine as the daemon sees it: ``new_table``, ``reduce`` and the state's ``view``
(the view model: a JSON dict; a pickled state is a *checkpoint*, daemon/eventlog.py).

The daemon takes an :class:`Engine` as a parameter (tests and tools may pass another reducer with
the same contract); :func:`load_engine` gives the real one, ``rules.reducer``.
"""

from __future__ import annotations

import hashlib
import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rules.events import Event
from rules.inputs import Input
from rules.table_state import TableState
from rules.table_view import table_view

Reduce = Callable[[TableState, Input], tuple[TableState, tuple[Event, ...]]]


@dataclass(frozen=True, slots=True)
class Engine:
    new_table: Callable[[], TableState]
    reduce: Reduce
    #: A digest of the code that gives the reducer its meaning: checkpoints made by other code
    #: are ignored (full replay), so an upgrade never resumes from a state it cannot read.
    code: str

    @staticmethod
    def view(state: TableState) -> dict[str, Any]:
        return table_view(state)


def code_digest(*packages: str) -> str:
    """SHA-256 over the ``.py`` and ``.toml`` files of the given packages (sorted by path)."""
    digest = hashlib.sha256()
    for name in packages:
        module = importlib.import_module(name)
        root = Path(module.__file__ or "").parent
        for path in sorted(p for p in root.rglob("*") if p.suffix in (".py", ".toml")):
            digest.update(str(path.relative_to(root)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:32]


def load_engine() -> Engine:
    """The real rules engine (``rules.reducer``)."""
    module = importlib.import_module("rules.reducer")
    return Engine(
        new_table=module.new_table,
        reduce=module.reduce,
        code=code_digest("rules", "daemon"),
    )
