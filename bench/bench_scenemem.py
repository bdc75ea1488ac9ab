"""What the SceneMem harness costs on top of the raw limits, measured in the same run.

1. Per step: ``run_rollout`` (policy call, action checks, success measure, trace and the strict
   metric's opening watch every step) against a raw ``env.step`` loop on the same built-in world
   env, interleaved, in CPU time (so other processes on a shared machine do not count).
2. Per test dispatch: ``ProcessExecutor`` round trips against a raw ``multiprocessing`` Pipe
   round trip to a spawned process.

    .venv/bin/python bench/bench_scenemem.py [--steps 300] [--repeats 5] [--tasks 200]
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import statistics
import time
from pathlib import Path

import numpy as np

from recallbench.benchmarks.scenemem.rollout import run_rollout
from recallbench.benchmarks.scenemem.spec import EvalSpec, Scenario, TestSpec
from recallbench.benchmarks.scenemem.success import Thresholds
from recallbench.executor import ProcessExecutor, Task

STEP_TARGET = 1.10  # the rollout loop (policy call, checks, success, trace, openings) / env.step


class Idle:
    def reset(self, instruction: str, video_paths: list[str]) -> None:
        pass

    def get_action(self, env) -> np.ndarray:
        return np.zeros(env.action_dim)


def bench_steps(steps: int, repeats: int) -> tuple[float, float]:
    from recallbench.world.env import make_env

    env = make_env("RecallbenchKitchen", seed=0)
    env.reset()
    fixture = env.world_meta["fixtures"][0]
    test = TestSpec(
        test_id="t",
        object="o",
        category="bowl",
        fixture={k: fixture[k] for k in ("name", "type", "body_name", "joint_names")},
    )
    scenario = Scenario("bench", Path("/nonexistent"), EvalSpec(tests=[test]), {}, {})
    never = Thresholds(approach_dist=-1.0)  # never succeeds: every rollout runs all steps
    zeros = np.zeros(env.action_dim)
    raw, harness = [], []
    for _ in range(repeats):
        start = time.process_time()
        for _ in range(steps):
            env.step(zeros)
        raw.append((time.process_time() - start) / steps)
        start = time.process_time()
        out = run_rollout(env, Idle(), scenario, test, steps, never)
        harness.append((time.process_time() - start) / steps)
        assert out.steps == steps
    env.close()
    return statistics.median(raw), statistics.median(harness)


def _echo(conn) -> None:
    while (msg := conn.recv()) is not None:
        conn.send(msg)


def bench_dispatch(tasks: int) -> tuple[float, float]:
    ctx = mp.get_context("spawn")
    parent, child = ctx.Pipe()
    proc = ctx.Process(target=_echo, args=(child,))
    proc.start()
    parent.send(("warm", 0.0))
    parent.recv()
    start = time.perf_counter()
    for i in range(tasks):
        parent.send((f"k{i}", float(i)))
        parent.recv()
    raw = (time.perf_counter() - start) / tasks
    parent.send(None)
    proc.join()

    with ProcessExecutor("math:sqrt", workers=1) as ex:
        ex.submit(Task("warm", 4.0))
        list(ex.results())  # worker started and ready
        start = time.perf_counter()
        for i in range(tasks):
            ex.submit(Task(f"k{i}", float(i)))
        done = sum(1 for _ in ex.results())
        harness = (time.perf_counter() - start) / tasks
    assert done == tasks
    return raw, harness


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--repeats", type=int, default=9)
    p.add_argument("--tasks", type=int, default=200)
    args = p.parse_args()
    raw, harness = bench_steps(args.steps, args.repeats)
    print(f"per step   raw env.step     median {raw * 1e3:8.3f} ms CPU")
    print(f"per step   run_rollout      median {harness * 1e3:8.3f} ms   ratio {harness / raw:.3f}"
          f"   target <= {STEP_TARGET:.2f}")
    raw, harness = bench_dispatch(args.tasks)
    print(f"per task   raw Pipe echo    mean  {raw * 1e6:8.1f} us")
    print(f"per task   ProcessExecutor  mean  {harness * 1e6:8.1f} us   ratio {harness / raw:.2f}")


if __name__ == "__main__":
    main()
