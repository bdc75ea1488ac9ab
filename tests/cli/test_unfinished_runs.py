"""`score`, `report` and `view` of an unfinished run say first how many cases are missing and the
command that finishes it, for every benchmark (issue 34).

A SceneMem run stopped by Ctrl-C has no summary.json yet, so its planned tests were unknown to
the scorer: 0 of 5 recorded gave `n 0` tables, wrong "n/a" reasons and exit 0, never a word
about missing tests. Nothing recorded is nothing scored: one error line, exit 1; a partial run
is a warning with the counts, then the tables, exit 0.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from recallbench.cli import main
from support.findingdory_suite import build_suite
from support.scenemem_fixtures.build import MINI_FACTORY, mini_scenario, mini_test, policy

RECALLBENCH = str(Path(sys.executable).with_name("recallbench"))
TESTS = 3


def _stderr_lines(capsys: pytest.CaptureFixture[str]) -> list[str]:
    return [line for line in capsys.readouterr().err.splitlines() if line.strip()]


def _interrupted_scenemem(tmp: Path, recorded: int) -> Path:
    """A real `recallbench scenemem` run, stopped by SIGINT once ``recorded`` tests are in its log
    and the next one waits at the gate. Returns its run folder."""
    data = tmp / "data"
    tests = [mini_test(f"t{i}", f"obj{i}", "cabinet" if i % 2 else "drawer")
             for i in range(TESTS)]
    mini_scenario(data / "combo_007_L3_S4_0001", tests, base_xy=(1.0, 0.5))
    gate = tmp / "gate"
    gate.mkdir()
    (gate / "closed").touch()
    if recorded == 0:  # the first test waits too
        (gate / "started_0_0").touch()
    run_dir = tmp / "r_run"
    proc = subprocess.Popen(
        [RECALLBENCH, "scenemem", "--data_dir", str(data), "--policy", policy("GatedRandomWalk"),
         "--env_factory", MINI_FACTORY, "--max_steps", "30", "--workers", "1",
         "--out", str(tmp / "r.json")],
        env={**os.environ, "RB_GATE": str(gate), "MUJOCO_GL": os.environ.get("MUJOCO_GL", "egl")},
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    log = run_dir / "runlog.jsonl"
    try:
        deadline = time.monotonic() + 240
        while not (len(list(gate.glob("started_*"))) >= 2 and log.is_file()
                   and len(log.read_text().splitlines()) >= recorded):
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            assert time.monotonic() < deadline
            time.sleep(0.02)
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130
    assert len(log.read_text().splitlines()) == recorded
    assert not (run_dir / "summary.json").exists()  # the runner never finished
    (gate / "closed").unlink()
    return run_dir


@pytest.mark.slow
@pytest.mark.parametrize("recorded", [0, 1])
def test_score_report_and_view_of_an_interrupted_scenemem_run(tmp_path, capsys, recorded):
    run_dir = _interrupted_scenemem(tmp_path, recorded)
    finish = f"recallbench scenemem --resume --run-dir {run_dir}"
    for command in (["score", str(run_dir)], ["report", str(run_dir)], ["view", str(run_dir)]):
        status = main(command)
        lines = _stderr_lines(capsys)
        if recorded == 0:  # nothing scored: one error line, no table, exit 1
            assert status == 1, (command, lines)
            assert lines == [f"recallbench {command[0]}: error: {run_dir} is an unfinished run: "
                             f"0 of {TESTS} planned cases recorded; finish it with: {finish}"]
        else:  # partial: said first, with the counts, then the tables; exit 0
            assert status == 0, (command, lines)
            assert lines[0] == (
                f"recallbench: warning: {run_dir} is an unfinished run: 1 of {TESTS} planned "
                "cases recorded, 2 missing (counted as failures below unless --subset); finish "
                f"it with: {finish}")
    summary = json.loads((run_dir / "summary.json").read_text())
    assert (summary["cases_recorded"], summary["unrecorded"]) == (recorded, TESTS - recorded)
    if recorded:  # the missing tests fail: n is every planned test, not only the recorded
        assert summary["overall"]["memory_success"]["n"] == TESTS
        assert summary["overall"]["failures"]["missing"] == TESTS - recorded
        assert main(["score", str(run_dir), "--subset"]) == 0
        assert "2 missing (left out below (--subset))" in _stderr_lines(capsys)[0]
    # the printed command finishes it, and then nothing is said
    proc = subprocess.run([RECALLBENCH, *shlex.split(finish)[1:]], capture_output=True,
                          text=True, timeout=300,
                          env={**os.environ, "RB_GATE": str(tmp_path / "gate")})
    assert proc.returncode == 0, proc.stderr
    assert main(["score", str(run_dir)]) == 0
    assert not any("unfinished" in line for line in _stderr_lines(capsys))


def test_a_findingdory_run_with_nothing_recorded_is_an_error(tmp_path, capsys):
    """The same rule for FindingDory, which named its missing cases already but exited 0."""
    suite = build_suite(tmp_path / "fd")
    run = tmp_path / "run"
    argv = ["findingdory", "--data", str(suite), "--agent", "random", "--frames", "8",
            "--limit", "4", "--workers", "1", "--out", str(run)]
    assert main(argv) == 0
    (run / "runlog.jsonl").write_text("")  # stopped before its first case ended
    (run / "summary.json").unlink()
    capsys.readouterr()
    for command in (["score", str(run)], ["report", str(run)], ["view", str(run)]):
        assert main(command) == 1, command
        lines = _stderr_lines(capsys)
        assert len(lines) == 1 and lines[0].startswith(f"recallbench {command[0]}: error: "), lines
        assert "is an unfinished run: 0 of 4 planned cases recorded; finish it with: " \
               "recallbench findingdory" in lines[0] and lines[0].endswith("--resume")
    assert not (run / "viewer").exists()
