"""Text-memory agent: chunking, captioning by the VLM over a real loopback chat server or by a
plugged-in captioner, answering by an LLM over the captions or offline by MiniLM retrieval."""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path

import numpy as np
import pytest

from recallbench.agents.embeddings import embeddings_available
from recallbench.agents.registry import load_agent
from recallbench.agents.text_memory import (
    Captioner,
    Chunk,
    EmbeddingAnswerer,
    TextMemoryAgent,
    make_chunks,
)
from recallbench.benchmarks.findingdory.protocol import FrameQuery, FrameSelectionAgent
from recallbench.video import VideoWriter, subsample_indices
from support.chat_server import ChatServer, Recorded, Reply

W, H, N, K, CHUNK = 64, 48, 30, 10, 4
TIMES = tuple(f"{8 + i}:{i:02d}" for i in range(K))
INSTRUCTION = "The robot's goal is: Navigate to the object you picked from the sofa."


@pytest.fixture(scope="module")
def video(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("textmem") / "day.mp4"
    with VideoWriter(path, fps=10, width=W, height=H) as writer:
        for i in range(N):
            writer.write(np.full((H, W, 3), (i * 8) % 256, np.uint8))
    return path


def make_query(video: Path | None, instruction: str = INSTRUCTION, **kw: object) -> FrameQuery:
    offered = tuple(int(i) for i in subsample_indices(N, K))
    return FrameQuery("tm-1", instruction, str(video) if video else None, offered, TIMES, **kw)


def scripted(request: Recorded) -> Reply:
    """Caption requests carry images; the answer request is text only."""
    images = request.images()
    if images:
        first = re.search(r"\(frames (\d+) to", request.text()).group(1)
        return Reply(f"Caption of chunk starting at {first} ({len(images)} images).")
    return Reply(
        '{"chain_of_thought": "the sofa chunk", "frame_indices": [6]}',
        prompt_tokens=222,
        completion_tokens=11,
    )


def test_chunks_cover_the_offered_frames_in_order() -> None:
    chunks = make_chunks(make_query(None), CHUNK, None)
    assert [c.positions for c in chunks] == [(0, 1, 2, 3), (4, 5, 6, 7), (8, 9)]
    offered = make_query(None).offered_frames
    assert chunks[1].frame_indices == offered[4:8]
    assert chunks[2].times_of_day == TIMES[8:10]
    assert chunks[0].label() == "Frames 0-3 (8:00 to 11:03)"
    with pytest.raises(ValueError):
        make_chunks(make_query(None), 0, None)


def test_vlm_captions_then_llm_answer_over_local_server(video: Path) -> None:
    with ChatServer(scripted) as server:
        agent = TextMemoryAgent(
            "test-llm", server.base_url, chunk_size=CHUNK, backoff_base=0.01, image_format="png"
        )
        assert isinstance(agent, FrameSelectionAgent)
        result = agent.select_frames(make_query(video), None)
    captions, answers = server.requests[:3], server.requests[3:]
    assert [len(r.images()) for r in captions] == [4, 4, 2]  # one request per chunk
    assert "frames 4 to 7, 12:04 to 15:07" in captions[1].text()
    assert len(answers) == 1 and answers[0].images() == []
    prompt = answers[0].text()
    assert "- Frames 4-7 (12:04 to 15:07): Caption of chunk starting at 4 (4 images)." in prompt
    assert prompt.endswith(INSTRUCTION) and "between 0 and 9" in prompt
    assert all(r.body["model"] == "test-llm" for r in server.requests)
    assert result.frame_indices == [6]
    assert result.info["chain_of_thought"] == "the sofa chunk"
    assert result.info["prompt_tokens"] == 222 and result.info["attempts"] == 1
    assert [c["positions"] for c in result.info["captions"]] == [[0, 3], [4, 7], [8, 9]]


def test_captions_are_computed_once_per_video(video: Path, tmp_path: Path) -> None:
    with ChatServer(scripted) as server:
        agent = TextMemoryAgent("m", server.base_url, chunk_size=CHUNK, cache_dir=tmp_path)
        questions = [make_query(video, f"{INSTRUCTION} ({i})") for i in range(3)]
        threads = [threading.Thread(target=agent.select_frames, args=(q, None)) for q in questions]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=30)
    with_images = [r for r in server.requests if r.images()]
    assert len(with_images) == 3  # 3 chunks, once, although 3 questions ran in parallel
    assert len(server.requests) == 3 + 3


def test_plugged_in_captioner_needs_no_video(tmp_path: Path) -> None:
    seen: list[Chunk] = []

    def annotations(chunk: Chunk, frames: object) -> str:
        seen.append(chunk)
        return f"robot in room {chunk.index}"

    with ChatServer(scripted) as server:
        agent = TextMemoryAgent("m", server.base_url, captioner=annotations, chunk_size=5)
        result = agent.select_frames(make_query(None), None)
    assert [c.positions for c in seen] == [(0, 1, 2, 3, 4), (5, 6, 7, 8, 9)]
    assert len(server.requests) == 1  # only the answer: no captioning requests
    assert "- Frames 5-9 (13:05 to 17:09): robot in room 1" in server.requests[0].text()
    assert result.frame_indices == [6]


