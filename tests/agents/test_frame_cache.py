"""Frames prepared once per video: every question on a video reuses its decoded, resized,
stamped and encoded frames, against a real loopback chat server and a real mp4."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from recallbench.agents.vlm import VLMAgent
from recallbench.agents.vlm_images import image_parts, model_images
from recallbench.benchmarks.findingdory.protocol import FrameQuery
from recallbench.video import VideoFrames, VideoWriter, subsample_indices
from support.chat_server import ChatServer, Reply

W, H, N, K = 96, 64, 30, 6
TIMES = tuple(f"{8 + i:02d}:15" for i in range(K))
REPLY = Reply('{"chain_of_thought": "seen", "frame_indices": [1]}')


@pytest.fixture(scope="module")
def video(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("frames") / "day.mp4"
    with VideoWriter(path, fps=10, width=W, height=H) as writer:
        for i in range(N):
            frame = np.zeros((H, W, 3), np.uint8)
            frame[..., 0] = 40 + 6 * i
            frame[:, : W // 2, 1] = 200
            writer.write(frame)
    return path


def questions(video: Path, n: int, times: tuple[str, ...] = TIMES) -> list[FrameQuery]:
    offered = tuple(int(i) for i in subsample_indices(N, K))
    return [FrameQuery(f"q{i}", f"Navigate to object {i}.", str(video), offered, times)
            for i in range(n)]


def ask(vlm: VLMAgent, query: FrameQuery, stamped_source: bool) -> None:
    # The runner's workers hand over a stamping VideoFrames; a direct call opens its own.
    frames = (VideoFrames(query.video_path, query.offered_frames, times_of_day=query.times_of_day)
              if stamped_source else None)
    assert vlm.select_frames(query, frames).frame_indices == [1]


@pytest.mark.parametrize("stamped_source", [True, False])
def test_questions_on_one_video_encode_each_frame_once(video, stamped_source):
    with ChatServer([], default=REPLY) as server:
        vlm = VLMAgent("m", server.base_url, image_size=48)
        for query in questions(video, 4):
            ask(vlm, query, stamped_source)
        sent = list(server.requests)
    assert vlm.prepared.encodes == K  # not 4 * K
    first = sent[0].images()
    assert len(first) == K and all(r.images() == first for r in sent)  # identical prefixes
    for request in sent:  # the frames before the question
        content = request.body["messages"][0]["content"]
        assert [p["type"] for p in content] == ["image_url"] * K + ["text"]
    # exactly the bytes the uncached path sends
    query = questions(video, 1)[0]
    source = VideoFrames(video, query.offered_frames, stamp=stamped_source, times_of_day=TIMES)
    expected = image_parts(model_images(source, None, 48, lambda p: TIMES[p]))
    assert first == [part["image_url"]["url"] for part in expected]


def test_another_size_or_stamp_is_another_entry(video):
    with ChatServer([], default=REPLY) as server:
        vlm = VLMAgent("m", server.base_url, image_size=48)
        ask(vlm, questions(video, 1)[0], True)
        ask(vlm, questions(video, 1, times=tuple("21:00" for _ in TIMES))[0], True)
        assert vlm.prepared.encodes == 2 * K  # new time-of-day stamps: new images
        vlm.image_size = 32
        ask(vlm, questions(video, 1)[0], True)
        assert vlm.prepared.encodes == 3 * K


def test_workers_sharing_a_cache_dir_encode_once(video, tmp_path):
    with ChatServer([], default=REPLY) as server:
        one, two = (VLMAgent("m", server.base_url, cache_dir=tmp_path) for _ in range(2))
        ask(one, questions(video, 1)[0], True)
        ask(two, questions(video, 2)[1], True)  # another question: a request, no encode
        assert (one.prepared.encodes, two.prepared.encodes) == (K, 0)
        assert len(server.requests) == 2
        assert server.requests[0].images() == server.requests[1].images()
