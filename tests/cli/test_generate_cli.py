"""The ``recallbench generate`` command line: both benchmarks, argument errors, fast imports."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from recallbench.cli import main


def test_generate_help_imports_no_simulator():
    code = ("import sys; from recallbench.cli import build_parser; build_parser(); "
            "print(any(m in sys.modules for m in ('mujoco', 'av', 'robosuite')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_bad_knobs_exit_2_with_the_reason(tmp_path, capsys):
    assert main(["generate", "scenemem", "--out", str(tmp_path / "s"), "--rooms", "3"]) == 2
    assert "rooms" in capsys.readouterr().err
    assert main(["generate", "scenemem", "--out", str(tmp_path / "s"), "--n", "0"]) == 2


@pytest.mark.slow
def test_findingdory_branch_writes_a_loadable_suite(tmp_path):
    from recallbench.benchmarks.findingdory.data import load_suite

    out = tmp_path / "fd"
    args = ["generate", "findingdory", "--out", str(out), "--n", "1", "--seed", "0",
            "--interactions", "2", "--steps", "1000", "--width", "64", "--height", "96",
            "--subsample", "16", "--workers", "1"]
    assert main(args) == 0
    manifest = json.loads((out / "suite.json").read_text())
    assert manifest["benchmark"] == "findingdory" and manifest["complete"]
    assert manifest["items"][0]["frames"] == 1000
    rows = json.loads((out / "qa_16.json").read_text())
    assert rows and {"question", "answer", "ep_id"} <= set(rows[0])
    assert load_suite(out)  # the generated suite folder
    assert load_suite(out / "qa_16.json")  # the public format, read by the same loader
    # one day is below the 2 episodes the audit judges (its blind agents learn from the other
    # days): not audited, as the README's one-day suite
    assert not (out / "audit.json").exists() and "audit" not in manifest


@pytest.mark.slow
def test_generation_skips_an_audit_that_cannot_judge_and_says_what_size_can(tmp_path, capsys):
    """The README's small SceneMem suite used to sit through minutes of audit ending "too small
    to judge", then was told to run `recallbench audit` on it, which could never judge it
    either; a two-day FindingDory suite is judged; --no-audit skips it on any suite."""
    from recallbench.cli.generate import audit_suite
    from support.findingdory_suite import build_suite
    from support.scenemem_fixtures.build import mini_scenario, mini_test

    scenemem = tmp_path / "sm"
    mini_scenario(scenemem / "combo_0000", [mini_test("t0", "static")])
    (scenemem / "suite.json").write_text("{}")
    assert audit_suite(str(scenemem), 0) == 0
    err = capsys.readouterr().err
    assert "audit: not run (1 probe, below the 40 a SceneMem audit judges" in err
    assert "generate at least 40 probes (--n 40)" in err
    assert "recallbench audit" not in err  # never a command that cannot judge it
    assert not (scenemem / "audit.json").exists()

    suite = build_suite(tmp_path / "fd")
    (suite / "suite.json").write_text("{}")
    assert audit_suite(str(suite), 1, skip=True) == 1
    assert "audit: skipped (--no-audit)" in capsys.readouterr().err
    assert not (suite / "audit.json").exists()
    assert audit_suite(str(suite), 0) == 0  # judged against val's two-episode subsets
    assert "audit: skipped" not in capsys.readouterr().err
    assert (suite / "audit.json").is_file()
    recorded = json.loads((suite / "suite.json").read_text())["audit"]
    assert recorded["judged"] is True and "blind" in recorded["agents"]
