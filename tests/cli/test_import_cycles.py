"""No import cycle anywhere in the repository's Python: every import of every module of rules/,
daemon/, drivers/, hil/, firmware/ and bench/ (the ones inside functions and under
``TYPE_CHECKING`` included) forms an acyclic graph. Imports under ``if __name__ == "__main__":``
are left out: they run only when the module is the script, never while it is being imported.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("rules", "daemon", "drivers", "hil", "firmware", "bench")


def _module(path: Path, root: Path = ROOT) -> str:
    rel = path.relative_to(root).with_suffix("")
    if rel.parts[0] == "bench":  # bench/ holds scripts that import each other by file name
        return rel.name
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


def _is_main_guard(node: ast.AST) -> bool:
    return (isinstance(node, ast.If) and isinstance(node.test, ast.Compare)
            and isinstance(node.test.left, ast.Name) and node.test.left.id == "__name__")


def _imports(tree: ast.AST, here: str, known: set[str]) -> set[str]:
    out: set[str] = set()
    todo = [tree]
    while todo:
        node = todo.pop()
        if _is_main_guard(node):
            continue
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the package of ``here``
                pkg = here.split(".")[: -node.level]
                base = ".".join([*pkg, base] if base else pkg)
            out.add(base)
            out.update(f"{base}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        todo.extend(ast.iter_child_nodes(node))
    return out & known


def graph(root: Path = ROOT, packages: tuple[str, ...] = PACKAGES) -> dict[str, set[str]]:
    paths = sorted(p for pkg in packages for p in (root / pkg).rglob("*.py"))
    names = {p: _module(p, root) for p in paths}
    known = set(names.values())
    return {m: _imports(ast.parse(p.read_text(encoding="utf-8")), m, known) - {m}
            for p, m in names.items()}


def cycles(g: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(m: str) -> None:
        index[m] = low[m] = len(index)
        stack.append(m)
        on.add(m)
        for n in sorted(g.get(m, ())):
            if n not in index:
                visit(n)
                low[m] = min(low[m], low[n])
            elif n in on:
                low[m] = min(low[m], index[n])
        if low[m] == index[m]:
            comp = []
            while True:
                n = stack.pop()
                on.discard(n)
                comp.append(n)
                if n == m:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for m in sorted(g):
        if m not in index:
            visit(m)
    return sorted(found)


def test_no_import_cycle() -> None:
    g = graph()
    assert "hil.players.world" in g and "daemon.service" in g and "rules.table_state" in g
    found = cycles(g)
    assert found == [], "import cycles:\n" + "\n".join(" <-> ".join(c) for c in found)


def test_the_check_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_scan_counts_imports_in_functions_and_under_type_checking(tmp_path: Path) -> None:
    pkg = tmp_path / "p"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                              "    from p.b import B\n")
    (pkg / "b.py").write_text("def f():\n    from p import a\n    return a\n")
    assert cycles(graph(tmp_path, ("p",))) == [["p.a", "p.b"]]
