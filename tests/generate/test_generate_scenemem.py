"""Generated SceneMem suites, end to end: generate with the CLI (real MuJoCo, real H.264), run
them through ``recallbench scenemem`` (privileged policy 100%, do-nothing 0%), regenerate for
determinism, kill a generation and resume it, and draw the frame strip."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from recallbench.benchmarks.scenemem.spec import VIDEO_NAMES, load_scenario
from recallbench.cli import main
from recallbench.errors import InputError
from recallbench.generate.scenemem import ScenememKnobs
from recallbench.generate.strip import render_strip
from recallbench.video.reader import count_frames

# small, fast scenarios: 2 pick-and-place tasks, 48x48 videos, no camera observations at eval
ARGS = ["--n", "2", "--seed", "5", "--tasks", "2", "--pick-place", "2", "--size", "48",
        "--no-camera-obs", "--workers", "2"]
DETERMINISTIC = ("eval_spec.json", "generation.json", "videos/subtasks.json",
                 "videos/base_poses.npy", "videos/trajectory.npz", "env/unified_model.xml",
                 "env/env_args.json", "env/ep_meta.json", "env/start_state.npy")
PRIVILEGED = "recallbench.agents.hierarchical:HierarchicalPrivileged"
DO_NOTHING = "recallbench.agents.scenemem_baselines:DoNothingPolicy"


def _generate(out: Path, *extra: str) -> int:
    return main(["generate", "scenemem", "--out", str(out), *ARGS, *extra])


@pytest.fixture(scope="module")
def suite(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("gen") / "suite"
    assert _generate(out) == 0
    return out


def _scenarios(root: Path) -> list[Path]:
    return sorted(p for p in root.iterdir() if p.name.startswith("combo_"))


@pytest.mark.slow
def test_suite_layout_and_probes(suite):
    dirs = _scenarios(suite)
    assert [d.name[:11] for d in dirs] == ["combo_0000_", "combo_0001_"]
    manifest = json.loads((suite / "suite.json").read_text())
    assert manifest["seed"] == 5 and manifest["knobs"]["tasks"] == 2 and manifest["complete"]
    assert manifest["packages"]["mujoco"]
    for d in dirs:
        scenario = load_scenario(d)  # the harness's own loader accepts it
        gen = json.loads((d / "generation.json").read_text())
        assert d.name == f"combo_{gen['index']:04d}_L{gen['layout']}_S{gen['style']}_{gen['seed']}"
        sub = json.loads((d / "videos" / "subtasks.json").read_text())
        frames = {count_frames(d / "videos" / v) for v in VIDEO_NAMES}
        assert frames == {sub["num_frames"]} and sub["fps"] == 20
        tasks = sub["tasks"]
        assert len(tasks) >= 2 and tasks[0]["start_frame"] == 0
        for a, b in zip(tasks, tasks[1:], strict=False):
            assert a["end_frame"] == b["start_frame"]
        assert sum(t["kind"] == "pick_place" and t["success"] for t in tasks) >= 1
        assert np.load(d / "videos" / "base_poses.npy").shape == (sub["num_frames"], 3)
        # the recorder noted every skill at the frame it ended
        events = sub["events"]
        assert {"navigate", "open_door", "pick", "place", "close_door"} <= {
            e["event"] for e in events}
        assert all(0 <= e["frame"] < sub["num_frames"] for e in events)
        assert [e["frame"] for e in events] == sorted(e["frame"] for e in events)
        args = json.loads((d / "env" / "env_args.json").read_text())
        assert args["env_name"] == "RecallbenchKitchen"
        assert "env_factory" not in args  # the built-in env takes robosuite's kwargs itself
        # every find_target probe names an object the video put into that fixture
        placed = {t["object"]: t["to"] for t in tasks if t["kind"] == "pick_place" and t["success"]}
        assert scenario.spec.tests
        for test in scenario.spec.tests:
            assert test.instruction == f"Show me where the {test.category} is placed."
            assert test.fixture.joint_names
            if test.task == "find_target":
                assert placed[test.object] == test.fixture.name
            else:
                assert test.object not in placed


@pytest.mark.slow
def test_probes_get_the_cards_budget_and_the_day_ends_away_from_the_last_task(suite):
    manifest = json.loads((suite / "suite.json").read_text())
    assert manifest["primary_metric"] == "first_open_success"
    for d in _scenarios(suite):
        assert {t.max_steps for t in load_scenario(d).spec.tests} == {1500}
        args = json.loads((d / "env" / "env_args.json").read_text())
        assert args["env_kwargs"]["arm_step"] == 0.0125  # PandaOmron's pace, rebuilt at eval
        sub = json.loads((d / "videos" / "subtasks.json").read_text())
        last_end = sub["tasks"][-1]["end_frame"]
        # after the last task the robot drives somewhere random in the kitchen, so memoryless
        # search (nearest fixture first) is not handed the fixture it filled last
        assert any(e["event"] == "navigate" and e["frame"] >= last_end for e in sub["events"])


def _run(suite: Path, policy: str, out: Path) -> dict:
    code = main(["scenemem", "--data_dir", str(suite), "--policy", policy, "--out", str(out),
                 "--workers", "2"])
    assert code == 0
    return json.loads(out.read_text())


@pytest.mark.slow
def test_privileged_policy_scores_100_and_do_nothing_0(suite, tmp_path):
    good = _run(suite, PRIVILEGED, tmp_path / "privileged.json")
    total = sum(len(json.loads((d / "eval_spec.json").read_text())["tests"])
                for d in _scenarios(suite))
    assert good["summary"] == {"total": total, "memory": total}
    none = _run(suite, DO_NOTHING, tmp_path / "nothing.json")
    assert none["summary"] == {"total": total, "memory": 0}


@pytest.mark.slow
def test_sink_probes_are_generated_and_passed_by_turning_the_handle(tmp_path):
    out = tmp_path / "sinks"
    assert main(["generate", "scenemem", "--out", str(out), "--n", "1", "--seed", "5",
                 "--tasks", "1", "--pick-place", "1", "--size", "32", "--no-camera-obs",
                 "--workers", "1", "--destinations", "sink"]) == 0
    (d,) = _scenarios(out)
    sub = json.loads((d / "videos" / "subtasks.json").read_text())
    (task,) = sub["tasks"]
    assert task["kind"] == "pick_place" and task["success"] and task["to_type"] == "sink"
    spec = json.loads((d / "eval_spec.json").read_text())
    sinks = [t for t in spec["tests"] if t["fixture"]["type"] == "sink"]
    # the privileged policy verified the probe (it passes by turning the handle past 0.5 rad)
    assert any(t["task"] == "find_target" and t["object"] == task["object"] for t in sinks)
    assert all(t["verified_steps"] > 0 for t in sinks)
    assert json.loads((d / "generation.json").read_text())["dropped_probes"] == 0
    good = _run(out, PRIVILEGED, tmp_path / "privileged.json")
    assert good["summary"] == {"total": len(spec["tests"]), "memory": len(spec["tests"])}


@pytest.mark.slow
def test_rerun_with_other_knobs_is_refused(suite, capsys):
    assert _generate(suite, "--idle", "3") == 2
    err = capsys.readouterr().err
    assert "suite.json" in err and "knobs" in err


def test_knobs_are_validated():
    with pytest.raises(ValueError, match="rooms"):
        ScenememKnobs(rooms=2)
    with pytest.raises(ValueError, match="pick_place"):
        ScenememKnobs(tasks=2, pick_place=3)
    with pytest.raises(ValueError, match="destinations"):
        ScenememKnobs(destinations=("bathtub",))


@pytest.fixture(scope="module")
def resumed(tmp_path_factory) -> tuple[Path, dict[str, float]]:
    """A generation killed (SIGKILL, whole process group) after its first scenario, then rerun."""
    out = tmp_path_factory.mktemp("gen") / "killed"
    cmd = [sys.executable, "-m", "recallbench.cli", "generate", "scenemem", "--out", str(out),
           *ARGS[:-1], "1"]  # one worker: scenario 1 starts after scenario 0 is complete
    proc = subprocess.Popen(cmd, start_new_session=True, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 300
        while not list(out.glob("combo_0000_*")) and time.monotonic() < deadline:
            assert proc.poll() is None, "generation ended before it could be killed"
            time.sleep(0.2)
        time.sleep(1.0)  # scenario 1 is under way
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    first = _scenarios(out)
    assert [d.name[:11] for d in first] == ["combo_0000_"]  # nothing half-written is visible
    stamps = {str(p): p.stat().st_mtime for p in first[0].rglob("*") if p.is_file()}
    assert _generate(out) == 0
    return out, stamps


@pytest.mark.slow
def test_killed_generation_resumes_without_redoing_finished_scenarios(resumed):
    out, stamps = resumed
    dirs = _scenarios(out)
    assert [d.name[:11] for d in dirs] == ["combo_0000_", "combo_0001_"]
    assert not list(out.glob(".tmp_*"))
    assert {p: Path(p).stat().st_mtime for p in stamps} == stamps  # scenario 0 untouched
    assert json.loads((out / "suite.json").read_text())["complete"]


@pytest.mark.slow
def test_same_seed_gives_identical_files(suite, resumed):
    out, _ = resumed
    a, b = _scenarios(suite), _scenarios(out)
    assert [d.name for d in a] == [d.name for d in b]
    for da, db in zip(a, b, strict=True):
        for rel in DETERMINISTIC:
            assert (da / rel).read_bytes() == (db / rel).read_bytes(), f"{db.name}/{rel} differs"
    assert (suite / "suite.json").read_bytes() == (out / "suite.json").read_bytes()


@pytest.mark.slow
def test_frame_strip_shows_each_target_probe(suite, tmp_path):
    d = _scenarios(suite)[0]
    spec = json.loads((d / "eval_spec.json").read_text())
    targets = [t for t in spec["tests"] if t["task"] == "find_target"]
    path = render_strip(d, tmp_path / "strip.png", per_probe=4, thumb=64)
    img = np.asarray(Image.open(path).convert("RGB")).astype(int)
    row_h = 2 * (64 + 4) + 4 + 18
    assert img.shape[0] == 28 + row_h * len(targets)
    # the thumbnails are real, changing video frames, not blank tiles
    tiles = [img[28 + 4:28 + 4 + 64, 300 + j * 68:300 + j * 68 + 64] for j in range(4)]
    assert all(t.std() > 5 for t in tiles)
    assert any(np.abs(tiles[0] - t).mean() > 2 for t in tiles[1:])
    with pytest.raises(InputError, match="eval_spec.json"):
        render_strip(tmp_path, tmp_path / "x.png")
