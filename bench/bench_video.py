"""VideoFrames (K of N frames, one streaming pass) vs a plain PyAV decode of the same file.

Generates a 4,000-frame 256x256 H.264 video with VideoWriter (gop 20), then measures, each in a
fresh process so peak memory (ru_maxrss) is per mode:
  raw     : plain PyAV decode of every frame (the decoder's limit; frames discarded)
  raw_rgb : plain PyAV decode + to_ndarray of every frame, all kept (what "load the video" costs)
  offered : VideoFrames(path, subsample_indices(N, 96)).frames() (stamped)
Prints medians of --repeats runs and ratios against the raw decode measured in the same run.

    .venv/bin/python bench/bench_video.py [--frames 4000] [--size 256] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def make_video(path: Path, frames: int, size: int) -> None:
    from recallbench.video import VideoWriter

    rng = np.random.default_rng(0)
    base = rng.integers(0, 255, size=(size, size, 3), dtype=np.uint8)
    with VideoWriter(path, fps=10, width=size, height=size, gop=20) as writer:
        for i in range(frames):
            # a drifting textured scene: realistic motion for the encoder, not a still image
            frame = np.roll(base, shift=(i % size, (2 * i) % size), axis=(0, 1))
            frame[: size // 8, : size // 8] = (i * 3) % 255
            writer.write(frame)


def measure(mode: str, path: str, budget: int) -> dict:
    import av

    t0 = time.perf_counter()
    kept = 0
    if mode == "raw":
        with av.open(path) as c:
            s = c.streams.video[0]
            s.thread_type = "AUTO"
            for _ in c.decode(s):
                kept += 0
    elif mode == "raw_rgb":
        frames = []
        with av.open(path) as c:
            s = c.streams.video[0]
            s.thread_type = "AUTO"
            for f in c.decode(s):
                frames.append(f.to_ndarray(format="rgb24"))
        kept = len(frames)
    elif mode == "offered":
        from recallbench.video import VideoFrames, count_frames, subsample_indices

        n = count_frames(path)
        kept = len(VideoFrames(path, subsample_indices(n, budget)).frames())
    seconds = time.perf_counter() - t0
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"seconds": seconds, "peak_mb": peak_mb, "kept": kept}


def run_child(mode: str, path: Path, budget: int) -> dict:
    out = subprocess.run(
        [sys.executable, __file__, "--child", mode, str(path), str(budget)],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout)


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        print(json.dumps(measure(sys.argv[2], sys.argv[3], int(sys.argv[4]))))
        return
    parser = argparse.ArgumentParser()
    parser.add_argument("--frames", type=int, default=4000)
    parser.add_argument("--size", type=int, default=256)
    parser.add_argument("--budget", type=int, default=96)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "day.mp4"
        t0 = time.perf_counter()
        make_video(path, args.frames, args.size)
        print(
            f"video: {args.frames} frames {args.size}x{args.size}, "
            f"{path.stat().st_size / 1e6:.1f} MB, written in {time.perf_counter() - t0:.1f} s"
        )
        idle = run_child("none", path, args.budget)
        results: dict[str, list[dict]] = {"raw": [], "raw_rgb": [], "offered": []}
        for _ in range(args.repeats):
            for mode in results:  # interleaved so machine load hits all modes alike
                results[mode].append(run_child(mode, path, args.budget))
    raw = statistics.median(r["seconds"] for r in results["raw"])
    print(f"baseline interpreter + imports peak RSS: {idle['peak_mb']:.0f} MB")
    print(f"{'mode':10s} {'median s':>9s} {'x raw':>7s} {'peak MB':>8s} {'frames kept':>12s}")
    for mode, rs in results.items():
        med = statistics.median(r["seconds"] for r in rs)
        peak = statistics.median(r["peak_mb"] for r in rs)
        print(f"{mode:10s} {med:9.3f} {med / raw:7.2f} {peak:8.0f} {rs[0]['kept']:12d}")


if __name__ == "__main__":
    main()
