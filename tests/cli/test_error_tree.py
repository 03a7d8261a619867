"""One error root. Every error class of rules/, drivers/, daemon/ and hil/ is under
``JantakuError`` through its package's base, every leaf also subclasses a builtin, no production
code raises a bare builtin (an AST scan), and the ``jantaku`` command catches the root once: one
line on stderr, exit 2."""

from __future__ import annotations

import ast
import builtins
import importlib
import inspect
import pkgutil
import subprocess
from pathlib import Path

import pytest

from daemon.errors import DaemonError
from drivers.display.errors import DisplayError
from drivers.gpio_errors import GpioError
from drivers.link.errors import LinkError
from drivers.tiles.errors import TileSensorError
from hil.errors import HilError
from hil.kit import jantaku
from rules.errors import JantakuError, RulesError

BASES = (RulesError, LinkError, TileSensorError, DisplayError, GpioError, DaemonError, HilError)
# Control-flow signals, not errors: each is raised and caught inside its own module.
SIGNALS = {
    "rules.reducer.output.ReducerRejected", "rules.reducer.output.Dead",
    "daemon.intake.RepeatedCommand", "drivers.tiles.device.Unplugged",
}


def _modules() -> list[str]:
    names = []
    for pkg in ("rules", "drivers", "daemon", "hil"):
        mod = importlib.import_module(pkg)
        names.append(pkg)
        names += [m.name for m in pkgutil.walk_packages(mod.__path__, f"{pkg}.")]
    return names


def _error_classes() -> list[type[BaseException]]:
    found = []
    for name in _modules():
        try:
            mod = importlib.import_module(name)
        except ImportError:  # an optional device stack (camera) not installed here
            continue
        for _, cls in inspect.getmembers(mod, inspect.isclass):
            if cls.__module__ == name and issubclass(cls, Exception) \
                    and not cls.__name__.startswith("_") \
                    and f"{name}.{cls.__name__}" not in SIGNALS:
                found.append(cls)
    return found


def test_every_error_is_under_the_root_through_its_package_base() -> None:
    classes = _error_classes()
    assert len(classes) >= 30
    outside = [f"{c.__module__}.{c.__name__}" for c in classes
               if not issubclass(c, JantakuError)]
    assert not outside, f"errors outside JantakuError: {outside}"
    no_base = [f"{c.__module__}.{c.__name__}" for c in classes
               if c is not JantakuError and not issubclass(c, BASES)]
    assert not no_base, f"errors under the root but under no package base: {no_base}"


def test_every_leaf_also_subclasses_a_builtin() -> None:
    leaves = [c for c in _error_classes() if c not in (JantakuError, *BASES)]
    plain = [f"{c.__module__}.{c.__name__}" for c in leaves
             if not any(b.__module__ == "builtins" and b is not Exception
                        and b is not BaseException and b is not object for b in c.__mro__)]
    assert not plain, f"leaves that subclass no builtin: {plain}"


ROOT = Path(__file__).resolve().parents[2]
BUILTIN_ERRORS = {name for name, obj in vars(builtins).items()
                  if isinstance(obj, type) and issubclass(obj, BaseException)}
# SystemExit is how an argparse ``error`` override ends a command (exit 2), not an error raised.
ALLOWED_BUILTINS = {"SystemExit"}


def _bare_raises(source: str) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Raise) and node.exc is not None:
            target = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            if isinstance(target, ast.Name) and target.id in BUILTIN_ERRORS - ALLOWED_BUILTINS:
                found.append((node.lineno, target.id))
    return found


def test_the_scan_finds_a_bare_raise() -> None:
    assert _bare_raises("def f():\n    raise ValueError('x')\n") == [(2, "ValueError")]
    assert _bare_raises("raise KeyError\n") == [(1, "KeyError")]
    assert _bare_raises("try:\n    pass\nexcept ValueError as e:\n    raise e\n") == []
    assert _bare_raises("raise SeatError('x')\nraise\n") == []


def test_production_code_raises_no_bare_builtin() -> None:
    bare = [f"{path.relative_to(ROOT)}:{line}: raise {name}"
            for pkg in ("rules", "drivers", "daemon", "hil", "firmware")
            for path in sorted((ROOT / pkg).rglob("*.py"))
            for line, name in _bare_raises(path.read_text(encoding="utf-8"))]
    # firmware/: a FirmwareError leaf (firmware/errors.py; the chip cannot import the host's tree)
    assert not bare, "raise a JantakuError (or FirmwareError) leaf instead:\n" + "\n".join(bare)


def test_each_package_base_sits_right_under_the_root() -> None:
    for base in BASES:
        assert base.__bases__ == (JantakuError,), base
    # the displays have their own base: a display error is not a table-link error
    assert not issubclass(DisplayError, LinkError)


def test_a_rules_error_is_still_a_value_error() -> None:
    from rules.ruleset import RulesetError, load_ruleset

    with pytest.raises(ValueError) as caught:
        load_ruleset("no-such-ruleset")
    assert isinstance(caught.value, RulesetError | OSError)




def test_the_command_catches_the_root_once_one_line_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "table.toml"
    bad.write_text("[table]\nid = 'x y'\n", encoding="utf-8")
    cases = [
        (["rulesets", "show", "no-such-ruleset"], "jantaku rulesets: "),
        (["replay", str(bad), "--ruleset", "no-such-ruleset"], "jantaku replay: "),
        (["run", "--config", str(bad)], "jantaku run: "),
    ]
    for argv, prefix in cases:
        proc = subprocess.run([jantaku(), *argv], capture_output=True, text=True, timeout=120)
        assert proc.returncode == 2, (argv, proc.stderr)
        lines = proc.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith(prefix), (argv, proc.stderr)
        assert "Traceback" not in proc.stderr
