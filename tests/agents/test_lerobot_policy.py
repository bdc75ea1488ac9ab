"""A LeRobot ACT policy with random weights, built and saved by the test (no download), run
through `recallbench scenemem --policy lerobot:FOLDER`; and its image features fed from the
built-in world's cameras. Runs in .venv-lerobot (scripts/test.sh)."""

from __future__ import annotations

import json
import subprocess

import numpy as np
import pytest

from support.lerobot_policy import save_act
from support.policy_server import ENV, RECALLBENCH, run_records
from support.scenemem_fixtures.build import MINI_FACTORY, mini_scenario, mini_test

pytest.importorskip("lerobot")
pytestmark = pytest.mark.lerobot


@pytest.mark.slow
def test_an_act_checkpoint_runs_end_to_end_twice_with_identical_results(tmp_path):
    folder = save_act(tmp_path / "act", {"observation.state": ("STATE", (3,)),
                                         "observation.environment_state": ("ENV", (3,))}, 4)
    obs_map = tmp_path / "map.json"
    obs_map.write_text(json.dumps({"observation.state": ["base_pos"],
                                   "observation.environment_state": "base_pos"}))
    tests = [mini_test(f"t{i}", f"obj{i}", "cabinet" if i % 2 else "drawer") for i in range(4)]
    mini_scenario(tmp_path / "data" / "combo_007_L3_S4_0001", tests, base_xy=(1.0, 0.5))
    for name in ("a", "b"):
        proc = subprocess.run(
            [RECALLBENCH, "scenemem", "--data_dir", str(tmp_path / "data"), "--policy",
             f"lerobot:{folder}", "--policy-arg", f"obs_map={obs_map}", "--max_steps", "12",
             "--workers", "2", "--env_factory", MINI_FACTORY,
             "--out", str(tmp_path / f"{name}.json")],
            env=ENV, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
    a, b = run_records(tmp_path / "a_run"), run_records(tmp_path / "b_run")
    assert a == b and len(a) == 4
    assert all(r["error"] is None and r["steps"] == 12 for r in a.values()), a
    moves = {json.dumps(r["trace"], sort_keys=True) for r in a.values()}
    assert len(moves) > 1  # the policy's actions moved the robot differently per test
    assert (tmp_path / "a.json").read_text() == (tmp_path / "b.json").read_text()
    manifest = json.loads((tmp_path / "a_run" / "manifest.json").read_text())
    assert manifest["policy"]["kind"] == "lerobot" and manifest["policy"]["type"] == "act"
    assert manifest["policy_simulator_access"] is False


@pytest.mark.slow
def test_image_features_come_from_the_built_in_worlds_cameras(tmp_path):
    from recallbench.agents.lerobot_policy import LeRobotPolicy
    from recallbench.world.env import make_env

    folder = save_act(tmp_path / "act", {  # the env camera's own name, and the export's
        "observation.images.robot0_agentview_left": ("VISUAL", (3, 32, 32)),
        "observation.images.agentview_left": ("VISUAL", (3, 32, 32)),
        "observation.state": ("STATE", (13,))}, 5)  # the export's state: 3 + 3 + 5 + 2
    env = make_env("RecallbenchKitchen", seed=0, cameras=["robot0_agentview_left"],
                   camera_width=48, camera_height=48)
    try:
        env.reset()
        policy = LeRobotPolicy(str(folder))
        policy.reset("Show me where the bowl is placed.", [])
        actions = [policy.get_action(env) for _ in range(3)]
    finally:
        env.close()
    assert all(a.shape == (5,) and np.all(np.isfinite(a)) for a in actions)


def test_a_bad_folder_or_map_is_one_line(tmp_path):
    from recallbench.agents.lerobot_policy import check_lerobot

    with pytest.raises(ValueError, match="no config.json there"):
        check_lerobot(str(tmp_path), {})
    folder = save_act(tmp_path / "act", {"observation.environment_state": ("ENV", (3,))}, 2)
    bad = tmp_path / "map.json"
    bad.write_text(json.dumps({"observation.wrist": "x"}))
    with pytest.raises(ValueError, match=r"unknown feature\(s\) \['observation.wrist'\]"):
        check_lerobot(str(folder), {"obs_map": str(bad)})
    with pytest.raises(ValueError, match="device=tpu"):
        check_lerobot(str(folder), {"device": "tpu"})
    # a feature outside recallbench's LeRobot naming, unmapped: one line before any work
    with pytest.raises(ValueError, match=r"\['observation.environment_state'\] are not in "
                       "recallbench's LeRobot naming") as refused:
        check_lerobot(str(folder), {})
    assert "\n" not in str(refused.value)
