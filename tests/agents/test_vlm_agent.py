"""VLM agent protocol tests against a real chat-completions server on loopback (tests/chat_server),
with a real mp4 written by PyAV and read back through VideoFrames."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import socket
import threading
import time
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from recallbench.agents.chat_http import parse_retry_after
from recallbench.agents.prompts import load_prompt
from recallbench.agents.vlm import VLMAgent, goal_text
from recallbench.benchmarks.findingdory.protocol import (
    FrameQuery,
    FrameSelectionAgent,
    TransientError,
)
from recallbench.video import VideoFrames, VideoWriter, stamp_frame, subsample_indices
from support.chat_server import ChatServer, Reply

W, H, N, K = 128, 96, 40, 8
INSTRUCTION = "The robot's goal is: Navigate to the receptacle you placed an object on."
TIMES = tuple(f"{6 + i:02d}:{(7 * i) % 60:02d}" for i in range(K))


def answer(indices: str, cot: str = "I saw it there.") -> str:
    return f'```json\n{{"chain_of_thought": "{cot}", "frame_indices": {indices}}}\n```'


@pytest.fixture(scope="module")
def video(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("vlm") / "day.mp4"
    yy, xx = np.mgrid[0:H, 0:W]
    with VideoWriter(path, fps=10, width=W, height=H) as writer:
        for i in range(N):
            frame = np.zeros((H, W, 3), np.uint8)
            frame[..., 0] = (xx * 2 + i * 5) % 256
            frame[..., 1] = (yy * 2) % 256
            frame[..., 2] = 90 + i
            writer.write(frame)
    return path


@pytest.fixture
def query(video: Path) -> FrameQuery:
    offered = tuple(int(i) for i in subsample_indices(N, K))
    return FrameQuery("case-1", INSTRUCTION, str(video), offered, TIMES, num_targets=1)


def agent(server: ChatServer, **kwargs: object) -> VLMAgent:
    options: dict = {
        "model": "test-vlm",
        "base_url": server.base_url,
        "backoff_base": 0.01,
        "timeout": 5.0,
        "max_retries": 2,
    }
    options.update(kwargs)
    return VLMAgent(**options)


def decode(url: str) -> np.ndarray:
    header, data = url.split(",", 1)
    assert header.startswith("data:image/") and header.endswith(";base64")
    return np.asarray(Image.open(io.BytesIO(base64.b64decode(data))).convert("RGB"))


def test_request_carries_budget_stamped_frames_prompt_and_model(
    query: FrameQuery, video: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RB_TEST_KEY", "sk-local-123")
    with ChatServer([Reply(answer("[5]"), prompt_tokens=4321, completion_tokens=17)]) as server:
        vlm = agent(
            server, api_key_env="RB_TEST_KEY", image_format="png", temperature=0.2, max_tokens=333
        )
        assert isinstance(vlm, FrameSelectionAgent)
        result = vlm.select_frames(query, None)
    assert len(server.requests) == 1
    sent = server.requests[0]
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["Authorization"] == "Bearer sk-local-123"
    assert sent.body["model"] == "test-vlm"
    assert sent.body["temperature"] == 0.2 and sent.body["max_tokens"] == 333
    images = sent.images()
    assert len(images) == K  # one image per offered frame: the frame budget
    prompt = load_prompt("findingdory_frame_selection_v1")
    assert sent.text() == prompt.render(goal=INSTRUCTION)
    assert sent.text().endswith(INSTRUCTION) and '"frame_indices": list[int]' in sent.text()

    raw = VideoFrames(video, query.offered_frames, stamp=False).frames()
    for position in (0, 5):
        shown = decode(images[position])
        assert shown.shape == (H, W, 3)
        # PNG is lossless: the sent picture is exactly the stamped frame...
        assert np.array_equal(shown, stamp_frame(raw[position], position, TIMES[position]))
        # ...whose top-left corner differs from the bare frame, the rest does not.
        top_left = np.abs(shown[:12, :40].astype(int) - raw[position][:12, :40]).mean()
        assert top_left > 20
        assert np.array_equal(shown[H // 2 :, W // 2 :], raw[position][H // 2 :, W // 2 :])
    # Different positions carry different stamps.
    assert not np.array_equal(decode(images[1])[:12, :40], decode(images[2])[:12, :40])

    assert result.frame_indices == [5]
    assert result.response == answer("[5]")
    info = result.info
    assert info["prompt_tokens"] == 4321 and info["completion_tokens"] == 17
    assert info["total_tokens"] == 4338
    assert info["attempts"] == 1 and info["cache_hit"] is False
    assert info["latency_s"] > 0
    assert info["chain_of_thought"] == "I saw it there."
    assert info["num_images"] == K and info["model"] == "test-vlm"
    assert "failure_mode" not in info and "error" not in info


def test_source_already_stamped_is_not_stamped_twice(query: FrameQuery, video: Path) -> None:
    source = VideoFrames(video, query.offered_frames, stamp=True, times_of_day=TIMES)
    with ChatServer([Reply(answer("[1]"))]) as server:
        agent(server, image_format="png").select_frames(query, source)
    images = server.requests[0].images()
    assert len(images) == K
    assert np.array_equal(decode(images[3]), source.frames([3])[0])


def test_image_size_resizes_before_stamping(query: FrameQuery) -> None:
    with ChatServer([Reply(answer("[0]"))]) as server:
        agent(server, image_size="64x48").select_frames(query, None)
    shapes = {decode(url).shape for url in server.requests[0].images()}
    assert shapes == {(48, 64, 3)}


@pytest.mark.parametrize(
    ("text", "expected_error"),
    [
        ('{"chain_of_thought": "hmm", "frame_indices": [1, 2', "no JSON object"),
        ('{"chain_of_thought": "all of them", "frame_indices": [1, 2, ...]}', "ellipsis"),
        ("I think it is frame three.", "no JSON object"),
        ('{"chain_of_thought": "x", "frame_indices": ["3"]}', "non-integer"),
    ],
    ids=["truncated-json", "ellipsis", "prose", "string-index"],
)
def test_unparsable_answers_are_response_errors(
    query: FrameQuery, text: str, expected_error: str
) -> None:
    with ChatServer([Reply(text)]) as server:
        result = agent(server).select_frames(query, None)
    assert len(server.requests) == 1  # a bad answer is not retried: the model gave it
    assert result.frame_indices is None
    assert result.response == text
    assert result.info["failure_mode"] == "response_error"
    assert expected_error in result.info["parse_error"]
    assert result.info["attempts"] == 1


def test_out_of_range_indices_are_kept_and_flagged(query: FrameQuery) -> None:
    with ChatServer([Reply(answer("[3, 99]"))]) as server:
        result = agent(server).select_frames(query, None)
    assert result.frame_indices == [3, 99]
    assert result.info["failure_mode"] == "out_of_bounds_pred"


def test_429_is_retried_after_retry_after(query: FrameQuery) -> None:
    replies = [Reply(status=429, headers={"Retry-After": "1"}), Reply(answer("[2]"))]
    with ChatServer(replies) as server:
        result = agent(server).select_frames(query, None)
    first, second = server.requests
    assert second.received - first.received >= 0.95  # waited as told, not the 10 ms backoff
    assert result.frame_indices == [2]
    assert result.info["attempts"] == 2
    assert result.info["retry_waits_s"][0] >= 1.0
    assert "failure_mode" not in result.info


def test_500_is_retried_with_backoff(query: FrameQuery) -> None:
    with ChatServer([Reply(status=500), Reply(status=503), Reply(answer("[4]"))]) as server:
        result = agent(server, max_retries=3).select_frames(query, None)
    assert len(server.requests) == 3
    assert result.frame_indices == [4]
    assert result.info["attempts"] == 3 and len(result.info["retry_waits_s"]) == 2
    # Exponential: the second wait's range [0.01, 0.02] starts where the first's ends.
    assert 0.005 <= result.info["retry_waits_s"][0] <= 0.01 <= result.info["retry_waits_s"][1]


def test_exhausted_retries_are_transient_never_an_answer(query: FrameQuery) -> None:
    with ChatServer([], default=Reply(status=502)) as server, pytest.raises(
        TransientError
    ) as caught:
        agent(server, max_retries=2).select_frames(query, None)
    assert len(server.requests) == 3  # first try + 2 retries
    assert caught.value.kind == "http_502"  # left for --resume: the server may recover
    assert "gave up after 3 attempts" in str(caught.value)


def test_client_errors_are_not_retried(query: FrameQuery) -> None:
    with ChatServer([], default=Reply(status=400)) as server:
        result = agent(server, max_retries=4).select_frames(query, None)
    assert len(server.requests) == 1
    assert result.info["error_kind"] == "http_400"
    assert result.info["failure_mode"] == "request_error"


def test_slow_reply_past_timeout_is_retried(query: FrameQuery) -> None:
    replies = [Reply(answer("[6]"), delay=3.0), Reply(answer("[7]"))]
    with ChatServer(replies) as server:
        start = time.monotonic()
        result = agent(server, timeout=0.5, max_retries=1).select_frames(query, None)
        elapsed = time.monotonic() - start
    assert result.frame_indices == [7]  # the slow answer was abandoned, the retry answered
    assert result.info["attempts"] == 2
    assert elapsed < 2.5  # did not wait for the slow reply


def test_timeouts_exhausted_record_timeout(query: FrameQuery) -> None:
    with ChatServer([], default=Reply(answer("[1]"), delay=2.0)) as server, pytest.raises(
        TransientError
    ) as caught:
        agent(server, timeout=0.3, max_retries=1).select_frames(query, None)
    assert len(server.requests) == 2
    assert caught.value.kind == "timeout" and caught.value.info["attempts"] == 2


def test_non_json_200_is_a_recorded_bad_response(query: FrameQuery) -> None:
    with ChatServer([Reply(raw=b"<html>gateway</html>")]) as server:
        result = agent(server).select_frames(query, None)
    assert len(server.requests) == 1
    assert result.info["error_kind"] == "bad_response"
    assert result.info["failure_mode"] == "request_error"


def test_connection_refused_is_retried_then_left_for_resume(query: FrameQuery) -> None:
    with socket.socket() as sock:  # a port that was free a moment ago: nobody listens there
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    vlm = VLMAgent("m", f"http://127.0.0.1:{port}/v1", backoff_base=0.01, max_retries=2)
    with pytest.raises(TransientError) as caught:
        vlm.select_frames(query, None)
    assert caught.value.kind == "connection"
    assert caught.value.info["attempts"] == 3


def test_cache_makes_a_rerun_free(query: FrameQuery, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    with ChatServer([Reply(answer("[3]"), prompt_tokens=777)]) as server:
        first = agent(server, cache_dir=cache).select_frames(query, None)
    assert len(server.requests) == 1 and first.info["cache_hit"] is False
    # A new agent on another server (another host of the same model): nothing is sent.
    with ChatServer([], default=Reply(status=400)) as other:
        second = agent(other, cache_dir=cache).select_frames(query, None)
        assert len(other.requests) == 0
        assert second.info["cache_hit"] is True
        assert second.frame_indices == [3] and second.response == first.response
        assert second.info["prompt_tokens"] == 777
        assert second.info["cache_key"] == first.info["cache_key"]
        # Any parameter that changes the answer changes the key.
        changed = agent(other, cache_dir=cache, temperature=0.7, max_retries=0)
        assert changed.select_frames(query, None).info["cache_hit"] is False
        assert len(other.requests) == 1
        moved = FrameQuery(
            "case-2",
            INSTRUCTION.replace("placed", "picked"),
            query.video_path,
            query.offered_frames,
            TIMES,
        )
        assert (
            agent(other, cache_dir=cache, max_retries=0)
            .select_frames(moved, None)
            .info["cache_hit"]
            is False
        )
        assert len(other.requests) == 2
        # Other frames (same instruction, same count) are other images: a miss too.
        shifted = tuple(min(i + 1, N - 1) for i in query.offered_frames)
        other_frames = FrameQuery("case-3", INSTRUCTION, query.video_path, shifted, TIMES)
        agent(other, cache_dir=cache, max_retries=0).select_frames(other_frames, None)
        assert len(other.requests) == 3


def test_failures_are_not_cached(query: FrameQuery, tmp_path: Path) -> None:
    with ChatServer([Reply(status=400), Reply(answer("[1]"))]) as server:
        failed = agent(server, cache_dir=tmp_path).select_frames(query, None)
        retried = agent(server, cache_dir=tmp_path).select_frames(query, None)
    assert failed.info["failure_mode"] == "request_error"
    assert retried.frame_indices == [1] and retried.info["cache_hit"] is False


def test_concurrency_limit_is_shared_by_threads(query: FrameQuery) -> None:
    def slow(request: object) -> Reply:
        return Reply(answer("[1]"), delay=0.3)

    results: list = []
    with ChatServer(slow) as server:
        vlm = agent(server, concurrency=2)
        questions = [
            FrameQuery(
                f"c{i}", f"{INSTRUCTION} #{i}", query.video_path, query.offered_frames, TIMES
            )
            for i in range(6)
        ]
        threads = [
            threading.Thread(target=lambda q=q: results.append(vlm.select_frames(q, None)))
            for q in questions
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=30)
    assert len(results) == 6 and all(r.frame_indices == [1] for r in results)
    assert len(server.requests) == 6
    assert server.max_in_flight == 2  # never more than the limit, and the limit is used


def test_manifest_has_model_prompt_hash_and_no_secret(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RB_TEST_KEY", "sk-secret-value")
    vlm = VLMAgent(
        "qwen2.5-vl-7b",
        "http://127.0.0.1:1/v1",
        api_key_env="RB_TEST_KEY",
        cache_dir=tmp_path,
        image_size=256,
    )
    manifest = vlm.manifest()
    path = Path(manifest["prompt"]["path"])
    assert manifest["model"] == "qwen2.5-vl-7b"
    assert manifest["prompt"]["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert manifest["prompt"]["name"] == "findingdory_frame_selection_v1"
    assert manifest["api_key_env"] == "RB_TEST_KEY" and manifest["image_size"] == 256
    assert "sk-secret-value" not in json.dumps(manifest)


def test_missing_api_key_variable_fails_at_construction(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RB_NOT_SET", raising=False)
    with pytest.raises(ValueError, match="RB_NOT_SET"):
        VLMAgent("m", api_key_env="RB_NOT_SET")


def test_goal_prefix_and_retry_after_forms() -> None:
    assert goal_text("Navigate to a bowl.") == "The robot's goal is: Navigate to a bowl."
    assert goal_text(INSTRUCTION) == INSTRUCTION
    now = datetime(2026, 1, 1, tzinfo=timezone.utc)
    assert parse_retry_after("7") == 7.0
    assert parse_retry_after(format_datetime(now + timedelta(seconds=30)), now) == 30.0
    assert parse_retry_after("soon") is None and parse_retry_after(None) is None


def test_a_cli_run_records_model_and_prompt_hash_in_its_manifest(tmp_path: Path) -> None:
    """`recallbench findingdory --agent vlm` against the server: the run manifest names the model
    and the prompt file's hash, which move the numbers."""
    from recallbench.cli import main
    from support.findingdory_suite import build_suite

    suite = build_suite(tmp_path / "suite")
    run = tmp_path / "run"
    with ChatServer([], default=Reply(answer("[3]"))) as server:
        argv = ["findingdory", "--data", str(suite), "--agent", "vlm", "--frames", "8",
                "--limit", "2", "--out", str(run), "--agent-arg", "model=test-vlm",
                "--agent-arg", f"base_url={server.base_url}"]
        assert main(argv) == 0
        assert len(server.requests) == 2
    recorded = json.loads((run / "manifest.json").read_text())["agent_manifest"]
    prompt = Path(recorded["prompt"]["path"])
    assert recorded["model"] == "test-vlm" and recorded["base_url"] == server.base_url
    assert recorded["prompt"]["sha256"] == hashlib.sha256(prompt.read_bytes()).hexdigest()


def test_settings_coerce_command_line_strings_and_refuse_a_missing_model() -> None:
    from recallbench.agents.chat_settings import ChatSettings

    s = ChatSettings(model="m", temperature="0.5", max_tokens="7", concurrency="2", api_key_env="")
    assert (s.temperature, s.max_tokens, s.concurrency, s.api_key_env) == (0.5, 7, 2, None)
    with pytest.raises(ValueError, match="model"):
        ChatSettings(model="")
    with pytest.raises(ValueError, match="concurrency"):
        ChatSettings(model="m", concurrency="0")
