"""One printer for errors and warnings (issue 39): ``recallbench.errors.print_problem``. No other
module prints its own "recallbench: warning: ..." to stderr or its own coloured ``error`` /
``warning:`` head, so every error and warning is one line, formatted and escaped one way."""

from __future__ import annotations

import ast
import io
from pathlib import Path

from rich.console import Console

from recallbench.errors import print_problem

SRC = Path(__file__).resolve().parents[1] / "src" / "recallbench"
HEADS = ("[yellow]warning", "[red]error", "recallbench: warning", "recallbench: error")
# stderr that is not an error or a warning of ours: Ray's own start-up output relayed as it is,
# and the demo's closing note (what to try next)
ALLOWED = {("executor/ray_cluster.py", "write"), ("cli/demo.py", "print")}


def _stderr_prints(tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        to_stderr = any(k.arg == "file" and ast.unparse(k.value) == "sys.stderr"
                        for k in node.keywords)
        if isinstance(func, ast.Name) and func.id == "print" and to_stderr:
            found.append((node.lineno, "print"))
        if isinstance(func, ast.Attribute) and ast.unparse(func) == "sys.stderr.write":
            found.append((node.lineno, "write"))
    return found


def own_printers() -> list[str]:
    found = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if rel == "errors.py":
            continue
        text = path.read_text()
        tree = ast.parse(text, filename=rel)
        found += [f"{rel}:{line}: prints to stderr itself" for line, how in _stderr_prints(tree)
                  if (rel, how) not in ALLOWED]
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and any(
                    node.value.startswith(h) or f" {h}" in node.value for h in HEADS):
                found.append(f"{rel}:{node.lineno}: its own head {node.value[:30]!r}")
    return found


def test_no_module_but_errors_py_prints_its_own_errors_or_warnings() -> None:
    assert own_printers() == []


def test_a_problem_is_one_line_with_its_markup_kept_literal(capsys) -> None:
    message = "day [bold]ep_0[/bold]: broken\nsecond line " + "x" * 80
    buf = io.StringIO()
    console = Console(file=buf, width=40, force_terminal=False)
    print_problem(message, "error", console=console)
    print_problem(message, console=console)
    lines = buf.getvalue().splitlines()
    flat = "day [bold]ep_0[/bold]: broken second line " + "x" * 80
    assert lines == [f"error {flat}", f"warning: {flat}"]
    print_problem(message)  # no console: the plain line on stderr scripts read
    print_problem(message, "error", prog="recallbench findingdory")
    assert capsys.readouterr().err.splitlines() == [
        f"recallbench: warning: {flat}", f"recallbench findingdory: error: {flat}"]
