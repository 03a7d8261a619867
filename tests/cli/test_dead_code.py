"""No dead code: ``bin/deadcode`` (vulture and a pass over same-named methods, the check of
``make lint``) finds no unused function, method, class, property or import in the packages, tests
and benches, beyond its allow-list; a production definition only tests use is dead too."""

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
    sys.modules["deadcode"] = mod  # its dataclasses look their module up
    loader.exec_module(mod)
    return mod


def test_the_check_finds_an_unused_function_and_an_unused_import(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "a.py").write_text("import json\n\n\ndef used() -> int:\n    return 1\n\n\n"
                              "def forgotten() -> int:\n    return 2\n\n\nprint(used())\n")
    found = _deadcode().findings(tmp_path, ("pkg",), ())
    assert found == ["pkg/a.py:1: unused import 'json'",
                     "pkg/a.py:8: unused function 'forgotten'"]


def _tree(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def test_a_production_function_only_a_test_calls_is_dead(tmp_path: Path) -> None:
    _tree(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/a.py": "def used() -> int:\n    return 1\n\n\ndef tested() -> int:\n    return 2\n\n\n"
                    "print(used())\n",
        "tests/test_a.py": "from pkg.a import tested\n\n\ndef helper() -> int:\n"
                           "    return tested()\n\n\ndef test_it() -> None:\n"
                           "    assert helper() == 2\n",
    })
    found = _deadcode().findings(tmp_path, ("pkg",), ("tests",))
    # the test's own helper is used (by the test), the production function is not
    assert found == ["pkg/a.py:5: unused function 'tested'"]


def test_a_kit_module_production_imports_is_a_user(tmp_path: Path) -> None:
    _tree(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/a.py": "def run() -> int:\n    return 1\n\n\ndef main() -> None:\n"
                    "    from kit.emu import go\n    go()\n\n\nmain()\n",
        "kit/__init__.py": "",
        "kit/emu.py": "from pkg.a import run\n\n\ndef go() -> int:\n    return run()\n",
    })
    assert _deadcode().findings(tmp_path, ("pkg",), ("kit",)) == []


def test_the_test_kit_keeps_nothing_alive_though_the_demo_imports_it(tmp_path: Path) -> None:
    """hil/kit.py is imported by the product (the demo takes its free_port) but is the tests'
    kit: a production function only a kit step calls is dead all the same."""
    _tree(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/a.py": "def kept() -> int:\n    return 1\n\n\ndef main() -> None:\n"
                    "    from hil.kit import free_port\n    print(free_port())\n\n\nmain()\n",
        "hil/__init__.py": "",
        "hil/kit.py": "from pkg.a import kept\n\n\ndef free_port() -> int:\n    return 0\n\n\n"
                      "def step() -> int:\n    return kept()\n",
        "tests/test_k.py": "from hil.kit import step\n\n\ndef test_it() -> None:\n"
                           "    assert step() == 1\n",
    })
    assert _deadcode().findings(tmp_path, ("pkg",), ("hil", "tests")) == [
        "pkg/a.py:1: unused function 'kept'"]


def test_a_method_is_not_kept_alive_by_another_class_method_of_its_name(tmp_path: Path) -> None:
    _tree(tmp_path, {
        "pkg/a.py": (
            "class Core:\n    def submit(self) -> int:\n        return 1\n\n"
            "    def step(self) -> int:\n        return 2\n\n\n"
            "class Intake:\n    def __init__(self, core: Core) -> None:\n"
            "        self.core = core\n\n"
            "    def submit(self) -> int:\n        return self.core.step()\n\n\n"
            "def unknown(x):  # an unannotated receiver may be either: it keeps both\n"
            "    return x.step()\n\n\n"
            "intake: Intake = Intake(Core())\nprint(intake.submit(), unknown(intake))\n"),
    })
    assert _deadcode().findings(tmp_path, ("pkg",), ()) == [
        "pkg/a.py:2: unused method 'Core.submit' (only other classes' methods of that name are"
        " used)"]


def test_the_repository_has_no_dead_code() -> None:
    proc = subprocess.run([sys.executable, str(ROOT / "bin" / "deadcode")], capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
