"""No import cycle inside hil/ (issue 16): every ``hil.*`` import of every module, the ones inside
functions included, forms an acyclic graph. Imports under ``if __name__ == "__main__":`` are left
out: they run only when the module is the script, never while it is being imported."""

from __future__ import annotations

import ast
from pathlib import Path

HIL = Path(__file__).resolve().parents[2] / "hil"


def _module(path: Path) -> str:
    rel = path.relative_to(HIL.parent).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


def _is_main_guard(node: ast.AST) -> bool:
    return (isinstance(node, ast.If) and isinstance(node.test, ast.Compare)
            and isinstance(node.test.left, ast.Name) and node.test.left.id == "__name__")


def _hil_imports(tree: ast.AST, known: set[str]) -> set[str]:
    out: set[str] = set()
    todo = [tree]
    while todo:
        node = todo.pop()
        if _is_main_guard(node):
            continue
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("hil"):
            out.add(node.module)
            out.update(f"{node.module}.{a.name}" for a in node.names
                       if f"{node.module}.{a.name}" in known)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("hil"))
        todo.extend(ast.iter_child_nodes(node))
    return out & known


def _graph() -> dict[str, set[str]]:
    paths = sorted(HIL.rglob("*.py"))
    known = {_module(p) for p in paths}
    return {_module(p): _hil_imports(ast.parse(p.read_text()), known) - {_module(p)}
            for p in paths}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        stack.append(m)
        for n in sorted(graph.get(m, ())):
            if state.get(n) == 1:
                return [*stack[stack.index(n):], n]
            if n not in state and (found := visit(n)) is not None:
                return found
        stack.pop()
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state and (found := visit(m)) is not None:
            return found
    return None


def test_no_import_cycle_in_hil() -> None:
    graph = _graph()
    assert "hil.players.world" in graph and "hil.runner" in graph
    assert _cycle(graph) is None, " -> ".join(_cycle(graph) or [])


def test_the_check_finds_a_cycle() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None
