"""What the SceneMem harness costs on top of the raw limits, measured in the same run.

1. Per step: ``run_rollout`` (policy call, action checks, success measure, trace and the strict
   metric's opening watch every step) against a raw loop of the step it uses (``rollout.stepper``:
   the built-in world's ``advance``, its ``step`` without building the observation) on the same
   env, interleaved, in CPU time (so other processes on a shared machine do not count). Beside
   it, ``env.step`` with its observation on a generated suite's env (three 128x128 cameras),
   which the loop used to pay on every step although no one read it.
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

from recallbench.benchmarks.scenemem.rollout import run_rollout, stepper
from recallbench.benchmarks.scenemem.spec import EvalSpec, Scenario, TestSpec
from recallbench.benchmarks.scenemem.success import Thresholds
from recallbench.executor import ProcessExecutor, Task

CAMERAS = ["robot0_agentview_left", "robot0_agentview_right", "robot0_eye_in_hand"]
STEP_TARGET = 1.10  # the rollout loop (policy call, checks, success, trace, openings) / its step


class Idle:
    def reset(self, instruction: str, video_paths: list[str]) -> None:
        pass

    def get_action(self, env) -> np.ndarray:
        return np.zeros(env.action_dim)


def bench_steps(steps: int, repeats: int) -> tuple[float, float, float]:
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
    raw, harness, observed = [], [], []
    step = stepper(env)
    for _ in range(repeats):
        start = time.process_time()
        for _ in range(steps):
            step(zeros)
        raw.append((time.process_time() - start) / steps)
        start = time.process_time()
        out = run_rollout(env, Idle(), scenario, test, steps, never)
        harness.append((time.process_time() - start) / steps)
        assert out.steps == steps
    env.close()
    # env.step with its observation, on a generated suite's env (the card's three cameras, here
    # at 128x128); apart, since GL's render threads would cool the caches of the pairs above
    env = make_env("RecallbenchKitchen", seed=0, use_camera_obs=True, camera_names=CAMERAS,
                   camera_widths=128, camera_heights=128)
    env.reset()
    for _ in range(repeats):
        start = time.process_time()
        for _ in range(steps // 10):  # ~20 ms a step
            env.step(zeros)
        observed.append((time.process_time() - start) / (steps // 10))
    env.close()
    return statistics.median(raw), statistics.median(harness), statistics.median(observed)


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
    raw, harness, observed = bench_steps(args.steps, args.repeats)
    print(f"per step   raw env.advance  median {raw * 1e3:8.3f} ms CPU")
    print(f"per step   run_rollout      median {harness * 1e3:8.3f} ms   ratio {harness / raw:.3f}"
          f"   target <= {STEP_TARGET:.2f}")
    print(f"per step   env.step         median {observed * 1e3:8.3f} ms   (with its observation; "
          f"run_rollout takes {harness / observed:.3f}x of it)")
    raw, harness = bench_dispatch(args.tasks)
    print(f"per task   raw Pipe echo    mean  {raw * 1e6:8.1f} us")
    print(f"per task   ProcessExecutor  mean  {harness * 1e6:8.1f} us   ratio {harness / raw:.2f}")


if __name__ == "__main__":
    main()
