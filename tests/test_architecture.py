"""The layers of docs/architecture.md, checked on the source: arrows only point down, and no two
modules import each other (directly or round a loop). Every import counts, including those
inside functions; there are no exemptions."""

from __future__ import annotations

from pathlib import Path

import pytest

import support.import_graph as graph
from support.import_graph import LAYER_OF, _cycles, imports_of, module_name, source_modules, top


def test_every_package_has_a_layer() -> None:
    assert len(source_modules()) > 100  # the graph is read from the real source tree
    unplaced = sorted({top(m) for m in source_modules()} - set(LAYER_OF))
    assert not unplaced, f"add these packages to a layer (docs/architecture.md): {unplaced}"


def test_imports_only_point_down() -> None:
    modules = source_modules()
    wrong = []
    for name, path in modules.items():
        here = top(name)
        for target in imports_of(path):
            if target not in modules and target.rpartition(".")[0] in modules:
                continue  # ``from module import function``: the module itself is checked
            there = top(target)
            if there == here:
                continue
            # sideways only among the base helpers (errors, io, ...), which form one layer
            if LAYER_OF[there] > LAYER_OF[here] or (LAYER_OF[there] == LAYER_OF[here] > 0):
                wrong.append(f"{name} -> {target}")
    assert not wrong, "imports that point up or sideways:\n" + "\n".join(sorted(wrong))


def test_no_module_import_cycles() -> None:
    modules = source_modules()
    graph = {}
    for name, path in modules.items():
        targets = {t for t in imports_of(path) if t in modules and t != name}
        # a package's __init__ is imported on the way to its modules: not a cycle by itself
        graph[name] = {t for t in targets if not name.startswith(t + ".")}
    cycles = _cycles(graph)
    assert not cycles, f"modules that import each other: {cycles}"


@pytest.mark.parametrize("rule", ["up", "cycle"])
def test_the_checks_catch_a_violation(tmp_path: Path, rule: str) -> None:
    """The checker itself: an upward import and a two-module loop are found."""
    if rule == "up":
        src = tmp_path / "recallbench" / "world" / "x.py"
        src.parent.mkdir(parents=True)
        src.write_text("def f():\n    from recallbench.cli import main\n")
        old, graph.SRC = graph.SRC, tmp_path / "recallbench"
        try:
            assert "recallbench.cli" in imports_of(src)
            assert LAYER_OF[top("recallbench.cli")] > LAYER_OF[top(module_name(src))]
        finally:
            graph.SRC = old
    else:
        assert _cycles({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [["a", "b"]]


MAX_MODULE_LINES = 500
MAX_FUNCTION_LINES = 80


def test_modules_and_functions_stay_small() -> None:
    """No module over 500 lines; no function over 80 unless its ``def`` line says why
    (``# long: <reason>``)."""
    import ast

    too_big = []
    for name, path in source_modules().items():
        text = path.read_text()
        lines = text.splitlines()
        if len(lines) > MAX_MODULE_LINES:
            too_big.append(f"{name}: {len(lines)} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > MAX_FUNCTION_LINES and "# long:" not in lines[node.lineno - 1]:
                    too_big.append(f"{name}.{node.name}: {length} lines")
    assert not too_big, "split these (or say why on the def line):\n" + "\n".join(too_big)
