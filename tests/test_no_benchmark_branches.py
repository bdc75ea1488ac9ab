"""No code outside ``benchmarks/`` branches on a benchmark's name (issue 24): the benchmark
registry is the only place that knows which benchmarks exist, and everything else asks a
benchmark's declaration (``benchmarks/seam.py``).

A *branch* is any of: a comparison with a benchmark's name (``==``, ``!=``, ``in``, ``not in``,
also against a literal tuple/list/set holding one), a dict literal keyed by one (a per-benchmark
table), a subscript or ``.get``/``.setdefault``/``.pop`` by one, a loop over a literal holding
one, and in the viewer's JavaScript a ``===``/``!==`` with one. A module whose file is named
after a benchmark (``run/findingdory.py``, ``report/viewer/scenemem_cases.py``) is that
benchmark's own piece, named by its declaration, and may name it.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path

from recallbench.benchmarks.registry import BENCHMARKS

SRC = Path(__file__).resolve().parents[1] / "src" / "recallbench"
NAMES = set(BENCHMARKS)

# Data, not branches: the agent registry's role tables. A role is an agent interface named after
# the benchmark that defined it (frame selection, acting), and REGISTRY says what each built-in
# agent runs as in each role; a new benchmark's agents play a role, no entry here is needed.
ALLOWED = {
    ("agents/registry.py", "ROLES"),
    ("agents/registry.py", "REGISTRY"),
}
# Issue 24's two branches are merged: no branch is pending.
PENDING: set[tuple[str, str]] = set()


def _names_in(node: ast.AST | None) -> list[str]:
    if isinstance(node, ast.Constant) and node.value in NAMES:
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [n for elt in node.elts for n in _names_in(elt)]
    return []


def _branches(node: ast.AST) -> list[str]:
    """The benchmark names ``node`` itself branches on."""
    if isinstance(node, ast.Compare):
        return [n for operand in (node.left, *node.comparators) for n in _names_in(operand)]
    if isinstance(node, ast.Dict):
        return [n for key in node.keys for n in _names_in(key)]
    if isinstance(node, ast.Subscript):
        return _names_in(node.slice)
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("get", "setdefault", "pop") and node.args):
        return _names_in(node.args[0])
    if isinstance(node, (ast.For, ast.comprehension)):
        return _names_in(node.iter)
    return []


def _top_level_name(stmt: ast.stmt) -> str:
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return stmt.name
    if isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name):
        return stmt.targets[0].id
    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
        return stmt.target.id
    return ""


def python_branches() -> list[tuple[str, str, int, str]]:
    """(file, top-level definition, line, name) of every branch outside ``benchmarks/``."""
    found = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if rel.startswith("benchmarks/"):
            continue
        own = {n for n in NAMES if n in path.stem}
        for stmt in ast.parse(path.read_text(), filename=rel).body:
            where = _top_level_name(stmt)
            for node in ast.walk(stmt):
                found += [(rel, where, getattr(node, "lineno", stmt.lineno), n)
                          for n in _branches(node) if n not in own]
    return found


def _script_hits(line: str) -> list[str]:
    names = "|".join(re.escape(n) for n in sorted(NAMES))
    pattern = re.compile(rf"""[!=]==?\s*["']({names})["']|["']({names})["']\s*[!=]==?""")
    return [m.group(1) or m.group(2) for m in pattern.finditer(line)]


def script_branches() -> list[tuple[str, str, int, str]]:
    found = []
    for path in sorted(SRC.rglob("*.js")):
        rel = path.relative_to(SRC).as_posix()
        for i, line in enumerate(path.read_text().splitlines(), 1):
            found += [(rel, "", i, name) for name in _script_hits(line)]
    return found


def test_no_code_outside_benchmarks_branches_on_a_benchmark_name() -> None:
    found = [b for b in python_branches() + script_branches() if b[:2] not in ALLOWED | PENDING]
    assert not found, "branches on a benchmark's name (ask its declaration instead):\n" + \
        "\n".join(f"  {rel}:{line} ({where}): {name!r}" for rel, where, line, name in found)


def test_the_allowlists_name_only_what_is_there() -> None:
    """An entry that no longer branches is taken off (the merge empties PENDING)."""
    there = {b[:2] for b in python_branches()}
    assert not (ALLOWED | PENDING) - there, (ALLOWED | PENDING) - there


def test_the_scan_finds_each_kind_of_branch(tmp_path: Path) -> None:
    """The rules catch what they name (so an empty result means something)."""
    code = """
if bench == "findingdory": pass
if "scenemem" != b: pass
if b in ("scenemem", "x"): pass
TABLE = {"scenemem": 1}
x = plan["findingdory"]
y = plan.get("scenemem", [])
for b in ("scenemem", "findingdory"): pass
z = [b for b in ["findingdory"]]
ok = f("scenemem")  # an argument names, it does not branch
"""
    hits = [n for node in ast.walk(ast.parse(code)) for n in _branches(node)]
    assert Counter(hits) == Counter({"findingdory": 4, "scenemem": 5})
    assert _script_hits('c.bench === "findingdory" ? a : b; if ("scenemem" !== x)') == \
        ["findingdory", "scenemem"]
    assert _script_hits('{bench: "scenemem"}') == []