def room_captioner(chunk: Chunk, frames: object) -> str:
    """Referenced by name ("test_text_memory:room_captioner") in the registry test."""
    return f"room {chunk.index}"


def test_caption_failure_fails_the_case_with_the_error(video: Path) -> None:
    with ChatServer([], default=Reply(status=401)) as server:
        agent = TextMemoryAgent("m", server.base_url, chunk_size=CHUNK, max_retries=3)
        result = agent.select_frames(make_query(video), None)
    assert len(server.requests) == 1  # 401 is not retried; the other chunks are not tried
    assert result.frame_indices is None
    assert result.info["failure_mode"] == "request_error" and result.info["stage"] == "caption"
    assert "HTTP 401" in result.info["error"]


def test_a_caption_server_that_may_recover_leaves_the_case_for_resume(video: Path) -> None:
    """503 after its retries is no answer: the case is not recorded, --resume asks again."""
    from recallbench.benchmarks.findingdory.protocol import TransientError

    with ChatServer([], default=Reply(status=503)) as server, pytest.raises(
        TransientError
    ) as caught:
        TextMemoryAgent("m", server.base_url, chunk_size=CHUNK, max_retries=0).select_frames(
            make_query(video), None
        )
    assert caught.value.kind == "http_503"


def test_registry_builds_text_memory_and_vlm_by_name() -> None:
    agent = load_agent("text-memory", model="m", base_url="http://127.0.0.1:9/v1", chunk_size="6")
    assert isinstance(agent, TextMemoryAgent) and agent.chunk_size == 6
    named = load_agent(
        "text-memory", answerer="embedding", captioner="test_text_memory:room_captioner"
    )
    chunks = make_chunks(make_query(None), 5, None)
    assert named.captioner.caption(chunks[1], None) == "room 1"
    vlm = load_agent("vlm", model="m", temperature="0.5", extra_body='{"seed": 3}')
    assert vlm.settings.temperature == 0.5 and vlm.settings.extra_body == {"seed": 3}
    manifest = agent.manifest()
    assert manifest["answerer"]["prompt"]["name"] == "text_memory_answer_v1"
    assert manifest["captioner"]["prompt"]["name"] == "text_memory_caption_v1"
    json.dumps(manifest)  # serialisable for the run manifest


def test_embedding_answerer_logic_with_a_fixed_embedder() -> None:
    """Retrieval logic on hand-made vectors (the MiniLM path is tested below)."""

    class Axes:
        def embed(self, texts: list[str]) -> np.ndarray:
            table = {"q": [1, 0, 0], "a": [0, 1, 0], "b": [0.9, 0.1, 0], "c": [0.5, 0, 0.5]}
            vectors = np.array([table[t] for t in texts], dtype=np.float32)
            return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)

    chunks = make_chunks(make_query(None, "q"), 4, None)
    captions = [(chunks[0], "a"), (chunks[1], "b"), (chunks[2], "c")]
    one = EmbeddingAnswerer(Axes()).answer(make_query(None, "q"), captions)
    assert one.frame_indices == [6]  # chunk 1 (positions 4-7), its middle frame
    assert one.info["chosen_chunks"] == [1]
    two = EmbeddingAnswerer(Axes()).answer(make_query(None, "q", num_targets=2), captions)
    assert two.frame_indices == [6, 9]  # then chunk 2 (positions 8-9)


@pytest.mark.embeddings
@pytest.mark.slow
def test_offline_embedding_answerer_with_minilm() -> None:
    if not embeddings_available():  # checked here, not at collection: it imports torch
        pytest.skip("needs the 'embeddings' extra")
    captions = {
        0: "The robot drives through the hallway; nothing is picked up.",
        1: "In the living room the robot picks up a red mug from the sofa at frame 6.",
        2: "In the kitchen the robot places a book on the counter.",
    }

    def captioner(chunk: Chunk, frames: object) -> str:
        return captions[chunk.index]

    agent = TextMemoryAgent(answerer="embedding", captioner=captioner, chunk_size=CHUNK)
    assert isinstance(agent.captioner, Captioner)
    sofa = agent.select_frames(make_query(None), None)
    assert sofa.frame_indices == [6]  # the frame the caption names, in the sofa chunk
    assert sofa.info["chosen_chunks"] == [1]
    counter = agent.select_frames(make_query(None, "Navigate to the kitchen counter."), None)
    assert counter.info["chosen_chunks"] == [2] and counter.frame_indices == [9]
    assert agent.manifest()["answerer"]["model"] == "sentence-transformers/all-MiniLM-L6-v2"
