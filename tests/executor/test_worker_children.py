"""Nothing an agent starts outlives its worker: a ``setsid`` child, a plain child and a forked
daemon are gone once the executor ends the worker, whether its task hung past the time limit,
killed the worker, or returned and the run ended (real processes, real ``setsid``)."""

from __future__ import annotations

import os
import shutil
import signal
import time
from pathlib import Path

import pytest

from recallbench.executor import ProcessExecutor, Task
from support.fault_support import alive

HANDLER = "support.child_tasks:spawn"


def _alive_after(pids: list[int], within: float = 5.0) -> list[int]:
    """The pids still alive after ``within`` seconds (an init reaps the killed ones)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline and any(alive(p) for p in pids):
        time.sleep(0.05)
    return [p for p in pids if alive(p)]


@pytest.mark.slow  # three worker spawns and a time limit
@pytest.mark.skipif(shutil.which("setsid") is None, reason="needs the setsid command")
def test_what_a_task_starts_ends_with_its_worker(tmp_path: Path) -> None:
    files = {then: tmp_path / then for then in ("hang", "exit", "return")}
    try:
        with ProcessExecutor(HANDLER, 1, timeout=2, chunk=1) as ex:
            for then, path in files.items():
                ex.submit(Task(then, {"pids": str(path), "then": then}))
            errors = {r.key: r.error for r in ex.results()}
            # a worker that timed out or died took its processes with it, the run going on
            for then in ("hang", "exit"):
                assert errors[then] is not None
                assert _alive_after([int(p) for p in files[then].read_text().split()]) == []
            assert errors["return"] is None
        assert _alive_after([int(p) for p in files["return"].read_text().split()]) == []
    finally:  # never leave them behind, even when the test fails
        for path in files.values():
            for p in path.read_text().split() if path.exists() else []:
                if alive(int(p)):
                    os.kill(int(p), signal.SIGKILL)


CARELESS_AGENT = '''
import subprocess
from recallbench.agents.base import FrameAnswer

class Careless:
    name = "careless"
    privileged = False

    def __init__(self, pids):
        self.pids = pids

    def select_frames(self, query, frames):
        child = subprocess.Popen(["setsid", "sleep", "1000"])  # a daemon of its own
        with open(self.pids, "a") as f:
            f.write(f"{child.pid}\\n")
        return FrameAnswer([0], None, {"trace": "t" * (20 << 20), "case": query.case_id})
'''


@pytest.mark.slow  # a FindingDory run in worker processes
@pytest.mark.skipif(shutil.which("setsid") is None, reason="needs the setsid command")
def test_a_careless_agents_daemons_and_megabytes_do_not_outlive_the_run(tmp_path: Path) -> None:
    """Three cases whose agent starts ``setsid sleep 1000`` and returns 20 MiB of info each
    (a 60+ MB run log before): the run log keeps at most the cap per case, no sleep lives on."""
    from recallbench.executor.results import RESULT_CAP
    from support.fault_support import cli, records
    from support.findingdory_suite import build_suite

    (tmp_path / "careless.py").write_text(CARELESS_AGENT)
    pids, run = tmp_path / "pids", tmp_path / "run"
    try:
        proc = cli("findingdory", "--data", str(build_suite(tmp_path / "suite")), "--agent",
                   f"{tmp_path / 'careless.py'}:Careless", "--agent-arg", f"pids={pids}",
                   "--frames", "8", "--limit", "3", "--workers", "1", "--out", str(run))
        assert proc.returncode == 0, proc.stderr[-3000:]
        assert (run / "runlog.jsonl").stat().st_size < 3 * RESULT_CAP
        recs = records(run)
        assert len(recs) == 3 and all("[cut: " in r["info"]["trace"] for r in recs)
        assert sorted(r["info"]["case"] for r in recs) == sorted(r["key"] for r in recs)
        assert _alive_after([int(p) for p in pids.read_text().split()]) == []
    finally:
        for p in pids.read_text().split() if pids.exists() else []:
            if alive(int(p)):
                os.kill(int(p), signal.SIGKILL)
