"""docs/architecture.md stays true: every ``path.py:name`` hop it names exists (the module file,
and the function, class or method in it), and every module of rules/reducer/ is in its table."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
HOP = re.compile(r"`?([a-z_/]+\.py):([A-Za-z_][\w.]*)")


def _names(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        if isinstance(node, ast.ClassDef):
            names.update(f"{node.name}.{n.name}" for n in node.body
                         if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef))
            # attributes: ``self.x = ...`` in its methods
            names.update(f"{node.name}.{t.attr}" for n in ast.walk(node)
                         if isinstance(n, ast.Assign | ast.AnnAssign)
                         for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
                         if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name)
                         and t.value.id == "self")
    return names


def test_every_hop_named_in_the_doc_exists() -> None:
    hops = HOP.findall(DOC)
    assert len(hops) >= 15
    missing = []
    for file, name in hops:
        path = ROOT / file
        if not path.exists():
            missing.append(f"{file} (no such file)")
            continue
        if name.rstrip(".") not in _names(path):
            missing.append(f"{file}:{name}")
    assert not missing, missing


def test_every_reducer_module_is_in_the_table() -> None:
    modules = sorted(p.name for p in (ROOT / "rules" / "reducer").glob("*.py")
                     if p.name != "__init__.py")
    absent = [m for m in modules if f"| `{m}` |" not in DOC]
    assert not absent, absent
