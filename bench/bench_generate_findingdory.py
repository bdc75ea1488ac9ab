"""FindingDory episode generation throughput: recorded frames per second against the raw limit.

Raw limit, measured in the same run on the same home right after each episode: a raw
``mujoco.Renderer`` (shadows and reflections off, as the generator renders) drawing the head
camera at 120 of the episode's poses, in day order. The generator renders an RGB image for every
moving frame and a segmentation image for every distinct pose (idle frames reuse both), so the
honest comparison is its time against the raw cost of the renders it actually made
(``episode.json`` "renders"); a raw segmentation render is counted at its GL cost only (id
colours rendered and read back, no id decoding), less than ``Renderer``'s own segmentation mode
(also printed). Everything else (planning, physics, grasping, distance fields, id decoding,
annotation, H.264 encoding, QA, any home rejected midway) is overhead.

The generator's own renders leave out the geoms the camera cannot see (``world/frustum.py``:
the same pixels, fewer draws), so they cost less than the raw ones. Both sides of that are
printed: the overhead against the raw render cost (the target), and the time spent outside
rendering as a share of the raw render cost (what the overhead would be with raw renders).

Module imports are paid once before timing, as a suite worker pays them once. Overheads are
also printed in process CPU seconds (all threads, llvmpipe's included): on a machine shared
with other jobs, wall time swings with their load, CPU time much less.

    .venv/bin/python bench/bench_generate_findingdory.py [--steps 4000] [--interactions 5]
        [--width 240 --height 320] [--episodes 3] [--preset veryfast]

With ``--old-src DIR`` (e.g. /work/base/src, a checkout of the code before a change) it measures
instead episodes per core-hour side by side with that code: ``--pairs`` pairs of
``recallbench generate findingdory --n 1 --workers 1 --no-audit`` runs, one per tree
(``PYTHONPATH=DIR`` for the old one; pair k generates seed ``--first-seed`` + k in both; the
order alternates pair by pair), each timed in CPU seconds of the process and its children
(``getrusage``: the CLI's imports and the suite's merge included, as a user pays them), and
after each, in a child of the same tree, the raw cost of the renders that day made (as above,
CPU seconds): the raw limit of that day, measured in the same run. ``--interactions`` is then
each day's exact count. It prints each pair and the medians: new / old episodes per core-hour
(median of the paired ratios; issue 38's target >= 0.7x) and each tree's generation CPU over
its raw render cost.

    nice -n 10 .venv/bin/python bench/bench_generate_findingdory.py --old-src /work/base/src \
        [--pairs 3] [--first-seed 0] [--interactions 5] [--width 240 --height 320]

The default day is the generator's own length (``FindingDoryKnobs.steps``, the paper's 4000):
a day's chores take 2,100-2,600 steps (even at ``--interactions 3``), which a 1000-step day
cannot hold.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from recallbench.generate.findingdory import generate_episode
from recallbench.generate.findingdory_knobs import FindingDoryKnobs

TARGET = 0.40  # generation's time over the raw cost of the renders it made
OLD_TARGET = 0.7  # episodes per core-hour / the old code's (issue 38)


@dataclass
class RenderCosts:
    """Median (wall, CPU) seconds of one render of each kind at the episode's poses."""

    raw_rgb: tuple[float, float]
    raw_seg: tuple[float, float]  # id colours, GL only
    raw_seg_mode: tuple[float, float]  # mujoco.Renderer's segmentation mode
    ours_rgb: tuple[float, float]  # the env's renders, as the generator makes them
    ours_seg: tuple[float, float]  # id colours + per-body pixel counts


