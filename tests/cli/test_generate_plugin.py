"""Issue 39: `generate`'s subcommands are the registered benchmarks' generators' commands
(``Generator.command``), so a plugin benchmark with a generator gets ``recallbench generate
<benchmark>``. ToyBench (``tests/support/toybench``, registered by a ``dist-info`` folder on
PYTHONPATH) declares ``generate.py:GENERATOR``; nothing in recallbench is edited for it."""

from __future__ import annotations

import json

import pytest

from support.fault_support import cli
from support.plugins import install_toybench


@pytest.fixture(scope="module")
def toy(tmp_path_factory) -> dict[str, str]:
    return install_toybench(tmp_path_factory.mktemp("site"))


def test_a_plugin_benchmark_gets_its_generate_command(toy):
    done = cli("generate", "toybench", "--help", env=toy)
    assert done.returncode == 0, done.stderr
    assert "usage: recallbench generate toybench" in done.stdout
    assert "--frames FRAMES" in done.stdout  # its generator's own flags
    done = cli("generate", "nope", env=toy)  # the choices name every generator's command
    assert done.returncode == 2
    assert "(choose from 'scenemem', 'strip', 'findingdory', 'toybench')" in done.stderr


def test_generate_help_lists_the_built_ins_without_scanning_plugins(toy):
    done = cli("generate", "--help", env=toy)
    assert done.returncode == 0, done.stderr
    listed = [line.split()[0] for line in done.stdout.split("positional arguments:")[1]
              .split("options:")[0].splitlines()[2:] if line.startswith("    ") and
              not line.startswith("     ")]
    assert listed == ["scenemem", "strip", "findingdory"]


@pytest.mark.slow
def test_generate_toybench_writes_a_suite_the_benchmark_runs(toy, tmp_path):
    out = tmp_path / "suite"
    done = cli("generate", "toybench", "--out", str(out), "--n", "3", "--seed", "1", env=toy)
    assert done.returncode == 0, done.stderr
    manifest = json.loads((out / "suite.json").read_text())
    assert manifest["benchmark"] == "toybench" and manifest["complete"]
    cases = json.loads((out / "toybench.json").read_text())["cases"]
    assert [c["id"] for c in cases] == ["c000", "c001", "c002"]
    done = cli("run", "--suite", str(out), "--agents", "toy-oracle", "--out",
               str(tmp_path / "cmp"), env=toy)
    assert done.returncode == 0, done.stderr
    block = json.loads((tmp_path / "cmp" / "comparison.json").read_text())
    (agent,) = block["benchmarks"]["toybench"]["agents"]
    assert agent["n"] == 3 and agent["metrics"]["accuracy"]["value"] == 1.0
