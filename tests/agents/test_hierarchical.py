"""The hierarchical SceneMem agent: memory modules choose the fixture, the oracle's skills drive
there and open it through the 12-dim actions, in the harness's rollout and its CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from recallbench.agents.hierarchical import (
    HierarchicalAgent,
    HierarchicalSubtasks,
    HierarchicalVLM,
    PrivilegedChooser,
    SubtaskTextChooser,
    VLMChooser,
    instruction_category,
    mention,
    parse_fixture_answer,
    read_subtask_captions,
)
from support.chat_server import ChatServer, Recorded, Reply
from support.kitchen import rate, rollouts

FIXTURES = [
    {"name": "microwave", "type": "microwave", "doors": [{}]},
    {"name": "toaster_oven", "type": "toaster_oven", "doors": [{}]},
    {"name": "oven", "type": "oven", "doors": [{}]},
    {"name": "fridge", "type": "fridge", "doors": [{}]},
    {"name": "counter_1", "type": "counter"},
]


def test_caption_parsing_and_fixture_mentions(tmp_path):
    assert instruction_category("Show me where the cereal box is placed.") == "cereal box"
    assert instruction_category("Put the mug back where it was.") == "mug"
    assert instruction_category("Open the fridge.") is None
    text = "Pick the bowl from the fridge and place it in the toaster oven."
    ends = {f["name"]: mention(text, f) for f in FIXTURES}
    assert ends["toaster_oven"] > ends["oven"] > (-1, 0)  # same end, longer name wins
    assert ends["toaster_oven"] > ends["fridge"]  # the destination is named last
    assert ends["microwave"] == (-1, 0)
    for payload in ({"tasks": [{"instruction": "a"}, {"caption": "b"}]}, ["a", "b"],
                    {"subtasks": ["a", {"text": "b"}]}):
        path = tmp_path / "s.json"
        path.write_text(json.dumps(payload))
        assert read_subtask_captions(path) == ["a", "b"]


def test_subtask_memory_answers_from_captions(kitchen_data):
    videos = [str(p) for p in sorted((next(kitchen_data.iterdir()) / "videos").glob("*.mp4"))]
    chooser = SubtaskTextChooser()
    bowl = chooser.choose("Show me where the bowl is placed.", videos, FIXTURES)
    assert bowl.fixture == "microwave"  # not the fridge it came from
    assert chooser.choose("Show me where the mug is placed.", videos, FIXTURES).fixture == "fridge"
    unknown = chooser.choose("Show me where the kettle is placed.", videos, FIXTURES)
    assert unknown.fixture is None and unknown.info["hits"] == []
    assert SubtaskTextChooser().choose("x", [], FIXTURES).fixture is None
    with pytest.raises(ValueError, match="answerer"):
        SubtaskTextChooser(answerer="llm")


def test_privileged_memory_reads_the_spec(kitchen_data):
    videos = [str(p) for p in sorted((next(kitchen_data.iterdir()) / "videos").glob("*.mp4"))]
    chooser = PrivilegedChooser()
    assert chooser.choose("Show me where the mug is placed.", videos, FIXTURES).fixture == "fridge"
    miss = chooser.choose("Show me where the kettle is placed.", videos, FIXTURES)
    assert miss.fixture is None and "no test" in miss.info["error"]


def test_fixture_answers_are_parsed_without_eval():
    names = ["microwave", "fridge"]
    assert parse_fixture_answer('{"chain_of_thought": "x", "fixture": "fridge"}', names) == (
        "fridge", None)
    assert parse_fixture_answer('```json\n{"fixture": "microwave"}\n```', names)[0] == "microwave"
    assert "not JSON" in parse_fixture_answer("fixture: fridge", names)[1]
    assert "unknown fixture" in parse_fixture_answer('{"fixture": "oven"}', names)[1]
    assert "no string field" in parse_fixture_answer('{"fixture": 3}', names)[1]
    assert "not JSON" in parse_fixture_answer("__import__('os')", names)[1]


def test_hierarchical_text_memory_opens_the_right_fixtures(scenario):
    agent = HierarchicalSubtasks()
    outcomes = rollouts(scenario, agent)
    assert rate(outcomes) == 1.0
    assert agent.last_choice is not None and agent.last_choice.fixture == "fridge"
    # the choice reaches the run log through the outcome
    assert [o.policy_info["fixture"] for o in outcomes.values()][-1] == "fridge"
    assert all(o.policy_info["memory"] == "subtasks" for o in outcomes.values())


def test_a_memory_that_knows_nothing_idles_and_fails(scenario):
    class Forgetful:
        def choose(self, instruction, video_paths, fixtures):
            from recallbench.agents.hierarchical import Choice

            return Choice(None, {"error": "no idea"})

    outcomes = rollouts(scenario, HierarchicalAgent(Forgetful()))
    assert rate(outcomes) == 0.0 and all(o.error is None for o in outcomes.values())


def _vlm_reply(request: Recorded) -> Reply:
    text = request.text()
    fixture = "microwave" if "bowl" in text else "fridge"
    return Reply(content=json.dumps({"chain_of_thought": "saw it", "fixture": fixture}))


def test_vlm_memory_sends_frames_and_parses_the_answer(kitchen_data, tmp_path):
    videos = [str(p) for p in sorted((next(kitchen_data.iterdir()) / "videos").glob("*.mp4"))]
    with ChatServer(_vlm_reply) as server:
        chooser = VLMChooser("test-vlm", base_url=server.base_url, frames_per_video=4,
                             image_size=64, cache_dir=str(tmp_path / "cache"), max_retries=0)
        choice = chooser.choose("Show me where the bowl is placed.", videos, FIXTURES)
        assert choice.fixture == "microwave" and not choice.info["cache_hit"]
        (req,) = server.requests
        assert len(req.images()) == 3 * 4  # four frames of each of the three videos
        assert "microwave, toaster_oven, oven, fridge" in req.text()  # doors only, no counter
        assert "Show me where the bowl is placed." in req.text()
        again = chooser.choose("Show me where the bowl is placed.", videos, FIXTURES)
        assert again.fixture == "microwave" and again.info["cache_hit"]
        assert len(server.requests) == 1  # the rerun cost nothing
    with ChatServer([Reply(content="the microwave!")]) as server:
        bad = VLMChooser("m", base_url=server.base_url, frames_per_video=2, max_retries=0)
        choice = bad.choose("Show me where the bowl is placed.", videos, FIXTURES)
        assert choice.fixture is None and choice.info["failure_mode"] == "response_error"
    with ChatServer([], default=Reply(status=500, content="boom")) as server:
        down = VLMChooser("m", base_url=server.base_url, frames_per_video=2, max_retries=0)
        choice = down.choose("Show me where the bowl is placed.", videos, FIXTURES)
        assert choice.fixture is None and choice.info["failure_mode"] == "request_error"


def test_hierarchical_vlm_in_rollouts(scenario, monkeypatch):
    with ChatServer(_vlm_reply) as server:
        monkeypatch.setenv("RECALLBENCH_VLM_MODEL", "test-vlm")
        monkeypatch.setenv("RECALLBENCH_VLM_BASE_URL", server.base_url)
        outcomes = rollouts(scenario, HierarchicalVLM())
        assert rate(outcomes) == 1.0 and len(server.requests) == 2
    monkeypatch.delenv("RECALLBENCH_VLM_MODEL")
    with pytest.raises(ValueError, match="RECALLBENCH_VLM_MODEL"):
        HierarchicalVLM()


def test_controller_needs_the_builtin_world():
    agent = HierarchicalSubtasks()
    agent.reset("Show me where the bowl is placed.", [])
    with pytest.raises(TypeError, match="built-in world"):
        agent.get_action(object())


@pytest.mark.embeddings
@pytest.mark.slow
def test_embedding_memory_retrieves_the_caption(kitchen_data):
    from recallbench.agents.embeddings import embeddings_available

    if not embeddings_available():
        pytest.skip("embeddings extra not installed")
    videos = [str(p) for p in sorted((next(kitchen_data.iterdir()) / "videos").glob("*.mp4"))]
    chooser = SubtaskTextChooser(answerer="embedding")
    choice = chooser.choose("Show me where the bowl is placed.", videos, FIXTURES)
    assert choice.fixture == "microwave", choice.info
    assert len(choice.info["similarities"]) == 3


@pytest.mark.slow
def test_runs_through_recallbench_scenemem_like_any_policy(kitchen_data, tmp_path):
    out = tmp_path / "results.json"
    proc = subprocess.run(
        [str(Path(sys.executable).with_name("recallbench")), "scenemem",
         "--data_dir", str(kitchen_data),
         "--policy", "recallbench.agents.hierarchical:HierarchicalSubtasks", "--out", str(out),
         "--workers", "1"],
        capture_output=True, text=True, timeout=300,
        env={**os.environ, "MUJOCO_GL": os.environ.get("MUJOCO_GL", "egl")},
    )
    assert proc.returncode == 0, proc.stderr
    results = json.loads(out.read_text())
    assert results["summary"] == {"total": 2, "memory": 2}

