"""--executor, --address and --shard: one definition, on every run command, checked before work."""

from __future__ import annotations

import subprocess
import sys

import pytest

from recallbench.cli import build_parser
from recallbench.executor.threads import worker_threads
from support.shared_data import FINDINGDORY_VAL_QA

RUN_COMMANDS = [["scenemem"], ["findingdory"], ["run"], ["generate", "scenemem"],
                ["generate", "findingdory"]]


def subparser(path: list[str]):
    parser = build_parser()
    for name in path:
        action = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
        parser = action.choices[name]
        if hasattr(parser, "load_commands"):  # generate adds its generators' commands lazily
            parser.load_commands(plugins=False)
    return parser


@pytest.mark.parametrize("path", RUN_COMMANDS, ids=" ".join)
def test_every_run_command_takes_the_execution_options(path):
    flags = {s for a in subparser(path)._actions for s in a.option_strings}
    assert {"--executor", "--address"} <= flags
    assert ("--shard" in flags) == (path != ["run"])  # `run` compares agents: no shards


def findingdory(tmp_path, *extra: str, prelude: str = "") -> subprocess.CompletedProcess:
    code = (f"{prelude}import sys; from recallbench.cli import main; "
            "sys.exit(main(sys.argv[1:]))")
    return subprocess.run(
        [sys.executable, "-c", code, "findingdory", "--data", str(FINDINGDORY_VAL_QA),
         "--agent", "random", "--limit", "3", "--out", str(tmp_path / "run"), *extra],
        capture_output=True, text=True, timeout=120)


def assert_one_line(proc: subprocess.CompletedProcess, *words: str) -> None:
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert all(w in lines[0] for w in words), lines[0]


def test_address_without_ray_is_refused_before_work(tmp_path):
    assert_one_line(findingdory(tmp_path, "--address", "auto"), "--address", "--executor ray")
    assert not (tmp_path / "run").exists()


def test_ray_missing_names_the_extra_before_work(tmp_path):
    # as if ray were not installed: the import system finds no module named ray
    proc = findingdory(tmp_path, "--executor", "ray",
                       prelude="import sys; sys.modules['ray'] = None; ")
    assert_one_line(proc, "--executor", "pip install 'recallbench[ray]'")
    assert not (tmp_path / "run").exists()


def test_unknown_executor_is_one_line(tmp_path):
    assert_one_line(findingdory(tmp_path, "--executor", "slurm"), "--executor", "slurm")


@pytest.mark.slow
def test_the_local_executor_is_recorded_as_provenance(tmp_path):
    import json

    proc = findingdory(tmp_path, "--workers", "2")
    assert proc.returncode == 0, proc.stderr
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["executor"] == {"kind": "local", "workers": 2, "address": None,
        "threads": worker_threads()}  # as the run was started
