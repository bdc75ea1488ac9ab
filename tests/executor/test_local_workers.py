"""Local worker processes: one BLAS thread each as Ray actors have, kept across the executors of
one run, and their output spools leaving nothing on disk on any path (real processes)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from recallbench.executor import ProcessExecutor, Task
from recallbench.executor.session import keep_workers
from recallbench.executor.threads import RENDER_THREADS, THREAD_VARS
from support.executor_runs import HANDLER
from support.fault_support import alive

ENV_HANDLER = "support.scenemem_fixtures.tasks:environment"
TESTS = Path(__file__).resolve().parents[1]


def run(handler: str, tasks: list[Task], workers: int = 1, **kwargs) -> dict:
    with ProcessExecutor(handler, workers, **kwargs) as ex:
        for t in tasks:
            ex.submit(t)
        return {r.key: r for r in ex.results()}


def env_of_workers() -> list[dict]:
    tasks = [Task(f"e{i}", {"x": i, "names": list(THREAD_VARS)}) for i in range(2)]
    return [r.value["env"] for r in run(ENV_HANDLER, tasks).values()]


@pytest.mark.slow  # four spawns
def test_workers_share_the_cores_out_for_rendering_unless_the_user_chose(monkeypatch):
    monkeypatch.delenv(RENDER_THREADS, raising=False)
    cores = os.cpu_count() or 1

    def render_threads(workers: int) -> set:
        tasks = [Task(f"e{i}", {"x": i, "names": [RENDER_THREADS]}) for i in range(2 * workers)]
        return {r.value["env"][RENDER_THREADS] for r in run(ENV_HANDLER, tasks, workers).values()}

    assert render_threads(1) == {str(cores)}  # a lone worker renders on every core
    assert render_threads(2) == {str(max(1, cores // 2))}  # two share them
    assert RENDER_THREADS not in os.environ
    monkeypatch.setenv(RENDER_THREADS, "3")
    assert render_threads(2) == {"3"}


@pytest.mark.slow  # three spawns, each with its own environment
def test_workers_get_one_blas_thread_unless_the_user_chose(monkeypatch):
    for name in THREAD_VARS:
        monkeypatch.delenv(name, raising=False)
    assert all(e == dict.fromkeys(THREAD_VARS, "1") for e in env_of_workers())
    assert not any(name in os.environ for name in THREAD_VARS)  # the parent's env as it was
    monkeypatch.setenv("OMP_NUM_THREADS", "3")  # the others follow OMP, as OpenBLAS and MKL do
    assert all(e == dict.fromkeys(THREAD_VARS, "3") for e in env_of_workers())
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "2")
    assert all(e == {"OMP_NUM_THREADS": "3", "OPENBLAS_NUM_THREADS": "2",
                     "MKL_NUM_THREADS": "3"} for e in env_of_workers())


def test_workers_are_started_once_for_all_executors_of_a_run(tmp_path):
    def pids(handler: str, log: str) -> set[int]:
        tasks = [Task(f"{log}{i}", {"x": i, "do": "print", "text": f"said in {log}"})
                 for i in range(3)]
        out = run(handler, tasks, chunk=1, log_path=tmp_path / f"{log}.log")
        assert all(r.error is None for r in out.values())
        return {r.value["pid"] for r in out.values()}

    with keep_workers():
        first = pids(HANDLER, "a")
        second = pids(ENV_HANDLER, "b")  # another benchmark, another handler: the same process
        third = pids(HANDLER, "c")  # and back
        assert len(first) == 1 and second == first and third == first
        assert all(alive(pid) for pid in first)
    # each executor's output reached its own log, through the same worker spools
    assert "said in a" in (tmp_path / "a.log").read_text()
    assert "said in a" not in (tmp_path / "b.log").read_text()
    assert "environment 0 in" in (tmp_path / "b.log").read_text()
    deadline = time.monotonic() + 30  # stopped at the block's end
    while any(alive(pid) for pid in first) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(alive(pid) for pid in first)
    assert pids(HANDLER, "d").isdisjoint(first)  # outside a block: workers of its own


def test_a_kept_worker_that_died_is_replaced(tmp_path):
    with keep_workers():
        first = run(HANDLER, [Task("a", {"x": 1})])["a"].value["pid"]
        os.kill(first, signal.SIGKILL)  # between two benchmarks
        deadline = time.monotonic() + 30
        while alive(first) and time.monotonic() < deadline:
            time.sleep(0.05)
        out = run(HANDLER, [Task("b", {"x": 2})])
        assert out["b"].error is None and out["b"].value["pid"] != first


def spools(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if "spool" in p.name)


def test_spools_are_gone_after_a_run_its_crashes_and_timeouts(tmp_path):
    log = tmp_path / "workers.log"
    tasks = [Task("said", {"x": 0, "do": "print", "text": "hello from said"}),
             Task("dies", {"x": 1, "do": "exit"}),
             Task("hangs", {"x": 2, "do": "sleep", "seconds": 60}),
             Task("fine", {"x": 3})]
    out = run(HANDLER, tasks, 2, timeout=3, log_path=log, chunk=1)
    assert out["dies"].error.startswith("worker process died")
    assert out["hangs"].error.startswith("timeout")
    assert out["fine"].value["square"] == 9
    assert "hello from said" in log.read_text()
    assert spools(tmp_path) == []


DRIVER = textwrap.dedent("""
    import sys
    from recallbench.executor import ProcessExecutor, Task
    with ProcessExecutor("support.scenemem_fixtures.tasks:work", 1, log_path=sys.argv[1],
                         chunk=1) as ex:
        ex.submit(Task("a", {"x": 0}))
        ex.submit(Task("b", {"x": 1, "do": "sleep", "seconds": 120, "calls": sys.argv[2]}))
        for r in ex.results():
            print(r.value["pid"], flush=True)
""")


@pytest.mark.skipif(sys.platform != "linux", reason="workers die with their parent on Linux")
def test_no_spool_is_left_when_the_run_itself_is_killed(tmp_path):
    calls = tmp_path / "calls"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(TESTS.parent / "src"), str(TESTS), os.environ.get("PYTHONPATH", "")])}
    driver = subprocess.Popen([sys.executable, "-c", DRIVER, str(tmp_path / "workers.log"),
                               str(calls)], env=env, stdout=subprocess.PIPE, text=True)
    try:
        worker = int(driver.stdout.readline())
        deadline = time.monotonic() + 60
        while not (calls.exists() and calls.read_text()) and time.monotonic() < deadline:
            time.sleep(0.05)  # until the worker runs "b"
        assert calls.read_text() == "1\n"
    finally:
        driver.kill()  # SIGKILL: the runner cleans nothing up
        driver.wait(30)
    deadline = time.monotonic() + 30
    while alive(worker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not alive(worker)  # it died with its parent
    assert spools(tmp_path) == []
