"""Issue 24: one runner per benchmark, shared by every command. `recallbench run` takes every
FindingDory option and gives, per agent, exactly what `recallbench findingdory` gives; the
orchestration lives in the runner only, and nothing at the run layer or below reads the command
line."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from support.fault_support import cli

SRC = Path(__file__).resolve().parents[2] / "src" / "recallbench"
TIMING = re.compile(r', "seconds": [0-9.e+-]+')  # per-case wall time: never reproducible
PROVENANCE = {"command", "started"}  # where and when a run was made


def _runlog(run_dir: Path) -> list[str]:
    return [TIMING.sub("", line) for line in (run_dir / "runlog.jsonl").read_text().splitlines()]


def _manifest(run_dir: Path) -> dict:
    manifest = json.loads((run_dir / "manifest.json").read_text())
    return {k: v for k, v in manifest.items() if k not in PROVENANCE}


@pytest.mark.slow
def test_run_gives_each_agent_the_findingdory_commands_results(findingdory_generated_suite,
                                                               tmp_path):
    suite = str(findingdory_generated_suite)
    out = tmp_path / "compared"
    done = cli("run", "--suite", suite, "--agents", "oracle,blind", "--findingdory-ll",
               "--findingdory-scoring", "official", "--out", str(out), timeout=900)
    assert done.returncode == 0, done.stderr
    comparison = json.loads((out / "comparison.json").read_text())
    options = comparison["benchmarks"]["findingdory"]["options"]
    assert options["ll"] is True and options["scoring"] == "official"
    for agent in ("oracle", "blind"):
        alone = tmp_path / agent
        done = cli("findingdory", "--data", suite, "--agent", agent, "--ll", "--scoring",
                   "official", "--out", str(alone), timeout=900)
        assert done.returncode == 0, done.stderr
        ran = out / "findingdory" / agent
        latest = {r["key"]: r for r in map(json.loads, _runlog(alone))}  # later records win
        assert latest and all("ll" in r for r in latest.values())  # every case acted out
        assert _runlog(ran) == _runlog(alone)
        assert (ran / "summary.json").read_bytes() == (alone / "summary.json").read_bytes()
        assert _manifest(ran) == _manifest(alone)
        summary = json.loads((alone / "summary.json").read_text())
        assert summary["scoring"] == "official" and summary["overall"]["ll_sr"]["n"] > 0


def _modules(*packages: str) -> list[Path]:
    return [p for package in packages for p in sorted((SRC / package).rglob("*.py"))]


BELOW_CLI = ("run", "export", "generate", "agents", "benchmarks", "world", "video", "executor")


@pytest.mark.parametrize("path", _modules(*BELOW_CLI), ids=lambda p: str(p.relative_to(SRC)))
def test_nothing_at_the_run_layer_or_below_reads_the_command_line(path):
    """No import of recallbench.cli or argparse, no Namespace, no parameter named ``args``
    holding the parsed flags: options arrive as the benchmark's config object."""
    tree = ast.parse(path.read_text(), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""]
        else:
            names = []
        for name in names:
            assert not name.startswith(("recallbench.cli", "argparse")), f"{path}: {name}"
        if isinstance(node, ast.Attribute | ast.Name):
            assert getattr(node, "attr", getattr(node, "id", None)) != "Namespace", str(path)


# The steps of a FindingDory run (run.findingdory) and of a SceneMem run (run.scenemem): only
# the benchmark's runner strings them together; no command and no second module repeats it.
ORCHESTRATION = {"start_run": "run/findingdory_runner.py", "run_cases": "run/findingdory_runner.py",
                 "run_ll": "run/findingdory_runner.py", "run_scenemem": "run/scenemem_runner.py"}


def test_runs_are_orchestrated_by_their_runner_only():
    callers: dict[str, set[str]] = {name: set() for name in ORCHESTRATION}
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Call):
                func = node.func
                name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                if name in callers:
                    callers[name].add(str(path.relative_to(SRC)))
    assert callers == {name: {where} for name, where in ORCHESTRATION.items()}


def _reaches(methods: dict[str, ast.FunctionDef], name: str, seen: set[str]) -> bool:
    """Does method ``name`` call an orchestration step, itself or through ``self.<method>``?"""
    seen.add(name)
    for node in ast.walk(methods[name]):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if called in ORCHESTRATION:
            return True
        if called in methods and called not in seen and _reaches(methods, called, seen):
            return True
    return False


@pytest.mark.parametrize("module", sorted(set(ORCHESTRATION.values())))
def test_a_runner_runs_agents_through_run_alone(module):
    """Issue 39: every command enters a benchmark's runner the same way, prepare -> run; no
    second public method (a frame-budget sweep's, a card's) runs an agent beside ``run``."""
    tree = ast.parse((SRC / module).read_text())
    (runner,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name.endswith("Runner")]
    methods = {n.name: n for n in runner.body if isinstance(n, ast.FunctionDef)}
    entries = {name for name in methods
               if not name.startswith("_") and _reaches(methods, name, set())}
    assert entries == {"run"}
