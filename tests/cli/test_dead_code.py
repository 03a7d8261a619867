"""No dead code: ``bin/deadcode`` (vulture, the check of ``make lint``) finds no unused function,
method, class, property or import in the packages, tests and benches, beyond its allow-list."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def _deadcode() -> ModuleType:
    loader = importlib.machinery.SourceFileLoader("deadcode", str(ROOT / "bin" / "deadcode"))
    spec = importlib.util.spec_from_loader("deadcode", loader)
    assert spec is not None
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def test_the_check_finds_an_unused_function_and_an_unused_import(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "a.py").write_text("import json\n\n\ndef used() -> int:\n    return 1\n\n\n"
                              "def forgotten() -> int:\n    return 2\n\n\nprint(used())\n")
    found = _deadcode().findings(tmp_path, ("pkg",))
    assert found == ["pkg/a.py:1: unused import 'json'",
                     "pkg/a.py:8: unused function 'forgotten'"]


def test_the_repository_has_no_dead_code() -> None:
    proc = subprocess.run([sys.executable, str(ROOT / "bin" / "deadcode")], capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
