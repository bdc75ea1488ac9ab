"""ProcessExecutor: real worker processes, real timeouts and crashes."""

from __future__ import annotations

import os
import time

import pytest

from recallbench.executor import ProcessExecutor, Task
from support.executor_runs import HANDLER, run_all


def test_every_task_runs_once_in_a_subprocess():
    tasks = [Task(f"t{i}", {"x": i}) for i in range(7)]
    out = run_all(tasks, workers=2)
    assert sorted(out) == sorted(t.key for t in tasks)
    for i in range(7):
        assert out[f"t{i}"].error is None
        assert out[f"t{i}"].value["square"] == i * i
        assert out[f"t{i}"].value["pid"] != os.getpid()  # never in-process, even for 1 worker


def test_results_identical_for_one_and_many_workers():
    tasks = [Task(f"t{i}", {"x": i}) for i in range(6)]
    one = run_all(tasks, workers=1)
    many = run_all(tasks, workers=3)
    strip = lambda rs: {k: (r.value["square"], r.error) for k, r in rs.items()}  # noqa: E731
    assert strip(one) == strip(many)
    assert len({r.value["pid"] for r in one.values()}) == 1


def test_handler_exception_fails_only_its_task():
    tasks = [Task("a", {"x": 1}), Task("b", {"x": 2, "do": "raise"}), Task("c", {"x": 3})]
    out = run_all(tasks, workers=1)
    assert out["b"].value is None
    assert "ValueError: bad payload 2" in out["b"].error
    assert out["a"].value["square"] == 1 and out["c"].value["square"] == 9
    # the worker survived a handler exception: same process ran all three
    assert out["a"].value["pid"] == out["c"].value["pid"]


def test_a_result_that_is_not_strict_json_fails_only_its_task():
    tasks = [Task("a", {"x": 1}), Task("nan", {"x": 2, "do": "nan"}),
             Task("np", {"x": 3, "do": "numpy"}), Task("c", {"x": 4})]
    out = run_all(tasks, workers=1, chunk=4)  # one chunk: the worker goes on after "nan"
    assert out["nan"].value is None
    assert out["nan"].error.startswith("the handler's result is not strict JSON (ValueError")
    assert out["np"].error is None and out["np"].value == {"x": 3, "square": 9, "v": [0, 1, 2]}
    assert out["a"].value["square"] == 1 and out["c"].value["square"] == 16
    assert out["a"].value["pid"] == out["c"].value["pid"]


def test_timeout_kills_and_replaces_the_worker():
    tasks = [
        Task("slow", {"x": 0, "do": "sleep", "seconds": 60}),
        Task("fast1", {"x": 1}),
        Task("fast2", {"x": 2}),
    ]
    start = time.monotonic()
    out = run_all(tasks, workers=1, timeout=1.5)
    assert time.monotonic() - start < 30
    assert out["slow"].error.startswith("timeout: exceeded 1.5 s")
    assert out["slow"].wall_time >= 1.5
    assert out["fast1"].value["square"] == 1 and out["fast2"].value["square"] == 4


def test_worker_death_is_recorded_and_the_run_goes_on():
    tasks = [Task("a", {"x": 1}), Task("dies", {"x": 0, "do": "exit"}), Task("c", {"x": 3})]
    out = run_all(tasks, workers=1)
    assert out["dies"].error == "worker process died (exit code 7)"
    assert out["a"].value["square"] == 1 and out["c"].value["square"] == 9
    assert out["a"].value["pid"] != out["c"].value["pid"]  # replaced


def test_broken_handler_fails_loudly_instead_of_respawning_forever(tmp_path):
    ex = ProcessExecutor("no_such_module_xyz:work", workers=1, log_path=tmp_path / "w.log")
    ex.submit(Task("a", {"x": 1}))
    with pytest.raises(RuntimeError, match="die during startup"):
        list(ex.results())
    assert "No module named 'no_such_module_xyz'" in (tmp_path / "w.log").read_text()


def test_rejects_zero_workers():
    with pytest.raises(ValueError):
        ProcessExecutor(HANDLER, workers=0)
