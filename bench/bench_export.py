r"""Training-data throughput: generation and export in episodes per core-hour, and export time
against the raw limit, a plain copy of the same videos, measured in the same run.

generation: ``recallbench generate findingdory`` (one worker) in a child process; its CPU time
(user + system, from ``getrusage`` of the children) gives episodes per core-hour.
export: ``recallbench export --format findingdory-sft`` of that suite (one worker), CPU time the
same way (days per core-hour), and its wall time against the raw limit: ``shutil.copyfile`` of
every day's video (the least an export that keeps the videos must do), and a plain PyAV decode
of every frame to RGB (the least an export that re-encodes them must do). With ``--lerobot PYTHON``
(the interpreter of a venv holding lerobot, e.g. .venv-lerobot/bin/python) the LeRobot export is
measured too.

    .venv/bin/python bench/bench_export.py [--n 4] [--steps 2000] [--interactions 3] \
        [--lerobot .venv-lerobot/bin/python]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _timed(cmd: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the child) for one command; fails loudly."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def _decode_all(path: Path) -> int:
    import av

    with av.open(str(path)) as c:
        return sum(1 for f in c.decode(c.streams.video[0]) if f.to_ndarray(format="rgb24").size)


def _per_core_hour(items: int, cpu: float) -> float:
    return items / (cpu / 3600.0)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--n", type=int, default=4, help="days to generate (default 4)")
    p.add_argument("--steps", type=int, default=2000, help="frames per day (default 2000)")
    p.add_argument("--interactions", type=int, default=3, help="pick-and-place per day")
    p.add_argument("--width", type=int, default=160)
    p.add_argument("--height", type=int, default=120)
    p.add_argument("--lerobot", default=None, help="python of a venv with lerobot installed")
    args = p.parse_args()
    os.environ.setdefault("MUJOCO_GL", "egl")
    cli = [sys.executable, "-m", "recallbench.cli"]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        suite = root / "suite"
        wall, cpu = _timed([
            *cli, "generate", "findingdory", "--out", str(suite), "--n", str(args.n), "--seed",
            "0", "--steps", str(args.steps), "--interactions", str(args.interactions), "--width",
            str(args.width), "--height", str(args.height), "--workers", "1"])
        print(f"generation: {args.n} days of {args.steps} frames ({args.width}x{args.height}) "
              f"in {wall:.1f} s wall, {cpu:.1f} CPU s: "
              f"{_per_core_hour(args.n, cpu):.0f} episodes per core-hour")
        videos = sorted((suite / "episodes").glob("ep_*/video.mp4"))
        t0 = time.perf_counter()
        for i, v in enumerate(videos):
            shutil.copyfile(v, root / f"copy_{i}.mp4")
        raw = time.perf_counter() - t0
        print(f"raw limit: copy of the {len(videos)} day videos "
              f"({sum(v.stat().st_size for v in videos) / 1e6:.1f} MB) in {raw:.3f} s")
        t0 = time.perf_counter()
        frames = sum(_decode_all(v) for v in videos)
        decode = time.perf_counter() - t0
        print(f"raw decode: {frames} frames decoded to RGB with PyAV in {decode:.2f} s")
        runs = [("findingdory-sft", sys.executable, ["--frames", "96"]),
                ("findingdory-sft (full length)", sys.executable, ["--full-length"])]
        if args.lerobot:
            runs.append(("lerobot", args.lerobot, []))
        for k, (label, python, extra) in enumerate(runs):
            fmt = label.split()[0]
            out = root / f"export_{k}"
            wall, cpu = _timed([python, "-m", "recallbench.cli", "export", str(suite),
                                "--format", fmt, "--out", str(out), "--workers", "1", *extra])
            print(f"export {label}: {wall:.1f} s wall, {cpu:.1f} CPU s: "
                  f"{_per_core_hour(args.n, cpu):.0f} days per core-hour; "
                  f"{wall / raw:.0f}x the raw copy, {wall / decode:.1f}x the raw decode")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
