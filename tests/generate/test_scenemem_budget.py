"""Generated SceneMem specs carry the card's 1,500-step budget, and the suite names recallbench's
strict metric as its primary score; the generator's modules stay small (issue 11)."""

from __future__ import annotations

import argparse
import ast
import inspect
from pathlib import Path

from recallbench.cli import generate as generate_cli
from recallbench.generate import scenemem, scenemem_day
from recallbench.generate.scenemem import ScenememKnobs, suite_manifest


def test_knobs_and_command_default_to_the_cards_budget():
    assert ScenememKnobs().max_steps == 1500
    parser = argparse.ArgumentParser()
    generate_cli.register(parser.add_subparsers())
    args = parser.parse_args(["generate", "scenemem", "--out", "x"])
    assert args.max_steps == 1500


def test_suite_manifest_names_the_strict_metric_primary(tmp_path):
    manifest = suite_manifest(tmp_path, 0, 0, ScenememKnobs(), [])
    assert manifest["primary_metric"] == "first_open_success"
    assert manifest["knobs"]["max_steps"] == 1500


def test_generator_modules_stay_small():
    for module in (scenemem, scenemem_day):
        source = Path(inspect.getfile(module)).read_text()
        assert len(source.splitlines()) < 500, module.__name__
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.FunctionDef):
                length = node.end_lineno - node.lineno + 1
                assert length < 80, f"{module.__name__}.{node.name}: {length} lines"
