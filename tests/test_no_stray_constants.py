"""The frame budget K and the SceneMem step budget are declared once (issue 24: stray ``96``s and
``1500``s remained beside their declarations): every other use imports the constant, in help
strings too (f-strings). Prose (comments, docstrings) may say the number."""

from __future__ import annotations

import ast
import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "recallbench"
# value -> (the declaring module, the declaration)
DECLARED = {
    96: ("benchmarks/findingdory/defaults.py", "DEFAULT_FRAMES = 96"),
    1500: ("benchmarks/scenemem/defaults.py", "DEFAULT_MAX_STEPS = 1500"),
}
# Uses of the same number that mean something else, each with why: none today.
UNRELATED: set[tuple[str, int]] = set()  # (module, line)
# Whole modules where the numbers mean something else, each with why.
UNRELATED_MODULES = {
    "world/assetgen/art_print.py": "pixel coordinates on the drawn labels and covers",
}
NUMBER = re.compile(r"(?<![\d.])(96|1,?500)(?![\d,])")


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
    return ids


def literals(source: str) -> list[tuple[int, int]]:
    """(line, value) of every 96 or 1500 in code: a number, or inside a string that is no
    docstring."""
    tree = ast.parse(source)
    prose = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Constant) or id(node) in prose:
            continue
        if type(node.value) in (int, float) and node.value in DECLARED:
            found.append((node.lineno, int(node.value)))
        elif isinstance(node.value, str):
            found += [(node.lineno, int(m.group(1).replace(",", "")))
                      for m in NUMBER.finditer(node.value)]
    return found


def test_each_budget_is_a_literal_only_where_it_is_declared() -> None:
    stray, declared = [], set()
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        lines = path.read_text().splitlines()
        for line, value in literals(path.read_text()):
            module, declaration = DECLARED[value]
            if rel == module and lines[line - 1].strip().startswith(declaration):
                declared.add(value)
            elif (rel, line) not in UNRELATED and rel not in UNRELATED_MODULES:
                stray.append(f"{rel}:{line}: {lines[line - 1].strip()}")
    assert not stray, "use the declared constant (DEFAULT_FRAMES, DEFAULT_MAX_STEPS):\n" + \
        "\n".join(stray)
    assert declared == set(DECLARED)  # each still declared where this test looks


def test_the_scan_sees_numbers_and_strings_but_not_prose() -> None:
    code = '''
"""K = 96 in a docstring is prose."""
K = 96  # a comment with 1500 is prose
help = "steps (default 1500)"
steps = "the card's 1,500"
sweep = "24,48,96"
other = 1960 + 150 + 9600
'''
    assert sorted(literals(code)) == [(3, 96), (4, 1500), (5, 1500), (6, 96)]
