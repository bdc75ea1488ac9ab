"""The Ray executor against local worker processes on the same 100+ SceneMem probes, same run.

A small SceneMem suite is generated (``--suite`` reuses one) and widened to ``--probes`` probes
by repeating its tests under new ids (the suite is data: the same scenarios, more tests), each
cut to ``--max-steps`` steps so a run fits a 2-core machine. A local 2-node Ray cluster is
started with Ray's own tooling (``ray start --head`` and ``ray start --address``, two CPUs a
node, tests/support/ray_cluster.py) and this driver joins it once. Then the privileged policy
runs every probe through ``run_scenemem``, local processes and Ray actors at 1, 2 and 4
workers, in alternating blocks so all see the same machine load. Every run starts its own
workers (processes or actors), as a single command does. Printed (medians of ``--repeats``):

- wall time per probe, Ray / local, at 1, 2 and 4 workers (target <= 1.05x): the median of
  each round's ratio (a Ray run over the local run just before it, under the same load; on a
  shared machine one run's wall time varies by 20% or more from the next);
- speed-up from 1 to 2 (and 4) workers of each, and Ray's over local's (target >= 0.95).

    .venv/bin/python bench/bench_ray.py [--suite DIR] [--probes 104] [--max-steps 40]
                                        [--repeats 3]

Needs the ray extra (pip install 'recallbench[ray]').
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console

from recallbench.executor import ExecutorSettings
from recallbench.run.scenemem import ScenememConfig, normalise, run_scenemem

ROOT = Path(__file__).resolve().parents[1]
POLICY = "recallbench.agents.hierarchical:HierarchicalPrivileged"
TINY = ["generate", "scenemem", "--n", "2", "--seed", "3", "--tasks", "3", "--pick-place", "3",
        "--size", "64", "--no-camera-obs", "--workers", "2"]
RATIO_TARGET = 1.05
SPEEDUP_TARGET = 0.95
WORKERS = (1, 2, 4)


def widen(suite: Path, out: Path, probes: int) -> int:
    """A copy of ``suite`` whose scenarios repeat their tests (new ids) to ``probes`` in all."""
    shutil.copytree(suite, out)
    specs = sorted(out.glob("*/eval_spec.json"))
    base = sum(len(json.loads(p.read_text())["tests"]) for p in specs)
    copies = -(-probes // base)
    total = 0
    for path in specs:
        spec = json.loads(path.read_text())
        spec["tests"] = [{**t, "test_id": f"{t['test_id']}_r{r}"} for r in range(copies)
                         for t in spec["tests"]]
        total += len(spec["tests"])
        path.write_text(json.dumps(spec))
    return total


def run_once(suite: Path, scratch: Path, execution: ExecutorSettings,
             max_steps: int) -> tuple[float, int]:
    out = Path(tempfile.mkdtemp(dir=scratch)) / "r.json"
    config = normalise(ScenememConfig(data_dir=str(suite), policy=POLICY, out=str(out),
                                      camera_obs=False, max_steps=max_steps))
    start = time.perf_counter()
    status = run_scenemem(config, out.with_name("r_run"), execution.workers,
                          console=Console(quiet=True), execution=execution)
    wall = time.perf_counter() - start
    probes = sum(1 for _ in (out.with_name("r_run") / "runlog.jsonl").open())
    assert status == 0 and probes, "the run failed: see its workers.log"
    return wall, probes


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--suite", type=Path)
    p.add_argument("--probes", type=int, default=104)
    p.add_argument("--max-steps", type=int, default=40)
    p.add_argument("--repeats", type=int, default=3)
    args = p.parse_args()
    sys.path.insert(0, str(ROOT / "tests"))
    from support.ray_cluster import CLIENT_ENV

    os.environ.setdefault("MUJOCO_GL", "egl")
    os.environ.update(CLIENT_ENV)
    scratch = Path(tempfile.mkdtemp(prefix="bench-ray-"))
    try:
        med, probes = measure(args, scratch)
    finally:  # the suite, its runs and the cluster's files: nothing left in /tmp
        shutil.rmtree(scratch, ignore_errors=True)
    report(med, probes, args)


def measure(args: argparse.Namespace,
            scratch: Path) -> tuple[dict[tuple[str, int], list[float]], int]:
    """Wall time of each run of each (executor, workers), in round order; probes a run."""
    import ray

    from support.ray_cluster import RayCluster

    suite = args.suite
    if suite is None:
        from recallbench.cli import main as cli

        suite = scratch / "suite"
        assert cli([*TINY, "--out", str(suite)]) == 0
    wide = scratch / "wide"
    probes = widen(suite, wide, args.probes)
    path = os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])
    (scratch / "ray").mkdir()
    cluster = RayCluster(scratch / "ray", workers=1, cpus=2,  # a head and one more node
                         env={"PYTHONPATH": path, "MUJOCO_GL": os.environ["MUJOCO_GL"]})
    try:
        ray.init(address=cluster.address, include_dashboard=False, log_to_driver=False,
                 _node_ip_address="127.0.0.1")  # the driver on loopback, as the nodes
        kinds = [(kind, n) for n in WORKERS for kind in ("local", "ray")]
        wall: dict[tuple[str, int], list[float]] = {k: [] for k in kinds}
        run_once(wide, scratch, ExecutorSettings("ray", 2), args.max_steps)  # warm: imports
        for _ in range(args.repeats):
            for kind, n in kinds:
                seconds, done = run_once(wide, scratch, ExecutorSettings(kind, n), args.max_steps)
                assert done == probes, f"{kind} x{n}: {done} of {probes} probes recorded"
                wall[(kind, n)].append(seconds)
        ray.shutdown()
    finally:
        cluster.stop()
    for (kind, n), seconds in wall.items():  # the spread behind each median: a shared machine
        print(f"{kind} x{n}: " + " ".join(f"{t:.1f}" for t in seconds) + " s")
    return wall, probes


def report(wall: dict[tuple[str, int], list[float]], probes: int,
           args: argparse.Namespace) -> None:
    med = {k: statistics.median(v) for k, v in wall.items()}
    print(f"{probes} SceneMem probes per run (max {args.max_steps} steps), 2-node Ray cluster "
          f"(2 CPUs a node) vs local processes; medians of {args.repeats} runs")
    for n in WORKERS:
        local, on_ray = med[("local", n)], med[("ray", n)]
        rounds = [r / loc for loc, r in zip(wall[("local", n)], wall[("ray", n)], strict=True)]
        print(f"{n} worker(s): local {local / probes * 1e3:7.1f} ms/probe   ray "
              f"{on_ray / probes * 1e3:7.1f} ms/probe   ray/local {statistics.median(rounds):.3f}x "
              f"(target <= {RATIO_TARGET}; each round: "
              + ", ".join(f"{r:.2f}" for r in rounds) + ")")
    for n in WORKERS[1:]:
        local_up = med[("local", 1)] / med[("local", n)]
        ray_up = med[("ray", 1)] / med[("ray", n)]
        target = f"(target >= {SPEEDUP_TARGET})" if n == 2 else "(2 cores: for information)"
        print(f"speed-up 1 -> {n} workers: local {local_up:.2f}x   ray {ray_up:.2f}x   "
              f"ray/local {ray_up / local_up:.3f} {target}")


if __name__ == "__main__":
    main()
