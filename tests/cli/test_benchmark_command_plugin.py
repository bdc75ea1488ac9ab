"""Issue 39: a benchmark's own command, ``recallbench <benchmark>``, is the one its declaration
names (``Benchmark.command``), as ``generate <benchmark>`` is its generator's: a plugin gets one,
its flags spellings of its declared options. ToyBench (``tests/support/toybench``, registered by
a ``dist-info`` folder on PYTHONPATH) names recallbench's card command (``cli.card``); nothing
in recallbench is edited for it."""

from __future__ import annotations

import json

import pytest

from support.fault_support import cli, error_lines
from support.plugins import install_toybench
from support.toybench.suite import write_suite


@pytest.fixture(scope="module")
def toy(tmp_path_factory) -> dict[str, str]:
    return install_toybench(tmp_path_factory.mktemp("site"))


def test_a_plugin_benchmark_gets_its_command_with_its_options_as_flags(toy):
    done = cli("toybench", "--help", env=toy)
    assert done.returncode == 0, done.stderr
    assert "usage: recallbench toybench" in done.stdout
    # ToyConfig's option fields, as declared (choices, metavar), and nothing of FindingDory's
    for flag in ("--target {red,green,blue}", "--limit LIMIT", "--shard I/N", "--seed SEED"):
        assert flag in done.stdout
    assert "--frames" not in done.stdout


def test_top_level_help_reads_no_plugin(toy):
    done = cli("--help", env=toy)
    assert done.returncode == 0, done.stderr
    assert "scenemem" in done.stdout and "toybench" not in done.stdout


def test_the_command_runs_one_agent_through_the_runner(toy, tmp_path):
    suite = write_suite(tmp_path / "suite", 4)
    out = tmp_path / "run"
    done = cli("toybench", "--suite", str(suite), "--agent", "toy-oracle", "--target", "green",
               "--limit", "3", "--out", str(out), "--format", "json", env=toy)
    assert done.returncode == 0, done.stderr
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["target_colour"] == "green" and manifest["cases"] == 3
    (overall,) = [r for r in json.loads(done.stdout)
                  if r["table"] == "overall" and r["metric"] == "accuracy"]
    assert overall["value"] == 1.0 and overall["n"] == 3


def test_a_bad_option_value_is_one_line_before_any_work(toy, tmp_path):
    suite = write_suite(tmp_path / "suite", 2)
    bad = cli("toybench", "--suite", str(suite), "--agent", "toy-oracle", "--target", "pink",
              "--out", str(tmp_path / "bad"), env=toy)
    assert bad.returncode == 2 and len(error_lines(bad.stderr)) == 1
    assert "--target" in bad.stderr and not (tmp_path / "bad").exists()
