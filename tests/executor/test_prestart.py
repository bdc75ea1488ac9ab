"""Workers started before their executor (issue 27): `recallbench findingdory` spawns its agent's
worker processes first, so their start (a process, its imports) overlaps the command's own
imports and the suite's loading instead of following them. Real processes throughout."""

from __future__ import annotations

import json
import multiprocessing as mp
import os

import pytest

from recallbench.cli import main
from recallbench.executor import ProcessExecutor, Task, prestart
from recallbench.run import findingdory_runner
from support.executor_runs import HANDLER
from support.fault_support import alive
from support.shared_data import FINDINGDORY_VAL_QA


def test_an_executor_takes_the_prestarted_worker_and_tells_it_its_log(tmp_path):
    log = tmp_path / "workers.log"
    with prestart(HANDLER, 1) as pids:
        assert len(pids) == 1 and alive(pids[0])  # running before any executor exists
        with ProcessExecutor(HANDLER, workers=1, log_path=log, chunk=2) as ex:
            for i in range(3):
                ex.submit(Task(f"t{i}", {"x": i, "do": "print"}))
            out = {r.key: r for r in ex.results()}
    assert {k: (r.error, r.value["square"], r.value["pid"]) for k, r in out.items()} == {
        f"t{i}": (None, i * i, pids[0]) for i in range(3)}
    # its output after it was taken goes to that executor's log, as a worker it started
    assert [f"chatter from task {i}" for i in range(3)] == log.read_text().split("\n")[:3]
    assert not list(tmp_path.glob("*.spool"))
    assert not alive(pids[0])


def test_prestarted_workers_no_executor_took_are_stopped_at_the_end():
    with prestart(HANDLER, 2) as pids:
        assert all(alive(p) for p in pids)
    assert pids and not any(alive(p) for p in pids)
    # and the next executor starts its own, as before
    with ProcessExecutor(HANDLER, workers=1) as ex:
        ex.submit(Task("t", {"x": 3}))
        (result,) = list(ex.results())
    assert result.value["square"] == 9 and result.value["pid"] not in pids


def test_a_prestarted_worker_that_died_is_replaced_and_its_case_still_runs(tmp_path):
    with prestart(HANDLER, 1) as pids:
        os.kill(pids[0], 9)
        with ProcessExecutor(HANDLER, workers=1, log_path=tmp_path / "w.log") as ex:
            ex.submit(Task("t", {"x": 4}))
            (result,) = list(ex.results())
    assert result.error is None and result.value["square"] == 16
    assert result.value["pid"] != pids[0]


def test_a_stopped_worker_still_runs_its_exit_handlers(tmp_path):
    # a worker ends without the interpreter's teardown (the runner waited for it at every
    # executor's close), but what an agent registered to run at exit still runs
    marks = tmp_path / "exit.txt"
    with ProcessExecutor(HANDLER, workers=1) as ex:
        ex.submit(Task("t", {"x": 1, "do": "atexit", "file": str(marks)}))
        (result,) = list(ex.results())
    assert marks.read_text() == f"exit {result.value['pid']}\n"


@pytest.fixture(scope="module")
def qa(tmp_path_factory) -> str:
    """The first 40 questions of the public val set: the same format, loaded in a blink."""
    rows = json.loads(FINDINGDORY_VAL_QA.read_text())[:40]
    path = tmp_path_factory.mktemp("qa") / "qa.json"
    path.write_text(json.dumps(rows))
    return str(path)


@pytest.fixture
def load_order(monkeypatch):
    """The events of a run, in order: the suite's loading, and which worker processes of this
    process were alive when it began."""
    events: list[tuple[str, list[int]]] = []
    load = findingdory_runner.load_suite

    def watched(*args, **kwargs):
        events.append(("load suite", sorted(p.pid for p in mp.active_children())))
        return load(*args, **kwargs)

    monkeypatch.setattr(findingdory_runner, "load_suite", watched)
    return events


def test_findingdory_starts_its_worker_before_loading_the_suite(tmp_path, qa, load_order):
    out = tmp_path / "run"
    assert main(["findingdory", "--data", qa, "--agent", "random",
                 "--limit", "30", "--workers", "2", "--out", str(out), "--format", "json"]) == 0
    (event, workers), = load_order
    assert event == "load suite" and len(workers) == 2  # both spawned before the suite loaded
    records = [json.loads(line) for line in (out / "runlog.jsonl").read_text().splitlines()]
    assert len(records) == 30 and all(r["frame_indices"] for r in records)
    assert not any(alive(p) for p in workers) and not mp.active_children()


def test_fewer_cases_than_workers_start_fewer_and_a_user_error_leaves_none(tmp_path, qa,
                                                                          load_order):
    assert main(["findingdory", "--data", qa, "--agent", "random",
                 "--limit", "1", "--workers", "2", "--out", str(tmp_path / "a"),
                 "--format", "json"]) == 0
    assert len(load_order[0][1]) == 1
    load_order.clear()
    # a bad agent is refused after the suite loaded; the worker started for it is stopped
    assert main(["findingdory", "--data", qa, "--agent", "nosuch",
                 "--out", str(tmp_path / "b")]) == 2
    (_, workers), = load_order
    assert len(workers) == 1 and not any(alive(p) for p in workers)
    assert not mp.active_children() and not (tmp_path / "b").exists()


def test_a_bad_worker_count_starts_nothing(tmp_path, qa, load_order):
    assert main(["findingdory", "--data", qa, "--agent", "random",
                 "--workers", "0", "--out", str(tmp_path / "c")]) == 2
    assert load_order == [] and not mp.active_children()


def test_ctrl_c_before_the_worker_was_taken_stops_it(tmp_path, qa, load_order, monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt  # Ctrl-C, after the suite loaded, before any case ran

    monkeypatch.setattr(findingdory_runner, "run_cases", interrupted)
    assert main(["findingdory", "--data", qa, "--agent", "random", "--out",
                 str(tmp_path / "e")]) == 130
    (_, workers), = load_order
    assert len(workers) == 1 and not any(alive(p) for p in workers)
    assert not mp.active_children()
