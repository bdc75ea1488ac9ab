"""Isolation without overhead: `recallbench findingdory --agent random` (every case in a worker
process, each appended to the run log as it ends) against `recallbench findingdory score` of
the same predictions, the in-process floor (loading the suite plus scoring), in the same run.

Both are the real commands as a user runs them (a fresh interpreter each), alternating so both
see the same machine load; the score command reads the predictions the first run recorded.
Printed: the median wall time of each over ``--repeats`` runs and their ratio (target <= 1.5x),
the same for user+system CPU (the run's includes its worker's), each run's ratio beside the
median's, and the load average the machine had (the ratios are the figures to quote on a shared
machine). The scratch folder (runs, predictions) is removed at the end, also on failure.

The score command does not ask the agent anything, so no run, isolated or not, reaches it: the
random agent's own answers (a generator seeded per case, 27-40 µs each) are timed here, in this
process, on the same queries, and the run is also weighed against the score command plus them,
the floor of an in-process run of the same agent (what isolation itself costs on top).

    .venv/bin/python bench/bench_executor.py [--data FILE] [--repeats 3] [--workers 1]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# ../shared beside the project root, as in the workspace; RECALLBENCH_SHARED overrides.
SHARED = Path(os.environ.get("RECALLBENCH_SHARED", Path(__file__).resolve().parents[2] / "shared"))
DATA = SHARED / "data" / "findingdory-val-qa.json"
RECALLBENCH = [sys.executable, "-c", "import sys; from recallbench.cli import main; "
               "sys.exit(main())"]
TARGET = 1.5


def timed(args: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the command and its children)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run([*RECALLBENCH, *args], capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(args[:2])} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def predictions(run: Path, out: Path) -> int:
    """The run's answers as a predictions file for `findingdory score`."""
    n = 0
    with (run / "runlog.jsonl").open() as log, out.open("w") as f:
        for line in log:
            r = json.loads(line)
            f.write(json.dumps({"id": r["key"], "frame_indices": r["frame_indices"],
                                "offered_frames": r["offered_frames"]}) + "\n")
            n += 1
    return n


def agent_seconds(data: Path, repeats: int) -> float:
    """Median wall seconds the random agent takes to answer every case of ``data`` in-process,
    on the queries the run itself sends its worker (``run.findingdory._tasks``), built
    beforehand as the run's driver builds them before any worker asks."""
    from recallbench.agents.registry import construct_seeded, resolve
    from recallbench.benchmarks.findingdory.data import load_suite
    from recallbench.benchmarks.findingdory.defaults import DEFAULT_FRAMES
    from recallbench.run.findingdory import _tasks
    from recallbench.run.findingdory_worker import AgentSpec

    suite = load_suite(data)
    spec = AgentSpec("random", {}, 0)
    queries = [t.payload["query"] for t in _tasks(suite, spec, suite.cases, DEFAULT_FRAMES,
                                                  None, False)]
    agent = construct_seeded(resolve(spec.spec, "findingdory"), spec.kwargs, spec.seed)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for query in queries:
            agent.select_frames(query, None)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="bench-executor-"))
    try:
        measure(args, scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def measure(args: argparse.Namespace, scratch: Path) -> None:
    run_args = ["findingdory", "--data", str(args.data), "--agent", "random", "--workers",
                str(args.workers), "--format", "json", "--overwrite", "--out"]
    preds = scratch / "predictions.jsonl"
    timed([*run_args, str(scratch / "warm")])  # warm: the OS file cache, .pyc files
    cases = predictions(scratch / "warm", preds)
    score_args = ["findingdory", "score", "--data", str(args.data), "--predictions", str(preds),
                  "--format", "json"]
    runs: list[tuple[float, float]] = []
    scores: list[tuple[float, float]] = []
    load_before = os.getloadavg()[0]
    for i in range(args.repeats):
        runs.append(timed([*run_args, str(scratch / f"run{i}")]))
        scores.append(timed(score_args))
        shutil.rmtree(scratch / f"run{i}", ignore_errors=True)
    load = (load_before + os.getloadavg()[0]) / 2
    run_wall, score_wall = (statistics.median(w for w, _ in x) for x in (runs, scores))
    run_cpu, score_cpu = (statistics.median(c for _, c in x) for x in (runs, scores))
    each = ", ".join(f"{r[0] / s[0]:.2f}x" for r, s in zip(runs, scores, strict=True))
    answers = agent_seconds(args.data, args.repeats)
    print(f"{cases} cases, agent random, {args.workers} worker(s); medians of {args.repeats}; "
          f"load average {load:.1f} on {os.cpu_count()} cores")
    print(f"{'':30s} {'wall s':>8s} {'cpu s':>8s}")
    print(f"{'findingdory score (floor)':30s} {score_wall:8.2f} {score_cpu:8.2f}")
    print(f"{'findingdory --agent random':30s} {run_wall:8.2f} {run_cpu:8.2f}")
    print(f"run / score: wall {run_wall / score_wall:.2f}x (target <= {TARGET}x)   "
          f"cpu {run_cpu / score_cpu:.2f}x   (each run's wall ratio: {each})")
    floor = score_wall + answers
    print(f"{'agent answers, in-process':30s} {answers:8.2f}")
    print(f"run / (score + agent answers), the in-process floor with the agent: wall "
          f"{run_wall / floor:.2f}x (the same target, {TARGET}x)")

if __name__ == "__main__":
    main()
