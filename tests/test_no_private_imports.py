"""No module imports another module's private name (issue 39: `findingdory score` reached into
``report.runs._finite``): what a layer offers another is public, typed and documented."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "recallbench"


def private_imports() -> list[str]:
    found = []
    for path in sorted(SRC.rglob("*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("recallbench"):
                found += [f"{path.relative_to(SRC)}:{node.lineno}: {node.module}.{a.name}"
                          for a in node.names
                          if a.name.startswith("_") and not a.name.startswith("__")]
    return found


def test_no_module_imports_a_private_name_of_another() -> None:
    assert private_imports() == []
