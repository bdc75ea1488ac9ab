"""The Ray backend on a real multi-node cluster (a head and two worker nodes, each its own
``ray start`` process on this machine): the same results as local processes, byte for byte,
also when a worker node dies mid-run or the driver is killed and the run resumed.

Interruptions happen in a known state, never by the clock: the gated policy holds every test
after the first while ``$RB_GATE/closed`` exists (the nodes get RB_GATE in their environment).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("ray", reason="needs the ray extra: pip install 'recallbench[ray]'")

from recallbench.executor import Task, make_executor  # noqa: E402
from recallbench.executor.threads import worker_threads  # noqa: E402
from support.fault_support import alive  # noqa: E402
from support.ray_cluster import CLIENT_ENV, RayCluster  # noqa: E402
from support.scenemem_fixtures.build import (  # noqa: E402
    MINI_FACTORY,
    mini_scenario,
    mini_test,
    policy,
)
from support.shared_data import FINDINGDORY_VAL_QA  # noqa: E402

pytestmark = [pytest.mark.ray, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
RECALLBENCH = str(Path(sys.executable).with_name("recallbench"))
RAY_WORKERS = "3"  # one actor per node


@pytest.fixture(scope="module")
def gate(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("gate")


@pytest.fixture(scope="module")
def node_tmp(tmp_path_factory) -> Path:
    """The nodes' temp folder (TMPDIR): what their workers leave there is this module's."""
    return tmp_path_factory.mktemp("nodetmp")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory, gate, node_tmp):
    path = os.pathsep.join([str(ROOT / "src"), str(ROOT / "tests"),
                            os.environ.get("PYTHONPATH", "")])
    c = RayCluster(tmp_path_factory.mktemp("ray"), workers=2,
                   env={"PYTHONPATH": path, "RB_GATE": str(gate), "TMPDIR": str(node_tmp)})
    yield c
    c.stop()


def env(gate: Path) -> dict[str, str]:
    return {**os.environ, **CLIENT_ENV, "MUJOCO_GL": os.environ.get("MUJOCO_GL", "egl"),
            "RB_GATE": str(gate)}


def cli(gate: Path, *args: str) -> subprocess.CompletedProcess:
    proc = subprocess.run([RECALLBENCH, *args], env=env(gate), capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr
    return proc


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("scenemem")
    for n in range(2):
        tests = [mini_test(f"t{i}", f"obj{i}", "cabinet" if i % 2 else "drawer")
                 for i in range(3)]
        mini_scenario(root / f"combo_00{n}_L1_S1_000{n}", tests)
    return root


def scenemem_args(data: Path, out: Path) -> list[str]:
    return ["scenemem", "--data_dir", str(data), "--policy", policy("GatedRandomWalk"),
            "--out", str(out), "--max_steps", "40", "--env_factory", MINI_FACTORY]


def on_ray(cluster: RayCluster) -> list[str]:
    return ["--executor", "ray", "--address", cluster.address, "--workers", RAY_WORKERS]


@pytest.fixture(scope="module")
def local_run(tmp_path_factory, data, gate) -> Path:
    """The reference: local worker processes."""
    out = tmp_path_factory.mktemp("local") / "r.json"
    cli(gate, *scenemem_args(data, out), "--workers", "2")
    return out


def assert_same_run(out: Path, reference: Path) -> None:
    assert json.loads(reference.read_text())["summary"]["total"] == 6
    assert out.read_bytes() == reference.read_bytes()
    summary = "{}_run/summary.json"
    assert Path(summary.format(out.with_suffix(""))).read_bytes() == \
        Path(summary.format(reference.with_suffix(""))).read_bytes()


def records(run_dir: Path) -> int:
    log = run_dir / "runlog.jsonl"
    return len(log.read_text().splitlines()) if log.exists() else 0


def hold(gate: Path) -> None:
    for f in gate.glob("started_*"):
        f.unlink()
    (gate / "closed").touch()


def wait_for(cond, proc: subprocess.Popen, what: str, timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def test_executor_on_the_cluster_fails_crashes_and_hung_tasks_only(cluster, monkeypatch):
    for name, value in CLIENT_ENV.items():  # this process is the driver here
        monkeypatch.setenv(name, value)
    handler = "support.scenemem_fixtures.tasks:work"
    tasks = [Task(f"sq{x}", {"x": x}) for x in range(5)] + [
        Task("raise", {"do": "raise", "x": 1}),
        Task("exit", {"do": "exit", "x": 2}),  # the task kills its own worker process
        Task("hang", {"do": "sleep", "seconds": 600, "x": 3}),
    ]
    with make_executor("ray", handler, 3, timeout=20, address=cluster.address) as ex:
        for t in tasks:
            ex.submit(t)
        out = {r.key: r for r in ex.results()}
    assert set(out) == {t.key for t in tasks}
    assert [out[f"sq{x}"].value["square"] for x in range(5)] == [0, 1, 4, 9, 16]
    assert "ValueError: bad payload 1" in out["raise"].error
    assert out["exit"].error.startswith("worker process died") and not out["exit"].lost
    assert out["hang"].error.startswith("timeout: exceeded 20 s")


def test_a_fault_in_a_chunk_on_ray_fails_only_the_running_task(cluster, monkeypatch, tmp_path):
    from recallbench.executor.ray import RayExecutor

    for name, value in CLIENT_ENV.items():
        monkeypatch.setenv(name, value)
    calls = tmp_path / "calls.txt"  # one machine: every node sees it
    handler = "support.scenemem_fixtures.tasks:work"
    faults = {"t1": {"do": "sleep", "seconds": 600}, "t4": {"do": "sigkill"},
              "t6": {"do": "raise"}}
    tasks = [Task(f"t{i}", {"x": i, "calls": str(calls), **faults.get(f"t{i}", {})})
             for i in range(9)]
    with RayExecutor(handler, 1, timeout=15, address=cluster.address, chunk=9,
                     log_path=tmp_path / "workers.log") as ex:
        for t in tasks:
            ex.submit(t)
        out = {r.key: r for r in ex.results()}
    assert out["t1"].error.startswith("timeout: exceeded 15 s")
    assert out["t4"].error.startswith("worker process died") and not out["t4"].lost
    assert "ValueError: bad payload 6" in out["t6"].error
    for i in (0, 2, 3, 5, 7, 8):
        assert out[f"t{i}"].error is None and out[f"t{i}"].value["square"] == i * i
    assert out["t0"].value["pid"] != out["t2"].value["pid"]  # t1's timeout stopped the actor
    # The rest of a chunk is re-queued and runs once, except where a worker died: t4 killed
    # its actor with tasks queued behind it, so the tasks the driver had no reply for ran again,
    # one at a time. Those from the first without a reply (t4 itself, or an earlier one whose
    # reply went down with the actor) to t4 ran twice; t4 failed, none before it was blamed.
    log = (tmp_path / "workers.log").read_text()
    said = re.search(r"t(\d): its Ray worker died with (\d) more tasks queued; running them "
                     r"again one at a time to see which was the cause", log)
    assert said, log
    first = int(said.group(1))  # the second actor began at t2, after t1's timeout
    assert 2 <= first <= 4 and int(said.group(2)) == 8 - first
    ran = calls.read_text().split()
    assert {x: ran.count(x) for x in "012345678"} == {
        str(i): 2 if first <= i <= 4 else 1 for i in range(9)}


def test_actors_are_started_once_for_all_executors_of_a_run(cluster, monkeypatch):
    from recallbench.executor.session import keep_workers

    for name, value in CLIENT_ENV.items():
        monkeypatch.setenv(name, value)
    handler = "support.scenemem_fixtures.tasks:work"

    def pids(tasks: int) -> set[int]:
        with make_executor("ray", handler, 1, address=cluster.address) as ex:
            for x in range(tasks):
                ex.submit(Task(f"x{x}", {"x": x}))
            return {r.value["pid"] for r in ex.results()}

    with keep_workers():
        first = pids(3)
        second = pids(3)  # another benchmark, another agent: the same actor
        assert len(first) == 1 and second == first
        assert all(alive(pid) for pid in first)
    deadline = time.monotonic() + 60  # stopped at the block's end
    while any(alive(pid) for pid in first) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not any(alive(pid) for pid in first)
    assert pids(2).isdisjoint(first)  # outside a block: actors of its own


def test_actors_leave_no_spool_when_killed_or_stopped(cluster, node_tmp, monkeypatch,
                                                     tmp_path):
    from recallbench.executor.ray import RayExecutor

    for name, value in CLIENT_ENV.items():
        monkeypatch.setenv(name, value)
    handler = "support.scenemem_fixtures.tasks:work"
    tasks = [Task("said", {"x": 0, "do": "print", "text": "hello from an actor"}),
             Task("dies", {"x": 1, "do": "exit"}),
             Task("hangs", {"x": 2, "do": "sleep", "seconds": 60}),  # ray.kill at its timeout
             Task("fine", {"x": 3})]
    log = tmp_path / "workers.log"
    with RayExecutor(handler, 2, timeout=5, log_path=log, address=cluster.address,
                     chunk=1) as ex:  # closed: ray.kill on every actor left
        for t in tasks:
            ex.submit(t)
        out = {r.key: r for r in ex.results()}
    assert out["dies"].error.startswith("worker process died")
    assert out["hangs"].error.startswith("timeout")
    assert out["fine"].value["square"] == 9
    assert "hello from an actor" in log.read_text()  # the spool still carries output
    pids = {out[k].value["pid"] for k in ("said", "fine")}
    deadline = time.monotonic() + 60
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not any(alive(pid) for pid in pids)
    assert [p.name for p in node_tmp.iterdir() if p.name.endswith(".spool")] == []


def test_runs_on_the_cluster_equal_local_runs(cluster, data, local_run, gate, tmp_path):
    out = tmp_path / "ray.json"
    cli(gate, *scenemem_args(data, out), *on_ray(cluster))
    assert_same_run(out, local_run)
    manifest = json.loads((tmp_path / "ray_run" / "manifest.json").read_text())
    assert manifest["executor"] == {"kind": "ray", "workers": 3, "address": cluster.address,
        "threads": worker_threads()}  # as the run was started
    # FindingDory's agent calls too (real validation questions, the seeded random agent)
    fd = ["findingdory", "--data", str(FINDINGDORY_VAL_QA), "--agent", "random", "--limit", "20"]
    cli(gate, *fd, "--out", str(tmp_path / "fd_local"))
    cli(gate, *fd, "--out", str(tmp_path / "fd_ray"), *on_ray(cluster))
    assert (tmp_path / "fd_ray" / "summary.json").read_bytes() == \
        (tmp_path / "fd_local" / "summary.json").read_bytes()


def test_generation_on_the_cluster_writes_the_same_files(cluster, gate, tmp_path):
    args = ["generate", "findingdory", "--n", "2", "--seed", "0", "--interactions", "2",
            "--steps", "600", "--width", "48", "--height", "64", "--subsample", "16"]
    cli(gate, *args, "--out", str(tmp_path / "local"), "--workers", "1")
    cli(gate, *args, "--out", str(tmp_path / "ray"), *on_ray(cluster))

    def files(root: Path) -> dict[str, bytes]:
        # every generated file; the audit's report on the suite (audit.json, .png) aside
        return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
                if p.is_file() and not p.name.startswith("audit.")}

    local, ray = files(tmp_path / "local"), files(tmp_path / "ray")
    assert any(name.endswith(".mp4") for name in local) and "qa.json" in local
    assert list(ray) == list(local)
    assert [n for n in local if ray[n] != local[n]] == []


def held_run(cluster: RayCluster, data: Path, gate: Path, out: Path,
             started: int) -> subprocess.Popen:
    """A run on the cluster with one test recorded and ``started`` - 1 more held under way."""
    hold(gate)
    proc = subprocess.Popen([RECALLBENCH, *scenemem_args(data, out), *on_ray(cluster)],
                            env=env(gate), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True)
    run_dir = out.with_name(f"{out.stem}_run")
    try:
        wait_for(lambda: records(run_dir) == 1 and len(list(gate.glob("started_*"))) >= started,
                 proc, f"{started} tests started")
    except BaseException:
        proc.kill()
        raise
    return proc


def test_killed_driver_resumes_to_the_same_results(cluster, data, local_run, gate, tmp_path):
    out, run_dir = tmp_path / "r.json", tmp_path / "r_run"
    proc = held_run(cluster, data, gate, out, started=3)
    try:  # the driver dies with tests under way
        proc.kill()
        proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
        (gate / "closed").unlink(missing_ok=True)
    assert records(run_dir) == 1
    cli(gate, "scenemem", "--resume", "--run-dir", str(run_dir), *on_ray(cluster))
    assert_same_run(out, local_run)


def test_a_worker_node_dying_mid_run_changes_no_result(cluster, data, local_run, gate,
                                                       tmp_path):
    """Last in this module: the cluster has one node fewer afterwards."""
    out, run_dir = tmp_path / "r.json", tmp_path / "r_run"
    # a test held on every node's worker: killing a node loses the one in flight there
    proc = held_run(cluster, data, gate, out, started=4)
    try:
        cluster.kill_node(2)
        log = run_dir / "workers.log"
        wait_for(lambda: log.exists() and "was lost with its node" in log.read_text(), proc,
                 "the driver to see the node's test lost")
        (gate / "closed").unlink()
        _, err = proc.communicate(timeout=600)
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
        (gate / "closed").unlink(missing_ok=True)
    assert proc.returncode == 0, err
    log = (run_dir / "workers.log").read_text()
    assert "was lost with its node" in log and "attempt 1 of 4" in log
    assert_same_run(out, local_run)
