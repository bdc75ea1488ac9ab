"""Chunks of cheap tasks (issue 27): real worker processes, each handed several tasks at once.

A crash, a hang past the time limit or an exception in the middle of a chunk fails only the
task that was running; the tasks before it keep their results, the ones after it are re-queued
and run once, and every result is what the same tasks give one at a time.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from recallbench.executor import ProcessExecutor, Task, TaskResult
from recallbench.executor.chunks import ChunkSizer
from support.executor_runs import HANDLER, run_all


def chunk_of_six(calls: Path, fault: dict) -> list[Task]:
    """Six tasks; the second does ``fault``; each notes in ``calls`` that it ran."""
    return [Task(f"t{i}", {"x": i, "calls": str(calls), **(fault if i == 1 else {})})
            for i in range(6)]


def outcome(results: dict[str, TaskResult]) -> dict[str, tuple]:
    """What a run decides, without the pids and times that differ between runs."""
    return {k: (r.value["square"] if r.value else None,
                r.error.split(" (")[0] if r.error else None) for k, r in results.items()}


FAULTS = {
    "sigkill": ({"do": "sigkill"}, "worker process died (signal 9)"),
    "hang": ({"do": "sleep", "seconds": 60}, "timeout: exceeded 2 s wall clock"),
    "raise": ({"do": "raise"}, "handler raised ValueError: bad payload 1"),
}


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_a_fault_in_a_chunk_fails_only_the_task_that_was_running(tmp_path, fault):
    payload, error = FAULTS[fault]
    calls = tmp_path / "calls.txt"
    start = time.monotonic()
    out = run_all(chunk_of_six(calls, payload), workers=1, timeout=2, chunk=6)
    assert time.monotonic() - start < 40
    assert out["t1"].value is None and out["t1"].error.startswith(error), out["t1"].error
    for i in (0, 2, 3, 4, 5):
        assert out[f"t{i}"].error is None and out[f"t{i}"].value["square"] == i * i
    # each task ran exactly once: the ones after the fault were re-queued, not re-run
    assert sorted(calls.read_text().split()) == [str(i) for i in range(6)]
    pids = {k: r.value["pid"] for k, r in out.items() if r.value}
    assert all(pid != os.getpid() for pid in pids.values())
    if fault == "raise":  # the worker lives on: one process ran the whole chunk
        assert len(set(pids.values())) == 1
    else:  # t0 ran in the worker that died, the rest of its chunk in its replacement
        assert pids["t0"] != pids["t2"] == pids["t5"]


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_chunked_results_are_those_of_one_task_at_a_time(tmp_path, fault):
    payload, _ = FAULTS[fault]
    one = run_all(chunk_of_six(tmp_path / "one.txt", payload), workers=1, timeout=2, chunk=1)
    chunked = run_all(chunk_of_six(tmp_path / "six.txt", payload), workers=1, timeout=2, chunk=6)
    assert outcome(chunked) == outcome(one)


def test_the_time_limit_is_per_task_not_per_chunk(tmp_path):
    # five tasks of 0.8 s each in one chunk: 4 s in all, but none over its 2 s limit
    tasks = [Task(f"t{i}", {"x": i, "do": "sleep", "seconds": 0.8}) for i in range(5)]
    out = run_all(tasks, workers=1, timeout=2, chunk=5)
    assert all(r.error is None for r in out.values()), {k: r.error for k, r in out.items()}
    assert len({r.value["pid"] for r in out.values()}) == 1


def test_cheap_tasks_travel_in_chunks_and_costly_ones_singly():
    sizer = ChunkSizer()
    assert sizer.size(queued=1000, workers=2) == 1  # nothing known yet: one at a time
    sizer.observe(0.0003)  # a cheap task: a chunk of about 50 ms of work
    assert 100 <= sizer.size(queued=1000, workers=1) <= 256
    assert sizer.size(queued=10, workers=2) == 5  # never more than a fair share of the rest
    costly = ChunkSizer()
    costly.observe(2.0)  # a SceneMem rollout: one per message, as before
    assert costly.size(queued=100, workers=2) == 1 and costly.refill_at(1) == 0
    with pytest.raises(ValueError):
        ChunkSizer(fixed=0)


def test_many_cheap_tasks_stream_back_in_chunks_with_every_result():
    tasks = [Task(f"t{i}", {"x": i}) for i in range(2000)]
    with ProcessExecutor(HANDLER, workers=2) as ex:
        for t in tasks:
            ex.submit(t)
        out = {r.key: r.value["square"] for r in ex.results()}
        biggest = ex._chunks.size(queued=10_000, workers=1)
    assert out == {f"t{i}": i * i for i in range(2000)}
    assert biggest > 1  # the sizer learnt the tasks are cheap
