"""Overhead of the VLM agent's request path, against raw limits measured in the same run.

1. Image preparation for one case (K frames: resize no-op, stamp, JPEG, base64) against a raw
   Pillow JPEG encode of the same frames.
2. One chat request through ``ChatClient`` (body, cache key, retry loop, semaphore) against a raw
   ``urllib`` POST of the same body, both to a loopback chat-completions server.
3. A cache hit against that raw POST (what a rerun costs instead of a request).

    .venv/bin/python bench/bench_vlm_client.py [--frames 96] [--size 256] [--repeats 15]
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

import numpy as np
from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from recallbench.agents.chat_settings import ChatSettings  # noqa: E402
from recallbench.agents.openai_client import ChatClient  # noqa: E402
from recallbench.agents.vlm_images import image_parts, model_images  # noqa: E402
from support.chat_server import ChatServer, Reply  # noqa: E402  (the project's loopback test server)


class ArraySource:
    """K in-memory frames (a FrameSource without decoding, so only preparation is timed)."""

    def __init__(self, frames: list[np.ndarray]) -> None:
        self._frames = frames

    def __len__(self) -> int:
        return len(self._frames)

    def frames(self, positions: list[int] | None = None) -> list[np.ndarray]:
        wanted = range(len(self._frames)) if positions is None else positions
        return [self._frames[p] for p in wanted]


def median_seconds(fn: Callable[[], object], repeats: int) -> float:
    fn()  # warm-up (fonts, imports, connections)
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def raw_jpeg(frames: list[np.ndarray]) -> None:
    for frame in frames:
        Image.fromarray(frame).save(io.BytesIO(), format="JPEG", quality=90)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=96)
    parser.add_argument("--size", type=int, default=256)
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    base = rng.integers(0, 256, (args.size // 8, args.size // 8, 3), dtype=np.uint8)
    # Smooth-ish images (upsampled noise) so JPEG sizes resemble real frames.
    frames = [
        np.kron(np.roll(base, i, axis=1), np.ones((8, 8, 1), np.uint8)) for i in range(args.frames)
    ]
    source = ArraySource(frames)
    times = [f"{6 + i // 6:02d}:{(i * 10) % 60:02d}" for i in range(args.frames)]

    def prepare() -> list[dict]:
        return image_parts(model_images(source, None, None, lambda p: times[p]))

    t_raw_jpeg = median_seconds(lambda: raw_jpeg(frames), args.repeats)
    t_prepare = median_seconds(prepare, args.repeats)

    messages = [{"role": "user", "content": prepare() + [{"type": "text", "text": "Which?"}]}]
    reply = Reply('{"chain_of_thought": "x", "frame_indices": [1]}')
    with ChatServer([], default=reply) as server, tempfile.TemporaryDirectory() as cache:
        settings = ChatSettings(model="bench", base_url=server.base_url)
        plain = ChatClient(settings)
        cached = ChatClient(settings, cache_dir=cache)
        body = json.dumps(plain.body(messages)).encode()

        def raw_post() -> bytes:
            request = urllib.request.Request(
                plain.url, data=body, headers={"Content-Type": "application/json"}
            )
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.read()

        t_raw_post = median_seconds(raw_post, args.repeats)
        t_client = median_seconds(lambda: plain.complete(messages), args.repeats)
        cached.complete(messages)  # fill the cache
        t_hit = median_seconds(lambda: cached.complete(messages), args.repeats)
        assert cached.complete(messages).cache_hit

    mb = len(body) / 1e6
    print(
        f"K={args.frames} frames of {args.size}x{args.size}, request body {mb:.1f} MB, "
        f"median of {args.repeats}"
    )
    print(f"raw Pillow JPEG encode of K frames   {t_raw_jpeg * 1e3:8.1f} ms")
    print(
        f"prepare images (stamp+JPEG+base64)   {t_prepare * 1e3:8.1f} ms  "
        f"ratio {t_prepare / t_raw_jpeg:5.2f}x raw encode"
    )
    print(f"raw urllib POST, loopback server     {t_raw_post * 1e3:8.1f} ms")
    print(
        f"ChatClient.complete (no cache)       {t_client * 1e3:8.1f} ms  "
        f"ratio {t_client / t_raw_post:5.2f}x raw POST"
    )
    print(
        f"ChatClient.complete (cache hit)      {t_hit * 1e3:8.1f} ms  "
        f"ratio {t_hit / t_raw_post:5.2f}x raw POST"
    )


if __name__ == "__main__":
    main()
