"""Issue 39: a benchmark's typed config is its one declaration. A field declared with ``option``
is a flag on both commands and, marked ``resume``, a setting every resumed run must match: the
benchmark command's ``--resume``, `run`'s agent folders and the runner read the same keys."""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from recallbench.benchmarks.options import build_config, option, options_of, resume_keys
from recallbench.cli import main
from recallbench.cli.options import add_benchmark_options, add_run_options, benchmark_values
from support.findingdory_suite import build_suite
from support.scenemem_fixtures.build import MINI_FACTORY, mini_scenario, mini_test


@dataclass(frozen=True)
class _Config:
    colour: str = option("the colour asked for", default="red", choices=("red", "blue"),
                         resume=True)
    budget: int | None = option("frames per case", type=int, run_alias="--budget",
                                resume="limits")
    radius: float | None = option("goal radius", type=float, resume="limits")
    noted: list[str] = field(default_factory=list)  # recorded beside the options, no flag


def test_a_field_declared_as_an_option_is_a_flag_and_a_resume_key():
    options = options_of(_Config)
    assert [o.name for o in options] == ["colour", "budget", "radius"]
    assert resume_keys(options) == ("colour", "limits")  # each recorded key once
    parser = argparse.ArgumentParser()
    add_benchmark_options(parser, options)
    config = build_config(_Config, options, benchmark_values(
        parser.parse_args(["--budget", "3", "--colour", "blue"]), options))
    assert config == _Config(colour="blue", budget=3)
    run = argparse.ArgumentParser()
    add_run_options(run, [("toy", options)])
    assert run.parse_args(["--toy-radius", "0.5", "--budget", "2"]).toy__radius == 0.5
    with pytest.raises(ValueError, match="no option 'noted'"):  # never set by a flag
        build_config(_Config, options, {"noted": ["x"]})


@pytest.fixture(scope="module")
def fd_suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_suite(tmp_path_factory.mktemp("fd_suite"))


@pytest.mark.slow
def test_findingdory_resume_refuses_any_declared_setting_that_differs(fd_suite, tmp_path,
                                                                      capsys):
    """Before, `findingdory --resume` checked 4 of the 9 settings `run` checks: a resume with
    another --scoring or --videos went on and mixed the two into one run."""
    out = tmp_path / "run"
    base = ["findingdory", "--data", str(fd_suite), "--agent", "oracle", "--frames", "8",
            "--limit", "2", "--out", str(out)]
    assert main(base) == 0
    for flag, value in (("--scoring", "official"), ("--videos", str(fd_suite / "videos"))):
        capsys.readouterr()
        assert main([*base, "--limit", "4", "--resume", flag, value]) == 2
        assert f"{out / 'manifest.json'}: {flag[2:]}: the run used" in capsys.readouterr().err
        assert len((out / "runlog.jsonl").read_text().splitlines()) == 2  # nothing added
    assert main([*base, "--limit", "4", "--resume"]) == 0  # the same settings finish it
    assert len((out / "runlog.jsonl").read_text().splitlines()) == 4


@pytest.mark.slow
def test_scenemem_resume_compares_a_policy_name_as_what_it_runs_and_checks_thresholds(
        tmp_path, capsys):
    """A resumed `scenemem` checks every declared setting given again against the recorded
    one, each as a new run would record it: --policy do-nothing is the recorded module:Class
    (before: refused as a different policy), --approach-dist 2 is not the recorded 1.2."""
    data = tmp_path / "data"
    mini_scenario(data / "combo_001_L1_S1_0001", [mini_test("t0", "obj0")])
    run_dir = tmp_path / "r_run"
    assert main(["scenemem", "--data-dir", str(data), "--policy", "do-nothing", "--out",
                 str(tmp_path / "r.json"), "--max-steps", "5", "--workers", "1",
                 "--env-factory", MINI_FACTORY]) == 0
    recorded = json.loads((run_dir / "manifest.json").read_text())["config"]
    capsys.readouterr()
    assert main(["scenemem", "--resume", "--run-dir", str(run_dir), "--approach-dist", "2"]) == 2
    assert "config.thresholds.approach_dist: the run used 1.2; --approach-dist 2.0" in \
        capsys.readouterr().err
    assert main(["scenemem", "--resume", "--run-dir", str(run_dir), "--policy", "do-nothing",
                 "--max-steps", "5"]) == 0
    assert json.loads((run_dir / "manifest.json").read_text())["config"] == recorded
