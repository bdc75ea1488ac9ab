"""The import graph of src/recallbench and its layers (docs/architecture.md): read by
tests/test_architecture.py and drawn by scripts/draw_architecture.py."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "recallbench"

# Bottom to top. A module may import its own package and any package of a lower layer; the base
# helpers may also import each other.
LAYERS: list[set[str]] = [
    {"__init__", "errors", "io", "versions", "loader", "seeding", "console"},  # base helpers
    {"world", "video", "executor"},
    {"benchmarks"},
    {"agents"},
    {"generate"},
    {"run", "export"},
    {"report", "audit"},
    {"cli", "__main__"},
]
LAYER_OF = {pkg: i for i, pkgs in enumerate(LAYERS) for pkg in pkgs}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path) -> set[str]:
    """Every recallbench module ``path`` imports, at any depth of its code."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.split(".")[0] == "recallbench"}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "recallbench":
                continue
            found.add(target)
            # ``from pkg import mod`` imports the module pkg.mod when there is one
            found |= {f"{target}.{a.name}" for a in node.names}
    return found


def source_modules() -> dict[str, Path]:
    return {module_name(p): p for p in SRC.rglob("*.py")}


def top(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    return out


def layer_edges() -> dict[tuple[str, str], int]:
    """(package, imported package) -> how many module imports cross between them."""
    modules = source_modules()
    edges: dict[tuple[str, str], int] = {}
    for name, path in modules.items():
        for target in imports_of(path):
            if target in modules and top(target) != top(name):
                key = (top(name), top(target))
                edges[key] = edges.get(key, 0) + 1
    return edges
