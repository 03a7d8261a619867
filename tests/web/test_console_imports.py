"""No import cycle among the console's ES modules: the shared state is in
``store.js``, which imports nothing, and ``table.js``'s render follows it as an event, so the
session does not import the views. Every ``import … from "./x.js"`` (and ``export … from``) of
every module in daemon/web/static/console is read; the graph must have no cycle. The finder is
checked on a tiny graph with a cycle, so that it cannot pass by finding nothing."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

CONSOLE = Path(__file__).parents[2] / "daemon/web/static/console"
# a static import or re-export of a module beside it: `import { a } from "./a.js";`,
# `import "./a.js";`, `export { b } from "./b.js";`, over several lines too; `import("./x.js")`
# (a dynamic import) counts as well
IMPORT = re.compile(
    r"""(?:^|[;\s])(?:import|export)\b[^;'"]*?(?:\bfrom\s*)?['"]\./([\w.-]+\.js)['"]"""
    r"""|\bimport\s*\(\s*['"]\./([\w.-]+\.js)['"]\s*\)""",
    re.MULTILINE,
)


def imports(source: str) -> set[str]:
    # comments could name a module without importing it
    code = re.sub(r"/\*.*?\*/|//[^\n]*", "", source, flags=re.DOTALL)
    return {a or b for a, b in IMPORT.findall(code)}


def graph(folder: Path) -> dict[str, set[str]]:
    return {p.name: imports(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.js"))}


def cycle(edges: Mapping[str, set[str]]) -> list[str] | None:
    """One import cycle (as a path that ends where it starts), or ``None``."""
    state: dict[str, str] = {}
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = "open"
        path.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == "open":
                return [*path[path.index(nxt):], nxt]
            if nxt not in state and (found := visit(nxt)) is not None:
                return found
        state[node] = "done"
        path.pop()
        return None

    for node in sorted(edges):
        if node not in state and (found := visit(node)) is not None:
            return found
    return None


def test_the_console_modules_import_no_cycle() -> None:
    edges = graph(CONSOLE)
    assert len(edges) >= 15 and "store.js" in edges
    for name, targets in edges.items():
        assert targets <= set(edges), (name, targets - set(edges))  # every import resolves
    assert edges["store.js"] == set()
    assert cycle(edges) is None, cycle(edges)


def test_the_finder_sees_a_cycle_in_a_tiny_example(tmp_path: Path) -> None:
    (tmp_path / "a.js").write_text('import { b } from "./b.js";\nexport const a = 1;\n')
    (tmp_path / "b.js").write_text('// import { z } from "./z.js";\n'
                                   'import {\n  c,\n} from "./c.js";\nexport const b = 2;\n')
    (tmp_path / "c.js").write_text('export { a } from "./a.js";\n')
    (tmp_path / "d.js").write_text('const m = await import("./d.js");\n')
    edges = graph(tmp_path)
    assert edges == {"a.js": {"b.js"}, "b.js": {"c.js"}, "c.js": {"a.js"}, "d.js": {"d.js"}}
    assert cycle(edges) == ["a.js", "b.js", "c.js", "a.js"]
    assert cycle({"a.js": {"b.js"}, "b.js": set()}) is None
    assert cycle({"d.js": {"d.js"}}) == ["d.js", "d.js"]


NAMED = re.compile(r"""\bimport\s*\{([^}]*)\}\s*from\s*['"]\./([\w.-]+\.js)['"]""")
EXPORTED = re.compile(r"""\bexport\s+(?:async\s+)?(?:function\*?|const|let|var|class)\s+([\w$]+)""")


def missing_names(folder: Path) -> list[str]:
    """``import { a } from "./x.js"`` where x.js exports no ``a``: the browser then refuses the
    whole module graph and the console does not load (a merge once left forms.js importing
    ``state`` from session.js after it had moved to store.js)."""
    exported = {p.name: set(EXPORTED.findall(p.read_text(encoding="utf-8")))
                for p in folder.glob("*.js")}
    out = []
    for p in sorted(folder.glob("*.js")):
        code = re.sub(r"/\*.*?\*/|//[^\n]*", "", p.read_text(encoding="utf-8"), flags=re.DOTALL)
        for names, target in NAMED.findall(code):
            for name in (n.strip().split(" as ")[0].strip() for n in names.split(",")):
                if name and name not in exported.get(target, set()):
                    out.append(f"{p.name}: {name} from {target}")
    return out


def test_every_named_import_is_exported() -> None:
    assert missing_names(CONSOLE) == []


def test_the_export_check_finds_a_missing_name(tmp_path: Path) -> None:
    (tmp_path / "a.js").write_text('import { b, gone } from "./b.js";\n')
    (tmp_path / "b.js").write_text("export function b() {}\nexport const $ = 1;\n")
    assert missing_names(tmp_path) == ["a.js: gone from b.js"]
