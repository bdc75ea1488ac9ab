"""FindingDory episode generation throughput: recorded frames per second against the raw limit.

Raw limit, measured in the same run on the same home right after each episode: a raw
``mujoco.Renderer`` (shadows and reflections off, as the generator renders) drawing the head
camera at the episode's poses. The generator renders an RGB image for every moving frame and a
segmentation image for every distinct pose (idle frames reuse both), so the honest comparison is
its time against the raw cost of the renders it actually made (``episode.json`` "renders"). A
raw segmentation render is counted at its GL cost only (id colours rendered and read back, no
id decoding), which is less than ``Renderer``'s own segmentation mode (also printed). The rest
(planning, physics, grasping, distance fields, id decoding, annotation, H.264 encoding, QA, and
any home rejected midway) is the overhead. Module imports are paid once before timing, as a
suite worker pays them once. The same overhead is also printed in process CPU seconds (all
threads, llvmpipe's included): on a machine shared with other jobs, wall time swings with
their load, CPU time much less.

    .venv/bin/python bench/bench_generate_findingdory.py [--steps 1000] [--interactions 3]
        [--width 240 --height 320] [--episodes 3] [--preset veryfast]
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


def raw_render_seconds(
    ep_dir: Path, width: int, height: int, n: int = 80
) -> tuple[float, float, float, float, float]:
    """Median seconds of one raw RGB render, one raw segmentation render (id colours, GL
    only) and one ``Renderer`` segmentation-mode render, at poses of the episode; then the
    median process CPU seconds of the first two."""
    import mujoco

    from recallbench.world.io import load_world

    env = load_world(ep_dir / "world")
    model, data = env.model, env.data
    renderer = mujoco.Renderer(model, height=height, width=width)
    flags = renderer.scene.flags
    flags[mujoco.mjtRndFlag.mjRND_SHADOW] = False
    flags[mujoco.mjtRndFlag.mjRND_REFLECTION] = False
    with np.load(ep_dir / "frames.npz") as f:
        poses = f["pose"]
    picks = poses[np.linspace(0, len(poses) - 1, n, dtype=int)]
    qadr = [model.joint(j).qposadr[0] for j in env.world_meta["robot"]["base_joints"]]

    def timed(segment_flags: bool = False, segmentation_mode: bool = False) -> tuple[float, float]:
        flags[mujoco.mjtRndFlag.mjRND_SEGMENT] = segment_flags
        flags[mujoco.mjtRndFlag.mjRND_IDCOLOR] = segment_flags
        if segmentation_mode:
            renderer.enable_segmentation_rendering()
        t0, c0 = time.perf_counter(), time.process_time()
        renderer.update_scene(data, camera="robot0_head")
        renderer.render()
        dt, dc = time.perf_counter() - t0, time.process_time() - c0
        renderer.disable_segmentation_rendering()
        flags[mujoco.mjtRndFlag.mjRND_SEGMENT] = False
        flags[mujoco.mjtRndFlag.mjRND_IDCOLOR] = False
        return dt, dc

    rgb, seg, seg_mode = [], [], []
    for pose in picks:
        data.qpos[qadr] = pose
        mujoco.mj_kinematics(model, data)
        mujoco.mj_camlight(model, data)
        rgb.append(timed())
        seg.append(timed(segment_flags=True))
        seg_mode.append(timed(segmentation_mode=True))
    renderer.close()
    env.close()

    def med(xs: list[tuple[float, float]], k: int) -> float:
        return statistics.median(x[k] for x in xs)

    return med(rgb, 0), med(seg, 0), med(seg_mode, 0), med(rgb, 1), med(seg, 1)


def _warm_imports() -> None:
    # generate_episode imports these lazily; a suite worker pays that once, not per episode
    import recallbench.benchmarks.findingdory.annotations  # noqa: F401
    import recallbench.generate.findingdory_day  # noqa: F401
    import recallbench.generate.findingdory_truth  # noqa: F401
    import recallbench.generate.templates_findingdory  # noqa: F401
    import recallbench.video.writer  # noqa: F401
    import recallbench.world.env  # noqa: F401
    import recallbench.world.io  # noqa: F401


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--interactions", type=int, default=3)
    parser.add_argument("--width", type=int, default=240)
    parser.add_argument("--height", type=int, default=320)
    parser.add_argument("--episodes", type=int, default=3)
    parser.add_argument("--preset", default=FindingDoryKnobs.video_preset)
    args = parser.parse_args()
    knobs = FindingDoryKnobs(
        interactions=args.interactions,
        steps=args.steps,
        width=args.width,
        height=args.height,
        video_preset=args.preset,
    )
    _warm_imports()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.episodes):
            t0, c0 = time.perf_counter(), time.process_time()
            ep = generate_episode(Path(tmp), seed=0, index=i, knobs=knobs)
            seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
            meta = json.loads((ep / "episode.json").read_text())
            t_rgb, t_seg, t_seg_mode, c_rgb, c_seg = raw_render_seconds(ep, args.width, args.height)
            n_rgb, n_seg = meta["renders"]["rgb"], meta["renders"]["segmentation"]
            raw = n_rgb * t_rgb + n_seg * t_seg
            raw_cpu = n_rgb * c_rgb + n_seg * c_seg
            rows.append(
                (seconds, meta["num_frames"], raw, t_rgb, t_seg, t_seg_mode, cpu / raw_cpu - 1)
            )
            print(
                f"episode {i}: {seconds:.1f} s, {meta['num_frames']} frames, "
                f"{n_rgb} rgb + {n_seg} segmentation renders (raw {raw:.1f} s: "
                f"{t_rgb * 1e3:.1f} + {t_seg * 1e3:.1f} ms each) -> overhead "
                f"{seconds / raw - 1:+.0%} (CPU {cpu:.1f} s vs raw {raw_cpu:.1f}: "
                f"{cpu / raw_cpu - 1:+.0%}); homes rejected {len(meta['failed_homes'])}"
            )
    secs = statistics.median(r[0] for r in rows)
    frames = statistics.median(r[1] for r in rows)
    raw = statistics.median(r[2] for r in rows)
    raw_fps = statistics.median(1.0 / r[3] for r in rows)
    print(
        f"\nhead camera {args.width}x{args.height}, {args.steps} steps, "
        f"{args.interactions} interactions, x264 preset {args.preset}, "
        f"median of {len(rows)} episodes"
    )
    print(f"generation:                {frames / secs:8.1f} recorded frames/s ({secs:.1f} s)")
    print(f"raw RGB render limit:      {raw_fps:8.1f} frames/s (one render per frame)")
    print(f"ratio generation / raw:    {frames / secs / raw_fps:8.2f}")
    seg_ms = statistics.median(r[4] for r in rows) * 1e3
    mode_ms = statistics.median(r[5] for r in rows) * 1e3
    print(f"raw segmentation render:   {seg_ms:8.1f} ms (Renderer segmentation mode {mode_ms:.1f})")
    print(f"raw cost of its renders:   {raw:8.1f} s")
    overhead = statistics.median(r[0] / r[2] - 1 for r in rows)
    print(f"overhead (median):         {overhead:+8.0%} (target < +40%)")
    cpu_overhead = statistics.median(r[6] for r in rows)
    print(f"overhead in CPU seconds:   {cpu_overhead:+8.0%} (median)")


if __name__ == "__main__":
    main()
