"""FindingDory episode generation throughput: recorded frames per second against the raw limit.

Raw limit, measured in the same run on the same home: a raw ``mujoco.Renderer`` (shadows and
reflections off, as the generator renders) drawing the head camera at the episode's poses, RGB
and segmentation. The generator renders an RGB image for every moving frame and a segmentation
image for every distinct pose (idle frames reuse both), so the honest comparison is its time
against the raw cost of the renders it actually made; the rest (planning, physics, grasping,
distance fields, annotation, H.264 encoding, QA) is the overhead.

    .venv/bin/python bench/bench_generate_findingdory.py [--steps 1000] [--interactions 3]
        [--width 240 --height 320] [--episodes 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from recallbench.generate.findingdory import generate_episode
from recallbench.generate.findingdory_knobs import FindingDoryKnobs


def raw_render_seconds(ep_dir: Path, width: int, height: int, n: int = 60) -> tuple[float, float]:
    """Median seconds of one raw RGB and one raw segmentation render at the episode's poses."""
    import mujoco

    from recallbench.world.io import load_world

    env = load_world(ep_dir / "world")
    model, data = env.model, env.data
    renderer = mujoco.Renderer(model, height=height, width=width)
    renderer.scene.flags[mujoco.mjtRndFlag.mjRND_SHADOW] = False
    renderer.scene.flags[mujoco.mjtRndFlag.mjRND_REFLECTION] = False
    with np.load(ep_dir / "frames.npz") as f:
        poses = f["pose"]
    picks = poses[np.linspace(0, len(poses) - 1, n, dtype=int)]
    qadr = [model.joint(j).qposadr[0] for j in env.world_meta["robot"]["base_joints"]]
    rgb, seg = [], []
    for pose in picks:
        data.qpos[qadr] = pose
        mujoco.mj_kinematics(model, data)
        t0 = time.perf_counter()
        renderer.update_scene(data, camera="robot0_head")
        renderer.render()
        rgb.append(time.perf_counter() - t0)
        renderer.enable_segmentation_rendering()
        t0 = time.perf_counter()
        renderer.update_scene(data, camera="robot0_head")
        renderer.render()
        seg.append(time.perf_counter() - t0)
        renderer.disable_segmentation_rendering()
    renderer.close()
    env.close()
    return statistics.median(rgb), statistics.median(seg)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--interactions", type=int, default=3)
    parser.add_argument("--width", type=int, default=240)
    parser.add_argument("--height", type=int, default=320)
    parser.add_argument("--episodes", type=int, default=3)
    args = parser.parse_args()
    knobs = FindingDoryKnobs(
        interactions=args.interactions, steps=args.steps, width=args.width, height=args.height
    )
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.episodes):
            t0 = time.perf_counter()
            ep = generate_episode(Path(tmp), seed=0, index=i, knobs=knobs)
            seconds = time.perf_counter() - t0
            meta = json.loads((ep / "episode.json").read_text())
            t_rgb, t_seg = raw_render_seconds(ep, args.width, args.height)
            n_rgb, n_seg = meta["renders"]["rgb"], meta["renders"]["segmentation"]
            raw = n_rgb * t_rgb + n_seg * t_seg
            rows.append((seconds, meta["num_frames"], raw, 1.0 / t_rgb, len(meta["failed_homes"])))
            print(
                f"episode {i}: {seconds:.1f} s, {meta['num_frames']} frames, "
                f"{n_rgb} rgb + {n_seg} segmentation renders (raw {raw:.1f} s), "
                f"homes rejected {len(meta['failed_homes'])}"
            )
    secs = statistics.median(r[0] for r in rows)
    frames = statistics.median(r[1] for r in rows)
    raw = statistics.median(r[2] for r in rows)
    raw_fps = statistics.median(r[3] for r in rows)
    print(
        f"\nhead camera {args.width}x{args.height}, {args.steps} steps, "
        f"{args.interactions} interactions, median of {len(rows)} episodes"
    )
    print(f"generation:                {frames / secs:8.1f} recorded frames/s ({secs:.1f} s)")
    print(f"raw RGB render limit:      {raw_fps:8.1f} frames/s (one render per frame)")
    print(f"ratio generation / raw:    {frames / secs / raw_fps:8.2f}")
    print(f"raw cost of its renders:   {raw:8.1f} s -> overhead {secs / raw - 1:+.0%}")


if __name__ == "__main__":
    main()
