r"""Training-data export against its raw limits, measured in the same run, medians of repeats.

For a generated FindingDory suite (``--suite``, or one generated here: ``--n`` days of
``--steps`` frames), each repeat runs, every one as a fresh process whose CPU time (user +
system of it and its children, ``getrusage``) is the measure:

- raw decode: a plain PyAV decode of every day's video to RGB;
- raw decode + encode: the same frames encoded again as LeRobot encodes them (H.264, yuv420p,
  GOP 2, CRF 30, at the day's fps): the least any export that re-encodes the frames must do;
- ``recallbench export --format lerobot`` (``--lerobot PYTHON``: a venv holding lerobot), one
  worker; its ratio to raw decode + encode is the target (<= 3x), printed twice: end to end,
  and with LeRobot's two imports (driver + worker: ``import lerobot``, measured alone) taken
  out, the per-day cost that a many-day export pays (on a 2-day suite the imports are about
  half of the end-to-end time);
- ``recallbench export --format findingdory-sft`` (96 frames), one worker;
- with ``--old-src DIR`` (e.g. /work/base/src, a checkout of the code before a change), the same
  exports run with ``PYTHONPATH=DIR`` side by side, for "Nx the old code" ratios
  (``--old-lerobot``: the old LeRobot export too, slow).

The printed table gives each step's median CPU seconds and the median of the per-repeat ratios.
Sized for a shared 2-core machine: small defaults, a few repeats.

    .venv/bin/python bench/bench_export.py --lerobot .venv-lerobot/bin/python \
        --old-src /work/base/src [--suite DIR] [--repeats 3] [--n 2] [--steps 1000]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np


def _timed(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the child and its descendants) for one command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                          env=env)
    wall = time.perf_counter() - t0
    if done.returncode:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{done.stderr[-2000:]}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def raw(mode: str, videos: list[str], out_dir: str) -> None:
    """The raw limit, in this (child) process: decode every frame to RGB, and with
    ``mode == "encode"`` encode it again with LeRobot's settings."""
    import av

    for k, video in enumerate(videos):
        with av.open(video) as src:
            stream = src.streams.video[0]
            fps = round(float(stream.average_rate or 10))
            out = av.open(os.path.join(out_dir, f"raw_{k}.mp4"), "w") if mode == "encode" else None
            enc = None
            for i, frame in enumerate(src.decode(stream)):
                rgb = frame.to_ndarray(format="rgb24")
                if out is None:
                    continue
                if enc is None:
                    enc = out.add_stream("h264", fps, options={"g": "2", "crf": "30"})
                    enc.pix_fmt, enc.width, enc.height = "yuv420p", rgb.shape[1], rgb.shape[0]
                    enc.time_base = Fraction(1, fps)
                vf = av.VideoFrame.from_ndarray(rgb, format="rgb24")
                vf.pts = i
                out.mux(enc.encode(vf))
            if out is not None and enc is not None:
                out.mux(enc.encode())
                out.close()


def _generate(args: argparse.Namespace, suite: Path) -> None:
    wall, cpu = _timed([sys.executable, "-m", "recallbench.cli", "generate", "findingdory",
                        "--out", str(suite), "--n", str(args.n), "--seed", "0", "--steps",
                        str(args.steps), "--interactions", str(args.interactions), "--width",
                        str(args.width), "--height", str(args.height), "--workers", "1"])
    print(f"generation: {args.n} days of {args.steps} frames ({args.width}x{args.height}): "
          f"{cpu:.1f} CPU s ({args.n / (cpu / 3600):.0f} episodes per core-hour)")


