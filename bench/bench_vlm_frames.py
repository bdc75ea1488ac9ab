"""Frames prepared once per video: encodes per video and the VLM client's cost per question.

A real mp4 (PyAV) and several questions on it, each offering the same K frames, asked through
``VLMAgent.select_frames`` against the loopback chat server (tests/support/chat_server.py), as a
worker does (one stamping ``VideoFrames`` source per video). Printed, medians:
  encodes per video        frames JPEG-encoded for all its questions (target: K, once per frame)
  first question           decode + resize + stamp + encode + request
  later questions          the same request with prepared frames
  raw POST                 a urllib POST of the same request body (the limit)
  per-question preparation without the cache (decode reused, resize + stamp + encode each time)

    PYTHONPATH=src .venv/bin/python bench/bench_vlm_frames.py [--frames 96] [--questions 20]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from recallbench.agents.base import FrameQuery  # noqa: E402
from recallbench.agents.vlm import VLMAgent  # noqa: E402
from recallbench.agents.vlm_images import image_parts, model_images  # noqa: E402
from recallbench.video import VideoFrames, VideoWriter, subsample_indices  # noqa: E402
from support.chat_server import ChatServer, Reply  # noqa: E402


def write_video(path: Path, n: int, size: int) -> None:
    rng = np.random.default_rng(0)
    base = rng.integers(0, 256, (size // 8, size // 8, 3), dtype=np.uint8)
    with VideoWriter(path, fps=10, width=size, height=size) as writer:
        for i in range(n):
            writer.write(np.kron(np.roll(base, i, axis=1), np.ones((8, 8, 1), np.uint8)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=96, help="K offered frames")
    parser.add_argument("--questions", type=int, default=20, help="questions on the video")
    parser.add_argument("--video-frames", type=int, default=400)
    parser.add_argument("--size", type=int, default=256)
    args = parser.parse_args()
    k = args.frames

    with tempfile.TemporaryDirectory() as tmp:
        video = Path(tmp) / "day.mp4"
        write_video(video, args.video_frames, args.size)
        offered = tuple(int(i) for i in subsample_indices(args.video_frames, k))
        times = tuple(f"{6 + i // 8:02d}:{(i * 7) % 60:02d}" for i in range(k))
        queries = [FrameQuery(f"q{i}", f"Navigate to object {i}.", str(video), offered, times)
                   for i in range(args.questions)]
        reply = Reply('{"chain_of_thought": "x", "frame_indices": [1]}')
        with ChatServer([], default=reply) as server:
            agent = VLMAgent("bench", server.base_url)
            source = VideoFrames(video, offered, times_of_day=times)  # as a worker's SourceCache
            seconds = []
            for query in queries:
                start = time.perf_counter()
                agent.select_frames(query, source)
                seconds.append(time.perf_counter() - start)
            body = json.dumps(server.requests[-1].body).encode()

            def raw_post() -> None:
                request = urllib.request.Request(agent.client.url, data=body,
                                                 headers={"Content-Type": "application/json"})
                with urllib.request.urlopen(request, timeout=30) as response:
                    response.read()

            raw = []
            for _ in range(args.questions):
                start = time.perf_counter()
                raw_post()
                raw.append(time.perf_counter() - start)
            uncached = []
            for _ in range(5):  # the old path: every question resizes, stamps and encodes again
                start = time.perf_counter()
                image_parts(model_images(source, None, None, lambda p: times[p]))
                uncached.append(time.perf_counter() - start)

    later, t_raw = statistics.median(seconds[1:]), statistics.median(raw)
    print(f"{args.questions} questions on one {args.video_frames}-frame {args.size}x{args.size} "
          f"video, K={k}, request body {len(body) / 1e6:.1f} MB")
    print(f"encodes per video                  {agent.prepared.encodes:6d}  (target {k}: one per "
          f"frame; {agent.prepared.hits} reused)")
    print(f"first question (decode+prepare)    {seconds[0] * 1e3:8.1f} ms")
    print(f"later questions, median            {later * 1e3:8.1f} ms  ratio "
          f"{later / t_raw:5.2f}x raw POST")
    print(f"raw urllib POST of the same body   {t_raw * 1e3:8.1f} ms")
    print(f"client overhead per question       {(later - t_raw) * 1e3:8.1f} ms")
    print(f"without the cache: preparation per question {statistics.median(uncached) * 1e3:8.1f} "
          "ms (resize + stamp + encode every time)")


if __name__ == "__main__":
    main()