def render_costs(ep_dir: Path, width: int, height: int, n: int = 120) -> RenderCosts:
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

    def raw(segment_flags: bool = False, segmentation_mode: bool = False) -> None:
        flags[mujoco.mjtRndFlag.mjRND_SEGMENT] = segment_flags
        flags[mujoco.mjtRndFlag.mjRND_IDCOLOR] = segment_flags
        if segmentation_mode:
            renderer.enable_segmentation_rendering()
        renderer.update_scene(data, camera="robot0_head")
        renderer.render()
        renderer.disable_segmentation_rendering()
        flags[mujoco.mjtRndFlag.mjRND_SEGMENT] = False
        flags[mujoco.mjtRndFlag.mjRND_IDCOLOR] = False

    def timed(render) -> tuple[float, float]:
        t0, c0 = time.perf_counter(), time.process_time()
        render()
        return time.perf_counter() - t0, time.process_time() - c0

    kinds = {
        "raw_rgb": raw,
        "ours_rgb": lambda: env.render_camera("robot0_head", width, height),
        "raw_seg": lambda: raw(segment_flags=True),
        "ours_seg": lambda: env.renders.body_pixel_counts(data, "robot0_head", width, height),
        "raw_seg_mode": lambda: raw(segmentation_mode=True),
    }
    times: dict[str, list[tuple[float, float]]] = {k: [] for k in kinds}
    # Each kind renders a block of poses in day order (as the generator renders, one GL
    # context at a time); the kinds take turns block by block, so that load from other jobs
    # falls on all of them alike. The first render of a block (a context switch) is dropped.
    for block in np.array_split(picks, 6):
        for kind, render in kinds.items():
            for i, pose in enumerate(np.concatenate([block[:1], block])):
                env.teleport(pose, for_render=True)
                t = timed(render)
                if i:
                    times[kind].append(t)

    def med(kind: str) -> tuple[float, float]:
        xs = times[kind]
        return statistics.median(x[0] for x in xs), statistics.median(x[1] for x in xs)

    raw_rgb, ours_rgb, raw_seg, ours_seg, raw_seg_mode = (med(k) for k in kinds)
    costs = RenderCosts(raw_rgb, raw_seg, raw_seg_mode, ours_rgb, ours_seg)
    renderer.close()
    env.close()
    return costs


def _warm_imports() -> None:
    # generate_episode imports these lazily; a suite worker pays that once, not per episode
    import recallbench.benchmarks.findingdory.annotations  # noqa: F401
    import recallbench.benchmarks.findingdory.ground_truth  # noqa: F401
    import recallbench.generate.findingdory_day  # noqa: F401
    import recallbench.generate.templates_findingdory  # noqa: F401
    import recallbench.video.writer  # noqa: F401
    import recallbench.world.env  # noqa: F401
    import recallbench.world.io  # noqa: F401