def _steps(args: argparse.Namespace, suite: Path, root: Path
           ) -> dict[str, Callable[[int], tuple[float, float]]]:
    """Each measured step: a function of the repeat index giving (wall, CPU)."""
    videos = [str(v) for v in sorted((suite / "episodes").glob("ep_*/video.mp4"))]
    me = [sys.executable, os.path.abspath(__file__)]

    def export(python: str, fmt: str, extra: list[str], old: bool) -> Callable[[int], Any]:
        env = {**os.environ, "PYTHONPATH": args.old_src} if old else None

        def run(k: int) -> tuple[float, float]:
            out = root / f"{fmt}_{'old' if old else 'new'}_{k}"
            return _timed([python, "-m", "recallbench.cli", "export", str(suite), "--format",
                           fmt, "--out", str(out), "--workers", "1", *extra], env)
        return run

    steps: dict[str, Callable[[int], tuple[float, float]]] = {
        "raw decode": lambda k: _timed([*me, "--raw", "decode", str(root), *videos]),
        "raw decode + encode": lambda k: _timed([*me, "--raw", "encode", str(root), *videos]),
        "export findingdory-sft": export(sys.executable, "findingdory-sft", ["--frames", "96"],
                                         False)}
    if args.old_src:
        steps["export findingdory-sft (old code)"] = export(
            sys.executable, "findingdory-sft", ["--frames", "96"], True)
    if args.lerobot:
        # LeRobot's import (torch, datasets): paid once by the driver (the aggregation) and once
        # per worker (its part writer), whatever the number of days
        steps["import lerobot"] = lambda k: _timed([args.lerobot, "-c", IMPORT])
        steps["export lerobot"] = export(args.lerobot, "lerobot", [], False)
        if args.old_src and args.old_lerobot:
            steps["export lerobot (old code)"] = export(args.lerobot, "lerobot", [], True)
    return steps


IMPORT = "import lerobot.datasets.lerobot_dataset, lerobot.datasets.aggregate"
RATIOS = [("export lerobot", "raw decode + encode", "<= 3x"),
          ("export lerobot, imports excluded", "raw decode + encode", "<= 3x"),
          ("export lerobot", "raw decode", ""),
          ("export lerobot", "export lerobot (old code)", ""),
          ("export findingdory-sft", "export findingdory-sft (old code)", "<= 1x"),
          ("export findingdory-sft", "raw decode", "")]


def _report(cpu: dict[str, list[float]], days: int, frames: int) -> None:
    if "export lerobot" in cpu and "import lerobot" in cpu:  # one worker: two imports
        cpu["export lerobot, imports excluded"] = [
            e - 2 * i for e, i in zip(cpu["export lerobot"], cpu["import lerobot"], strict=True)]
    print(f"\n{'step':36} {'median CPU s':>12} {'days/core-hour':>15}  repeats")
    for name, values in cpu.items():
        med = statistics.median(values)
        print(f"{name:36} {med:12.2f} {days / (med / 3600):15.0f}  "
              + ", ".join(f"{v:.2f}" for v in values))
    print(f"\n({days} days, {frames} frames) median of the per-repeat ratios:")
    for a, b, target in RATIOS:
        if a in cpu and b in cpu:
            per = [x / y for x, y in zip(cpu[a], cpu[b], strict=True)]
            print(f"  {a} / {b}: {statistics.median(per):.2f}x  "
                  f"[{', '.join(f'{r:.2f}' for r in per)}]" + (f"  target {target}"
                                                             if target else ""))


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--suite", default=None, help="a generated FindingDory suite to export")
    p.add_argument("--n", type=int, default=2, help="days to generate (default 2)")
    p.add_argument("--steps", type=int, default=1000, help="frames per day (default 1000)")
    p.add_argument("--interactions", type=int, default=3, help="pick-and-place per day")
    p.add_argument("--width", type=int, default=320)
    p.add_argument("--height", type=int, default=240)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--lerobot", default=None, help="python of a venv with lerobot installed")
    p.add_argument("--old-src", default=None, help="src folder of the old code (PYTHONPATH)")
    p.add_argument("--old-lerobot", action="store_true", help="the old LeRobot export too")
    p.add_argument("--raw", nargs="+", help=argparse.SUPPRESS)  # MODE OUT VIDEO...: a child
    args = p.parse_args()
    if args.raw:
        raw(args.raw[0], args.raw[2:], args.raw[1])
        return 0
    os.environ.setdefault("MUJOCO_GL", "egl")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        suite = Path(args.suite) if args.suite else root / "suite"
        if not args.suite:
            _generate(args, suite)
        days = sorted((suite / "episodes").glob("ep_*/video.mp4"))
        frames = sum(len(np.load(d.parent / "frames.npz")["pose"]) for d in days)
        steps = _steps(args, suite, root)
        cpu: dict[str, list[float]] = {name: [] for name in steps}
        for k in range(args.repeats):  # interleaved: each repeat runs every step once
            for name, run in steps.items():
                wall, c = run(k)
                cpu[name].append(c)
                print(f"repeat {k + 1}: {name}: {c:.2f} CPU s, {wall:.1f} s wall "
                      f"(load {os.getloadavg()[0]:.1f})", flush=True)
        _report(cpu, len(days), frames)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
