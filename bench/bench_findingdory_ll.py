"""FindingDory LL phase: cost of one action and of one live predicate check, against raw limits.

On one generated episode (``--suite``, else a tiny one is generated into a temp folder):

- per action: the greedy policy's ``act`` + ``HomeEnv.step_discrete`` over real rollouts to the
  episode's frames, against the raw limit of moving the robot at all: one ``mujoco.mj_forward``
  (what any kinematic base move needs, measured on the same model and data);
- per judged stop: ``EpisodeWorld.check`` on a batch of poses (the generator's measurement),
  per pose, against one raw ``mujoco.Renderer`` segmentation of the head camera at the episode's
  render size (the coverage test cannot do less), and the batch's fixed set-up cost.

    .venv/bin/python bench/bench_findingdory_ll.py [--suite DIR] [--repeats 5]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from recallbench.world.gl import select_backend

select_backend()

import mujoco  # noqa: E402

from recallbench.agents.ll_policies import GreedyFramePolicy, LLGoal  # noqa: E402
from recallbench.benchmarks.findingdory.annotations import load_episode  # noqa: E402
from recallbench.benchmarks.findingdory.ll_rollout import drive  # noqa: E402
from recallbench.benchmarks.findingdory.ll_world import EpisodeWorld  # noqa: E402

TINY = [
    "generate", "findingdory", "--n", "1", "--seed", "7", "--workers", "1",
    "--interactions", "2", "--steps", "400", "--rooms", "1", "--width", "120",
    "--height", "160", "--distractors", "4", "--revisits", "1",
]  # fmt: skip


def median_time(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--suite", type=Path)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    suite = args.suite
    if suite is None:
        from recallbench.cli import main as cli

        suite = Path(tempfile.mkdtemp()) / "fd"
        assert cli([*TINY, "--out", str(suite)]) == 0
    ep_dir = suite / "episodes" / "ep_0"
    episode = load_episode(ep_dir)
    t0 = time.perf_counter()
    world = EpisodeWorld(ep_dir, episode)
    load_s = time.perf_counter() - t0
    env = world.env
    frames = np.linspace(0, episode.num_frames - 1, 8, dtype=int)
    goals = [
        LLGoal(index=0, frame=int(f), pose=tuple(float(v) for v in episode.pose[f])) for f in frames
    ]
    policy = GreedyFramePolicy()
    policy.reset(env)  # build the follower's planning grid outside the timing

    def rollouts() -> int:
        return sum(drive(world, [g], policy).steps for g in goals)

    steps = rollouts()
    roll_s = median_time(rollouts, args.repeats)
    # the same actions without the policy: what the env and the rollout loop cost alone
    actions: list[list[int]] = []
    for g in goals:
        world.restore()
        env.teleport(world.start)
        seq = []
        while True:
            a = int(policy.act(env.base_pose(), g))
            if a == 0:
                break
            seq.append(a)
            env.step_discrete(a)
        actions.append(seq)

    def replay() -> None:
        for seq in actions:
            world.restore()
            env.teleport(world.start)
            for a in seq:
                env.step_discrete(a)

    replay_s = median_time(replay, args.repeats)
    moves = sum(len(s) for s in actions)
    raw_fwd_s = median_time(
        lambda: [mujoco.mj_forward(env.model, env.data) for _ in range(steps)], args.repeats
    )

    width, height = world.size
    renderer = mujoco.Renderer(env.model, height=height, width=width)
    renderer.scene.flags[mujoco.mjtRndFlag.mjRND_SHADOW] = False  # as every CPU render here
    renderer.scene.flags[mujoco.mjtRndFlag.mjRND_REFLECTION] = False
    renderer.enable_segmentation_rendering()
    cam = env.model.camera("robot0_head").id

    def raw_seg() -> None:
        renderer.update_scene(env.data, camera=cam)
        renderer.render()

    raw_seg_s = median_time(raw_seg, args.repeats * 4)
    # distinct poses (the check renders once per distinct pose), two batch sizes -> per pose
    rng = np.random.default_rng(0)
    pool = episode.pose[rng.choice(episode.num_frames, 64, replace=False)]
    small_s = median_time(lambda: world.check(pool[:8]), args.repeats)
    big_s = median_time(lambda: world.check(pool), args.repeats)
    per_pose = (big_s - small_s) / (len(pool) - 8)
    setup = small_s - 8 * per_pose
    world.close()

    print(f"episode {ep_dir} ({episode.num_frames} frames, render {width}x{height})")
    print(f"world load + grid: {load_s * 1e3:.0f} ms (once per episode)")
    print(f"{'per action':44s} {'median us':>10s} {'x raw':>7s}")
    raw_a = raw_fwd_s / steps
    for name, s in (
        ("raw limit: mujoco.mj_forward", raw_a),
        ("step_discrete alone (replayed moves)", replay_s / max(moves, 1)),
        ("rollout: greedy act + step_discrete", roll_s / steps),
    ):
        print(f"{name:44s} {s * 1e6:10.1f} {s / raw_a:7.2f}")
    print(f"({steps} actions over {len(goals)} rollouts)")
    print(f"{'per judged pose':44s} {'median ms':>10s} {'x raw':>7s}")
    for name, s in (
        ("raw limit: head-camera segmentation render", raw_seg_s),
        ("EpisodeWorld.check, per pose (batched)", per_pose),
    ):
        print(f"{name:44s} {s * 1e3:10.2f} {s / raw_seg_s:7.2f}")
    print(f"EpisodeWorld.check fixed set-up per batch: {setup * 1e3:.0f} ms")


if __name__ == "__main__":
    main()