def _cpu_run(cmd: list[str], env: dict[str, str]) -> tuple[float, str]:
    """(CPU seconds of the child and its descendants, stdout) of one command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(cmd, capture_output=True, text=True, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{done.stderr[-2000:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), done.stdout


def _one_day(tree: str, seed: int, out: Path, args: argparse.Namespace) -> dict:
    """Generate one day with the tree at ``tree`` (a CLI run), then its raw render cost."""
    env = {**os.environ, "PYTHONPATH": tree}
    cpu, _ = _cpu_run([sys.executable, "-m", "recallbench.cli", "generate", "findingdory",
                       "--out", str(out), "--n", "1", "--seed", str(seed), "--workers", "1",
                       "--no-audit", "--steps", str(args.steps), "--interactions",
                       str(args.interactions), "--width", str(args.width), "--height",
                       str(args.height)], env)
    ep = out / "episodes" / "ep_0"
    meta = json.loads((ep / "episode.json").read_text())
    _, costs = _cpu_run([sys.executable, os.path.abspath(__file__), "--costs-child", str(ep),
                         "--width", str(args.width), "--height", str(args.height)], env)
    c = json.loads(costs.strip().splitlines()[-1])
    n_rgb, n_seg = meta["renders"]["rgb"], meta["renders"]["segmentation"]
    raw_cpu = n_rgb * c["raw_rgb"][1] + n_seg * c["raw_seg"][1]
    return {"cpu": cpu, "eph": 3600 / cpu, "frames": meta["num_frames"], "rgb": n_rgb,
            "seg": n_seg, "raw_cpu": raw_cpu, "over_raw": cpu / raw_cpu}


def _side_by_side(args: argparse.Namespace) -> None:
    """``--pairs`` pairs of one-day generations (this tree, the ``--old-src`` tree)."""
    here = Path(__file__).resolve()
    trees = {"new": str(here.parents[1] / "src"), "old": os.path.abspath(args.old_src)}
    print(f"episodes per core-hour, this code vs {trees['old']}: {args.width}x{args.height}, "
          f"{args.steps} steps, {args.interactions} interactions; CPU seconds (process + "
          f"children) of `generate findingdory --n 1 --workers 1 --no-audit`")
    got: dict[str, list[dict]] = {"new": [], "old": []}
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(args.pairs):
            seed = args.first_seed + k
            for tree in ("new", "old") if k % 2 == 0 else ("old", "new"):
                got[tree].append(_one_day(trees[tree], seed, Path(tmp) / f"{tree}_{k}", args))
                r = got[tree][-1]
                print(f"  pair {k} (seed {seed}) {tree}: {r['cpu']:.1f} CPU s = {r['eph']:.0f} "
                      f"episodes/core-hour; {r['rgb']} rgb + {r['seg']} segmentation renders, "
                      f"raw cost {r['raw_cpu']:.1f} CPU s -> generation / raw "
                      f"{r['over_raw']:.2f}x", flush=True)
    ratios = [n["eph"] / o["eph"] for n, o in zip(got["new"], got["old"], strict=True)]
    for tree in ("new", "old"):
        rows = got[tree]
        print(f"{tree}: median {statistics.median(r['cpu'] for r in rows):.1f} CPU s a day, "
              f"{statistics.median(r['eph'] for r in rows):.0f} episodes/core-hour; "
              f"generation / raw render cost (same run) "
              f"{statistics.median(r['over_raw'] for r in rows):.2f}x")
    print(f"episodes per core-hour new / old: {statistics.median(ratios):.3f}x (median of "
          f"{len(ratios)} paired ratios {', '.join(f'{x:.3f}' for x in ratios)}; target >= "
          f"{OLD_TARGET}x)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=FindingDoryKnobs.steps)
    parser.add_argument("--interactions", type=int, default=5)
    parser.add_argument("--width", type=int, default=240)
    parser.add_argument("--height", type=int, default=320)
    parser.add_argument("--episodes", type=int, default=3)
    parser.add_argument("--preset", default=FindingDoryKnobs.video_preset)
    parser.add_argument("--old-src", help="episodes per core-hour side by side with this code")
    parser.add_argument("--pairs", type=int, default=3, help="with --old-src: day pairs")
    parser.add_argument("--first-seed", type=int, default=0, help="with --old-src: pair 0's")
    parser.add_argument("--costs-child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.costs_child:
        print(json.dumps(asdict(render_costs(Path(args.costs_child), args.width, args.height))))
        return
    if args.old_src:
        return _side_by_side(args)
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
            c = render_costs(ep, args.width, args.height)
            n_rgb, n_seg = meta["renders"]["rgb"], meta["renders"]["segmentation"]

            def total(rgb: tuple[float, float], seg: tuple[float, float], k: int) -> float:
                return n_rgb * rgb[k] + n_seg * seg[k]  # noqa: B023 (used at once)

            raw, raw_cpu = total(c.raw_rgb, c.raw_seg, 0), total(c.raw_rgb, c.raw_seg, 1)
            ours = total(c.ours_rgb, c.ours_seg, 0)
            row = {
                "seconds": seconds,
                "frames": meta["num_frames"],
                "raw": raw,
                "overhead": seconds / raw - 1,
                "cpu_overhead": cpu / raw_cpu - 1,
                "outside": (seconds - ours) / raw,
                "costs": c,
            }
            rows.append(row)
            print(
                f"episode {i}: {seconds:.1f} s, {meta['num_frames']} frames, {n_rgb} rgb + "
                f"{n_seg} segmentation renders: raw {raw:.1f} s ({c.raw_rgb[0] * 1e3:.1f} + "
                f"{c.raw_seg[0] * 1e3:.1f} ms each), ours {ours:.1f} s "
                f"({c.ours_rgb[0] * 1e3:.1f} + {c.ours_seg[0] * 1e3:.1f} ms) -> overhead "
                f"{row['overhead']:+.0%} (CPU {row['cpu_overhead']:+.0%}), outside renders "
                f"{row['outside']:.0%} of raw; homes rejected {len(meta['failed_homes'])}"
            )

    def med(key: str) -> float:
        return statistics.median(r[key] for r in rows)

    def med_ms(field: str) -> float:
        return statistics.median(getattr(r["costs"], field)[0] for r in rows) * 1e3

    secs, frames = med("seconds"), med("frames")
    raw_fps = 1e3 / med_ms("raw_rgb")
    print(
        f"\nhead camera {args.width}x{args.height}, {args.steps} steps, "
        f"{args.interactions} interactions, x264 preset {args.preset}, "
        f"median of {len(rows)} episodes"
    )
    print(f"generation:                {frames / secs:8.1f} recorded frames/s ({secs:.1f} s)")
    print(f"raw RGB render limit:      {raw_fps:8.1f} frames/s (one render per frame)")
    print(f"ratio generation / raw:    {frames / secs / raw_fps:8.2f}")
    print(
        f"one render, raw vs ours:   RGB {med_ms('raw_rgb'):.1f} vs {med_ms('ours_rgb'):.1f} ms, "
        f"segmentation {med_ms('raw_seg'):.1f} vs {med_ms('ours_seg'):.1f} ms "
        f"(Renderer segmentation mode {med_ms('raw_seg_mode'):.1f})"
    )
    print(f"raw cost of its renders:   {med('raw'):8.1f} s")
    print(f"overhead (median):         {med('overhead'):+8.0%} (target < {TARGET:+.0%})")
    print(f"overhead in CPU seconds:   {med('cpu_overhead'):+8.0%} "
          f"(median; target < {TARGET:+.0%})")
    print(f"time outside rendering:    {med('outside'):8.0%} of the raw render cost (median)")


if __name__ == "__main__":
    main()
