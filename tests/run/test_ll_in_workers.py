"""FindingDory's LL phase through the executor: episodes acted out in worker processes give the
outcomes the in-process phase gives, and an LL policy that kills its worker costs its episode's
outcomes only (nothing recorded for them; the HL answers stay; --resume redoes them)."""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path

import pytest

from recallbench.cli import main
from recallbench.run.runlog import completed

pytestmark = [pytest.mark.timeout(900), pytest.mark.slow]

CRASHER = textwrap.dedent(
    """
    import os

    class Crasher:
        def reset(self, env):
            pass

        def act(self, pose, goal):
            os._exit(3)  # a segfaulting controller, as the executor sees it
    """
)


@pytest.fixture(scope="module")
def hl_run(tmp_path_factory, findingdory_generated_suite) -> tuple[Path, Path]:
    suite = findingdory_generated_suite
    run = tmp_path_factory.mktemp("ll_workers") / "hl"
    assert main(["findingdory", "--data", str(suite), "--agent", "oracle", "--out", str(run)]) == 0
    return suite, run


def copy_run(run: Path, to: Path) -> Path:
    to.mkdir()
    shutil.copy(run / "manifest.json", to / "manifest.json")
    shutil.copy(run / "runlog.jsonl", to / "runlog.jsonl")
    return to


def test_ll_in_two_workers_equals_the_in_process_phase(hl_run, tmp_path):
    from recallbench.agents.ll_policies import GreedyFramePolicy
    from recallbench.benchmarks.findingdory.data import load_suite
    from recallbench.run.findingdory import run_ll

    suite, run = hl_run
    workers = copy_run(run, tmp_path / "workers")
    assert main(["findingdory", "--data", str(suite), "--agent", "oracle", "--ll", "--resume",
                 "--workers", "2", "--out", str(workers)]) == 0
    in_process = copy_run(run, tmp_path / "in_process")
    run_ll(load_suite(suite), in_process, GreedyFramePolicy())
    a, b = completed(workers / "runlog.jsonl"), completed(in_process / "runlog.jsonl")
    assert all("ll" in r for r in a.values()) and len({r["key"] for r in a.values()}) > 20
    assert {k: r["ll"] for k, r in a.items()} == {k: r["ll"] for k, r in b.items()}


def test_an_ll_policy_killing_its_worker_costs_only_its_outcomes(hl_run, tmp_path, capsys):
    suite, run = hl_run
    policy = tmp_path / "crasher.py"
    policy.write_text(CRASHER)
    part = copy_run(run, tmp_path / "crash")
    hl = completed(part / "runlog.jsonl")
    status = main(["findingdory", "--data", str(suite), "--agent", "oracle", "--ll", "--resume",
                   "--ll-policy", f"{policy}:Crasher", "--out", str(part)])
    assert status == 1
    assert "LL episodes whose worker failed (worker process died" in capsys.readouterr().err
    after = completed(part / "runlog.jsonl")
    assert after == hl  # nothing lost, nothing half-recorded
    summary = json.loads((part / "summary.json").read_text())
    assert summary["overall"]["hl_sr"]["n"] == len(hl)


def test_a_resume_adds_the_ll_phase_but_never_changes_its_policy(hl_run, tmp_path, capsys):
    """An HL run may gain its LL phase on resume (the policy is recorded then); a later resume
    acting it out with another policy is refused in one line naming the setting."""
    suite, run = hl_run
    part = copy_run(run, tmp_path / "add_ll")
    args = ["findingdory", "--data", str(suite), "--agent", "oracle", "--limit", "2", "--resume",
            "--out", str(part)]
    assert main([*args, "--ll"]) == 0
    assert json.loads((part / "manifest.json").read_text())["ll_policy"] == "greedy"
    capsys.readouterr()
    assert main([*args, "--ll", "--ll-policy", "stop"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "ll_policy" in err[0] and "'greedy'" in err[0], err
    assert main(args) == 0  # no LL phase this time: nothing of it to mix
