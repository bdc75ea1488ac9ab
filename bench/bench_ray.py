"""The Ray executor against local worker processes on the same SceneMem probes, in the same run.

On a small generated SceneMem suite (``--suite``, else one generated into a temp folder) the
privileged policy runs every probe through ``run_scenemem`` four ways, in alternating blocks so
all see the same machine load: local processes and Ray actors, each with 1 and 2 workers. Ray
runs on this machine (``ray.init``, one CPU per worker), started once before the blocks; each run
still starts its own actors, as each local run spawns its own processes. Printed (medians):

- wall time per probe, Ray / local, at 1 and at 2 workers (target <= 1.05x);
- speed-up from 1 to 2 workers of each, and Ray's over local's (target >= 0.95).

    .venv/bin/python bench/bench_ray.py [--suite DIR] [--repeats 3]

Needs the ray extra (pip install 'recallbench[ray]').
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from rich.console import Console

from recallbench.executor import ExecutorSettings
from recallbench.run.scenemem import ScenememConfig, normalise, run_scenemem

POLICY = "recallbench.agents.hierarchical:HierarchicalPrivileged"
TINY = ["generate", "scenemem", "--n", "2", "--seed", "3", "--tasks", "3", "--pick-place", "3",
        "--size", "64", "--no-camera-obs", "--workers", "2"]


def run_once(suite: Path, scratch: Path, execution: ExecutorSettings) -> tuple[float, int]:
    out = Path(tempfile.mkdtemp(dir=scratch)) / "r.json"
    config = normalise(ScenememConfig(data_dir=str(suite), policy=POLICY, out=str(out),
                                      camera_obs=False))
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
    p.add_argument("--repeats", type=int, default=3)
    args = p.parse_args()
    import ray

    scratch = Path(tempfile.mkdtemp())
    suite = args.suite
    if suite is None:
        from recallbench.cli import main as cli

        suite = scratch / "suite"
        assert cli([*TINY, "--out", str(suite)]) == 0
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             object_store_memory=100 * 1024 * 1024)
    kinds = [("local", 1), ("ray", 1), ("local", 2), ("ray", 2)]
    per_probe: dict[tuple[str, int], list[float]] = {k: [] for k in kinds}
    run_once(suite, scratch, ExecutorSettings("ray", 2))  # warm: imports, Ray's worker pool
    for _ in range(args.repeats):
        for kind, workers in kinds:
            wall, probes = run_once(suite, scratch, ExecutorSettings(kind, workers))
            per_probe[(kind, workers)].append(wall / probes)
    med = {k: statistics.median(v) for k, v in per_probe.items()}
    print(f"{probes} probes per run, {args.repeats} runs each, medians")
    for workers in (1, 2):
        local, on_ray = med[("local", workers)], med[("ray", workers)]
        print(f"{workers} worker(s): local {local * 1e3:7.1f} ms/probe   ray "
              f"{on_ray * 1e3:7.1f} ms/probe   ray/local {on_ray / local:.3f}x (target <= 1.05)")
    local_up = med[("local", 1)] / med[("local", 2)]
    ray_up = med[("ray", 1)] / med[("ray", 2)]
    print(f"speed-up 1 -> 2 workers: local {local_up:.2f}x   ray {ray_up:.2f}x   "
          f"ray/local {ray_up / local_up:.3f} (target >= 0.95)")
    ray.shutdown()


if __name__ == "__main__":
    main()
